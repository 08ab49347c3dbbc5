// Runs the Mocha integration tests (out/test/integration) in the extension host of the VS Code
// server that code-server ships, with the smoke-test driver on: chromium opens the web workbench
// with extensionDevelopmentPath/extensionTestsPath, and the workbench calls
// window.codeAutomationExit(code) when the tests end. Exit code: the tests' (1 on failure).
//
// node scripts/run-integration.mjs --code-server DIR --workspace DIR --data DIR --chromium PATH
//   [--timeout MS]   (environment: passed to the extension host, e.g. EVALFIX_TEST_REPORT)
//   [--tests out/test/integration/INDEX]   (the suite to run; default: index)
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, launchChromium, parseArgs, startProcess, waitForHttp, within } from "./harness.mjs";

const args = parseArgs(process.argv.slice(2));
const extensionPath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const timeoutMs = Number(args.timeout ?? 240_000);
fs.mkdirSync(args.data, { recursive: true });

const port = await freePort();
const server = startProcess(
  process.execPath,
  [
    path.join(args["code-server"], "lib/vscode/out/server-main.js"),
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "--without-connection-token",
    "--accept-server-license-terms",
    "--server-data-dir",
    args.data,
    "--user-data-dir",
    path.join(args.data, "user"),
    "--extensions-dir",
    path.join(args.data, "extensions"),
    "--telemetry-level",
    "off",
    "--disable-workspace-trust",
    "--enable-smoke-test-driver",
  ],
  { env: process.env, logFile: path.join(args.data, "server.log") },
);

let browser;
let exitCode = 1;
try {
  await waitForHttp(`http://127.0.0.1:${port}/`, 60_000, server.child);
  browser = await launchChromium(args.chromium);
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on("console", (message) => {
    const text = message.text();
    if (/SKIPPED|evalfix|integration test|Error/.test(text)) console.log(`[workbench] ${text}`);
  });
  const exited = new Promise((resolve) => page.exposeFunction("codeAutomationExit", (code) => resolve(code)));
  const remote = (p) => `vscode-remote://127.0.0.1:${port}${p}`;
  const payload = [
    ["extensionDevelopmentPath", remote(extensionPath)],
    ["extensionTestsPath", remote(path.join(extensionPath, args.tests ?? "out/test/integration/index"))],
  ];
  const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(args.workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  await page.goto(url, { timeout: 60_000 });
  try {
    exitCode = await within(exited, timeoutMs, "the integration tests");
  } catch (error) {
    await page.screenshot({ path: path.join(args.data, "timeout.png") }).catch(() => {});
    throw error;
  }
  console.log(`integration tests exited with ${exitCode}`);
} catch (error) {
  console.error(`run-integration: ${error.message}`);
  exitCode = 1;
} finally {
  await browser?.close().catch(() => {});
  server.stop();
}
process.exit(exitCode);
