// The extension under test, activated, once its server is ready (the suites that run alone with a
// workspace of their own start from this).
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { EvalfixApi } from "../../src/extension";
import { until } from "./until";

export async function readyServer(): Promise<EvalfixApi> {
  const extension = vscode.extensions.getExtension<EvalfixApi>("evalfix.evalfix-ls");
  assert.ok(extension, "the extension is installed in the extension host");
  const evalfix = extension.isActive ? extension.exports : await extension.activate();
  await until(
    "the server",
    () => evalfix.state === "ready",
    () => evalfix.state,
  );
  return evalfix;
}
