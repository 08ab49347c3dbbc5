// The language client: which documents, which settings, and the middleware that keeps our
// diagnostics from repeating VS Code's JSON squiggles and runs case commands in a terminal.

import * as vscode from "vscode";
import {
  DocumentSelector,
  LanguageClient,
  LanguageClientOptions,
  Middleware,
  RevealOutputChannelOn,
  ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";
import { CASE_COMMAND, terminalCommand } from "./caseCommandLine";
import { Candidate } from "./serverResolution";
import { duplicatesJsonSupport, selectorPatterns, serverSection } from "./settingsMapping";

export const SECTION = "evalfix";

export function createClient(candidate: Candidate, log: vscode.LogOutputChannel): LanguageClient {
  const serverOptions: ServerOptions = {
    command: candidate.command,
    args: candidate.args,
    transport: TransportKind.stdio,
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelector(),
    outputChannel: log,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationOptions: serverSection(vscode.workspace.getConfiguration().get(SECTION)),
    middleware: middleware(log, () => client.initializeResult?.capabilities as Record<string, unknown> | undefined),
  };
  const client = new LanguageClient("evalfix", "evalfix-ls", serverOptions, clientOptions);
  return client;
}

function documentSelector(): DocumentSelector {
  return documentFilters((baseUri, pattern) => ({ baseUri, pattern }));
}

/** Whether the client takes `document` (the same patterns, as VS Code's own selector). */
export function handlesDocument(document: vscode.TextDocument): boolean {
  const selector: vscode.DocumentFilter[] = documentFilters(
    (baseUri, pattern) => new vscode.RelativePattern(vscode.Uri.parse(baseUri), pattern),
  );
  return vscode.languages.match(selector, document) > 0;
}

/**
 * The documents handed to the server: files matching `evalfix.files` in each workspace folder.
 * `relative` builds a pattern relative to a folder in the form of the API that reads it (the
 * protocol's `{ baseUri, pattern }` for the language client, a `RelativePattern` for VS Code).
 */
function documentFilters<Relative>(
  relative: (baseUri: string, pattern: string) => Relative,
): { scheme: string; pattern: string | Relative }[] {
  const folders = (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.toString());
  const files = vscode.workspace.getConfiguration(SECTION).get("files");
  return selectorPatterns(files, folders).map(({ pattern, relativeTo }) => ({
    scheme: "file",
    pattern: relativeTo ? relative(relativeTo, pattern) : pattern,
  }));
}

function middleware(log: vscode.LogOutputChannel, advertised: () => Record<string, unknown> | undefined): Middleware {
  return {
    workspace: {
      // The server reads section `evalfix`; the client-only keys (server.*, trace.*) stay here.
      configuration: async (params, token, next) => {
        const values = await next(params, token);
        if (!Array.isArray(values)) {
          return values;
        }
        return values.map((value, index) =>
          params.items[index]?.section === SECTION ? serverSection(value, advertised()) : value,
        );
      },
    },
    handleDiagnostics: (uri, diagnostics, next) => next(uri, withoutJsonDuplicates(uri, diagnostics)),
    provideDiagnostics: async (document, previousResultId, token, next) => {
      const report = await next(document, previousResultId, token);
      if (report && report.kind === "full") {
        const uri = document instanceof vscode.Uri ? document : document.uri;
        return { ...report, items: withoutJsonDuplicates(uri, report.items) };
      }
      return report;
    },
    executeCommand: async (command, args, next) => {
      const answer = await next(command, args);
      if (command === CASE_COMMAND) {
        runInTerminal(answer, log);
      }
      return answer;
    },
  };
}

/** Our further-syntax-error warnings, when VS Code's JSON support already squiggles each one. */
function withoutJsonDuplicates(uri: vscode.Uri, diagnostics: vscode.Diagnostic[]): vscode.Diagnostic[] {
  const validates = vscodeValidatesJson(uri);
  return diagnostics.filter((diagnostic) => !duplicatesJsonSupport(codeOf(diagnostic), validates));
}

function vscodeValidatesJson(uri: vscode.Uri): boolean {
  const document = vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === uri.toString());
  if (!document || !["json", "jsonc"].includes(document.languageId)) {
    return false; // VS Code validates open JSON documents only
  }
  if (!vscode.extensions.getExtension("vscode.json-language-features")) {
    return false;
  }
  return vscode.workspace.getConfiguration("json", uri).get<boolean>("validate.enable", true);
}

export function codeOf(diagnostic: vscode.Diagnostic): string | number | undefined {
  const code = diagnostic.code;
  return typeof code === "object" && code !== null ? code.value : code;
}

export function runInTerminal(answer: unknown, log: vscode.LogOutputChannel): void {
  const command = terminalCommand(answer);
  if (!command) {
    log.error(`${CASE_COMMAND}: the server answered with no command line: ${JSON.stringify(answer)}`);
    void vscode.window.showErrorMessage("evalfix-ls: the server gave no command line for this case.");
    return;
  }
  log.info(`Running a case: ${command.line}${command.cwd ? ` (in ${command.cwd})` : ""}`);
  const terminal = vscode.window.createTerminal({ name: "evalfix case", cwd: command.cwd });
  terminal.show();
  terminal.sendText(command.line);
}
