// The last run's results in the real VS Code, through VS Code's own API: the lens of each case,
// the ✓/✗ hints after the assertions, a failed assertion as a diagnostic (source `evalfix-ls
// results`), the hover; a run written during the session updates the lens with the document left
// open; evalfix.openCaseArtifacts opens the case's assistant.md. tests/editors/test_vscode_results.py
// writes the workspace before VS Code opens it (the suite and two earlier runs, with the values
// below); this suite writes the new run. Expected positions are computed here from the document's
// text (UTF-16, as VS Code's), never copied from the server.
import * as assert from "node:assert/strict";
import * as path from "node:path";
import * as vscode from "vscode";
import { readyServer } from "./readyServer";
import { arcRun } from "./runTree";
import { until } from "./until";

const SOURCE = "evalfix-ls results";
const JUDGED = "The reply greets 東京 😀";
const MISSING = { type: "file-exists", path: "missing-😀.txt" };
const TOKYO = "東京 greeting";
// arc-skill-eval's folder of a case: each UTF-16 unit outside [A-Za-z0-9_.-] becomes "-".
const TOKYO_DIR = "eval----greeting";
const OLDER = "2026-05-01T00-00-00-000Z";
const NEWER = "2026-05-02T00-00-00-000Z";
const LIVE = "2026-05-07T00-00-00-000Z";
const EVIDENCE = "No such file: `missing-😀.txt`";

function root(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, "the test workspace is open");
  return folder.uri.fsPath;
}

const skillDir = () => path.join(root(), "skills", "greeter");
const runDir = (run: string) => path.join(skillDir(), "evals-runs", run);

