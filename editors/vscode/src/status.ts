// The status bar item: the server's state (starting / ready / failed) and its version.

import * as vscode from "vscode";

export type ServerState = "starting" | "ready" | "failed" | "stopped";

export class ServerStatus implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly changed = new vscode.EventEmitter<ServerState>();
  readonly onDidChange = this.changed.event;
  state: ServerState = "stopped";
  version: string | undefined;

  constructor() {
    this.item = vscode.window.createStatusBarItem("evalfix.status", vscode.StatusBarAlignment.Right, 100);
    this.item.name = "evalfix-ls";
    this.item.command = "evalfix.showOutput";
  }

  set(state: ServerState, detail: string, version?: string): void {
    this.state = state;
    this.version = version;
    const icon = { starting: "$(sync~spin)", ready: "$(check)", failed: "$(error)", stopped: "$(circle-slash)" }[state];
    this.item.text = `${icon} evalfix-ls${version ? ` ${version}` : ""}`;
    this.item.tooltip = `evalfix-ls: ${state}${detail ? ` — ${detail}` : ""} (click for the output)`;
    this.item.backgroundColor = state === "failed" ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
    this.item.show();
    this.changed.fire(state);
  }

  get text(): string {
    return this.item.text;
  }

  dispose(): void {
    this.item.dispose();
    this.changed.dispose();
  }
}
