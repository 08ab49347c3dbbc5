// What a user does in a real VS Code, for bench.tools.record_vscode (which records the LSP traffic it
// causes): the packaged .vsix installed into code-server, the workbench in Debian's chromium, a
// suite opened; then through the UI only — keyboard and mouse — the cursor put at the end of the
// case on --anchor-line (1-based, its closing `},`), a new case typed after it one key at a time
// (the text passes through invalid JSON), the cursor moved back into the new case's prompt with the
// arrow keys and a few letters typed there, the cursor moved up and down, a click, and the mouse
// resting on a member name until the hover shows. Each action is written with its wall-clock time
// (--report), so the recording can be cut per keystroke and per cursor move.
//
// node scripts/record-traffic.mjs --code-server DIR --vsix FILE --workspace DIR --data DIR
//   --chromium PATH --open REL --anchor-line N --case TEXT --report FILE [--screenshots DIR]
import * as fs from "node:fs";
import * as path from "node:path";
import { QUIET_WORKBENCH, launchChromium, parseArgs, startCodeServer } from "./harness.mjs";

const args = parseArgs(process.argv.slice(2));
const screenshots = args.screenshots ?? path.join(args.data, "screenshots");
const WAIT_MS = 120_000;
const KEY_DELAY_MS = 100; // ten keys a second
const MOVE_DELAY_MS = 300; // a user stepping the cursor, looking at each line
const seen = { actions: [], screenshots: [], hover: null, statusBar: null };

function act(what, detail = {}) {
  seen.actions.push({ t: Date.now() / 1000, what, ...detail });
}

fs.mkdirSync(screenshots, { recursive: true });
const { port, server } = await startCodeServer({
  codeServer: args["code-server"],
  vsix: args.vsix,
  workspace: args.workspace,
  data: args.data,
  settings: { ...QUIET_WORKBENCH, "git.openRepositoryInParentFolders": "never" },
});

let browser;
let exitCode = 1;
try {
  browser = await launchChromium(args.chromium);
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const file = `vscode-remote://127.0.0.1:${port}${path.join(args.workspace, args.open)}`;
  const payload = encodeURIComponent(JSON.stringify([["openFile", file]]));
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(args.workspace)}&payload=${payload}`, {
    timeout: WAIT_MS,
  });
  const ours = page.locator(".statusbar-item", { hasText: "evalfix-ls" });
  await ours.locator("text=/evalfix-ls \\d/").first().waitFor({ timeout: WAIT_MS });
  seen.statusBar = await ours.first().innerText();
  act("ready");
  await page.waitForTimeout(3000); // the opening traffic settles

  await typeNewCase(page);
  await typeInsidePrompt(page);
  await moveCursor(page);
  await clickAndHover(page);
  act("idle");
  await page.waitForTimeout(3000); // the last answers and the traffic they trigger
  act("end");
  await shot(page, "end");
  exitCode = 0;
} catch (error) {
  console.error(`record-traffic: ${error.message}`);
  await shot(browser?.contexts()[0]?.pages()[0], "failure").catch(() => {});
} finally {
  fs.writeFileSync(args.report, JSON.stringify(seen, null, 2));
  await browser?.close().catch(() => {});
  server.stop();
}
process.exit(exitCode);

async function shot(page, name) {
  if (!page) return;
  const file = path.join(screenshots, `${name}.png`);
  await page.screenshot({ path: file });
  seen.screenshots.push(file);
}

/** The cursor at the end of the anchor case (Go to Line, then End), a new line, the case typed. */
async function typeNewCase(page) {
  await page
    .locator(".monaco-editor .view-lines")
    .first()
    .click({ position: { x: 200, y: 20 } });
  await page.keyboard.press("Control+g");
  await page.keyboard.type(String(args["anchor-line"]));
  await page.keyboard.press("Enter");
  await page.keyboard.press("End");
  let where = "";
  for (let tries = 0; tries < 50 && !where.startsWith(`Ln ${args["anchor-line"]},`); tries += 1) {
    await page.waitForTimeout(100); // the status bar follows the cursor a moment later
    where = await cursorPosition(page);
  }
  act("anchor", { where });
  if (!where.startsWith(`Ln ${args["anchor-line"]},`)) throw new Error(`Go to Line put the cursor at ${where}`);
  await page.waitForTimeout(1000);
  act("key", { key: "Enter" });
  await page.keyboard.press("Enter");
  for (const key of args.case) {
    await page.waitForTimeout(KEY_DELAY_MS);
    act("key", { key });
    await page.keyboard.type(key);
  }
  await page.waitForTimeout(1500);
  await shot(page, "typed-case");
}

/** Back into the new case's prompt with the arrow keys, then a word typed there. */
async function typeInsidePrompt(page) {
  const line = await currentLineText(page);
  const tail = line.length - line.indexOf(" file"); // from the cursor at the line's end
  for (let step = 0; step < tail; step += 1) {
    act("move", { key: "ArrowLeft" });
    await page.keyboard.press("ArrowLeft");
    await page.waitForTimeout(KEY_DELAY_MS);
  }
  act("in-prompt", { where: await cursorPosition(page) });
  for (const key of " now") {
    act("key", { key });
    await page.keyboard.type(key);
    await page.waitForTimeout(KEY_DELAY_MS);
  }
  await page.waitForTimeout(1500);
}

async function moveCursor(page) {
  for (const key of ["ArrowUp", "ArrowUp", "ArrowUp", "ArrowUp", "ArrowDown", "ArrowDown", "ArrowDown", "ArrowDown"]) {
    act("move", { key });
    await page.keyboard.press(key);
    await page.waitForTimeout(MOVE_DELAY_MS);
  }
  await page.waitForTimeout(1000);
}

/** A click on the new case's id (its line, not the code lens above it: that would run the case),
 * then the mouse resting on `"prompt"` of the new case. */
async function clickAndHover(page) {
  const typed = page.locator(".view-line", { hasText: "typed-case" }).first();
  act("click", { where: "the typed case's id" });
  await typed
    .locator("span", { hasText: /typed-case/ })
    .first()
    .click();
  act("clicked", { where: await cursorPosition(page) });
  await page.waitForTimeout(1500);
  const word = typed.locator("span", { hasText: /^"?prompt"?$/ }).first();
  act("hover", { where: '"prompt" of the typed case' });
  await word.hover();
  const hover = page.locator(".monaco-hover").filter({ visible: true });
  try {
    await hover.first().waitFor({ timeout: 10_000 });
    seen.hover = await hover.first().innerText();
  } catch {
    seen.hover = null;
  }
  act("hovered", { shown: seen.hover !== null });
  await shot(page, "hover");
  await page.mouse.move(5, 5);
}

async function cursorPosition(page) {
  const item = page.locator("#status\\.editor\\.selection");
  return (await item.first().innerText({ timeout: 5000 })).trim();
}

async function currentLineText(page) {
  const line = page.locator(".view-line", { hasText: "typed-case" }).first();
  return (await line.innerText()).replace(/\u00a0/g, " ");
}
