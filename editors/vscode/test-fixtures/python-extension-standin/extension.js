// The stand-in's API, shaped as ms-python.python's documented `environments` API: the active
// environment of a resource is the interpreter named by EVALFIX_TEST_PYTHON (read on every call, so
// that a test can deselect it).
const vscode = require("vscode");

exports.activate = function activate() {
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
    },
  };
};
