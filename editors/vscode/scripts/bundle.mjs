// The extension as one file (dist/extension.js): vscode-languageclient is bundled in, so the .vsix
// carries no node_modules. `vscode` is provided by the editor.
import { build } from "esbuild";

await build({
  entryPoints: ["src/extension.ts"],
  bundle: true,
  outfile: "dist/extension.js",
  external: ["vscode"],
  format: "cjs",
  platform: "node",
  target: "node20",
  sourcemap: false,
  minify: true,
  logLevel: "warning",
});
