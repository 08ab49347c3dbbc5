// The server command `evalfix.caseCommand` answers with the command line that runs one case; this
// turns its answer into what a terminal is given. Plain Node, unit-tested.

export const CASE_COMMAND = "evalfix.caseCommand";

export interface TerminalCommand {
  line: string;
  cwd?: string;
}

/**
 * Accepts the shapes a server may answer with: a string (a shell line), an argv array, or an
 * object `{command | commandLine | argv, cwd?}` holding either. Anything else is undefined.
 */
export function terminalCommand(answer: unknown, platform = process.platform): TerminalCommand | undefined {
  if (typeof answer === "string") {
    return answer.trim() ? { line: answer.trim() } : undefined;
  }
  if (isArgv(answer)) {
    return { line: joinArgv(answer, platform) };
  }
  if (answer && typeof answer === "object") {
    const record = answer as Record<string, unknown>;
    const inner = terminalCommand(record.commandLine ?? record.command ?? record.argv, platform);
    const cwd = typeof record.cwd === "string" && record.cwd ? record.cwd : undefined;
    return inner && { line: inner.line, ...(cwd ? { cwd } : {}) };
  }
  return undefined;
}

function isArgv(value: unknown): value is string[] {
  return Array.isArray(value) && value.length > 0 && value.every((part) => typeof part === "string");
}

/** An argv as one shell line: POSIX single quotes, or Windows double quotes. */
export function joinArgv(argv: string[], platform = process.platform): string {
  return argv.map((part) => quote(part, platform)).join(" ");
}

function quote(part: string, platform: string): string {
  if (/^[\w@%+=:,./-]+$/.test(part)) {
    return part;
  }
  if (platform === "win32") {
    return `"${part.replace(/"/g, '\\"')}"`;
  }
  return `'${part.replace(/'/g, "'\\''")}'`;
}
