import assert from "node:assert/strict";
import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";
import {
  describeAttempts,
  expandServerPath,
  notFoundMessage,
  parseVersion,
  pipInstallCommand,
  ProbeResult,
  resolveServer,
  ResolutionEnvironment,
  runProcess,
  whichOnPath,
} from "../../src/serverResolution";

const answers = (table: Record<string, ProbeResult>) => {
  const calls: string[] = [];
  const env = (interpreter?: string[], onPath?: string): ResolutionEnvironment => ({
    run: async (command, args) => {
      const line = [command, ...args].join(" ");
      calls.push(line);
      return table[line] ?? { exitCode: null, stdout: "", stderr: "", error: `cannot run ${command}: ENOENT` };
    },
    which: async () => onPath,
    pythonInterpreter: async () => interpreter,
  });
  return { calls, env };
};
const ok = (version: string): ProbeResult => ({ exitCode: 0, stdout: `evalfix-ls ${version}\n`, stderr: "" });
const noModule: ProbeResult = { exitCode: 1, stdout: "", stderr: "/venv/bin/python: No module named evalfix_ls\n" };

describe("parseVersion", () => {
  it("reads the version line evalfix-ls prints", () => {
    assert.equal(parseVersion("evalfix-ls 0.1.0\n"), "0.1.0");
    assert.equal(parseVersion("  evalfix-ls 1.2.3rc1"), "1.2.3rc1");
  });
  it("rejects another program's version", () => {
    assert.equal(parseVersion("Python 3.11.2"), undefined);
    assert.equal(parseVersion("ruff 0.17.0"), undefined);
    assert.equal(parseVersion(""), undefined);
  });
});

describe("resolveServer order", () => {
  it("uses evalfix.server.path with its args first, and asks nothing else", async () => {
    const { calls, env } = answers({ "/opt/evalfix-ls --log x --version": ok("9.0.0") });
    const found = await resolveServer(
      { serverPath: " /opt/evalfix-ls ", serverArgs: ["--log", "x"] },
      env(["/venv/bin/python"], "/usr/bin/evalfix-ls"),
    );
    assert.ok(found.found);
    assert.equal(found.candidate.source, "setting");
    assert.deepEqual([found.candidate.command, ...found.candidate.args], ["/opt/evalfix-ls", "--log", "x"]);
    assert.equal(found.version, "9.0.0");
    assert.deepEqual(calls, ["/opt/evalfix-ls --log x --version"]);
  });

  it("falls back to the Python interpreter as `python -m evalfix_ls` when the setting fails", async () => {
    const { calls, env } = answers({ "/venv/bin/python -m evalfix_ls --version": ok("0.1.0") });
    const found = await resolveServer(
      { serverPath: "/missing/evalfix-ls", serverArgs: [] },
      env(["/venv/bin/python"], "/usr/bin/evalfix-ls"),
    );
    assert.ok(found.found);
    assert.equal(found.candidate.source, "python");
    assert.deepEqual([found.candidate.command, ...found.candidate.args], ["/venv/bin/python", "-m", "evalfix_ls"]);
    assert.deepEqual(calls, ["/missing/evalfix-ls --version", "/venv/bin/python -m evalfix_ls --version"]);
    assert.match(found.attempts[0].failure ?? "", /ENOENT/);
  });

  it("keeps the Python extension's prefix arguments (e.g. conda run)", async () => {
    const { env } = answers({ "conda run -n x python -m evalfix_ls --version": ok("0.1.0") });
    const found = await resolveServer({ serverPath: "", serverArgs: [] }, env(["conda", "run", "-n", "x", "python"]));
    assert.ok(found.found);
    assert.deepEqual(found.candidate.args, ["run", "-n", "x", "python", "-m", "evalfix_ls"]);
  });

  it("uses evalfix-ls on PATH when the interpreter lacks the module", async () => {
    const { env } = answers({
      "/venv/bin/python -m evalfix_ls --version": noModule,
      "/usr/bin/evalfix-ls --version": ok("0.2.0"),
    });
    const found = await resolveServer(
      { serverPath: "", serverArgs: [] },
      env(["/venv/bin/python"], "/usr/bin/evalfix-ls"),
    );
    assert.ok(found.found);
    assert.equal(found.candidate.source, "path");
    assert.equal(found.candidate.command, "/usr/bin/evalfix-ls");
    assert.match(describeAttempts(found.attempts)[0], /No module named evalfix_ls/);
  });

  it("rejects a program that exits 0 but is not evalfix-ls", async () => {
    const { env } = answers({
      "/usr/bin/evalfix-ls --version": { exitCode: 0, stdout: "something else 1.0", stderr: "" },
    });
    const result = await resolveServer({ serverPath: "", serverArgs: [] }, env(undefined, "/usr/bin/evalfix-ls"));
    assert.equal(result.found, false);
  });

  it("reports every place it looked when nothing works", async () => {
    const { env } = answers({ "/venv/bin/python -m evalfix_ls --version": noModule });
    const result = await resolveServer(
      { serverPath: "/missing/evalfix-ls", serverArgs: [] },
      env(["/venv/bin/python"]),
    );
    assert.equal(result.found, false);
    const lines = describeAttempts(result.attempts);
    assert.equal(lines.length, 3);
    assert.match(lines[0], /^ {2}evalfix\.server\.path \(\/missing\/evalfix-ls\): cannot run .*ENOENT/);
    assert.match(
      lines[1],
      /Python extension's interpreter .*: `--version` exited with 1: .*No module named evalfix_ls/,
    );
    assert.match(lines[2], /^ {2}PATH: no `evalfix-ls` on PATH/);
  });

  it("says when no interpreter is selected", async () => {
    const { env } = answers({});
    const result = await resolveServer({ serverPath: "", serverArgs: [] }, env(undefined));
    assert.equal(result.found, false);
    assert.deepEqual(
      result.attempts.map((a) => a.candidate.source),
      ["python", "path"],
    );
    assert.match(result.attempts[0].failure ?? "", /no interpreter selected/);
  });
});

