// The VS Code settings of section `evalfix` as the server reads them, and the files the client
// attaches to. Plain Node (no `vscode` import) so that the mapping is unit-tested without an editor.

/** Settings only the extension reads; the server would report them as unknown keys. */
const CLIENT_ONLY_KEYS = new Set(["server", "trace", "importStrategy"]);

/** Feature switches, each passed only once the server advertises the feature (the server reports
 * keys it does not know as unknown settings). */
export const FEATURE_SWITCHES: Record<string, string> = {
  inlayHints: "inlayHintProvider",
  codeLens: "codeLensProvider",
};

/**
 * The `evalfix` section for `workspace/configuration` and `initializationOptions`: the server's
 * keys (`severity`, `files`, `workspaceDiagnostics`, `debounceMs`, ...) pass through unchanged;
 * `inlayHints.enable` / `codeLens.enable` pass when the server's `capabilities` (undefined before
 * `initialize` answers) hold the feature; the client-only keys are dropped.
 */
export function serverSection(
  section: unknown,
  capabilities?: Record<string, unknown>,
): Record<string, unknown> | null {
  if (section === null || typeof section !== "object" || Array.isArray(section)) {
    return null;
  }
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(section as Record<string, unknown>)) {
    const feature = FEATURE_SWITCHES[key];
    if (feature && !capabilities?.[feature]) {
      continue;
    }
    if (!CLIENT_ONLY_KEYS.has(key) && typeof value !== "function") {
      result[key] = value;
    }
  }
  return result;
}

/** The fixture files the server always handles, whatever the settings say. */
export const FIXTURE_GLOBS = ["**/evals/evals.json", "**/skills/**/evals/**/*.json"];

/** A glob of the document selector; `relativeTo` is a workspace folder path, or none for `**` globs. */
export interface SelectorPattern {
  pattern: string;
  relativeTo?: string;
}

/**
 * The document patterns: the two fixture families plus every `evalfix.files` glob not mapped to
 * `none`. As the server reads them, a glob without `/` matches in any folder; the others are
 * relative to each workspace folder.
 */
export function selectorPatterns(files: unknown, workspaceFolders: readonly string[]): SelectorPattern[] {
  const patterns: SelectorPattern[] = FIXTURE_GLOBS.map((pattern) => ({ pattern }));
  if (files === null || typeof files !== "object" || Array.isArray(files)) {
    return patterns;
  }
  for (const [glob, kind] of Object.entries(files as Record<string, unknown>)) {
    const trimmed = glob.trim().replace(/^\.\//, "");
    if (!trimmed || typeof kind !== "string" || kind.trim().toLowerCase() === "none") {
      continue;
    }
    if (!trimmed.includes("/")) {
      patterns.push({ pattern: `**/${trimmed}` });
    } else {
      for (const folder of workspaceFolders) {
        patterns.push({ pattern: trimmed, relativeTo: folder });
      }
    }
  }
  return patterns;
}

/** Settings whose change needs a new client (a new process or a new document selector). */
export const RESTART_SETTINGS = [
  "evalfix.server.path",
  "evalfix.server.args",
  "evalfix.importStrategy",
  "evalfix.files",
];

/** The findings VS Code's own JSON validation already shows: every syntax error after the first. */
export const SYNTAX_DUPLICATE_CODES = new Set(["json-syntax", "json_syntax"]);

/**
 * Whether a diagnostic of ours repeats what VS Code's JSON support shows for the same document:
 * when VS Code validates the document (language `json`/`jsonc`, `json.validate.enable`), each
 * syntax error is already its squiggle; we keep only the one `json-invalid` verdict (the loader
 * rejects the file), which VS Code cannot say.
 */
export function duplicatesJsonSupport(code: unknown, vscodeValidates: boolean): boolean {
  return vscodeValidates && typeof code === "string" && SYNTAX_DUPLICATE_CODES.has(code);
}
