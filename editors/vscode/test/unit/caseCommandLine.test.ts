import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { joinArgv, terminalCommand } from "../../src/caseCommandLine";

describe("terminalCommand", () => {
  it("takes a shell line as it is", () => {
    assert.deepEqual(terminalCommand("  npx arc-skill-eval run --case a-b \n"), {
      line: "npx arc-skill-eval run --case a-b",
    });
  });
  it("quotes an argv for the shell", () => {
    assert.deepEqual(terminalCommand(["npx", "arc-skill-eval", "--case", "写 a 'case' 🙂"], "linux"), {
      line: "npx arc-skill-eval --case '写 a '\\''case'\\'' 🙂'",
    });
  });
  it("reads an object answer with a working directory", () => {
    assert.deepEqual(terminalCommand({ command: ["run", "x y"], cwd: "/w/skills/a" }, "linux"), {
      line: "run 'x y'",
      cwd: "/w/skills/a",
    });
    assert.deepEqual(terminalCommand({ commandLine: "run x" }), { line: "run x" });
  });
  it("gives undefined for an answer with no command line", () => {
    for (const answer of [null, undefined, "", "  ", [], [1, 2], { cwd: "/x" }, 42]) {
      assert.equal(terminalCommand(answer), undefined, JSON.stringify(answer));
    }
  });
});

describe("joinArgv", () => {
  it("uses double quotes on Windows", () => {
    assert.equal(joinArgv(["run", 'a "b"'], "win32"), 'run "a \\"b\\""');
  });
});
