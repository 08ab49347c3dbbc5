// Activation: find the server, start the client, keep the status bar and the commands in step.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import { LanguageClient, State } from "vscode-languageclient/node";
import { artifactsOf, lensAt } from "./caseArtifacts";
import { CASE_COMMAND, joinArgv } from "./caseCommandLine";
import { createClient, handlesDocument, SECTION } from "./client";
import { DocumentInfoItem } from "./documentInfoItem";
import { onDidChangeInterpreter, selectedInterpreter } from "./python";
import {
  Attempt,
  Candidate,
  describeAttempts,
  expandServerPath,
  ImportStrategy,
  notFoundMessage,
  pipInstallCommand,
  resolveServer,
  Resolution,
  ResolutionEnvironment,
  ResolutionSettings,
  runProcess,
  usesBundled,
  whichOnPath,
} from "./serverResolution";
import { RESTART_SETTINGS } from "./settingsMapping";
import { startWhenNeeded } from "./startGate";
import { ServerState, ServerStatus } from "./status";

const INSTALL_WITH_PIP = "Install with pip";
const RESTART_DELAY_MS = 300;
const OPEN_SETTINGS = "Open settings";
/** The `workspaceContains` activation glob of package.json. */
const WORKSPACE_FIXTURES = "**/evals/**/*.json";

/** A notification the extension showed (kept for the integration tests and for `api`). */
export interface ShownNotification {
  message: string;
  items: string[];
}

/** What `activate` returns: the state other extensions (and our tests) can read. */
export interface EvalfixApi {
  readonly state: ServerState;
  readonly version: string | undefined;
  readonly onDidChangeState: vscode.Event<ServerState>;
  readonly notifications: readonly ShownNotification[];
  readonly client: LanguageClient | undefined;
  /** How the running server was started (undefined while none runs). */
  readonly server: Candidate | undefined;
  /** The active file's status item: what it shows (undefined while hidden), and whether the server
   * answered `evalfix/documentInfo` with MethodNotFound. */
  /** Whether the client takes `document` (the server starts for the first one it takes). */
  handles(document: vscode.TextDocument): boolean;
  readonly documentItem: {
    readonly shown: { text: string; tooltip: string } | undefined;
    readonly serverLacksRequest: boolean;
  };
  restart(): Promise<void>;
}

