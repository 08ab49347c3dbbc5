// Finding the evalfix-ls server: the setting; then, in a platform package with importStrategy
// `useBundled`, the bundled server run by the Python extension's interpreter or python3 (`py -3` on
// Windows); otherwise the environment's: the Python extension's interpreter, then PATH.
// Plain Node (no `vscode` import) so that the order, the version check and the report of what was
// tried are unit-tested without an editor.

import { execFile } from "node:child_process";
import { constants as fsConstants, promises as fs } from "node:fs";
import * as path from "node:path";

export type CandidateSource = "setting" | "bundled" | "python" | "path";

/** One way of starting the server: `command ...args` (the server itself, stdio is its default). */
export interface Candidate {
  source: CandidateSource;
  command: string;
  args: string[];
  /** What a user reads in the output channel, e.g. "evalfix.server.path (/x/evalfix-ls)". */
  label: string;
}

export interface Attempt {
  candidate: Candidate;
  /** The version the server printed, when it answered like evalfix-ls. */
  version?: string;
  /** Why this candidate was not used. */
  failure?: string;
}

export type Resolution =
  { found: true; candidate: Candidate; version: string; attempts: Attempt[] } | { found: false; attempts: Attempt[] };

export interface ProbeResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** Set when the process could not be started or did not finish in time. */
  error?: string;
}

/** What resolution needs from the outside world (injected in unit tests). */
export interface ResolutionEnvironment {
  /** Runs `command ...args` and collects its output. */
  run(command: string, args: string[]): Promise<ProbeResult>;
  /** The executable named `name` on PATH, if any. */
  which(name: string): Promise<string | undefined>;
  /** The interpreter command the Python extension selected (e.g. ["/venv/bin/python"]), if any. */
  pythonInterpreter(): Promise<string[] | undefined>;
  /** bundled/tool/launch.py when this package carries the server (a platform package). */
  bundledLauncher?: string;
  platform?: NodeJS.Platform;
}

/** `useBundled`: the server the platform package carries; `fromEnvironment`: the one installed. */
export type ImportStrategy = "useBundled" | "fromEnvironment";

export interface ResolutionSettings {
  serverPath: string;
  serverArgs: string[];
  importStrategy?: ImportStrategy;
}

export const SERVER_EXECUTABLE = "evalfix-ls";
export const SERVER_MODULE = "evalfix_ls";
const VERSION_LINE = /^evalfix-ls\s+(\S+)/m;

/** `evalfix-ls 0.1.0` -> `0.1.0`; undefined when the output is not evalfix-ls's. */
export function parseVersion(output: string): string | undefined {
  return VERSION_LINE.exec(output.trim())?.[1];
}

/** The candidates in order; the PATH and Python ones are looked up lazily by `resolveServer`. */
export function settingCandidate(settings: ResolutionSettings): Candidate | undefined {
  const command = settings.serverPath.trim();
  if (!command) {
    return undefined;
  }
  return {
    source: "setting",
    command,
    args: [...settings.serverArgs],
    label: `evalfix.server.path (${command})`,
  };
}

export function pythonCandidate(interpreter: string[]): Candidate {
  const [command, ...prefix] = interpreter;
  return {
    source: "python",
    command,
    args: [...prefix, "-m", SERVER_MODULE],
    label: `the Python extension's interpreter (${[command, ...prefix, "-m", SERVER_MODULE].join(" ")})`,
  };
}

/** Asks a candidate for `--version`; a candidate is good only when it prints evalfix-ls's line. */
export async function probe(env: ResolutionEnvironment, candidate: Candidate): Promise<Attempt> {
  const result = await env.run(candidate.command, [...candidate.args, "--version"]);
  if (result.error) {
    return { candidate, failure: result.error };
  }
  const version = parseVersion(result.stdout) ?? parseVersion(result.stderr);
  if (result.exitCode === 0 && version) {
    return { candidate, version };
  }
  const said = firstLine(result.stderr) || firstLine(result.stdout) || "no output";
  return { candidate, failure: `\`--version\` exited with ${result.exitCode}: ${said}` };
}

export async function resolveServer(settings: ResolutionSettings, env: ResolutionEnvironment): Promise<Resolution> {
  const attempts: Attempt[] = [];
  const tryCandidate = async (candidate: Candidate): Promise<Resolution | undefined> => {
    const attempt = await probe(env, candidate);
    attempts.push(attempt);
    return attempt.version ? { found: true, candidate, version: attempt.version, attempts } : undefined;
  };
  const fromSetting = settingCandidate(settings);
  const found = fromSetting && (await tryCandidate(fromSetting));
  if (found) {
    return found;
  }
  const search = usesBundled(settings, env) ? bundledCandidates : environmentCandidates;
  for await (const next of search(env, env.bundledLauncher ?? "")) {
    if (!("command" in next)) {
      attempts.push(next);
      continue;
    }
    const resolved = await tryCandidate(next);
    if (resolved) {
      return resolved;
    }
  }
  return { found: false, attempts };
}

/** Whether the bundled server is the one to look for (a platform package, not `fromEnvironment`). */
export function usesBundled(settings: ResolutionSettings, env: ResolutionEnvironment): boolean {
  return settings.importStrategy !== "fromEnvironment" && Boolean(env.bundledLauncher);
}

/** Each candidate to probe, or an attempt that failed before any probe (nothing to run). */
type Step = Candidate | Attempt;

