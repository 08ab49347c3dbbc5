// The extension host runs this (extensionTestsPath) for the file-move suite alone: its workspace
// is not the one the main integration suite (index.ts) expects.
import * as path from "node:path";
import Mocha from "mocha";

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: "tdd", color: false, timeout: 120_000 });
  mocha.addFile(path.join(__dirname, "fileMoves.test.js"));
  return new Promise((resolve, reject) => {
    mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} integration test(s) failed`)) : resolve()));
  });
}
