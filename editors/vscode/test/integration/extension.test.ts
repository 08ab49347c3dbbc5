// Integration tests in VS Code's extension host, on the workspace with planted problems that the
// pytest side copies from test-fixtures/workspace (and points evalfix.server.path at the venv).
// Every expected position is computed here from the document text (JavaScript strings are UTF-16,
// as VS Code's positions), never copied from the server.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { EvalfixApi } from "../../src/extension";
import { report, SeenDiagnostic } from "./report";

const EXTENSION_ID = "evalfix.evalfix-ls";
const SOURCE = "evalfix-ls";
const WAIT_MS = 45_000; // one bounded wait on a loaded machine

/** A planted problem: `token` (the JSON value the finding points at) ends `needle`, which occurs once. */
interface Planted {
  code: string;
  needle: string;
  token: string;
}

const SUITE = "skills/demo-skill/evals/evals.json";
const WORKFLOW = "skills/demo-skill/evals/workflow/trigger-cases.json";
const PLANTED: Record<string, Planted[]> = {
  [SUITE]: [
    { code: "setup-kind-invalid", needle: '"kind": "seeded🌱"', token: '"seeded🌱"' },
    { code: "prompt-required", needle: '"prompt": ""', token: '""' },
    { code: "expected-output-type", needle: '"expected_output": 42', token: "42" },
  ],
  [WORKFLOW]: [
    { code: "invalid_coverage_tag", needle: '"trigger", "计划🚀"', token: '"计划🚀"' },
    { code: "invalid_coverage_tag", needle: '"计划🚀", "Bad Tag"', token: '"Bad Tag"' },
  ],
};

function folder(): vscode.Uri {
  const first = vscode.workspace.workspaceFolders?.[0];
  assert.ok(first, "the test workspace is open");
  return first.uri;
}

const fileUri = (relative: string) => vscode.Uri.joinPath(folder(), relative);

function expectedRange(document: vscode.TextDocument, planted: Planted): vscode.Range {
  const text = document.getText();
  const at = text.indexOf(planted.needle);
  assert.ok(at >= 0 && text.indexOf(planted.needle, at + 1) < 0, `needle ${planted.needle} occurs once`);
  const start = at + planted.needle.length - planted.token.length;
  return new vscode.Range(document.positionAt(start), document.positionAt(start + planted.token.length));
}

function codeOf(diagnostic: vscode.Diagnostic): string | number | undefined {
  const code = diagnostic.code;
  return typeof code === "object" && code !== null ? code.value : code;
}

function seen(diagnostic: vscode.Diagnostic): SeenDiagnostic {
  const { start, end } = diagnostic.range;
  return {
    code: codeOf(diagnostic),
    source: diagnostic.source,
    range: [start.line, start.character, end.line, end.character],
    message: diagnostic.message,
  };
}

const key = (d: SeenDiagnostic) => `${d.code}@${d.range.join(":")}`;
const ours = (uri: vscode.Uri) =>
  vscode.languages
    .getDiagnostics(uri)
    .filter((d) => d.source === SOURCE)
    .map(seen);

function expectedFor(document: vscode.TextDocument, planted: Planted[]): string[] {
  return planted
    .map((p) => {
      const range = expectedRange(document, p);
      return `${p.code}@${[range.start.line, range.start.character, range.end.line, range.end.character].join(":")}`;
    })
    .sort();
}

/** Resolves once `check` returns a value; rejects after `WAIT_MS` with the last thing seen. */
function waitFor<T>(what: string, check: () => T | undefined, describe: () => unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (value?: T, error?: Error) => {
      done = true;
      clearInterval(poll);
      clearTimeout(timer);
      subscription.dispose();
      if (error) {
        reject(error);
      } else {
        resolve(value as T);
      }
    };
    const attempt = () => {
      if (done) {
        return;
      }
      try {
        const value = check();
        if (value !== undefined) {
          finish(value);
        }
      } catch (error) {
        finish(undefined, error as Error);
      }
    };
    const subscription = vscode.languages.onDidChangeDiagnostics(attempt);
    const poll = setInterval(attempt, 200);
    const timer = setTimeout(
      () =>
        finish(
          undefined,
          new Error(`timed out after ${WAIT_MS} ms waiting for ${what}; last seen: ${JSON.stringify(describe())}`),
        ),
      WAIT_MS,
    );
    attempt();
  });
}

