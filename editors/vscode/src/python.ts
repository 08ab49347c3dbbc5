// The interpreter the Python extension (ms-python.python) has selected, through its public API.

import * as vscode from "vscode";

const PYTHON_EXTENSION = "ms-python.python";

/** The parts of the Python extension's API used here (`environments`, and the older `settings`). */
interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
    resolveEnvironment(
      environment: { path: string } | string,
    ): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
  };
  settings?: {
    getExecutionDetails?(resource?: vscode.Uri): { execCommand?: string[] } | undefined;
  };
}

/** `[python, ...prefix]` as the Python extension runs it, or undefined (not installed, none selected). */
export async function selectedInterpreter(
  resource: vscode.Uri | undefined,
  log: vscode.LogOutputChannel,
): Promise<string[] | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION);
  if (!extension) {
    return undefined;
  }
  try {
    const api = extension.isActive ? extension.exports : await extension.activate();
    const active = api?.environments?.getActiveEnvironmentPath(resource);
    if (active) {
      const resolved = await api.environments?.resolveEnvironment(active);
      const executable = resolved?.executable?.uri?.fsPath;
      if (executable) {
        return [executable];
      }
    }
    const command = api?.settings?.getExecutionDetails?.(resource)?.execCommand;
    return command?.length ? [...command] : undefined;
  } catch (error) {
    log.warn(`The Python extension did not say which interpreter is selected: ${String(error)}`);
    return undefined;
  }
}

/** Calls `listener` when the Python extension's selected interpreter changes (nothing without it). */
export async function onDidChangeInterpreter(
  listener: () => void,
  log: vscode.LogOutputChannel,
): Promise<vscode.Disposable> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION);
  try {
    const api = extension && (extension.isActive ? extension.exports : await extension.activate());
    const event = api?.environments?.onDidChangeActiveEnvironmentPath;
    if (event) {
      return event(() => {
        log.info("The Python extension selected another interpreter: restarting the server.");
        listener();
      });
    }
  } catch (error) {
    log.warn(`The Python extension's interpreter changes are not followed: ${String(error)}`);
  }
  return { dispose: () => undefined };
}
