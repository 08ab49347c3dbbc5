// The extension host runs this (extensionTestsPath) for the run-results suite alone
// (results.suite.ts, not named *.test.ts so that index.ts leaves it out): it writes a skill and its
// runs into a workspace of its own (tests/editors/test_vscode_results.py gives it an empty one).
import { runSuites } from "./index";

export function run(): Promise<void> {
  return runSuites(["results.suite.js"]);
}