async function waitForDiagnostics(uri: vscode.Uri, expected: string[]): Promise<SeenDiagnostic[]> {
  return waitFor(
    `the diagnostics ${expected.join(", ")} in ${uri.path}`,
    () => {
      const now = ours(uri);
      return JSON.stringify(now.map(key).sort()) === JSON.stringify(expected) ? now : undefined;
    },
    () => ours(uri).map(key).sort(),
  );
}

async function api(): Promise<EvalfixApi> {
  const extension = vscode.extensions.getExtension<EvalfixApi>(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is installed in the extension host`);
  return extension.isActive ? extension.exports : extension.activate();
}

async function waitForState(evalfix: EvalfixApi, state: string): Promise<void> {
  await waitFor(
    `the server state ${state}`,
    () => (evalfix.state === state ? true : undefined),
    () => evalfix.state,
  );
}

/** Waits until the server from evalfix.server.path runs again (after a test changed the settings). */
async function waitForSettingServer(evalfix: EvalfixApi): Promise<void> {
  await waitFor(
    "the server from evalfix.server.path again",
    () => (evalfix.state === "ready" && evalfix.server?.source === "setting" ? true : undefined),
    () => [evalfix.state, evalfix.server],
  );
}

function capability(evalfix: EvalfixApi, name: string): unknown {
  const capabilities = evalfix.client?.initializeResult?.capabilities as Record<string, unknown> | undefined;
  return capabilities?.[name];
}

/** Skips a test (Mocha) while the server does not advertise a capability, saying which. */
function requireCapability(context: Mocha.Context, evalfix: EvalfixApi, name: string): void {
  if (!capability(evalfix, name)) {
    const reason = `the server does not advertise ${name} in its capabilities yet`;
    report.skipReasons[context.test?.title ?? ""] = reason;
    console.log(`SKIPPED (${reason}): ${context.test?.title}`);
    context.skip();
  }
}

function waitForPromise<T>(what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${WAIT_MS} ms waiting for ${what}`)), WAIT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Waits (bounded) until the server's code lenses for `uri` include a case command. */
async function waitForLens(uri: vscode.Uri): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", uri);
    if (lenses.some((lens) => lens.command?.command === "evalfix.caseCommand")) {
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(`no evalfix.caseCommand lens in ${uri.path}: ${JSON.stringify(lenses.map((l) => l.command))}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function openNewFixture(relative: string, text: string): Promise<vscode.TextDocument> {
  const uri = fileUri(relative);
  await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
  const document = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(document);
  return document;
}

suite("evalfix-ls in VS Code", () => {
  test("activates and starts the server from the project's venv", async () => {
    const document = await vscode.workspace.openTextDocument(fileUri(SUITE));
    await vscode.window.showTextDocument(document);
    const evalfix = await api();
    await waitForState(evalfix, "ready");
    const info = evalfix.client?.initializeResult?.serverInfo;
    report.server = { state: evalfix.state, serverInfo: info, command: evalfix.server };
    assert.equal(info?.name, "evalfix-ls");
    assert.equal(evalfix.version, process.env.EVALFIX_EXPECTED_VERSION);
    assert.equal(evalfix.server?.source, "setting");
    assert.equal(evalfix.server?.command, process.env.EVALFIX_EXPECTED_SERVER);
  });

  test("diagnostics hold the planted codes at the exact ranges (CJK and emoji on the line)", async () => {
    for (const [relative, planted] of Object.entries(PLANTED)) {
      const document = await vscode.workspace.openTextDocument(fileUri(relative));
      await vscode.window.showTextDocument(document);
      report.seen[relative] = await waitForDiagnostics(document.uri, expectedFor(document, planted));
    }
  });

  test("an edit updates them", async () => {
    const document = await vscode.workspace.openTextDocument(fileUri(SUITE));
    const editor = await vscode.window.showTextDocument(document);
    const [kind, prompt] = PLANTED[SUITE];
    const kindRange = expectedRange(document, kind);
    const promptRange = expectedRange(document, prompt);
    const before = expectedFor(document, [PLANTED[SUITE][2]]);
    // The kind becomes valid; the prompt gets CJK and an emoji, which moves the next problem on
    // its line by four UTF-16 units.
    assert.ok(
      await editor.edit((edit) => {
        edit.replace(kindRange, '"empty"');
        edit.replace(promptRange, '"写 🌊"');
      }),
    );
    const moved = { code: "expected-output-type", needle: '"写 🌊", "expected_output": 42', token: "42" };
    const expected = expectedFor(document, [moved]);
    assert.notDeepEqual(expected, before, "the edit moved the remaining problem");
    report.seen[`${SUITE} (after the edit)`] = await waitForDiagnostics(document.uri, expected);
  });

  test("syntax errors appear once beside VS Code's JSON support", async () => {
    const evalfix = await api();
    const broken = '{\n  "skill_name": "破损 💥",\n  "evals": [{"id": "a", "prompt": "p",},],\n  // 注释\n}\n';
    const document = await openNewFixture("skills/broken-skill/evals/evals.json", broken);
    const raw = (await evalfix.client?.sendRequest("textDocument/diagnostic", {
      textDocument: { uri: document.uri.toString() },
    })) as { items?: { code?: string }[] } | undefined;
    const rawCodes = (raw?.items ?? []).map((item) => item.code);
    assert.ok(rawCodes.includes("json-syntax"), `the server itself reports further syntax errors: ${rawCodes}`);
    await waitFor(
      "VS Code's own JSON syntax errors and our one verdict",
      () => {
        const all = vscode.languages.getDiagnostics(document.uri);
        const json = all.filter((d) => d.source === "json");
        const mine = all.filter((d) => d.source === SOURCE).map(codeOf);
        return json.length >= 2 && mine.includes("json-invalid") ? true : undefined;
      },
      () => vscode.languages.getDiagnostics(document.uri).map(seen),
    );
    const mine = vscode.languages.getDiagnostics(document.uri).filter((d) => d.source === SOURCE);
    report.seen["skills/broken-skill/evals/evals.json"] = vscode.languages.getDiagnostics(document.uri).map(seen);
    assert.deepEqual(
      mine.map(codeOf).filter((code) => String(code).startsWith("json")),
      ["json-invalid"],
    );
  });

  test("completion at a setup kind offers empty, seeded and fixture", async function () {
    const evalfix = await api();
    requireCapability(this, evalfix, "completionProvider");
    const text =
      '{\n  "skill_name": "补全 ✨",\n  "evals": [{"id": "a", "prompt": "写 🙂", "setup": {"kind": ""}}]\n}\n';
    const document = await openNewFixture("skills/completion-skill/evals/evals.json", text);
    const position = document.positionAt(text.indexOf('"kind": ""') + '"kind": "'.length);
    const list = await vscode.commands.executeCommand<vscode.CompletionList>(
      "vscode.executeCompletionItemProvider",
      document.uri,
      position,
    );
    const labels = list.items.map((item) => (typeof item.label === "string" ? item.label : item.label.label));
    const kinds = new Set(labels.map((label) => label.replace(/^"|"$/g, "")));
    report.server.completionLabels = labels;
    for (const kind of ["empty", "seeded", "fixture"]) {
      assert.ok(kinds.has(kind), `completion offers ${kind}: ${labels.join(", ")}`);
    }
  });

  test("a quick fix applies", async function () {
    const evalfix = await api();
    requireCapability(this, evalfix, "codeActionProvider");
    const original = new TextDecoder().decode(await vscode.workspace.fs.readFile(fileUri(WORKFLOW)));
    const document = await openNewFixture(
      "skills/fix-skill/evals/trigger-cases.json",
      original.replace('"skill": "demo-skill"', '"skill": "fix-skill"'),
    );
    const planted = PLANTED[WORKFLOW];
    await waitForDiagnostics(document.uri, expectedFor(document, planted));
    const diagnostics = vscode.languages.getDiagnostics(document.uri).filter((d) => d.source === SOURCE);
    let applied: { action: vscode.CodeAction; diagnostic: vscode.Diagnostic } | undefined;
    for (const diagnostic of diagnostics) {
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
        "vscode.executeCodeActionProvider",
        document.uri,
        diagnostic.range,
        vscode.CodeActionKind.QuickFix.value,
      );
      const action = actions.find((a) => a.edit || a.command);
      if (action) {
        applied = { action, diagnostic };
        break;
      }
    }
    assert.ok(applied, `a quick fix is offered for one of ${diagnostics.map(codeOf).join(", ")}`);
    const before = document.getText();
    if (applied.action.edit) {
      assert.ok(await vscode.workspace.applyEdit(applied.action.edit), `${applied.action.title} applies`);
    }
    if (applied.action.command) {
      await vscode.commands.executeCommand(applied.action.command.command, ...(applied.action.command.arguments ?? []));
    }
    assert.notEqual(document.getText(), before, `${applied.action.title} changed the document`);
    const fixed = seen(applied.diagnostic);
    report.server.quickFix = { title: applied.action.title, fixed };
    await waitFor(
      `${key(fixed)} to go after "${applied.action.title}"`,
      () => (ours(document.uri).some((d) => key(d) === key(fixed)) ? undefined : true),
      () => ours(document.uri).map(key),
    );
    report.seen["skills/fix-skill/evals/trigger-cases.json (after the quick fix)"] = ours(document.uri);
  });

  test("run the selected case runs the server's case command in a terminal", async () => {
    const evalfix = await api();
    const commands = evalfix.client?.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
    assert.ok(commands.includes("evalfix.caseCommand"), `the server offers evalfix.caseCommand: ${commands}`);
    const text =
      '{\n  "skill_name": "run-skill",\n  "evals": [\n    {"id": "写-case", "prompt": "运行 🏃 this one"}\n  ]\n}\n';
    const document = await openNewFixture("skills/run-skill/evals/evals.json", text);
    const editor = await vscode.window.showTextDocument(document);
    const inCase = document.positionAt(text.indexOf("运行"));
    editor.selection = new vscode.Selection(inCase, inCase);
    const opened = new Promise<vscode.Terminal>((resolve) => {
      const listener = vscode.window.onDidOpenTerminal((terminal) => {
        listener.dispose();
        resolve(terminal);
      });
    });
    // The case lens comes with the server's answer to codeLens, which may follow the open.
    const terminal = await waitForPromise(
      "the evalfix case terminal",
      (async () => {
        await waitForLens(document.uri);
        await vscode.commands.executeCommand("evalfix.runCase");
        return opened;
      })(),
    );
    report.server.caseTerminal = terminal.name;
    assert.equal(terminal.name, "evalfix case");
    terminal.dispose();
  });

  test("the active file's item shows the server's evalfix/documentInfo, or hides quietly without it", async () => {
    const evalfix = await api();
    await waitForState(evalfix, "ready");
    const document = await vscode.workspace.openTextDocument(fileUri(SUITE));
    await vscode.window.showTextDocument(document);
    // A fresh server, asked afresh about the active file.
    await evalfix.restart();
    await waitForState(evalfix, "ready");
    const shownBefore = evalfix.notifications.length;
    // What this server answers, asked directly: the item must agree with it.
    let answer: { title: string; reason: string } | null = null;
    let methodNotFound = false;
    try {
      answer = await evalfix.client!.sendRequest("evalfix/documentInfo", {
        textDocument: { uri: document.uri.toString() },
      });
    } catch (error) {
      methodNotFound = (error as { code?: number }).code === -32601;
      assert.ok(methodNotFound, `evalfix/documentInfo failed: ${String(error)}`);
    }
    report.server.documentInfo = methodNotFound ? "MethodNotFound" : answer;
    if (answer) {
      const expected = answer;
      await waitFor(
        "the item with the server's title",
        () => (evalfix.documentItem.shown?.text === expected.title ? true : undefined),
        () => evalfix.documentItem.shown,
      );
      assert.ok(evalfix.documentItem.shown!.tooltip.startsWith(expected.reason), evalfix.documentItem.shown!.tooltip);
    } else {
      await waitFor(
        "the item to learn that the server lacks the request",
        () => (evalfix.documentItem.serverLacksRequest ? true : undefined),
        () => evalfix.documentItem,
      );
      assert.equal(evalfix.documentItem.shown, undefined);
    }
    assert.equal(evalfix.notifications.length, shownBefore);
  });

  test("the server is for the fixture paths and evalfix.files, not for every JSON document", async () => {
    const evalfix = await api();
    const document = async (relative: string) => {
      const uri = fileUri(relative);
      await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode("{}\n"));
      return vscode.workspace.openTextDocument(uri);
    };
    const [other, mapped] = [await document("config/settings.json"), await document("fixtures/suite.json")];
    assert.equal(evalfix.handles(await vscode.workspace.openTextDocument(fileUri(SUITE))), true);
    assert.equal(evalfix.handles(await vscode.workspace.openTextDocument(fileUri(WORKFLOW))), true);
    assert.equal(evalfix.handles(other), false);
    assert.equal(evalfix.handles(mapped), false);
    const settings = vscode.workspace.getConfiguration("evalfix");
    await settings.update("files", { "fixtures/*.json": "evals" }, vscode.ConfigurationTarget.Workspace);
    try {
      assert.equal(evalfix.handles(mapped), true);
      assert.equal(evalfix.handles(other), false);
    } finally {
      await settings.update("files", undefined, vscode.ConfigurationTarget.Workspace);
    }
    assert.equal(evalfix.handles(mapped), false);
    await waitForState(evalfix, "ready");
  });

  test("without evalfix.server.path, the Python extension's interpreter runs `python -m evalfix_ls`", async () => {
    const evalfix = await api();
    assert.ok(vscode.extensions.getExtension("ms-python.python"), "the Python extension (stand-in) is installed");
    const settings = vscode.workspace.getConfiguration("evalfix");
    await settings.update("server.path", "", vscode.ConfigurationTarget.Workspace);
    try {
      await waitFor(
        "the server started through the Python extension",
        () => (evalfix.state === "ready" && evalfix.server?.source === "python" ? true : undefined),
        () => [evalfix.state, evalfix.server],
      );
      const server = evalfix.server!;
      report.server.viaPython = server;
      assert.deepEqual([server.command, ...server.args], [process.env.EVALFIX_TEST_PYTHON, "-m", "evalfix_ls"]);
      assert.equal(evalfix.version, process.env.EVALFIX_EXPECTED_VERSION);
    } finally {
      await settings.update("server.path", process.env.EVALFIX_EXPECTED_SERVER, vscode.ConfigurationTarget.Workspace);
    }
    await waitForSettingServer(evalfix);
  });

  test("selecting another interpreter in the Python extension restarts the server with it", async () => {
    const evalfix = await api();
    const python = vscode.extensions.getExtension<{ testSelect(path: string): void }>("ms-python.python")!.exports;
    const withServer = process.env.EVALFIX_TEST_PYTHON!;
    const settings = vscode.workspace.getConfiguration("evalfix");
    await settings.update("server.path", "", vscode.ConfigurationTarget.Workspace);
    const viaPython = (interpreter: string) => () =>
      evalfix.state === "ready" && evalfix.server?.command === interpreter ? true : undefined;
    try {
      await waitFor("the server run by the selected interpreter", viaPython(withServer), () => evalfix.server);
      // An interpreter without the server: the restart finds none (no evalfix-ls on PATH either).
      python.testSelect(process.env.EVALFIX_TEST_PYTHON_WITHOUT_SERVER!);
      await waitForState(evalfix, "failed");
      python.testSelect(withServer);
      await waitFor("the server again after selecting the first interpreter", viaPython(withServer), () => [
        evalfix.state,
        evalfix.server,
      ]);
    } finally {
      process.env.EVALFIX_TEST_PYTHON = withServer;
      await settings.update("server.path", process.env.EVALFIX_EXPECTED_SERVER, vscode.ConfigurationTarget.Workspace);
    }
    await waitForSettingServer(evalfix);
  });

  test("a server that cannot be found gives one notification with Install with pip and Open settings", async () => {
    const evalfix = await api();
    // The Python extension's interpreter lacks the server (the stand-in reads this variable).
    const python = process.env.EVALFIX_TEST_PYTHON;
    const withoutServer = process.env.EVALFIX_TEST_PYTHON_WITHOUT_SERVER!;
    process.env.EVALFIX_TEST_PYTHON = withoutServer;
    const shownBefore = evalfix.notifications.length;
    const settings = vscode.workspace.getConfiguration("evalfix");
    await settings.update("server.path", "/nonexistent/evalfix-ls", vscode.ConfigurationTarget.Workspace);
    try {
      await waitForState(evalfix, "failed");
      const shown = evalfix.notifications.slice(shownBefore);
      report.server.notFound = shown;
      assert.equal(shown.length, 1, JSON.stringify(shown));
      assert.deepEqual(shown[0].items, ["Install with pip", "Open settings"]);
      assert.match(shown[0].message, /not found/);
      // "Install with pip" installs for the selected interpreter.
      assert.ok(shown[0].message.includes(`${withoutServer} -m pip install evalfix-ls`), shown[0].message);
      assert.equal(evalfix.client, undefined);
    } finally {
      process.env.EVALFIX_TEST_PYTHON = python;
      await settings.update("server.path", process.env.EVALFIX_EXPECTED_SERVER, vscode.ConfigurationTarget.Workspace);
    }
    await waitForState(evalfix, "ready");
  });
});