class EvalfixExtension implements vscode.Disposable {
  readonly log = vscode.window.createOutputChannel("evalfix-ls", { log: true });
  readonly status = new ServerStatus();
  readonly documentInfo = new DocumentInfoItem(this.log);
  readonly notifications: ShownNotification[] = [];
  client: LanguageClient | undefined;
  server: Candidate | undefined;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly extensionPath: string) {}

  /** Start/stop/restart run one after the other, never interleaved. */
  restart(): Promise<void> {
    this.queue = this.queue.then(async () => {
      await this.stopClient();
      await this.startClient();
    });
    return this.queue;
  }

  async dispose(): Promise<void> {
    await this.queue;
    await this.stopClient();
    this.documentInfo.dispose();
    this.status.dispose();
    this.log.dispose();
  }

  private async startClient(): Promise<void> {
    this.status.set("starting", "looking for the server");
    const resource = vscode.window.activeTextEditor?.document.uri ?? vscode.workspace.workspaceFolders?.[0]?.uri;
    const interpreter = await selectedInterpreter(resource, this.log);
    const settings = this.resolutionSettings();
    const environment = this.environment(interpreter);
    if (settings.importStrategy === "useBundled" && !environment.bundledLauncher) {
      this.log.info("This package carries no bundled server (the universal .vsix): using the environment's.");
    }
    const resolution = await resolveServer(settings, environment);
    this.log.info(`Looking for the server:\n${describeAttempts(resolution.attempts).join("\n")}`);
    if (!resolution.found) {
      this.status.set("failed", "server not found");
      this.notifyNotFound(resolution.attempts, usesBundled(settings, environment), interpreter);
      return;
    }
    this.warnIfSettingSkipped(resolution);
    await this.launch(resolution);
  }

  private async launch(resolution: Extract<Resolution, { found: true }>): Promise<void> {
    const { candidate } = resolution;
    this.status.set("starting", `${candidate.label}`, resolution.version);
    const client = createClient(candidate, this.log);
    this.client = client;
    this.server = candidate;
    client.onDidChangeState(({ newState }) => {
      if (newState === State.Stopped && this.client === client && this.status.state === "ready") {
        this.status.set("failed", "the server stopped; see the output", this.status.version);
      }
    });
    try {
      await client.start();
    } catch (error) {
      this.log.error(`The server did not start: ${String(error)}`);
      this.client = undefined;
      this.server = undefined;
      this.status.set("failed", "the server did not start; see the output");
      return;
    }
    const info = client.initializeResult?.serverInfo;
    const commands = client.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
    await vscode.commands.executeCommand("setContext", "evalfix.caseCommandAvailable", commands.includes(CASE_COMMAND));
    this.status.set("ready", candidate.label, info?.version ?? resolution.version);
    this.documentInfo.attach(client);
    this.log.info(`Started ${info?.name ?? "evalfix-ls"} ${info?.version ?? resolution.version}: ${candidate.label}`);
  }

  private async stopClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.server = undefined;
    this.documentInfo.attach(undefined);
    if (client) {
      try {
        await client.stop(5000);
      } catch (error) {
        this.log.warn(`Stopping the server: ${String(error)}`);
      }
      this.status.set("stopped", "");
    }
  }

  private resolutionSettings(): ResolutionSettings {
    const config = vscode.workspace.getConfiguration(SECTION);
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    return {
      serverPath: expandServerPath(config.get<string>("server.path", ""), folder, os.homedir()),
      serverArgs: config.get<string[]>("server.args", []),
      importStrategy: config.get<ImportStrategy>("importStrategy", "useBundled"),
    };
  }

  private environment(interpreter: string[] | undefined): ResolutionEnvironment {
    return {
      run: (command, args) => runProcess(command, args),
      which: (name) => whichOnPath(name),
      pythonInterpreter: async () => interpreter,
      bundledLauncher: this.bundledLauncher(),
    };
  }

  /** bundled/tool/launch.py in a platform package (one with bundled/libs/evalfix_ls), else undefined. */
  private bundledLauncher(): string | undefined {
    const bundled = path.join(this.extensionPath, "bundled");
    return fs.existsSync(path.join(bundled, "libs", "evalfix_ls"))
      ? path.join(bundled, "tool", "launch.py")
      : undefined;
  }

  private warnIfSettingSkipped(resolution: Extract<Resolution, { found: true }>): void {
    const failed = resolution.attempts.find((attempt) => attempt.candidate.source === "setting" && !attempt.version);
    if (failed) {
      this.show(
        "warn",
        `evalfix-ls: ${failed.candidate.label} did not work (${failed.failure}); using ${resolution.candidate.label}.`,
        [],
      );
    }
  }

  private notifyNotFound(attempts: Attempt[], bundled: boolean, interpreter: string[] | undefined): void {
    const install = pipInstallCommand(interpreter);
    const message = notFoundMessage(attempts, bundled, joinArgv(install));
    this.log.error(message);
    // With the bundled server a pip install would not help: the interpreter is what is missing.
    const items = bundled ? [OPEN_SETTINGS] : [INSTALL_WITH_PIP, OPEN_SETTINGS];
    void this.show("error", message, items).then((choice) => {
      if (choice === INSTALL_WITH_PIP) {
        const terminal = vscode.window.createTerminal({ name: "evalfix-ls: pip install" });
        terminal.show();
        terminal.sendText(joinArgv(install));
      } else if (choice === OPEN_SETTINGS) {
        // The Workspace tab when a folder is open: in a remote window the User tab hides
        // machine-overridable settings such as evalfix.server.path.
        const settings = vscode.workspace.workspaceFolders?.length
          ? "workbench.action.openWorkspaceSettings"
          : "workbench.action.openSettings";
        void vscode.commands.executeCommand(settings, { query: "evalfix.server" });
      }
    });
  }

  private show(kind: "error" | "warn", message: string, items: string[]): Thenable<string | undefined> {
    this.notifications.push({ message, items });
    return kind === "error"
      ? vscode.window.showErrorMessage(message, ...items)
      : vscode.window.showWarningMessage(message, ...items);
  }
}

