// The extension host runs this (extensionTestsPath) for the file-move suite alone (fileMoves.suite.ts,
// not named *.test.ts so that index.ts leaves it out): its workspace
// is not the one the main integration suite (index.ts) expects.
import * as path from "node:path";
import Mocha from "mocha";

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: "tdd", color: false, timeout: 120_000 });
  mocha.addFile(path.join(__dirname, "fileMoves.suite.js"));
  return new Promise((resolve, reject) => {
    mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} integration test(s) failed`)) : resolve()));
  });
}
