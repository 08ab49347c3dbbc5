// What the status bar says about the active file: the server's `evalfix/documentInfo` answer (which
// contract applies, why, decided by which configuration line). Plain Node (no `vscode` import): the
// controller talks to a requester and a view, so a fake client and a fake item unit-test it.

export const DOCUMENT_INFO = "evalfix/documentInfo";
/** JSON-RPC's MethodNotFound: a server without the request, i.e. "no information". */
export const METHOD_NOT_FOUND = -32601;

export interface DocumentInfo {
  kind: string;
  title: string;
  reason: string;
  decidedBy: string | null;
  shape: string | null;
  cases: number | null;
  readiness: string | null;
}

export interface InfoRequester {
  sendRequest(method: string, params: unknown): Promise<unknown>;
}

export interface InfoView {
  show(text: string, tooltip: string): void;
  hide(): void;
}

/** The answer when it has the agreed shape; undefined for `null` and for anything malformed. */
export function parseDocumentInfo(answer: unknown): DocumentInfo | undefined {
  if (answer === null || typeof answer !== "object" || Array.isArray(answer)) {
    return undefined;
  }
  const record = answer as Record<string, unknown>;
  const text = (key: string) => (typeof record[key] === "string" && record[key] ? (record[key] as string) : undefined);
  const optionalText = (key: string) => (typeof record[key] === "string" ? (record[key] as string) : null);
  const kind = text("kind");
  const title = text("title");
  if (!kind || !title) {
    return undefined;
  }
  const cases = typeof record.cases === "number" && Number.isInteger(record.cases) ? record.cases : null;
  return {
    kind,
    title,
    reason: text("reason") ?? "",
    decidedBy: optionalText("decidedBy"),
    shape: optionalText("shape"),
    cases,
    readiness: optionalText("readiness"),
  };
}

/** The tooltip: the reason, then each fact the server gave (none for a null). */
export function tooltipOf(info: DocumentInfo): string {
  const lines = [info.reason];
  if (info.decidedBy) lines.push(`Decided by ${info.decidedBy}`);
  if (info.cases !== null) lines.push(`${info.cases} ${info.cases === 1 ? "case" : "cases"}`);
  if (info.readiness) lines.push(`Readiness: ${info.readiness}`);
  return lines.filter(Boolean).join("\n");
}

function isMethodNotFound(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === METHOD_NOT_FOUND;
}

/**
 * Asks the server about the active document and shows the answer. A server without the request
 * (MethodNotFound) hides the item and is not asked again until `reset` (a new server); any other
 * failure hides it too and is only logged: a status item never pops up an error.
 */
export class DocumentInfoController {
  private supported = true;
  private latest = 0;

  constructor(
    private readonly view: InfoView,
    private readonly log: (message: string) => void = () => undefined,
  ) {}

  /** Whether the current server answered MethodNotFound (it is not asked again). */
  get serverLacksRequest(): boolean {
    return !this.supported;
  }

  /** A new server: it may have the request. */
  reset(): void {
    this.supported = true;
    this.latest++;
    this.view.hide();
  }

  async refresh(client: InfoRequester | undefined, uri: string | undefined): Promise<void> {
    const request = ++this.latest;
    if (!client || !uri || !this.supported) {
      this.view.hide();
      return;
    }
    let answer: unknown;
    try {
      answer = await client.sendRequest(DOCUMENT_INFO, { textDocument: { uri } });
    } catch (error) {
      if (isMethodNotFound(error)) {
        this.supported = false;
      } else if (request === this.latest) {
        this.log(`${DOCUMENT_INFO} failed for ${uri}: ${String((error as Error)?.message ?? error)}`);
      }
      if (request === this.latest) this.view.hide();
      return;
    }
    if (request !== this.latest) {
      return; // the active document changed while the server answered
    }
    const info = parseDocumentInfo(answer);
    if (info) {
      this.view.show(info.title, tooltipOf(info));
    } else {
      this.view.hide();
    }
  }
}
