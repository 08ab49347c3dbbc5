import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { OPEN_RESULT_COMMAND, artifactsOf, lensAt } from "../../src/caseArtifacts";

describe("lensAt", () => {
  const lenses = [
    { line: 3, command: "evalfix.caseCommand" },
    { line: 3, command: OPEN_RESULT_COMMAND, arguments: ["a"] },
    { line: 20, command: OPEN_RESULT_COMMAND, arguments: ["b"] },
  ];
  it("takes the result lens of the case above the cursor", () => {
    assert.deepEqual(lensAt(lenses, 25)?.arguments, ["b"]);
    assert.deepEqual(lensAt(lenses, 19)?.arguments, ["a"]);
  });
  it("takes the first one above every case, and none without a result lens", () => {
    assert.deepEqual(lensAt(lenses, 0)?.arguments, ["a"]);
    assert.equal(lensAt([{ line: 1, command: "evalfix.caseCommand" }], 5), undefined);
  });
});

describe("artifactsOf", () => {
  it("opens assistant.md and reveals outputs/", () => {
    const run = "file:///w/skills/g/evals-runs/2026-05-02T00-00-00-000Z/eval----greeting";
    assert.deepEqual(artifactsOf([`${run}/assistant.md`, `${run}/outputs/`]), {
      files: [`${run}/assistant.md`],
      folders: [`${run}/outputs`],
    });
  });
  it("drops what is not a file URI", () => {
    assert.deepEqual(artifactsOf(["http://x/", 3, null, "/abs/path"]), { files: [], folders: [] });
    assert.deepEqual(artifactsOf(undefined), { files: [], folders: [] });
  });
});
