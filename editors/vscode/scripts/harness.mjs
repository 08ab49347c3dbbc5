// Shared by the integration and UI runs: a free port, a child process in its own process group
// (killed as a group), waiting for an HTTP server, and Debian's chromium through playwright-core.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
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
