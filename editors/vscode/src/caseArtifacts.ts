// The result lens of a case (`evalfix.openCaseResult`, arguments: file URIs of the case's
// `assistant.md` and `outputs/` folder, a folder ending in `/`) turned into what the editor opens.
// Plain Node, unit-tested.

export const OPEN_RESULT_COMMAND = "evalfix.openCaseResult";

export interface LensLike {
  line: number;
  command?: string;
  arguments?: unknown[];
}

export interface Artifacts {
  files: string[]; // URIs to open in an editor (assistant.md)
  folders: string[]; // URIs to reveal in the explorer (outputs/, or the case folder)
}

/** The result lens of the case the cursor is in: the last one starting at or above `line`, else the first. */
export function lensAt<T extends LensLike>(lenses: readonly T[], line: number): T | undefined {
  const results = lenses.filter((lens) => lens.command === OPEN_RESULT_COMMAND);
  return results.filter((lens) => lens.line <= line).pop() ?? results[0];
}

/** The lens's arguments split into files and folders; anything that is not a file URI is dropped. */
export function artifactsOf(args: readonly unknown[] | undefined): Artifacts {
  const uris = (args ?? []).filter((arg): arg is string => typeof arg === "string" && arg.startsWith("file:"));
  return {
    files: uris.filter((uri) => !uri.endsWith("/")),
    folders: uris.filter((uri) => uri.endsWith("/")).map((uri) => uri.slice(0, -1)),
  };
}