let active: EvalfixExtension | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<EvalfixApi> {
  const extension = new EvalfixExtension(context.extensionPath);
  active = extension;
  // Settings arrive in bursts (typing a path in the Settings editor), and the client itself sends
  // didChangeConfiguration for the same event: restart once, after both.
  let pendingRestart: NodeJS.Timeout | undefined;
  const restartSoon = () => {
    clearTimeout(pendingRestart);
    pendingRestart = setTimeout(() => void extension.restart(), RESTART_DELAY_MS);
  };
  context.subscriptions.push(
    vscode.commands.registerCommand("evalfix.restart", () => extension.restart()),
    vscode.commands.registerCommand("evalfix.showOutput", () => extension.log.show()),
    vscode.commands.registerCommand("evalfix.runCase", () => runCaseAtCursor(extension)),
    vscode.commands.registerCommand("evalfix.openCaseArtifacts", () => openCaseArtifacts(extension)),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (RESTART_SETTINGS.some((setting) => event.affectsConfiguration(setting))) {
        restartSoon();
      }
    }),
    { dispose: () => clearTimeout(pendingRestart) },
    // The interpreter picked in the Python extension may be the one that runs the server.
    await onDidChangeInterpreter(restartSoon, extension.log),
  );
  context.subscriptions.push(
    await startWhenNeeded<vscode.TextDocument>({
      workspaceHasFixtures: async () =>
        (await vscode.workspace.findFiles(WORKSPACE_FIXTURES, "**/node_modules/**", 1)).length > 0,
      openDocuments: () => vscode.workspace.textDocuments,
      handles: handlesDocument,
      onDidOpen: (listener) => vscode.workspace.onDidOpenTextDocument(listener),
      start: () => extension.restart(),
      log: (message) => extension.log.info(message),
    }),
  );
  return {
    get state() {
      return extension.status.state;
    },
    get version() {
      return extension.status.version;
    },
    onDidChangeState: extension.status.onDidChange,
    notifications: extension.notifications,
    get client() {
      return extension.client;
    },
    get server() {
      return extension.server;
    },
    documentItem: extension.documentInfo,
    handles: handlesDocument,
    restart: () => extension.restart(),
  };
}

/** The command palette's "run the selected case": the server's case code lens at the cursor. */
async function runCaseAtCursor(extension: EvalfixExtension): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || !extension.client) {
    return;
  }
  const lenses =
    (await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", editor.document.uri)) ??
    [];
  const line = editor.selection.active.line;
  const caseLenses = lenses.filter((lens) => lens.command?.command === CASE_COMMAND);
  // The lens of the case the cursor is in: the last one starting at or above the cursor.
  const lens = caseLenses.filter((candidate) => candidate.range.start.line <= line).pop() ?? caseLenses[0];
  if (!lens?.command) {
    void vscode.window.showInformationMessage("evalfix-ls: no case to run here.");
    return;
  }
  await vscode.commands.executeCommand(lens.command.command, ...(lens.command.arguments ?? []));
}

/** The last run's `assistant.md` of the case at the cursor in an editor, its `outputs/` folder
 * revealed in the explorer (from the case's result lens, which the server computes). */
async function openCaseArtifacts(extension: EvalfixExtension): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || !extension.client) {
    return;
  }
  const lenses =
    (await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", editor.document.uri)) ??
    [];
  const found = lensAt(
    lenses.map((lens) => ({
      line: lens.range.start.line,
      command: lens.command?.command,
      arguments: lens.command?.arguments,
    })),
    editor.selection.active.line,
  );
  const artifacts = artifactsOf(found?.arguments);
  if (!artifacts.files.length && !artifacts.folders.length) {
    void vscode.window.showInformationMessage("evalfix-ls: no run result for this case.");
    return;
  }
  for (const folder of artifacts.folders) {
    await vscode.commands.executeCommand("revealInExplorer", vscode.Uri.parse(folder));
  }
  for (const file of artifacts.files) {
    await vscode.window.showTextDocument(vscode.Uri.parse(file), {
      preview: true,
      viewColumn: vscode.ViewColumn.Beside,
    });
  }
}

/** Returning the promise lets VS Code wait for the server's shutdown. */
export function deactivate(): Promise<void> | undefined {
  const extension = active;
  active = undefined;
  return extension?.dispose();
}
