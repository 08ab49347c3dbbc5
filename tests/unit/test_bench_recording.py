"""The recording of a real VS Code's traffic (bench/tools/lsp_tee.py,
bench/harness/recording.py): the tap passes every byte through unchanged and logs every message,
and the committed recording lands on a suite of another size at the same structural place — the
typed case right after that suite's middle case."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `bench` is a top-level folder of the checkout, not an installed package
    sys.path.insert(0, str(ROOT))

from bench.harness.generate import SIZES, generate_suite  # noqa: E402
from bench.harness.recording import TYPED_CASE, Document, Rebase, anchor_line  # noqa: E402
from bench.harness.replay import Sent, wait_behind  # noqa: E402

RECORDING = ROOT / "bench" / "recordings" / "vscode-typing.json"


def frame(message: dict) -> bytes:
    body = json.dumps(message, ensure_ascii=False).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_the_tap_passes_bytes_unchanged_and_logs_each_message(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"x": "写 😀"}},
        {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"text": "a" * 100_000}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
    ]
    stream = b"".join(frame(m) for m in messages)
    tap = [sys.executable, str(ROOT / "bench" / "tools" / "lsp_tee.py"), "--log", str(log), "--", "cat"]
    out = subprocess.run(tap, input=stream, capture_output=True, timeout=60, check=True).stdout
    assert out == stream  # `cat` echoes: what the server wrote reached the editor byte for byte
    logged = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    for direction in ("c2s", "s2c"):
        assert [entry["msg"] for entry in logged if entry["dir"] == direction] == messages
    assert all(isinstance(entry["t"], float) for entry in logged)


def recorded_changes(recording: dict) -> list[dict]:
    return [m for m in recording["messages"] if m.get("method") == "textDocument/didChange"]


def test_the_recorded_edits_land_after_the_middle_case_of_every_size() -> None:
    """Applied to the 2 MB suite, the recording's edits (re-based) insert the typed case, with the
    word typed inside its prompt, as the case right after that suite's middle case; the text is
    JSON again at the end, as it was in VS Code."""
    recording = json.loads(RECORDING.read_text(encoding="utf-8"))
    recorded = generate_suite(SIZES[recording["suite"]["size"]])
    target = generate_suite(SIZES["2m"])
    uri = "file:///target/skills/bench-skill/evals/evals.json"
    rebase = Rebase.onto(recording, target.text, uri, "file:///target")
    assert rebase.line_shift == anchor_line(target.text) - anchor_line(recorded.text) != 0
    document = Document(target.text)
    for message in recorded_changes(recording):
        params = rebase.params(message["params"])
        assert params["textDocument"]["uri"] == uri
        for change in params["contentChanges"]:
            document.apply(change)
    edited = json.loads(document.text())["evals"]
    cases = json.loads(target.text)["evals"]
    # The case whose closing `},` comes first after the middle of the text, by its position.
    middle = target.text.index("\n    },", len(target.text) // 2)
    k = target.text.count("\n    },", 0, middle)
    typed = edited[k + 1]
    assert edited[: k + 1] == cases[: k + 1]
    assert edited[k + 2 :] == cases[k + 1 :]
    assert typed["id"] == json.loads(TYPED_CASE.rstrip(","))["id"]
    assert typed["prompt"] == "写一个 😀 now file"  # " now" typed inside the prompt, after the emoji


def test_a_position_off_the_typed_text_is_clamped_to_its_line() -> None:
    document = Document('{\n  "a": 1,\n  "bb": "写😀"\n}\n')
    assert document.clamp({"line": 1, "character": 40}) == {"line": 1, "character": 9}
    assert document.clamp({"line": 2, "character": 40}) == {"line": 2, "character": 13}
    assert document.clamp({"line": 9, "character": 3}) == {"line": 4, "character": 0}


def test_a_request_waits_until_the_requests_sent_before_it_are_answered() -> None:
    slow = Sent("textDocument/codeAction", sent_at=0.0, answered_at=5.0)
    hover = Sent("textDocument/hover", sent_at=1.0, answered_at=6.0)
    quick = Sent("textDocument/documentHighlight", sent_at=2.0, answered_at=3.0)
    lost = Sent("textDocument/codeLens", sent_at=3.5)  # never answered
    late = Sent("textDocument/hover", sent_at=7.0, answered_at=7.5)
    sent = [slow, hover, quick, lost, late]
    assert wait_behind(slow, sent) == 0.0  # nothing was in flight before it
    assert wait_behind(hover, sent) == 4.0  # until the code action sent before it was answered
    assert wait_behind(quick, sent) == 1.0  # at most its own latency: it was answered out of order
    assert wait_behind(late, sent) == 0.5  # behind one that never got an answer: all its latency
