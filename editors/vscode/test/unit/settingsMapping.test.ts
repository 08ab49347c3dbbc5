import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { duplicatesJsonSupport, FIXTURE_GLOBS, selectorPatterns, serverSection } from "../../src/settingsMapping";

describe("serverSection", () => {
  it("passes the server's keys through and drops the client-only ones", () => {
    const serverKeys = {
      severity: { "files-legacy": "off" },
      files: { "fixtures/**/*.json": "workflow" },
      workspaceDiagnostics: false,
      debounceMs: 250,
      inlayHints: { enable: false },
      codeLens: { enable: true },
    };
    const section = { server: { path: "/x/evalfix-ls", args: ["-v"] }, trace: { server: "verbose" }, ...serverKeys };
    assert.deepEqual(
      serverSection(section, { inlayHintProvider: {}, codeLensProvider: { resolveProvider: false } }),
      serverKeys,
    );
  });
  it("passes a feature switch only once the server advertises the feature", () => {
    const section = { debounceMs: 10, inlayHints: { enable: false }, codeLens: { enable: true } };
    assert.deepEqual(serverSection(section), { debounceMs: 10 });
    assert.deepEqual(serverSection(section, { codeLensProvider: {} }), { debounceMs: 10, codeLens: { enable: true } });
    assert.deepEqual(serverSection(section, { inlayHintProvider: true }), {
      debounceMs: 10,
      inlayHints: { enable: false },
    });
  });
  it("gives null for a missing or malformed section", () => {
    assert.equal(serverSection(undefined), null);
    assert.equal(serverSection(null), null);
    assert.equal(serverSection([1]), null);
    assert.equal(serverSection("x"), null);
  });
});

describe("selectorPatterns", () => {
  it("always holds the two fixture families", () => {
    assert.deepEqual(
      selectorPatterns(undefined, ["file:///w"]),
      FIXTURE_GLOBS.map((pattern) => ({ pattern })),
    );
    assert.deepEqual(FIXTURE_GLOBS, ["**/evals/evals.json", "**/skills/**/evals/**/*.json"]);
  });
  it("adds evalfix.files globs as the server reads them", () => {
    const patterns = selectorPatterns(
      { "*.evals.json": "evals", "./fixtures/**/*.json": "Workflow", "legacy/**": "none", "": "evals", "bad.json": 3 },
      ["file:///a", "file:///b"],
    );
    assert.deepEqual(patterns.slice(2), [
      { pattern: "**/*.evals.json" },
      { pattern: "fixtures/**/*.json", relativeTo: "file:///a" },
      { pattern: "fixtures/**/*.json", relativeTo: "file:///b" },
    ]);
  });
});

describe("duplicatesJsonSupport", () => {
  it("hides further syntax errors only while VS Code validates the document", () => {
    assert.equal(duplicatesJsonSupport("json-syntax", true), true);
    assert.equal(duplicatesJsonSupport("json_syntax", true), true);
    assert.equal(duplicatesJsonSupport("json-syntax", false), false);
  });
  it("keeps the verdict and every contract finding", () => {
    for (const code of ["json-invalid", "invalid_json", "setup-kind-invalid", undefined, 3]) {
      assert.equal(duplicatesJsonSupport(code, true), false, String(code));
    }
  });
});
