"""A recording of a real VS Code's LSP traffic, and how it is laid onto another suite.

``bench.tools.record_vscode`` makes it from the log of ``bench/tools/lsp_tee.py`` (``build_recording``);
``bench.traffic --recorded`` replays it (``Rebase`` maps it onto the suite of each size).

Where the recording is laid: the user typed a new case after the closing ``},`` of the middle case
of the recorded suite (its *anchor line*), then moved about that place. Every edit and position of
the recording lies at or after some line near the anchor, and the edits insert the same text in
every suite, so a recorded position maps onto another suite by the distance of the two anchors in
lines, its character kept: an edit typed after the recorded anchor case lands after the target's
middle case, character for character the same text. A position on a line that is not the typed text
(the cursor moved up into the anchor case) lands on the line at the same distance from the target's
anchor, its character clamped to that line's length.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.harness.common import BENCH_DIR, REPO_ROOT
from bench.harness.generate import NEW_CASE

# Where ``bench.tools.record_vscode`` writes the recording and ``bench.traffic --recorded`` reads it.
DEFAULT_RECORDING = BENCH_DIR / "recordings" / "vscode-typing.json"
TYPED_CASE = NEW_CASE.strip()
ANCHOR_TEXT = "\n    },"
RECORDED_WORKSPACE = "/recorded-workspace"
RECORDED_CHECKOUT = "/recorded-checkout"
# Answers to server requests and messages VS Code sends about the session, not the document.
LIFECYCLE = {"initialize", "initialized", "shutdown", "exit", "$/setTrace"}


def anchor_line(text: str) -> int:
    """The 0-based line of the closing ``},`` of the case in the middle of the suite."""
    at = text.index(ANCHOR_TEXT, len(text) // 2) + 1
    return text.count("\n", 0, at)


# ---------------------------------------------------------------------------------------------
# Building a recording from the tap's log


def read_tee_log(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def summarize_result(result: Any) -> Any:
    """What an answer was, small: null, a count of items, or the keys of an object."""
    if result is None or isinstance(result, (bool, int, float)):
        return result
    if isinstance(result, list):
        return {"count": len(result)}
    if isinstance(result, dict):
        if "items" in result or "kind" in result:
            return {"kind": result.get("kind"), "count": len(result.get("items") or [])}
        return {"keys": sorted(result)[:10]}
    return {"type": type(result).__name__}


def trim_params(method: str, params: Any) -> Any:
    """Params as sent, but without the document's whole text and with diagnostics reduced to
    their ranges and codes (the positions kept)."""
    if not isinstance(params, dict):
        return params
    if method == "textDocument/didOpen":
        document = dict(params["textDocument"])
        document["text_length"] = len(document.pop("text", ""))
        return {**params, "textDocument": document}
    if method == "textDocument/publishDiagnostics":
        return {**params, "diagnostics": {"count": len(params.get("diagnostics") or [])}}
    if method == "textDocument/codeAction":
        context = dict(params.get("context") or {})
        context["diagnostics"] = [
            {"range": d.get("range"), "code": d.get("code")} for d in context.get("diagnostics") or []
        ]
        return {**params, "context": context}
    if method == "textDocument/didChange":
        changes = [_trim_change(change) for change in params.get("contentChanges") or []]
        return {**params, "contentChanges": changes}
    return params


def _trim_change(change: dict[str, Any]) -> dict[str, Any]:
    text = change.get("text", "")
    if len(text) <= 2000:
        return change
    return {key: value for key, value in change.items() if key != "text"} | {"text_length": len(text)}


def build_recording(
    entries: list[dict[str, Any]], actions: dict[str, Any], suite: dict[str, Any], workspace: Path
) -> dict[str, Any]:
    """The tap's log as the recording: times in seconds from the first message, each answer
    with the method of its request, long texts trimmed, the paths of the recording machine
    replaced (the workspace by ``RECORDED_WORKSPACE``, this checkout by ``RECORDED_CHECKOUT``)."""
    entries = _replace_paths(entries, {str(workspace): RECORDED_WORKSPACE, str(REPO_ROOT): RECORDED_CHECKOUT})
    start = entries[0]["t"] if entries else 0.0
    asked: dict[tuple[str, Any], str] = {}  # (direction of the request, id) -> method
    messages = []
    for entry in entries:
        msg, direction = entry["msg"], entry["dir"]
        item: dict[str, Any] = {"t": round(entry["t"] - start, 4), "dir": direction}
        if "method" in msg:
            item["method"] = msg["method"]
            if "id" in msg:
                item["id"] = msg["id"]
                asked[(direction, msg["id"])] = msg["method"]
            item["params"] = trim_params(msg["method"], msg.get("params"))
        else:
            other = "s2c" if direction == "c2s" else "c2s"
            item["id"] = msg.get("id")
            item["answers"] = asked.get((other, msg.get("id")))
            if "error" in msg:
                item["error"] = {"code": msg["error"].get("code"), "message": msg["error"].get("message")}
            else:
                item["result"] = summarize_result(msg.get("result"))
        if item.get("method") == "textDocument/didOpen":
            suite = {**suite, "uri": msg["params"]["textDocument"]["uri"]}
        messages.append(item)
    timed_actions = [{**a, "t": round(a["t"] - start, 4)} for a in actions.get("actions", [])]
    return {
        "what": "LSP messages between a real VS Code and evalfix-ls, recorded by bench.tools.record_vscode",
        "command": "python -m bench.tools.record_vscode",
        "server": next((m["result"] for m in messages if m.get("answers") == "initialize"), None),
        "client": _client_info(entries),
        "suite": suite,
        "hover_shown": actions.get("hover"),
        "actions": timed_actions,
        "messages": messages,
    }


def _replace_paths(value: Any, paths: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {key: _replace_paths(item, paths) for key, item in value.items()}
    if isinstance(value, list):
        return [_replace_paths(item, paths) for item in value]
    if isinstance(value, str):
        for old, new in paths.items():
            value = value.replace(old, new)
    return value


def _client_info(entries: list[dict[str, Any]]) -> Any:
    for entry in entries:
        if entry["msg"].get("method") == "initialize":
            return entry["msg"]["params"].get("clientInfo")
    return None


def dump_recording(recording: dict[str, Any]) -> str:
    """The recording as JSON with one message or action per line (readable, and a re-recording
    diffs line by line)."""
    head = {key: value for key, value in recording.items() if key not in ("actions", "messages")}
    lines = [json.dumps(head, ensure_ascii=False)[:-1] + ","]
    for key in ("actions", "messages"):
        items = [json.dumps(item, ensure_ascii=False) for item in recording[key]]
        lines.append(f'"{key}": [\n' + ",\n".join(items) + "\n]" + ("," if key == "actions" else ""))
    return "\n".join(lines) + "\n}\n"


def recorded_initialize_params(recording: dict[str, Any]) -> dict[str, Any]:
    """The ``initialize`` params VS Code sent in ``recording`` (replayed as they are)."""
    for message in recording["messages"]:
        if message.get("method") == "initialize" and message["dir"] == "c2s":
            return dict(message["params"])
    raise ValueError("the recording holds no initialize request")


# ---------------------------------------------------------------------------------------------
# What the recording shows


def describe_recording(recording: dict[str, Any]) -> str:
    """Per method: requests VS Code sent, how many it cancelled, how many the server answered
    with an error; then what each keystroke and each cursor move was followed by."""
    sent: Counter[str] = Counter()
    cancelled: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    notes: Counter[str] = Counter()
    by_id: dict[Any, str] = {}
    for message in recording["messages"]:
        method = message.get("method")
        if message["dir"] == "c2s" and method:
            if "id" in message:
                sent[method] += 1
                by_id[message["id"]] = method
            elif method == "$/cancelRequest":
                cancelled[by_id.get(message["params"]["id"], "?")] += 1
            else:
                notes[method] += 1
        elif message["dir"] == "s2c" and "error" in message and message.get("answers"):
            errors[f"{message['answers']} ({message['error']['code']})"] += 1
    lines = ["requests VS Code sent (count, cancelled by VS Code):"]
    for method, count in sent.most_common():
        lines.append(f"  {method:38} {count:4}  cancelled {cancelled[method]}")
    lines.append("notifications: " + ", ".join(f"{m} {c}" for m, c in notes.most_common()))
    lines.append("answered with an error: " + (", ".join(f"{m} {c}" for m, c in errors.items()) or "none"))
    lines.append("after each kind of user action (requests sent until the next action, mean per action):")
    for kind, mix in per_action(recording).items():
        count = mix.pop("#actions")
        shown = ", ".join(
            f"{m.removeprefix('textDocument/')} {n / count:.1f}" for m, n in sorted(mix.items())
        )
        lines.append(f"  {kind} ×{count}: {shown}")
    return "\n".join(lines)


def per_action(recording: dict[str, Any]) -> dict[str, dict[str, int]]:
    """Requests VS Code sent between each user action and the next, summed per kind of action
    (a typed key, a cursor move by arrow key, a click, a hover)."""
    actions = [a for a in recording["actions"] if a["what"] in ("key", "move", "click", "hover", "idle")]
    requests = [m for m in recording["messages"] if m["dir"] == "c2s" and "id" in m and "method" in m]
    mixes: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for index, action in enumerate(actions[:-1]):
        kind = action["what"]
        mixes[kind]["#actions"] += 1
        following = actions[index + 1]["t"]
        for request in requests:
            if action["t"] <= request["t"] < following:
                mixes[kind][request["method"]] += 1
    return {kind: dict(mix) for kind, mix in mixes.items()}


# ---------------------------------------------------------------------------------------------
# Laying the recording onto another suite


@dataclass(slots=True)
class Rebase:
    """Maps the recording's positions and URIs onto a target suite (see the module's doc)."""

    line_shift: int
    recorded_uri: str
    target_uri: str
    recorded_root: str
    target_root: str

    @classmethod
    def onto(cls, recording: dict[str, Any], text: str, target_uri: str, target_root: str) -> Rebase:
        suite = recording["suite"]
        recorded_uri = suite["uri"]
        recorded_root = recorded_uri[: -len(suite["rel_path"]) - 1]
        shift = anchor_line(text) - suite["anchor_line"]
        return cls(shift, recorded_uri, target_uri, recorded_root, target_root)

    def params(self, value: Any) -> Any:
        """``value`` with every position's line shifted and every URI of the recorded workspace
        made the target's."""
        if isinstance(value, dict):
            if set(value) == {"line", "character"}:
                return {"line": value["line"] + self.line_shift, "character": value["character"]}
            return {key: self.params(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.params(item) for item in value]
        if isinstance(value, str):
            if value == self.recorded_uri:
                return self.target_uri
            if value.startswith(self.recorded_root):
                return self.target_root + value[len(self.recorded_root) :]
        return value


def utf16_length(text: str) -> int:
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def utf16_index(line: str, character: int) -> int:
    """The code-point index in ``line`` of a UTF-16 character offset, clamped to the line."""
    units = 0
    for index, char in enumerate(line):
        if units >= character:
            return index
        units += 2 if ord(char) > 0xFFFF else 1
    return len(line)


class Document:
    """The replayed text as a list of lines, so each small edit of a 10 MB text stays cheap."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")

    def text(self) -> str:
        return "\n".join(self.lines)

    def apply(self, change: dict[str, Any]) -> None:
        """One ``contentChanges`` entry: a range edit, or the whole text."""
        if "range" not in change:
            self.lines = str(change["text"]).split("\n")
            return
        start = self.clamp(change["range"]["start"])
        end = self.clamp(change["range"]["end"])
        head = self.lines[start["line"]][: utf16_index(self.lines[start["line"]], start["character"])]
        tail = self.lines[end["line"]][utf16_index(self.lines[end["line"]], end["character"]) :]
        self.lines[start["line"] : end["line"] + 1] = (head + change["text"] + tail).split("\n")

    def clamp(self, position: dict[str, int]) -> dict[str, int]:
        """``position`` inside the text: the last line at most, the line's length at most."""
        line = min(max(position["line"], 0), len(self.lines) - 1)
        if line < position["line"]:
            return {"line": line, "character": utf16_length(self.lines[line])}
        return {"line": line, "character": min(position["character"], utf16_length(self.lines[line]))}
