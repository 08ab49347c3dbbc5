"""What every real-editor test shares: the fixture workspace, the planted problems and the edit,
the expected positions in each editor's unit (computed here from the fixture text), finding an
editor (skip locally, fail under CI) and running it with a time bound."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
WORKSPACE = HERE / "workspace"
SUITE = Path("skills/haiku/evals/evals.json")
SERVER = Path(sys.executable).parent / "evalfix-ls"
RUN_TIMEOUT_S = 180  # the whole editor run; the drivers bound each wait inside it
WAIT_TIMEOUT_MS = 45_000  # one wait inside a driver (diagnostics, completion), on a loaded machine


@dataclass(frozen=True)
class Planted:
    """A problem planted in the fixture: ``token`` (the JSON value the finding points at) is the end
    of ``needle``, which occurs once in the file."""

    code: str
    needle: str
    token: str


PLANTED = (
    Planted("setup-kind-invalid", '"setup": {"kind": "seedd"', '"seedd"'),
    Planted("sandbox-invalid", '"sandbox": "docker"', '"docker"'),
    Planted("script-type-invalid", '"type": "file-exist"', '"file-exist"'),
    Planted("setup-kind-invalid", '"✅ 完成", "setup": {"kind": ""', '""'),
    # A control: the same problem after ASCII text only, where every unit agrees.
    Planted("setup-kind-invalid", '"plain", "setup": {"kind": ""', '""'),
)

# The edit each editor makes through its own buffer API, in order: the emoji of the CJK/emoji case
# replaced (so the change's own range ends inside astral text and is read wrong in any other
# encoding, and the problems after it on the line move), then a new case line above all cases.
EDITS = (
    {"line": 4, "replace": "🎉", "text": "🌊波"},
    {"line": 3, "insert_line": '    {"id": "inserted", "prompt": "新しい ✨"},'},
)
# Completion is asked with the cursor just after one of these (between the quotes of an empty
# kind): after CJK text and an emoji, and after ASCII only (for ALE, which sends byte columns).
COMPLETE_AFTER_CJK = '"✅ 完成", "setup": {"kind": "'
COMPLETE_AFTER_ASCII = '"plain", "setup": {"kind": "'
SETUP_KINDS = {"empty", "seeded", "fixture"}

UNITS: dict[str, Callable[[str], int]] = {
    "utf-8": lambda s: len(s.encode("utf-8")),
    "utf-16": lambda s: len(s.encode("utf-16-le")) // 2,
    "utf-32": len,  # code points: also Emacs' characters
}


@dataclass(frozen=True)
class Expected:
    code: str
    line: int  # 0-based
    start: int  # 0-based, in the unit asked for
    end: int


def fixture_text() -> str:
    return (WORKSPACE / SUITE).read_text(encoding="utf-8")


def apply_edits(text: str) -> str:
    """The fixture after ``EDITS``, computed the way each driver makes them."""
    lines = text.split("\n")
    for edit in EDITS:
        line = edit["line"]
        if "insert_line" in edit:
            lines.insert(line, edit["insert_line"])
        else:
            lines[line] = lines[line].replace(edit["replace"], edit["text"], 1)
    return "\n".join(lines)


def expected_positions(text: str, unit: str) -> list[Expected]:
    """Where each planted problem is in ``text``, its columns counted in ``unit``."""
    measure = UNITS[unit]
    found = []
    for planted in PLANTED:
        (line_no,) = [n for n, line in enumerate(text.split("\n")) if planted.needle in line]
        line = text.split("\n")[line_no]
        assert planted.needle.endswith(planted.token), planted
        start = line.index(planted.needle) + len(planted.needle) - len(planted.token)
        prefix = line[:start]
        found.append(Expected(planted.code, line_no, measure(prefix), measure(prefix + planted.token)))
    return sorted(found, key=lambda e: (e.line, e.start))


Span = tuple[str, int, int, int, int]  # code, start line, start column, end line, end column


def expected_spans(text: str, unit: str) -> list[Span]:
    """The planted problems of ``text`` as sorted spans, columns counted in ``unit``."""
    return sorted((e.code, e.line, e.start, e.line, e.end) for e in expected_positions(text, unit))


def lsp_spans(diagnostics: list[dict]) -> list[Span]:
    """Raw LSP diagnostics (as the client received them) as sorted spans."""
    return sorted(
        (
            d["code"],
            d["range"]["start"]["line"],
            d["range"]["start"]["character"],
            d["range"]["end"]["line"],
            d["range"]["end"]["character"],
        )
        for d in diagnostics
    )


def completion_position(text: str, unit: str, after: str = COMPLETE_AFTER_CJK) -> tuple[int, int]:
    """The cursor just after ``after`` (which occurs once in ``text``), its column in ``unit``."""
    lines = text.split("\n")
    (line_no,) = [n for n, line in enumerate(lines) if after in line]
    at = lines[line_no].index(after) + len(after)
    return line_no, UNITS[unit](lines[line_no][:at])


def copy_workspace(tmp: Path) -> Path:
    """A private copy: the editors never write, but their caches and state stay out of the repo."""
    target = tmp / "workspace"
    shutil.copytree(WORKSPACE, target)
    return target


def require(path: Path | str | None, what: str) -> Path:
    """``path`` if it is an executable; else skip (locally) or fail (CI=true) with the reason."""
    if path is not None and Path(path).is_file() and os.access(path, os.X_OK):
        return Path(path)
    reason = f"{what} is not installed (see tests/system-deps/editors.apt and README)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true: {reason}")
    pytest.skip(reason)


def which_outside_venv(name: str) -> str | None:
    """A system executable, not the one this venv's bin/ may hold under the same name."""
    venv_bin = str(Path(sys.executable).parent)
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if p != venv_bin)
    return shutil.which(name, path=path)


