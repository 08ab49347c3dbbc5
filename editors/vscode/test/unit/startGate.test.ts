import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startWhenNeeded, StartGate } from "../../src/startGate";

/** A workspace as the gate sees it: fixture files or not, open documents by path, and the selector
 * (here: paths under evals/). `open` opens a document as VS Code would. */
function workspace(hasFixtures: boolean, open: string[] = []) {
  const listeners = new Set<(path: string) => void>();
  const state = { starts: 0, logged: [] as string[], open: [...open] };
  const gate: StartGate<string> = {
    workspaceHasFixtures: async () => hasFixtures,
    openDocuments: () => state.open,
    handles: (path) => /(^|\/)evals\/.*\.json$/.test(path),
    onDidOpen: (listener) => {
      listeners.add(listener);
      return { dispose: () => listeners.delete(listener) };
    },
    start: async () => {
      state.starts++;
    },
    log: (message) => state.logged.push(message),
  };
  const openDocument = (path: string) => {
    state.open.push(path);
    [...listeners].forEach((listener) => listener(path));
  };
  return { gate, state, openDocument };
}

describe("startWhenNeeded", () => {
  it("starts at once in a workspace holding fixture files", async () => {
    const { gate, state } = workspace(true);
    await startWhenNeeded(gate);
    assert.equal(state.starts, 1);
    assert.deepEqual(state.logged, []);
  });

  it("starts at once when a handled document is already open", async () => {
    const { gate, state } = workspace(false, ["/tmp/package.json", "/w/skills/s/evals/cases.json"]);
    await startWhenNeeded(gate);
    assert.equal(state.starts, 1);
  });

  it("does not start for other JSON documents, then starts once at the first fixture opened", async () => {
    const { gate, state, openDocument } = workspace(false, ["/w/package.json"]);
    await startWhenNeeded(gate);
    openDocument("/w/tsconfig.json");
    assert.equal(state.starts, 0);
    assert.match(state.logged[0], /starts once a fixture document is opened/);
    openDocument("/w/evals/evals.json");
    openDocument("/w/skills/s/evals/more.json");
    assert.equal(state.starts, 1);
  });

  it("stops waiting when disposed (the extension deactivated)", async () => {
    const { gate, state, openDocument } = workspace(false);
    (await startWhenNeeded(gate)).dispose();
    openDocument("/w/evals/evals.json");
    assert.equal(state.starts, 0);
  });
});
