// The UI check: the packaged .vsix installed into code-server, the workbench in Debian's chromium.
// Opens the planted suite, opens the Problems panel from the status bar, waits for the planted
// messages in its rows, takes a screenshot; then, with --bad-settings, writes those workspace settings
// (ones under which no server is found) and waits for the server-not-found notification with its
// two buttons. With --document-items (a JSON object: relative path -> the text the file's status item
// must show), opens each file in turn and reads that item and its hover. With --lens (a JSON object:
// `text`, the start of a code lens, and `line`, the text of the line under it), waits for that lens
// in the opened editor and reads where the two are drawn. Writes what it saw as JSON (--report).
//
// node scripts/run-ui.mjs --code-server DIR --vsix FILE --workspace DIR --data DIR --chromium PATH
//   --open REL --expect JSON_ARRAY_OF_MESSAGES --screenshots DIR --report FILE [--bad-settings JSON]
//   [--document-items JSON] [--lens JSON]
import * as fs from "node:fs";
import * as path from "node:path";
import { QUIET_WORKBENCH, launchChromium, parseArgs, startCodeServer } from "./harness.mjs";

const args = parseArgs(process.argv.slice(2));
const expected = JSON.parse(args.expect);
const WAIT_MS = 60_000;
const seen = {
  rows: [],
  statusBar: [],
  notification: null,
  settingsEditor: null,
  output: [],
  documentItems: {},
  lens: null,
  screenshots: [],
};

fs.mkdirSync(args.screenshots, { recursive: true });
const { port, server } = await startCodeServer({
  codeServer: args["code-server"],
  vsix: args.vsix,
  workspace: args.workspace,
  data: args.data,
  settings: QUIET_WORKBENCH,
});

let browser;
let exitCode = 1;
try {
  browser = await launchChromium(args.chromium);
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const opening = (relative) => {
    const file = `vscode-remote://127.0.0.1:${port}${path.join(args.workspace, relative)}`;
    return `http://127.0.0.1:${port}/?folder=${encodeURIComponent(args.workspace)}&payload=${encodeURIComponent(JSON.stringify([["openFile", file]]))}`;
  };
  await page.goto(opening(args.open), { timeout: WAIT_MS });

  // The status bar: our item says ready with the version; the problems item opens the panel.
  const ours = page.locator(".statusbar-item", { hasText: "evalfix-ls" });
  await ours.locator("text=/evalfix-ls \\d/").first().waitFor({ timeout: WAIT_MS });
  seen.statusBar.push(await ours.first().innerText());
  await page.locator("#status\\.problems").click({ timeout: WAIT_MS });
  const rows = page.locator(".markers-panel .monaco-list-row");
  const deadline = Date.now() + WAIT_MS;
  while (Date.now() < deadline) {
    seen.rows = await rows.allInnerTexts();
    if (expected.every((message) => seen.rows.some((row) => row.includes(message)))) break;
    await page.waitForTimeout(250);
  }
  const problems = path.join(args.screenshots, "problems-panel.png");
  await page.screenshot({ path: problems });
  seen.screenshots.push(problems);
  const missing = expected.filter((message) => !seen.rows.some((row) => row.includes(message)));
  if (missing.length) throw new Error(`the Problems panel lacks ${JSON.stringify(missing)}`);
  if (args.lens) await codeLens(page);
  if (args["document-items"]) await documentItems(page, opening);
  if (args["bad-settings"]) await serverNotFound(page);
  exitCode = 0;
} catch (error) {
  console.error(`run-ui: ${error.message}`);
  const failure = path.join(args.screenshots, "failure.png");
  await browser
    ?.contexts()[0]
    ?.pages()[0]
    ?.screenshot({ path: failure })
    .catch(() => {});
  seen.screenshots.push(failure);
} finally {
  fs.writeFileSync(args.report, JSON.stringify(seen, null, 2));
  await browser?.close().catch(() => {});
  server.stop();
}
process.exit(exitCode);