/** The bundled server, run by the Python extension's interpreter, then by python3 (`py -3`). */
async function* bundledCandidates(env: ResolutionEnvironment, launcher: string): AsyncGenerator<Step> {
  const selected = await env.pythonInterpreter();
  if (selected?.length) {
    yield bundledCandidate(selected, launcher, "the Python extension's interpreter");
  } else {
    yield noInterpreterSelected("bundled");
  }
  const windows = (env.platform ?? process.platform) === "win32";
  const [name, ...prefix] = windows ? ["py", "-3"] : ["python3"];
  const onPath = await env.which(name);
  if (onPath) {
    yield bundledCandidate([onPath, ...prefix], launcher, `${[name, ...prefix].join(" ")} on PATH`);
  } else {
    const label = `the bundled server with ${[name, ...prefix].join(" ")} on PATH`;
    yield { candidate: { source: "bundled", command: name, args: prefix, label }, failure: `no \`${name}\` on PATH` };
  }
}

export function bundledCandidate(interpreter: string[], launcher: string, which: string): Candidate {
  const [command, ...prefix] = interpreter;
  // -I: the user's PYTHONPATH and user site cannot shadow the bundled libraries.
  const args = [...prefix, "-I", launcher];
  return {
    source: "bundled",
    command,
    args,
    label: `the bundled server with ${which} (${[command, ...args].join(" ")})`,
  };
}

/** The installed server: `python -m evalfix_ls` with the Python extension's interpreter, then PATH. */
async function* environmentCandidates(env: ResolutionEnvironment): AsyncGenerator<Step> {
  const interpreter = await env.pythonInterpreter();
  yield interpreter?.length ? pythonCandidate(interpreter) : noInterpreterSelected("python");
  const onPath = await env.which(SERVER_EXECUTABLE);
  yield onPath
    ? { source: "path", command: onPath, args: [], label: `PATH (${onPath})` }
    : {
        candidate: { source: "path", command: SERVER_EXECUTABLE, args: [], label: "PATH" },
        failure: `no \`${SERVER_EXECUTABLE}\` on PATH`,
      };
}

function noInterpreterSelected(source: CandidateSource): Attempt {
  return {
    candidate: { source, command: "", args: [], label: "the Python extension's interpreter" },
    failure: "no interpreter selected (the Python extension is not installed or has none)",
  };
}

/** The lines the output channel gets: one per candidate, in order. */
export function describeAttempts(attempts: Attempt[]): string[] {
  return attempts.map((attempt) =>
    attempt.version
      ? `  ${attempt.candidate.label}: evalfix-ls ${attempt.version}`
      : `  ${attempt.candidate.label}: ${attempt.failure}`,
  );
}

/**
 * The notification when nothing works. For the bundled server the missing piece is an interpreter,
 * so it names each one tried and why it did not fit; otherwise the server itself is missing.
 */
export function notFoundMessage(attempts: Attempt[], bundled: boolean, install: string): string {
  if (!bundled) {
    return (
      "evalfix-ls: the language server was not found (tried evalfix.server.path, the Python " +
      `extension's interpreter, PATH). Install it with \`${install}\` or set evalfix.server.path.`
    );
  }
  const tried = attempts.map((attempt) => `${attempt.candidate.label}: ${attempt.failure}`).join("; ");
  return (
    "evalfix-ls: no Python 3.10 or later to run the bundled server. Tried " +
    `${tried}. Install Python 3.10+ (and select it with the Python extension), or set evalfix.server.path.`
  );
}

/** The terminal command that installs the server for an interpreter (the selected one or python3). */
export function pipInstallCommand(interpreter: string[] | undefined, platform = process.platform): string[] {
  const python = interpreter?.length ? interpreter : [platform === "win32" ? "python" : "python3"];
  return [...python, "-m", "pip", "install", SERVER_EXECUTABLE];
}

/**
 * `${workspaceFolder}`, `${userHome}` and a leading `~` in `evalfix.server.path` (VS Code does not
 * expand variables in an extension's settings; users write them anyway).
 */
export function expandServerPath(value: string, workspaceFolder: string | undefined, home: string): string {
  let expanded = value.trim().replace(/\$\{userHome\}/g, home);
  if (workspaceFolder) {
    expanded = expanded.replace(/\$\{workspaceFolder\}/g, workspaceFolder);
  }
  return expanded === "~" || expanded.startsWith("~/") ? home + expanded.slice(1) : expanded;
}

function firstLine(text: string): string {
  return text.trim().split(/\r?\n/, 1)[0] ?? "";
}

// --- The real environment --------------------------------------------------------------------

const PROBE_TIMEOUT_MS = 15_000;

export function runProcess(command: string, args: string[], timeoutMs = PROBE_TIMEOUT_MS): Promise<ProbeResult> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: timeoutMs, windowsHide: true }, (error, stdout, stderr) => {
      const failure = error as (NodeJS.ErrnoException & { killed?: boolean; code?: unknown }) | null;
      if (failure && typeof failure.code === "string") {
        // ENOENT, EACCES ...: the process never ran.
        resolve({ exitCode: null, stdout, stderr, error: `cannot run ${command}: ${failure.code}` });
      } else if (failure?.killed) {
        resolve({ exitCode: null, stdout, stderr, error: `no answer to \`--version\` within ${timeoutMs} ms` });
      } else {
        resolve({ exitCode: failure ? Number(failure.code ?? 1) : 0, stdout, stderr });
      }
    });
  });
}

/** PATH lookup as a shell does it (PATHEXT on Windows). */
export async function whichOnPath(
  name: string,
  pathVariable = process.env.PATH ?? "",
  platform = process.platform,
): Promise<string | undefined> {
  const extensions = platform === "win32" ? (process.env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";") : [""];
  for (const dir of pathVariable.split(path.delimiter).filter(Boolean)) {
    for (const extension of extensions) {
      const candidate = path.join(dir, name + extension);
      if (await isExecutableFile(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) {
      return false;
    }
    await fs.access(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}
