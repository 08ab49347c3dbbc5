// Shared by the integration, UI and traffic-recording runs: code-server with a .vsix installed, a free port, a child process in its own process group
// (killed as a group), waiting for an HTTP server, and Debian's chromium through playwright-core.
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { chromium } from "playwright-core";

export function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith("--")) throw new Error(`unexpected argument ${argv[i]}`);
    args[argv[i].slice(2)] = argv[i + 1];
  }
  return args;
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts `command args` detached (its own group), output appended to `logFile`. */
export function startProcess(command, args, { env, logFile, cwd }) {
  const log = fs.openSync(logFile, "a");
  const child = spawn(command, args, { env, cwd, detached: true, stdio: ["ignore", log, log] });
  child.unref();
  return {
    child,
    stop() {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
      fs.closeSync(log);
    },
  };
}

export async function waitForHttp(url, timeoutMs, child) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} before answering ${url}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (response.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`no answer from ${url} within ${timeoutMs} ms`);
}

export function launchChromium(executablePath) {
  return chromium.launch({
    executablePath,
    headless: true,
    timeout: 60_000,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
  });
}

/** Rejects after `ms` with `what`; resolves with the promise otherwise. */
export function within(promise, ms, what) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no result within ${ms} ms`)), ms);
    }),
  ]);
}

/** User settings for a workbench driven by a script: no telemetry, no start page, no chat. */
export const QUIET_WORKBENCH = {
  "telemetry.telemetryLevel": "off",
  "workbench.startupEditor": "none",
  "chat.disableAIFeatures": true,
};

/**
 * code-server (`codeServer`: its package folder) with `vsix` installed into `data`, serving
 * `workspace` on a free port with the user `settings`; answering once this returns.
 */
export async function startCodeServer({ codeServer, vsix, workspace, data, settings }) {
  const entry = path.join(codeServer, "out/node/entry.js");
  const userData = path.join(data, "user-data");
  const extensions = path.join(data, "extensions");
  fs.mkdirSync(path.join(userData, "User"), { recursive: true });
  fs.writeFileSync(path.join(userData, "User", "settings.json"), JSON.stringify(settings));
  execFileSync(
    process.execPath,
    [entry, "--user-data-dir", userData, "--extensions-dir", extensions, "--install-extension", vsix],
    { stdio: "inherit", timeout: 120_000 },
  );
  const port = await freePort();
  const server = startProcess(
    process.execPath,
    [
      entry,
      "--auth",
      "none",
      "--bind-addr",
      `127.0.0.1:${port}`,
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      "--disable-getting-started-override",
      "--user-data-dir",
      userData,
      "--extensions-dir",
      extensions,
      workspace,
    ],
    { env: process.env, logFile: path.join(data, "code-server.log") },
  );
  try {
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, 60_000, server.child);
  } catch (error) {
    server.stop();
    throw error;
  }
  return { port, server };
}
