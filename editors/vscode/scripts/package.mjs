// `npm run package [-- --target T ...] [--no-build]`: build once (unless --no-build: dist/ is
// current), then one .vsix per target.
//
// Without --target: the universal package (evalfix-ls.vsix), which runs the server the environment
// has, as before. With --target (linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64; may be
// repeated): evalfix-ls-<target>.vsix carrying bundled/libs, i.e. evalfix_ls (a wheel built from this
// checkout) and the pinned libraries of bundled/requirements.txt, installed by pip for the target's
// platform (the one compiled module, corvus-regex-ecma262, is an abi3 wheel: one build per platform
// serves every Python >= 3.10). The Python that runs pip: $EVALFIX_PYTHON, else python3.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const extension = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const repository = path.resolve(extension, "../..");
const libs = path.join(extension, "bundled", "libs");
const cache = path.join(extension, ".cache", "bundle");
const python = process.env.EVALFIX_PYTHON || "python3";
const MAX_BYTES = 15 * 1024 * 1024;
// vsce's target -> the platform tags pip may pick the compiled wheel for (pip also takes the older
// manylinux / macOS tags these imply).
const PLATFORMS = {
  "linux-x64": ["manylinux2014_x86_64"],
  "linux-arm64": ["manylinux2014_aarch64"],
  "darwin-x64": ["macosx_11_0_x86_64"],
  "darwin-arm64": ["macosx_11_0_arm64"],
  "win32-x64": ["win_amd64"],
};

function targetsFrom(argv) {
  const targets = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--no-build") continue;
    const [flag, inline] = argv[i].split("=", 2);
    if (flag !== "--target") throw new Error(`unexpected argument ${argv[i]} (usage: --target <target>)`);
    const target = inline ?? argv[++i];
    if (!PLATFORMS[target]) {
      throw new Error(`unknown target ${target}; known: ${Object.keys(PLATFORMS).join(", ")}`);
    }
    targets.push(target);
  }
  return targets;
}

function run(command, args, options = {}) {
  execFileSync(command, args, { cwd: extension, stdio: "inherit", timeout: 600_000, ...options });
}

const pip = (args) =>
  run(python, ["-m", "pip", ...args, "--disable-pip-version-check", "-q"], {
    env: { ...process.env, PIP_CACHE_DIR: path.join(cache, "pip") },
  });

/** The evalfix_ls wheel of this checkout, built once per run. */
function serverWheel() {
  const out = path.join(cache, "wheel");
  fs.rmSync(out, { recursive: true, force: true });
  pip(["wheel", "--no-deps", "--wheel-dir", out, repository]);
  const [wheel] = fs.readdirSync(out).filter((name) => name.startsWith("evalfix_ls-") && name.endsWith(".whl"));
  if (!wheel) throw new Error(`pip wheel made no evalfix_ls wheel in ${out}`);
  return path.join(out, wheel);
}

function installLibs(target, wheel) {
  fs.rmSync(libs, { recursive: true, force: true });
  const platformArgs = PLATFORMS[target].flatMap((tag) => ["--platform", tag]);
  pip([
    "install",
    "--target",
    libs,
    "--no-deps",
    "--no-compile",
    "--only-binary=:all:",
    ...platformArgs,
    "--python-version",
    "3.10",
    "--implementation",
    "cp",
    "--abi",
    "abi3",
    "-r",
    path.join(extension, "bundled", "requirements.txt"),
    wheel,
  ]);
  // Console scripts (made for this machine's Python) and byte code are no use in the package.
  fs.rmSync(path.join(libs, "bin"), { recursive: true, force: true });
}

function vsce(out, extra) {
  run(process.execPath, [
    path.join(extension, "node_modules/@vscode/vsce/vsce"),
    "package",
    "--no-dependencies",
    "--out",
    out,
    ...extra,
  ]);
  const size = fs.statSync(out).size;
  console.log(`${path.basename(out)}: ${size} bytes (${(size / 1024 / 1024).toFixed(1)} MB)`);
  if (size > MAX_BYTES) throw new Error(`${out} is ${size} bytes, over the ${MAX_BYTES}-byte limit`);
}

function packageAll(targets) {
  if (!process.argv.includes("--no-build")) run("npm", ["run", "-s", "build"]);
  if (!targets.length) {
    fs.rmSync(libs, { recursive: true, force: true });
    vsce(path.join(extension, "evalfix-ls.vsix"), []);
    return;
  }
  const wheel = serverWheel();
  for (const target of targets) {
    installLibs(target, wheel);
    vsce(path.join(extension, `evalfix-ls-${target}.vsix`), ["--target", target]);
  }
}

try {
  packageAll(targetsFrom(process.argv.slice(2)));
} catch (error) {
  // A usage error or a failed step (its own output is above): one line, no stack trace.
  console.error(`package: ${error.message.split("\n")[0]}`);
  process.exitCode = 1;
} finally {
  // The working tree stays as a universal checkout: bundled/libs exists only while packaging.
  fs.rmSync(libs, { recursive: true, force: true });
}