def isolated_env(tmp: Path) -> dict[str, str]:
    """No user configuration, state or caches from the machine; the server's bin dir first."""
    env = dict(os.environ)
    for name in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        folder = tmp / name.lower()
        folder.mkdir(exist_ok=True)
        env[name] = str(folder)
    env["PATH"] = os.pathsep.join([str(SERVER.parent), env.get("PATH", "")])
    return env


def run_editor(command: Sequence[str], env: dict[str, str], cwd: Path, output: Path) -> dict:
    """Run the editor; return what its driver wrote to ``output`` (fail with its stderr if none)."""
    try:
        done = subprocess.run(
            command,
            env=env,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as timeout:
        pytest.fail(f"{command[0]} did not finish in {RUN_TIMEOUT_S} s: {timeout.stderr!r}")
    if not output.is_file():
        pytest.fail(f"{command[0]} wrote no result (exit {done.returncode}): {done.stderr[-3000:]}")
    seen = json.loads(output.read_text(encoding="utf-8"))
    seen["_exit"] = done.returncode
    seen["_stderr"] = done.stderr
    return seen


def write_spec(tmp: Path, **fields: object) -> Path:
    spec = tmp / "spec.json"
    spec.write_text(json.dumps(fields, ensure_ascii=False), encoding="utf-8")
    return spec


def skip_unless_completion(seen: dict) -> None:
    """Completion is checked only once the server offers it (issue 8 is building it)."""
    if not seen.get("completion_provider"):
        pytest.skip(
            "the server does not advertise completionProvider yet (issue 8); this check runs once it does"
        )


def completion_labels(items: list[dict]) -> set[str]:
    return {item["label"].strip('"') for item in items}


def completion_request(after: str = COMPLETE_AFTER_CJK) -> dict[str, object]:
    """Where the drivers put the cursor to complete (in the edited text): the line, and the text
    the cursor follows."""
    return {"line": completion_position(apply_edits(fixture_text()), "utf-32", after)[0], "after": after}


def drive(
    tmp: Path,
    command: Sequence[str],
    config: str,
    complete_after: str = COMPLETE_AFTER_CJK,
    prepare: Callable[[Path], None] | None = None,
    **spec: object,
) -> dict:
    """Run an editor on a private copy of the workspace with its driver's spec: the suite to open,
    the shipped configuration folder ``editors/<config>``, the edits, where to complete, the wait
    bound, and ``spec``'s extra fields; ``prepare(workspace)`` adds to the copy first (a run's
    results). Returns what the driver saw; fails on any driver error."""
    workspace = copy_workspace(tmp)
    if prepare is not None:
        prepare(workspace)
    output = tmp / "seen.json"
    spec_file = write_spec(
        tmp,
        file=str(workspace / SUITE),
        output=str(output),
        config_dir=str(ROOT / "editors" / config),
        edits=list(EDITS),
        completion=completion_request(complete_after),
        timeout_ms=WAIT_TIMEOUT_MS,
        **spec,
    )
    env = isolated_env(tmp) | {"EVALFIX_SPEC": str(spec_file)}
    seen = run_editor(command, env, workspace, output)
    assert seen["errors"] == [], (seen["errors"], seen["_stderr"][-2000:])
    return seen