describe("the bundled server (a platform package)", () => {
  const LAUNCHER = "/ext/bundled/tool/launch.py";
  const tooOld: ProbeResult = {
    exitCode: 3,
    stdout: "",
    stderr: "evalfix-ls needs Python >= 3.10; /usr/bin/python3.8 is Python 3.8.10\n",
  };
  /** Like `answers`, with a PATH of several programs and the bundled launcher. */
  const bundledEnv = (
    table: Record<string, ProbeResult>,
    {
      interpreter,
      onPath = {},
      platform = "linux",
    }: { interpreter?: string[]; onPath?: Record<string, string>; platform?: NodeJS.Platform },
  ) => {
    const { calls, env } = answers(table);
    const base = env(interpreter);
    return {
      calls,
      env: { ...base, which: async (name: string) => onPath[name], bundledLauncher: LAUNCHER, platform },
    };
  };
  const settings = (importStrategy?: "useBundled" | "fromEnvironment", serverPath = "") => ({
    serverPath,
    serverArgs: [],
    importStrategy,
  });

  it("runs the launcher with the Python extension's interpreter, isolated (-I)", async () => {
    const { calls, env } = bundledEnv(
      { [`/venv/bin/python -I ${LAUNCHER} --version`]: ok("0.1.0") },
      {
        interpreter: ["/venv/bin/python"],
        onPath: { python3: "/usr/bin/python3", "evalfix-ls": "/usr/bin/evalfix-ls" },
      },
    );
    const found = await resolveServer(settings(), env);
    assert.ok(found.found);
    assert.equal(found.candidate.source, "bundled");
    assert.deepEqual([found.candidate.command, ...found.candidate.args], ["/venv/bin/python", "-I", LAUNCHER]);
    assert.deepEqual(calls, [`/venv/bin/python -I ${LAUNCHER} --version`]);
  });

  it("skips a selected interpreter older than 3.10 for python3 on PATH, saying why", async () => {
    const { env } = bundledEnv(
      {
        [`/usr/bin/python3.8 -I ${LAUNCHER} --version`]: tooOld,
        [`/usr/bin/python3 -I ${LAUNCHER} --version`]: ok("0.1.0"),
      },
      { interpreter: ["/usr/bin/python3.8"], onPath: { python3: "/usr/bin/python3" } },
    );
    const found = await resolveServer(settings("useBundled"), env);
    assert.ok(found.found);
    assert.equal(found.candidate.command, "/usr/bin/python3");
    assert.match(found.candidate.label, /python3 on PATH/);
    assert.match(
      describeAttempts(found.attempts)[0],
      /needs Python >= 3\.10; \/usr\/bin\/python3\.8 is Python 3\.8\.10/,
    );
  });

  it("uses python3 on PATH when no interpreter is selected", async () => {
    const { env } = bundledEnv(
      { [`/usr/bin/python3 -I ${LAUNCHER} --version`]: ok("0.1.0") },
      { onPath: { python3: "/usr/bin/python3" } },
    );
    const found = await resolveServer(settings(), env);
    assert.ok(found.found);
    assert.deepEqual([found.candidate.command, ...found.candidate.args], ["/usr/bin/python3", "-I", LAUNCHER]);
    assert.match(found.attempts[0].failure ?? "", /no interpreter selected/);
  });

  it("uses `py -3` on Windows", async () => {
    const py = "C:\\Windows\\py.exe";
    const { env } = bundledEnv(
      { [`${py} -3 -I ${LAUNCHER} --version`]: ok("0.1.0") },
      { onPath: { py, python3: "C:\\x\\python3.exe" }, platform: "win32" },
    );
    const found = await resolveServer(settings(), env);
    assert.ok(found.found);
    assert.deepEqual([found.candidate.command, ...found.candidate.args], [py, "-3", "-I", LAUNCHER]);
  });

  it("lists every interpreter tried and why when none fits, and offers no pip install", async () => {
    const { env } = bundledEnv(
      { [`/usr/bin/python3.8 -I ${LAUNCHER} --version`]: tooOld },
      { interpreter: ["/usr/bin/python3.8"], onPath: { "evalfix-ls": "/usr/bin/evalfix-ls" } },
    );
    const result = await resolveServer(settings(), env);
    assert.equal(result.found, false);
    const message = notFoundMessage(result.attempts, true, "python3 -m pip install evalfix-ls");
    assert.match(message, /no Python 3\.10 or later to run the bundled server/);
    assert.match(
      message,
      /Python extension's interpreter \(\/usr\/bin\/python3\.8 -I .*\): `--version` exited with 3: evalfix-ls needs Python >= 3\.10/,
    );
    assert.match(message, /python3 on PATH: no `python3` on PATH/);
    assert.doesNotMatch(message, /pip install/);
  });

  it("fromEnvironment runs the installed server and never the launcher", async () => {
    const { calls, env } = bundledEnv(
      { "/venv/bin/python -m evalfix_ls --version": noModule, "/usr/bin/evalfix-ls --version": ok("0.3.0") },
      {
        interpreter: ["/venv/bin/python"],
        onPath: { python3: "/usr/bin/python3", "evalfix-ls": "/usr/bin/evalfix-ls" },
      },
    );
    const found = await resolveServer(settings("fromEnvironment"), env);
    assert.ok(found.found);
    assert.equal(found.candidate.source, "path");
    assert.ok(
      calls.every((call) => !call.includes(LAUNCHER)),
      calls.join("\n"),
    );
  });

  it("evalfix.server.path still wins", async () => {
    const { calls, env } = bundledEnv(
      { "/opt/evalfix-ls --version": ok("9.0.0") },
      { interpreter: ["/venv/bin/python"], onPath: { python3: "/usr/bin/python3" } },
    );
    const found = await resolveServer(settings("useBundled", "/opt/evalfix-ls"), env);
    assert.ok(found.found);
    assert.equal(found.candidate.source, "setting");
    assert.deepEqual(calls, ["/opt/evalfix-ls --version"]);
  });

  it("the universal package (no launcher) uses the environment under useBundled", async () => {
    const { env } = answers({ "/venv/bin/python -m evalfix_ls --version": ok("0.1.0") });
    const found = await resolveServer(settings("useBundled"), env(["/venv/bin/python"]));
    assert.ok(found.found);
    assert.equal(found.candidate.source, "python");
    assert.match(
      notFoundMessage([], false, "python3 -m pip install evalfix-ls"),
      /language server was not found.*Install it with `python3 -m pip install evalfix-ls`/,
    );
  });
});

