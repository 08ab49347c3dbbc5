// ESLint (flat config): the recommended rules of ESLint and typescript-eslint for the extension's
// TypeScript and its Node scripts. Formatting is Prettier's (npm run lint runs both).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const nodeGlobals = Object.fromEntries(
  [
    "process",
    "console",
    "fetch",
    "setTimeout",
    "clearTimeout",
    "AbortSignal",
    "URL",
    "require",
    "exports",
    "module",
    "__dirname",
  ].map((name) => [name, "readonly"]),
);

export default tseslint.config(
  { ignores: ["dist/", "out/", "node_modules/", ".cache/", ".test-output/", "bundled/libs/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: nodeGlobals },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["test-fixtures/**/*.js"],
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);
