// The status bar item for the active file (what `evalfix/documentInfo` says about it), kept in step
// with the active editor and its edits; the logic is DocumentInfoController's.

import * as vscode from "vscode";
import { handlesDocument } from "./client";
import { DocumentInfoController, InfoRequester } from "./documentInfo";

const REFRESH_AFTER_EDIT_MS = 500;
const ASKED_LANGUAGES = new Set(["json", "jsonc"]);

export class DocumentInfoItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("evalfix.document", vscode.StatusBarAlignment.Right, 99);
  private readonly controller: DocumentInfoController;
  private readonly subscriptions: vscode.Disposable[];
  private client: InfoRequester | undefined;
  private pending: NodeJS.Timeout | undefined;
  /** What the item shows now (undefined while hidden): for the extension's API and its tests. */
  shown: { text: string; tooltip: string } | undefined;

  constructor(log: vscode.LogOutputChannel) {
    this.item.name = "evalfix-ls: this file";
    this.controller = new DocumentInfoController(
      {
        show: (text, tooltip) => {
          this.shown = { text, tooltip };
          this.item.text = text;
          this.item.tooltip = tooltip;
          this.item.show();
        },
        hide: () => {
          this.shown = undefined;
          this.item.hide();
        },
      },
      (message) => log.warn(message),
    );
    this.subscriptions = [
      vscode.window.onDidChangeActiveTextEditor(() => this.refresh()),
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.document === vscode.window.activeTextEditor?.document) this.refreshSoon();
      }),
    ];
  }

  get serverLacksRequest(): boolean {
    return this.controller.serverLacksRequest;
  }

  /** The running server's client (undefined while none runs): asked afresh. */
  attach(client: InfoRequester | undefined): void {
    this.client = client;
    this.controller.reset();
    this.refresh();
  }

  private refreshSoon(): void {
    clearTimeout(this.pending);
    this.pending = setTimeout(() => this.refresh(), REFRESH_AFTER_EDIT_MS);
  }

  private refresh(): void {
    const document = vscode.window.activeTextEditor?.document;
    // Only documents the client hands to the server: the server knows no other (it answers null).
    const asked = document && ASKED_LANGUAGES.has(document.languageId) && handlesDocument(document);
    void this.controller.refresh(this.client, asked ? document.uri.toString() : undefined);
  }

  dispose(): void {
    clearTimeout(this.pending);
    this.subscriptions.forEach((subscription) => subscription.dispose());
    this.item.dispose();
  }
}