describe("expandServerPath", () => {
  it("expands ${workspaceFolder}, ${userHome} and a leading ~", () => {
    assert.equal(
      expandServerPath(" ${workspaceFolder}/.venv/bin/evalfix-ls ", "/w", "/home/u"),
      "/w/.venv/bin/evalfix-ls",
    );
    assert.equal(expandServerPath("~/bin/evalfix-ls", "/w", "/home/u"), "/home/u/bin/evalfix-ls");
    assert.equal(expandServerPath("${userHome}/x", undefined, "/home/u"), "/home/u/x");
  });
  it("leaves other paths alone", () => {
    assert.equal(expandServerPath("/opt/a~b/evalfix-ls", "/w", "/home/u"), "/opt/a~b/evalfix-ls");
    assert.equal(expandServerPath("${workspaceFolder}/x", undefined, "/home/u"), "${workspaceFolder}/x");
  });
});

describe("pipInstallCommand", () => {
  it("installs for the selected interpreter", () => {
    assert.deepEqual(pipInstallCommand(["/venv/bin/python"]), [
      "/venv/bin/python",
      "-m",
      "pip",
      "install",
      "evalfix-ls",
    ]);
  });
  it("falls back to python3 (python on Windows)", () => {
    assert.deepEqual(pipInstallCommand(undefined, "linux"), ["python3", "-m", "pip", "install", "evalfix-ls"]);
    assert.deepEqual(pipInstallCommand([], "win32"), ["python", "-m", "pip", "install", "evalfix-ls"]);
  });
});

