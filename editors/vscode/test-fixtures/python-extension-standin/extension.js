// The stand-in's API, shaped as ms-python.python's documented `environments` API: the active
// environment of a resource is the interpreter named by EVALFIX_TEST_PYTHON (read on every call, so
// that a test can deselect it). `testSelect(path)` (not in the real API) selects another
// interpreter as a user does in the real one: it fires onDidChangeActiveEnvironmentPath.
const vscode = require("vscode");

exports.activate = function activate() {
  const changed = new vscode.EventEmitter();
  return {
    environments: {
      getActiveEnvironmentPath() {
        const python = process.env.EVALFIX_TEST_PYTHON;
        return python ? { id: python, path: python } : undefined;
      },
      async resolveEnvironment(environment) {
        const path = typeof environment === "string" ? environment : environment.path;
        return path ? { id: path, path, executable: { uri: vscode.Uri.file(path) } } : undefined;
      },
      onDidChangeActiveEnvironmentPath: changed.event,
    },
    testSelect(path) {
      process.env.EVALFIX_TEST_PYTHON = path;
      changed.fire({ id: path, path, resource: undefined });
    },
  };
};
