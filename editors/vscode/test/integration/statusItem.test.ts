// The status item for the active file in the real VS Code (issue 23): it names the family of the
// file the user looks at and, for a file evalfix-ls does not check, why not. Runs on the workspace of
// extension.test.ts (after it: index.ts takes the suites in name order). What each item must say is
// derived here from the spec's wording and the file's own text (its schema_version, its cases),
// never copied from the server's answer.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { EvalfixApi } from "../../src/extension";
import { report } from "./report";
import { until } from "./until";

const SUITE = "skills/demo-skill/evals/evals.json";
const WORKFLOW = "skills/demo-skill/evals/workflow/trigger-cases.json";
/** A skill-local shape: a JSON file under skills/<x>/evals/ with a schema_version of its own. */
const SKILL_LOCAL = "skills/demo-skill/evals/routing/local-cases.json";

interface Shown {
  text: string;
  tooltip: string;
}

/** What the item must show for a file, as a check over what it shows, and the file's parsed text. */
type Expectation = (shown: Shown, parsed: Record<string, unknown>) => void;

const lines = (shown: Shown) => shown.tooltip.split("\n");
const casesLine = (count: number) => `${count} ${count === 1 ? "case" : "cases"}`;

const EXPECTED: Record<string, Expectation> = {
  [SUITE]: (shown, parsed) => {
    assert.equal(shown.text, "eval suite");
    assert.deepEqual(lines(shown), [
      "an evals/evals.json: arc-skill-eval's discovery reads it as an eval suite",
      casesLine((parsed.evals as unknown[]).length),
    ]);
  },
  [WORKFLOW]: (shown, parsed) => {
    assert.equal(shown.text, "workflow fixture");
    const [reason, cases, readiness, ...rest] = lines(shown);
    assert.equal(reason, `declares schema_version ${JSON.stringify(parsed.schema_version)}`);
    assert.equal(cases, casesLine((parsed.cases as unknown[]).length));
    assert.match(readiness, /^Readiness: readiness of demo-skill: /);
    assert.deepEqual(rest, []);
  },
  [SKILL_LOCAL]: (shown, parsed) => {
    assert.equal(shown.text, "not checked");
    const schema = String(parsed.schema_version);
    // The test workspace holds no spec-first normalizer: no fixture walk reads this file.
    const reason =
      `skill-local shape (schema_version ${JSON.stringify(schema)}) under skills/**/evals/ ` +
      "in a repository without spec-first's fixture walk: its own tests judge it";
    assert.equal(shown.tooltip, reason);
  },
};

function fileUri(relative: string): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, "the test workspace is open");
  return vscode.Uri.joinPath(folder.uri, relative);
}

async function api(): Promise<EvalfixApi> {
  const extension = vscode.extensions.getExtension<EvalfixApi>("evalfix.evalfix-ls");
  assert.ok(extension, "the extension is installed in the extension host");
  return extension.isActive ? extension.exports : extension.activate();
}

/** Makes `relative` the active editor and waits until the item shows what `EXPECTED` asks for it. */
async function showAndRead(evalfix: EvalfixApi, relative: string): Promise<Shown> {
  const document = await vscode.workspace.openTextDocument(fileUri(relative));
  await vscode.window.showTextDocument(document);
  const parsed = JSON.parse(document.getText()) as Record<string, unknown>;
  let failure: unknown;
  const matches = () => {
    const shown = evalfix.documentItem.shown;
    try {
      assert.ok(shown, "the item is shown");
      EXPECTED[relative](shown, parsed);
      return true;
    } catch (error) {
      failure = error;
      return false;
    }
  };
  await until(`the status item for ${relative}`, matches, () => ({
    shown: evalfix.documentItem.shown,
    failure: String(failure),
  }));
  const shown = evalfix.documentItem.shown!;
  (report.server.statusItem as Record<string, Shown> | undefined) ??= {};
  (report.server.statusItem as Record<string, Shown>)[relative] = shown;
  return shown;
}

suite("evalfix-ls status item in VS Code", () => {
  suiteSetup(async () => {
    const evalfix = await api();
    // extension.test.ts ends by restoring evalfix.server.path: wait for that server to run.
    await until(
      "the server from evalfix.server.path",
      () => evalfix.state === "ready" && evalfix.server?.source === "setting",
      () => [evalfix.state, evalfix.server],
    );
  });

  test("an eval suite: the item names its family and its cases", async () => {
    await showAndRead(await api(), SUITE);
  });

  test("a workflow fixture: the item names its family, its schema and its skill's readiness", async () => {
    await showAndRead(await api(), WORKFLOW);
  });

  test("a skill-local shape: the item says not checked, and why (its own schema, its own tests)", async () => {
    await showAndRead(await api(), SKILL_LOCAL);
  });

  test("the item follows the active editor: back to the suite from the unchecked file", async () => {
    const evalfix = await api();
    await showAndRead(evalfix, SKILL_LOCAL);
    const back = await showAndRead(evalfix, SUITE);
    assert.equal(back.text, "eval suite");
  });
});