describe("the real environment", () => {
  const script = async (name: string, body: string, mode = 0o755): Promise<string> => {
    const dir = await mkdtemp(path.join(tmpdir(), "evalfix-resolve-"));
    const file = path.join(dir, name);
    await writeFile(file, `#!/bin/sh\n${body}\n`);
    await chmod(file, mode);
    return file;
  };

  it("runProcess collects output and exit code", async () => {
    const fake = await script("evalfix-ls", 'echo "evalfix-ls 7.7.7"; echo warn >&2; exit 0');
    assert.deepEqual(await runProcess(fake, ["--version"]), {
      exitCode: 0,
      stdout: "evalfix-ls 7.7.7\n",
      stderr: "warn\n",
    });
    const failing = await script("evalfix-ls", 'echo "No module named evalfix_ls" >&2; exit 3');
    const result = await runProcess(failing, []);
    assert.equal(result.exitCode, 3);
    assert.equal(result.error, undefined);
  });

  it("runProcess says when the program cannot be started", async () => {
    const result = await runProcess("/nonexistent/evalfix-ls", ["--version"]);
    assert.match(result.error ?? "", /cannot run \/nonexistent\/evalfix-ls: ENOENT/);
  });

  it("runProcess gives up on a program that does not answer", async () => {
    const hanging = await script("evalfix-ls", "exec sleep 30");
    const result = await runProcess(hanging, ["--version"], 300);
    assert.match(result.error ?? "", /no answer to `--version` within 300 ms/);
  });

  it("whichOnPath finds only executable files", async () => {
    const notExecutable = await script("evalfix-ls", "exit 0", 0o644);
    const executable = await script("evalfix-ls", "exit 0");
    const dirs = [path.dirname(notExecutable), "/nonexistent", path.dirname(executable)];
    assert.equal(await whichOnPath("evalfix-ls", dirs.join(path.delimiter), "linux"), executable);
    assert.equal(await whichOnPath("evalfix-ls", path.dirname(notExecutable), "linux"), undefined);
  });

  // The pytest wrapper passes the project's venv; the real server must answer the way we parse.
  const serverPath = process.env.EVALFIX_TEST_SERVER;
  const python = process.env.EVALFIX_TEST_PYTHON;
  it(
    "finds the project's server by its path and through its interpreter",
    { skip: !serverPath || !python ? "EVALFIX_TEST_SERVER / EVALFIX_TEST_PYTHON not set" : false },
    async () => {
      const env: ResolutionEnvironment = {
        run: (c, a) => runProcess(c, a),
        which: async () => undefined,
        pythonInterpreter: async () => [python!],
      };
      const bySetting = await resolveServer({ serverPath: serverPath!, serverArgs: [] }, env);
      assert.ok(bySetting.found, describeAttempts(bySetting.attempts).join("\n"));
      assert.match(bySetting.version, /^\d+\.\d+/);
      const byPython = await resolveServer({ serverPath: "", serverArgs: [] }, env);
      assert.ok(byPython.found, describeAttempts(byPython.attempts).join("\n"));
      assert.equal(byPython.candidate.source, "python");
      assert.equal(byPython.version, bySetting.version);
    },
  );
});