/** Each file opened in the workbench: the status item with the text given for it, and its hover. */
async function documentItems(page, opening) {
  for (const [relative, text] of Object.entries(JSON.parse(args["document-items"]))) {
    await page.goto(opening(relative), { timeout: WAIT_MS });
    const item = page.locator(".statusbar-item").filter({ hasText: new RegExp(`^\\s*${text}\\s*$`) });
    await item.first().waitFor({ timeout: WAIT_MS });
    await item.first().hover();
    const hover = page.locator(".workbench-hover, .monaco-hover").filter({ visible: true });
    await hover.first().waitFor({ timeout: WAIT_MS });
    seen.documentItems[relative] = { text: await item.first().innerText(), tooltip: await hover.first().innerText() };
    const shot = path.join(args.screenshots, `document-item-${Object.keys(seen.documentItems).length}.png`);
    await page.screenshot({ path: shot });
    seen.screenshots.push(shot);
  }
}

/** The code lens starting with `text` as the editor draws it, and the line holding `line` (the
 * case's id): their text and boxes (pixels from the page's top). */
async function codeLens(page) {
  const { text, line } = JSON.parse(args.lens);
  const editor = page.locator(".editor-instance .monaco-editor").first();
  const lens = editor.locator(".codelens-decoration").filter({ hasText: text }).first();
  await lens.waitFor({ timeout: WAIT_MS });
  // The editor draws a space of the text as a no-break space.
  const under = editor
    .locator(".view-line")
    .filter({ hasText: line.replace(/ /g, "\u00a0") })
    .first();
  await under.waitFor({ timeout: WAIT_MS });
  seen.lens = {
    text: (await lens.innerText()).replace(/\u00a0/g, " "),
    box: await lens.boundingBox(),
    line: (await under.innerText()).replace(/\u00a0/g, " "),
    lineBox: await under.boundingBox(),
  };
  const shot = path.join(args.screenshots, "code-lens.png");
  await page.screenshot({ path: shot });
  seen.screenshots.push(shot);
}

async function serverNotFound(page) {
  const existing = path.join(args.workspace, ".vscode", "settings.json");
  const settings = fs.existsSync(existing) ? JSON.parse(fs.readFileSync(existing, "utf8")) : {};
  // Server not found: the notification toast and its buttons, as a user sees them.
  fs.writeFileSync(existing, JSON.stringify({ ...settings, ...JSON.parse(args["bad-settings"]) }));
  const toast = page.locator(".notification-toast", { hasText: "language server was not found" });
  await toast.waitFor({ timeout: WAIT_MS });
  seen.notification = {
    text: await toast.innerText(),
    buttons: await toast.locator(".monaco-button").allInnerTexts(),
  };
  const notFound = path.join(args.screenshots, "server-not-found.png");
  await page.screenshot({ path: notFound });
  seen.screenshots.push(notFound);
  // "Open settings" opens the Settings editor on the extension's server settings.
  await toast.locator(".monaco-button", { hasText: "Open settings" }).click({ timeout: WAIT_MS });
  const titles = page.locator(".settings-editor .setting-item-title");
  await titles.filter({ hasText: "Server: Path" }).first().waitFor({ timeout: WAIT_MS });
  seen.settingsEditor = await titles.allInnerTexts();

  // The status bar item (now "failed") opens the output channel, which says what was tried.
  await page.keyboard.press("Escape");
  await page.locator(".statusbar-item", { hasText: "evalfix-ls" }).first().click({ timeout: WAIT_MS });
  const output = page.locator(".panel .monaco-editor .view-lines");
  await output.filter({ hasText: "no `evalfix-ls` on PATH" }).first().waitFor({ timeout: WAIT_MS });
  seen.output = (await output.first().innerText())
    .replace(/\u00a0/g, " ")
    .split("\n")
    .filter((line) => line.trim());
  const outputShot = path.join(args.screenshots, "output-channel.png");
  await page.screenshot({ path: outputShot });
  seen.screenshots.push(outputShot);
}
