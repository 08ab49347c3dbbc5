// Moving files in the real VS Code: a rename through the workbench's file-operation API
// (`workspace.applyEdit` with a rename, as the explorer does) makes VS Code ask the server
// (`workspace/willRenameFiles`) and apply its edits before the move. The pytest side
// (tests/editors/test_vscode_file_moves.py) writes the workspace, runs this suite alone and checks
// the result with `evalfix-ls --check`.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import { readyServer } from "./readyServer";

const SKILL = "skills/写作";
const FIXTURE = `${SKILL}/evals/cases.json`;
const SUITE = `${SKILL}/evals/evals.json`;

const fileUri = (relative: string) => {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, "the test workspace is open");
  return vscode.Uri.joinPath(folder.uri, relative);
};

async function rename(from: string, to: string): Promise<void> {
  const edit = new vscode.WorkspaceEdit();
  edit.renameFile(fileUri(from), fileUri(to));
  assert.ok(await vscode.workspace.applyEdit(edit), `the rename ${from} → ${to} was applied`);
}

const onDisk = async (relative: string) =>
  new TextDecoder().decode(await vscode.workspace.fs.readFile(fileUri(relative)));

suite("evalfix-ls moving files in VS Code", () => {
  test("moving a cited file and a cited folder rewrites the fixtures that cite them", async () => {
    const fixture = await vscode.workspace.openTextDocument(fileUri(FIXTURE));
    await vscode.window.showTextDocument(fixture);
    const evalfix = await readyServer();
    const fileOperations = (evalfix.client?.initializeResult?.capabilities.workspace?.fileOperations ?? {}) as object;
    assert.ok(
      "willRename" in fileOperations,
      `the server announces willRenameFiles: ${JSON.stringify(fileOperations)}`,
    );

    await rename(`${SKILL}/references/指南 🎉.md`, "docs/指南 v2.md");
    await rename(`${SKILL}/evals/files/样例`, `${SKILL}/evals/files/资料`);
    // VS Code applied the server's edits to the open fixture's buffer and to a model of the
    // closed suite; saved here as a user saves them (saveAll saves open editors only).
    for (const document of vscode.workspace.textDocuments.filter((d) => d.isDirty)) {
      assert.ok(await document.save(), `${document.uri.path} was saved`);
    }
    const workflow = JSON.parse(fixture.getText());
    assert.deepEqual(workflow.source_refs, ["docs/指南 v2.md#安装"]);
    assert.deepEqual(workflow.cases[0].source_refs, ["docs/指南 v2.md"]);
    const suiteCase = JSON.parse(await onDisk(SUITE)).evals[0];
    assert.deepEqual(suiteCase.setup.sources, [{ from: "files/资料" }]);
    assert.equal(suiteCase.assertions[0].path, "files/资料/说明.md");
    assert.equal(JSON.parse(await onDisk(FIXTURE)).source_refs[0], "docs/指南 v2.md#安装");
  });
});
