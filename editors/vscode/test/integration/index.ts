// The extension host runs this (extensionTestsPath): Mocha over the integration suites (every
// test/integration/*.test.ts), and a JSON report (every test's outcome, what the extension host
// saw) for the pytest side to show.
import * as fs from "node:fs";
import * as path from "node:path";
import Mocha from "mocha";
import { report } from "./report";

export function run(): Promise<void> {
  // Every suite of this folder (other features add their own *.test.ts), in a stable order.
  return runSuites(
    fs
      .readdirSync(__dirname)
      .filter((name) => name.endsWith(".test.js"))
      .sort(),
  );
}

/** Mocha over `files` (names in this folder), the report written when it ends. A suite that needs
 * a workspace of its own (*.suite.ts) has an index of its own that calls this with its file. */
export function runSuites(files: string[]): Promise<void> {
  const mocha = new Mocha({ ui: "tdd", color: false, timeout: 60_000 });
  for (const file of files) {
    mocha.addFile(path.join(__dirname, file));
  }
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      writeReport();
      if (failures > 0) {
        reject(new Error(`${failures} integration test(s) failed`));
      } else {
        resolve();
      }
    });
    runner.on("pass", (test) => report.tests.push({ title: test.fullTitle(), state: "passed" }));
    runner.on("fail", (test, error: Error) =>
      report.tests.push({ title: test.fullTitle(), state: "failed", error: String(error?.stack ?? error) }),
    );
    runner.on("pending", (test) =>
      report.tests.push({ title: test.fullTitle(), state: "skipped", reason: report.skipReasons[test.title] }),
    );
  });
}

function writeReport(): void {
  const file = process.env.EVALFIX_TEST_REPORT;
  if (file) {
    fs.writeFileSync(file, JSON.stringify(report, null, 2));
  }
}
