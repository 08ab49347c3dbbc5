// When the server starts: VS Code has no activation event for "a JSON document under evals/", so
// the extension activates for every JSON document (onLanguage:json) and starts the server (a Python
// process) only where it is needed. Plain Node (no `vscode` import): unit-tested with fakes.

export interface Disposable {
  dispose(): void;
}

export interface StartGate<Document> {
  /** Whether the workspace holds fixture files (the `workspaceContains` glob). */
  workspaceHasFixtures(): Promise<boolean>;
  /** The documents open now. */
  openDocuments(): readonly Document[];
  /** Whether the client's document selector takes the document. */
  handles(document: Document): boolean;
  onDidOpen(listener: (document: Document) => void): Disposable;
  /** Starts the server; resolves once it runs (or failed to). */
  start(): Promise<void>;
  /** Said once when the start waits for a document. */
  log(message: string): void;
}

/** Starts now when needed, else at the first handled document opened (once). */
export async function startWhenNeeded<Document>(gate: StartGate<Document>): Promise<Disposable> {
  if (gate.openDocuments().some((document) => gate.handles(document)) || (await gate.workspaceHasFixtures())) {
    await gate.start();
    return { dispose: () => undefined };
  }
  gate.log("No fixture file in this workspace: the server starts once a fixture document is opened.");
  const waiting = gate.onDidOpen((document) => {
    if (gate.handles(document)) {
      waiting.dispose();
      void gate.start();
    }
  });
  return waiting;
}