/** The result lenses (not the ▶ run lenses): title and the position they stand at. */
async function resultLenses(uri: vscode.Uri): Promise<{ title: string; at: vscode.Position }[]> {
  const lenses = (await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", uri)) ?? [];
  return lenses
    .filter((lens) => lens.command && !lens.command.title.startsWith("▶"))
    .map((lens) => ({ title: lens.command?.title ?? "", at: lens.range.start }));
}

const labelOf = (hint: vscode.InlayHint) =>
  typeof hint.label === "string" ? hint.label : hint.label.map((part) => part.value).join("");

const results = (uri: vscode.Uri) => vscode.languages.getDiagnostics(uri).filter((d) => d.source === SOURCE);

/** The offset just after the `nth` (0-based) occurrence of `needle`. */
function endOf(text: string, needle: string, nth = 0): number {
  let at = -1;
  for (let i = 0; i <= nth; i++) {
    at = text.indexOf(needle, at + 1);
    assert.ok(at >= 0, `${needle} occurs ${nth + 1} times`);
  }
  return at + needle.length;
}

suite("evalfix-ls run results in VS Code", () => {
  let document: vscode.TextDocument;
  let text: string;
  const missing = () => {
    const at = text.indexOf('"type": "file-exists"');
    return new vscode.Range(
      document.positionAt(text.lastIndexOf("{", at)),
      document.positionAt(text.indexOf("}", at) + 1),
    );
  };

  suiteSetup(async function () {
    this.timeout(90_000);
    document = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(skillDir(), "evals", "evals.json")));
    await vscode.window.showTextDocument(document);
    text = document.getText();
    await readyServer();
  });

  test("a lens on each case: the newest run's result, or which older run answered", async () => {
    let lenses: { title: string; at: vscode.Position }[] = [];
    await until(
      "two result lenses",
      async () => (lenses = await resultLenses(document.uri)).length === 2,
      () => lenses,
    );
    const [tokyo, two] = lenses;
    assert.ok(tokyo.title.startsWith("1/2 passed · 41 s · 12.3k tokens · $0.12 · "), tokyo.title);
    assert.match(tokyo.title, /· (just now|\d+ (min|h|d) ago)$/); // the run's age
    assert.ok(two.title.startsWith(`no result in the newest run (${NEWER}) · from ${OLDER}: 1/1 passed`), two.title);
    // Each lens stands on its case's opening brace.
    const cases = [text.lastIndexOf("{", text.indexOf(`"${TOKYO}"`)), text.lastIndexOf("{", text.indexOf('"id": 2'))];
    assert.deepEqual(
      lenses.map((lens) => [lens.at.line, lens.at.character]),
      cases.map((offset) => [document.positionAt(offset).line, document.positionAt(offset).character]),
    );
  }).timeout(60_000);

  test("✓ and ✗ after each assertion, at its end", async () => {
    const whole = new vscode.Range(document.positionAt(0), document.positionAt(text.length));
    const judged = JSON.stringify(JUDGED);
    const expected = [
      ["✓", document.positionAt(endOf(text, judged, 0))],
      ["✗", missing().end],
      ["✓", document.positionAt(endOf(text, judged, 1))],
    ].map(([label, at]) => `${label as string}@${(at as vscode.Position).line}:${(at as vscode.Position).character}`);
    let seen: string[] = [];
    await until(
      "the three verdict hints",
      async () => {
        const hints =
          (await vscode.commands.executeCommand<vscode.InlayHint[]>(
            "vscode.executeInlayHintProvider",
            document.uri,
            whole,
          )) ?? [];
        seen = hints
          .filter((hint) => ["✓", "✗"].includes(labelOf(hint)))
          .map((hint) => `${labelOf(hint)}@${hint.position.line}:${hint.position.character}`);
        return seen.length === expected.length;
      },
      () => seen,
    );
    assert.deepEqual(seen, expected);
  }).timeout(60_000);

  test("the failed assertion is a diagnostic with its evidence, information by default", async () => {
    await until(
      "a result diagnostic",
      () => results(document.uri).length > 0,
      () => vscode.languages.getDiagnostics(document.uri),
    );
    const [failed, ...others] = results(document.uri);
    assert.deepEqual(others, []);
    assert.equal(failed.severity, vscode.DiagnosticSeverity.Information);
    assert.ok(failed.range.isEqual(missing()), JSON.stringify(failed.range));
    assert.equal(failed.message, `failed in run ${NEWER}: ${EVIDENCE}`);
  }).timeout(60_000);

  test("the hover on the failed assertion gives its verdict, evidence and artifacts", async () => {
    const inside = document.positionAt(text.indexOf('"type": "file-exists"') + 3);
    const hovers =
      (await vscode.commands.executeCommand<vscode.Hover[]>("vscode.executeHoverProvider", document.uri, inside)) ?? [];
    const shown = hovers
      .flatMap((hover) => hover.contents)
      .map((content) => (typeof content === "string" ? content : content.value))
      .join("\n---\n");
    assert.ok(shown.includes(`**✗ failed** in run \`${NEWER}\``), shown);
    assert.ok(shown.includes(`Evidence: ${EVIDENCE}`), shown);
    assert.ok(shown.includes("assistant.md") && shown.includes("outputs/"), shown);
  }).timeout(60_000);

  test("a run written now updates the lens and the diagnostics of the open document", async () => {
    const version = document.version;
    arcRun(runDir(LIVE), {
      [TOKYO_DIR]: {
        id: TOKYO,
        rows: [
          [JUDGED, true, "yes"],
          [MISSING, true, "Found"],
        ],
      },
    });
    let lenses: { title: string; at: vscode.Position }[] = [];
    await until(
      `the lens of run ${LIVE}`,
      async () => (lenses = await resultLenses(document.uri))[0]?.title.startsWith("2/2 passed · 41 s") ?? false,
      () => lenses,
    );
    assert.ok(lenses[1].title.startsWith(`no result in the newest run (${LIVE}) · from ${OLDER}: 1/1 passed`));
    await until(
      "no result diagnostic",
      () => results(document.uri).length === 0,
      () => results(document.uri),
    );
    assert.equal(document.version, version, "the document was not edited");
    assert.ok(vscode.workspace.textDocuments.includes(document), "the document stayed open");
  }).timeout(60_000);

  test("evalfix.openCaseArtifacts opens the assistant.md of the run that answered the case at the cursor", async () => {
    // Case 2 is in no newer run: its artifacts are the older run's.
    const editor = await vscode.window.showTextDocument(document);
    const cursor = document.positionAt(text.indexOf('"prompt": "q"'));
    editor.selection = new vscode.Selection(cursor, cursor);
    await vscode.commands.executeCommand("evalfix.openCaseArtifacts");
    const wanted = path.join(runDir(OLDER), "eval-2", "assistant.md");
    const shown = () => vscode.window.visibleTextEditors.map((e) => e.document.uri.fsPath);
    await until("assistant.md in an editor", () => shown().includes(wanted), shown);
    const opened = vscode.window.visibleTextEditors.find((e) => e.document.uri.fsPath === wanted);
    assert.equal(opened?.document.getText(), "Hello from 2\n");
  }).timeout(60_000);
});
