// The unit tests (out/test/unit/**/*.test.js, compiled by `tsc -p test`) under `node --test`.
// The files are listed here rather than given as a glob: `node --test` expands a glob itself only
// from Node 21, and on Node 20 (the oldest this package supports, `engines.node`) the glob was
// taken as one file name ("Could not find 'out/test/unit/**/*.test.js'").
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";

const UNIT = path.join("out", "test", "unit");
const OLDEST_NODE = 20;

function testFiles(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith(".test.js") ? [full] : [];
  });
}

const major = Number(process.versions.node.split(".")[0]);
if (major < OLDEST_NODE) {
  console.error(`The unit tests need Node ${OLDEST_NODE} or later; this is Node ${process.versions.node}.`);
  process.exit(1);
}
let files = [];
try {
  files = testFiles(UNIT).sort();
} catch (error) {
  if (error.code !== "ENOENT") throw error;
}
if (files.length === 0) {
  console.error(`No compiled unit tests in ${UNIT}: run \`npm run build\` first (\`npm test\` does).`);
  process.exit(1);
}
const run = spawnSync(process.execPath, ["--test", ...files], { stdio: "inherit" });
process.exit(run.status ?? 1);
