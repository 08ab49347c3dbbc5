import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  DOCUMENT_INFO,
  DocumentInfoController,
  InfoRequester,
  InfoView,
  METHOD_NOT_FOUND,
} from "../../src/documentInfo";

const URI = "file:///w/skills/demo/evals/cases.json";
const WORKFLOW = {
  kind: "workflow-fixture",
  title: "workflow fixture",
  reason: 'skill-local shape (schema_version "x.v2") under skills/**/evals/: its own tests judge it',
  decidedBy: ".evalfix.toml:4",
  shape: "x.v2",
  cases: 3,
  readiness: "2 of 3 cases ready",
};

/** The status item as the controller sees it: what it shows now, and whether it is visible. */
class FakeView implements InfoView {
  text: string | undefined;
  tooltip: string | undefined;
  visible = false;
  show(text: string, tooltip: string): void {
    Object.assign(this, { text, tooltip, visible: true });
  }
  hide(): void {
    this.visible = false;
  }
}

/** A client answering the agreed interface; each answer is a value, an error to throw, or a
 * promise settled by the test (to answer out of order). */
class FakeClient implements InfoRequester {
  readonly requests: { method: string; params: unknown }[] = [];
  constructor(private readonly answer: (uri: string) => unknown) {}
  async sendRequest(method: string, params: unknown): Promise<unknown> {
    this.requests.push({ method, params });
    const answer = await this.answer((params as { textDocument: { uri: string } }).textDocument.uri);
    if (answer instanceof Error) throw answer;
    return answer;
  }
}

const rpcError = (code: number, message: string) => Object.assign(new Error(message), { code });

describe("DocumentInfoController", () => {
  it("shows the title, with the reason, the deciding line, the cases and readiness as the tooltip", async () => {
    const view = new FakeView();
    const client = new FakeClient(() => WORKFLOW);
    await new DocumentInfoController(view).refresh(client, URI);
    assert.deepEqual(client.requests, [{ method: DOCUMENT_INFO, params: { textDocument: { uri: URI } } }]);
    assert.equal(view.visible, true);
    assert.equal(view.text, "workflow fixture");
    assert.equal(
      view.tooltip,
      `${WORKFLOW.reason}\nDecided by .evalfix.toml:4\n3 cases\nReadiness: 2 of 3 cases ready`,
    );
  });

  it("leaves out the facts the server gives as null", async () => {
    const view = new FakeView();
    const unknown = {
      kind: "unknown",
      title: "not checked",
      reason: "no contract applies",
      decidedBy: null,
      shape: null,
      cases: null,
      readiness: null,
    };
    await new DocumentInfoController(view).refresh(new FakeClient(() => unknown), URI);
    assert.equal(view.text, "not checked");
    assert.equal(view.tooltip, "no contract applies");
  });

  it("hides for a document the server does not know (null) and for a malformed answer", async () => {
    for (const answer of [null, { kind: "evals" }, { title: "eval suite", reason: "x" }, "eval suite", [WORKFLOW]]) {
      const view = new FakeView();
      view.show("stale", "stale");
      await new DocumentInfoController(view).refresh(new FakeClient(() => answer), URI);
      assert.equal(view.visible, false, JSON.stringify(answer));
    }
  });

  it("hides quietly on MethodNotFound and stops asking that server; a new server is asked again", async () => {
    const view = new FakeView();
    const logged: string[] = [];
    const controller = new DocumentInfoController(view, (message) => logged.push(message));
    const without = new FakeClient(() => rpcError(METHOD_NOT_FOUND, "Unhandled method evalfix/documentInfo"));
    await controller.refresh(without, URI);
    await controller.refresh(without, "file:///w/evals/evals.json");
    assert.equal(view.visible, false);
    assert.equal(without.requests.length, 1);
    assert.deepEqual(logged, []);
    controller.reset();
    const withIt = new FakeClient(() => WORKFLOW);
    await controller.refresh(withIt, URI);
    assert.equal(withIt.requests.length, 1);
    assert.equal(view.text, "workflow fixture");
  });

  it("hides on any other failure and logs it, and keeps asking", async () => {
    const view = new FakeView();
    const logged: string[] = [];
    const controller = new DocumentInfoController(view, (message) => logged.push(message));
    const failing = new FakeClient(() => rpcError(-32603, "internal error"));
    await controller.refresh(failing, URI);
    await controller.refresh(failing, URI);
    assert.equal(view.visible, false);
    assert.equal(failing.requests.length, 2);
    assert.match(logged[0], /evalfix\/documentInfo failed for .*cases\.json: internal error/);
  });

  it("shows the answer for the document active now, not a late answer for the previous one", async () => {
    const view = new FakeView();
    let answerFirst: (value: unknown) => void = () => undefined;
    const first = new Promise((resolve) => (answerFirst = resolve));
    const client = new FakeClient((uri) => (uri === URI ? first : { ...WORKFLOW, title: "eval suite" }));
    const controller = new DocumentInfoController(view);
    const slow = controller.refresh(client, URI);
    await controller.refresh(client, "file:///w/evals/evals.json");
    answerFirst(WORKFLOW);
    await slow;
    assert.equal(view.text, "eval suite");
  });

  it("asks nothing without a server or an active document", async () => {
    const view = new FakeView();
    view.show("stale", "stale");
    const client = new FakeClient(() => WORKFLOW);
    const controller = new DocumentInfoController(view);
    await controller.refresh(undefined, URI);
    await controller.refresh(client, undefined);
    assert.equal(view.visible, false);
    assert.equal(client.requests.length, 0);
  });
});
