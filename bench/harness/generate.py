"""Deterministic ``evals/evals.json`` suites of a requested size, for every benchmark that needs one
(``prepare_suite`` writes one as a small skill repository under ``bench/.data/``).

A suite is a list of cases drawn from a seeded ``random.Random``: judged strings, ``file-exists``,
``regex-match`` with flags and both target forms, ``json-valid``, intent assertions of every graded
kind (plus a rare ``behavior`` one), all three setup kinds and the legacy ``files`` list, typed
``metadata`` with an ``environment``, ``just-bash`` sandboxes with mocks, and prompts with CJK text
and emoji. The text is what ``json.dumps(suite, indent=2, ensure_ascii=False)`` prints, assembled
case by case so the size is known while generating; cases are added until the UTF-8 size reaches
the target (it overshoots by less than one case).

A *planted* suite is the same suite with a few cases changed to carry one known violation each; the
exact anchor range of every violation is computed here from the text (not by evalfix-ls), so the LSP
benchmark can check whether a server reports it at the right place.

Only the standard library is used: the generator must work before anything else is installed.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.harness.common import DATA_DIR

# The case the typing benchmarks type, one character at a time, after a suite's middle case.
NEW_CASE = '\n    {"id": "typed-case", "prompt": "写一个 😀 file", "assertions": ["it works"]},'
KIB = 1024
SIZES: dict[str, int] = {"20k": 20 * KIB, "200k": 200 * KIB, "2m": 2 * KIB * KIB, "10m": 10 * KIB * KIB}
DEFAULT_SEED = 20260504
SKILL_NAME = "bench-skill"
SUITE_REL_PATH = f"skills/{SKILL_NAME}/evals/evals.json"

# Paths the cases copy from; ``write_suite_tree`` creates them so that existence checks pass.
SOURCE_DIRS = tuple(f"files/repo-{k}" for k in range(8))
FIXTURE_DIRS = tuple(f"fixtures/repo-{k}" for k in range(4))

# LSP DiagnosticSeverity values.
ERROR, WARNING = 1, 2

_HEADER = '{\n  "version": "1.0.0",\n  "skill_name": "' + SKILL_NAME + '",\n  "evals": [\n'
_FOOTER = "\n  ]\n}\n"
_CASE_INDENT = "    "

_NAMES = ("Ada", "Grace Hopper", "Linus", "Margaret", "山田太郎", "Zoë", "José", "Søren", "李小龙")
_EN_SENTENCES = (
    "Create a greeting file for {name} and tell me where you saved it.",
    "Summarise the open issues in this repository into SUMMARY.md.",
    "Add a unit test for the date parser and run it.",
    "Rename the config key `timeout` to `timeout_ms` everywhere and update the docs.",
    "Write a changelog entry for version {ver} with the three most important fixes.",
    "Fix the failing build and explain the root cause in two sentences.",
    "Convert the CSV in data/ to JSON and validate it against the schema.",
    "List every TODO comment with its file and line number.",
    "Draft a polite reply to {name} declining the meeting on Friday.",
    "Refactor utils.py so that no function is longer than 40 lines.",
)
_CJK_SENTENCES = (
    "请把这个仓库的 README 翻译成中文，并保留代码块。",
    "このリポジトリのテストを実行して、失敗したものを要約してください。",
    "이 프로젝트의 설치 방법을 한국어로 설명해 주세요.",
    "为 {name} 生成一份问候语文件，文件名是 greeting.txt。",
    "把所有的日期格式统一成 ISO 8601（例如 2026-05-04）。",
)
_EMOJI_SENTENCES = (
    "🚀 Ship it when the tests are green!",
    "Please add a ✅ next to each finished task.",
    "Make the release notes fun 🎉🎉 but keep them short.",
    "Use 👍/👎 to rate each answer.",
    "The family emoji 👨‍👩‍👧 must survive a round trip through the file.",
    "Mark blockers with 🔥 and questions with ❓.",
)
_JUDGED = (
    "The response mentions the file greeting.txt by name",
    "The assistant explains the root cause before proposing a fix",
    "The answer is written in a friendly, concise tone",
    "回复中包含中文摘要",
    "The summary lists at least three issues 📋",
    "The assistant does not invent file names that do not exist",
    "The reply asks a clarifying question when the request is ambiguous",
)
_OUT_FILES = (
    "greeting.txt",
    "SUMMARY.md",
    "out/report.json",
    "CHANGELOG.md",
    "data/output.json",
    "notes/今日.md",
)
_JSON_FILES = ("out/report.json", "data/output.json", "package.json")
# (pattern, flags): every pattern compiles in Node 20 with its flags; no g/y (those only raise hints).
_REGEXES = (
    ("Hello, \\w+!", ""),
    ("^#\\s+Summary$", "m"),
    ("\\bTODO\\b", "i"),
    ("(?<year>\\d{4})-(?<month>\\d{2})-(?<day>\\d{2})", ""),
    ("[\\u4e00-\\u9fff]{2,}", "u"),
    ("\\p{Extended_Pictographic}", "u"),
    ("greeting\\.txt", ""),
    ("^\\s*\\{[\\s\\S]*\\}\\s*$", ""),
    ("(?:error|warning): .+", "im"),
    ("a.b", "s"),
    ("^(?!.*FIXME).*$", "m"),
    ("\\d+(?:\\.\\d+)?\\s*ms", ""),
)
_TAGS = ("smoke", "regression", "i18n", "files", "git", "slow", "happy-path", "edge-case")
_SLUGS = ("greeting", "summary", "refactor", "changelog", "translate", "csv-to-json", "todo-list", "reply")


@dataclass(frozen=True, slots=True)
class Planted:
    """One known violation in a planted suite and where it must be reported."""

    code: str  # the evalfix-ls code expected
    severity: int  # the LSP severity evalfix-ls should give it
    pointer: str  # JSON Pointer of the anchor node (for a missing member: the parent object)
    start: int  # code-point offsets [start, end) of the anchor in the suite text
    end: int
    what: str  # the planted change, for printed tables


@dataclass(slots=True)
class Suite:
    text: str
    case_count: int
    planted: list[Planted] = field(default_factory=list)
    edit_case: int = 0  # a case without a planted violation, near the middle
    edit_offset: int = 0  # code-point offset just inside the opening quote of that case's prompt

    @property
    def size(self) -> int:
        return len(self.text.encode("utf-8"))


# ---------------------------------------------------------------------------------------------
# Cases


def _prompt(rng: random.Random) -> str:
    pools = (_EN_SENTENCES, _EN_SENTENCES, _CJK_SENTENCES, _EMOJI_SENTENCES)
    parts = [rng.choice(rng.choice(pools)) for _ in range(rng.randint(1, 3))]
    return " ".join(parts).format(name=rng.choice(_NAMES), ver=f"{rng.randint(0, 9)}.{rng.randint(0, 30)}.0")


def _regex_fields(rng: random.Random) -> dict[str, str]:
    pattern, flags = rng.choice(_REGEXES)
    return {"pattern": pattern, "flags": flags} if flags else {"pattern": pattern}


def _assertion(rng: random.Random, index: int) -> str | dict[str, Any]:
    roll = rng.random()
    if roll < 0.22:
        return rng.choice(_JUDGED)
    if roll < 0.34:
        return {"type": "file-exists", "path": rng.choice(_OUT_FILES)}
    if roll < 0.50:
        assertion: dict[str, Any] = {"type": "regex-match", **_regex_fields(rng)}
        target = rng.random()
        if target < 0.45:
            assertion["target"] = "assistant-text"
        elif target < 0.9:
            assertion["target"] = {"file": rng.choice(_OUT_FILES)}
        return assertion
    if roll < 0.56:
        return {"type": "json-valid", "path": rng.choice(_JSON_FILES)}
    if roll < 0.68:
        return {
            "id": f"judge-{index}",
            "kind": "output",
            "method": "judge",
            "prompt": rng.choice(_JUDGED),
            "mustPass": rng.random() < 0.7,
            "severity": rng.choice(("info", "warn", "error")),
        }
    if roll < 0.76:
        return {"id": f"output-regex-{index}", "kind": "output", "method": "regex", **_regex_fields(rng)}
    if roll < 0.82:
        return {"id": f"exact-{index}", "kind": "output", "method": "exact", "expected": "Done. ✅"}
    if roll < 0.97:
        method = rng.choice(("file-exists", "file-contains", "json-valid"))
        workspace: dict[str, Any] = {"id": f"ws-{index}", "kind": "workspace", "method": method}
        workspace["path"] = rng.choice(_JSON_FILES if method == "json-valid" else _OUT_FILES)
        if method == "file-contains":
            workspace.update(_regex_fields(rng))
        return workspace
    # Rare on purpose: behavior assertions are always graded as failed (a warning), as in real files.
    return {"id": f"behavior-{index}", "kind": "behavior", "method": "tool-call-required", "value": "Bash"}


def _setup(rng: random.Random, case: dict[str, Any]) -> None:
    roll = rng.random()
    if roll < 0.10:
        return
    if roll < 0.25:
        case["files"] = rng.sample(SOURCE_DIRS, rng.randint(1, 2))
    elif roll < 0.50:
        case["setup"] = {"kind": "empty"}
    elif roll < 0.85:
        sources = [{"from": src, "to": f"inputs/{k}"} for k, src in enumerate(rng.sample(SOURCE_DIRS, 2))]
        setup: dict[str, Any] = {"kind": "seeded", "sources": sources[: rng.randint(1, 2)]}
        mode = rng.random()
        if mode < 0.4:
            setup["mountMode"] = "preserve-path"
        elif mode < 0.6:
            setup["mountMode"] = "flatten-contents"
        case["setup"] = setup
    else:
        fixture = {"kind": rng.choice(("repo", "docs", "api")), "source": rng.choice(FIXTURE_DIRS)}
        if rng.random() < 0.5:
            fixture["initGit"] = rng.random() < 0.5
        case["setup"] = {"kind": "fixture", "fixture": fixture}


def _metadata(rng: random.Random) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "tags": rng.sample(_TAGS, rng.randint(1, 3)),
        "difficulty": rng.choice(("easy", "medium", "hard")),
    }
    if rng.random() < 0.5:
        metadata["intent"] = rng.choice(_JUDGED)
    if rng.random() < 0.3:
        metadata["owner"] = rng.choice(("team-docs", "team-infra", "山田"))
    if rng.random() < 0.3:
        metadata["environment"] = {
            "workspace": {"kind": rng.choice(("empty", "seeded", "fixture")), "writable": True},
            "git": {"required": rng.random() < 0.5},
            "network": {"mode": rng.choice(("none", "mocked"))},
            "tools": [{"name": "bash", "required": True, "mode": "real"}],
            "envVars": [{"name": "API_TOKEN", "required": False, "secret": True}],
        }
    return metadata


def build_case(rng: random.Random, index: int) -> dict[str, Any]:
    case: dict[str, Any] = {}
    # Mostly kebab-case ids; every 17th case has a numeric id, as real suites sometimes do.
    case["id"] = 1000 + index if index % 17 == 5 else f"case-{index:05d}-{rng.choice(_SLUGS)}"
    if rng.random() < 0.7:
        case["description"] = f"Case {index}: {rng.choice(_JUDGED).lower()}."
    case["prompt"] = _prompt(rng)
    if rng.random() < 0.6:
        case["expected_output"] = f"{rng.choice(_OUT_FILES)} exists and the reply says so."
    _setup(rng, case)
    case["assertions"] = [_assertion(rng, a) for a in range(rng.randint(2, 7))]
    if rng.random() < 0.15:
        case["sandbox"] = "just-bash"
        case["sandboxMocks"] = [
            {"command": "npm", "stdout": "added 0 packages\n", "exitCode": 0},
            {"command": "curl", "stdout": "{}", "files": [{"path": "out/response.json", "content": "{}"}]},
        ]
    if rng.random() < 0.7:
        case["metadata"] = _metadata(rng)
    return case


def _render_case(case: dict[str, Any]) -> str:
    text = json.dumps(case, indent=2, ensure_ascii=False)
    return "\n".join(_CASE_INDENT + line for line in text.split("\n"))


# ---------------------------------------------------------------------------------------------
# Planted violations


@dataclass(frozen=True, slots=True)
class _Plant:
    code: str
    severity: int
    what: str
    mutate: Callable[[dict[str, Any]], None]
    marker: str | None  # unique text in the rendered case ending with the anchor; None = the case's `{`
    anchor: str  # the anchor's own text (the tail of ``marker``)
    pointer: str  # relative to the case


def _set(**members: Any) -> Callable[[dict[str, Any]], None]:
    def mutate(case: dict[str, Any]) -> None:
        if "setup" in members:
            case.pop("files", None)
        case.update(members)

    return mutate


def _drop_prompt(case: dict[str, Any]) -> None:
    del case["prompt"]


_JUDGED_TAIL = "The reply is polite"
PLANTS: tuple[_Plant, ...] = (
    _Plant(
        "setup-kind-invalid",
        ERROR,
        'setup.kind "Empty"',
        _set(setup={"kind": "Empty"}),
        '"kind": "Empty"',
        '"Empty"',
        "/setup/kind",
    ),
    _Plant(
        "script-type-invalid",
        ERROR,
        'assertion type "File-Exists"',
        _set(assertions=[{"type": "File-Exists", "path": "out.txt"}, _JUDGED_TAIL]),
        '"type": "File-Exists"',
        '"File-Exists"',
        "/assertions/0/type",
    ),
    _Plant("prompt-required", ERROR, "prompt missing", _drop_prompt, None, "{", ""),
    _Plant(
        "regex-target-invalid",
        ERROR,
        'regex target "assistant"',
        _set(assertions=[{"type": "regex-match", "pattern": "done", "target": "assistant"}, _JUDGED_TAIL]),
        '"target": "assistant"',
        '"assistant"',
        "/assertions/0/target",
    ),
    _Plant(
        "intent-severity-invalid",
        ERROR,
        'intent severity "warning"',
        _set(
            assertions=[
                {
                    "id": "tone",
                    "kind": "output",
                    "method": "judge",
                    "prompt": "Friendly?",
                    "severity": "warning",
                }
            ]
        ),
        '"severity": "warning"',
        '"warning"',
        "/assertions/0/severity",
    ),
    _Plant("id-required", ERROR, "id null", _set(id=None), '"id": null', "null", "/id"),
    _Plant(
        "setup-fixture-init-git-type",
        ERROR,
        'fixture.initGit "yes"',
        _set(
            setup={
                "kind": "fixture",
                "fixture": {"kind": "repo", "source": FIXTURE_DIRS[1], "initGit": "yes"},
            }
        ),
        '"initGit": "yes"',
        '"yes"',
        "/setup/fixture/initGit",
    ),
    _Plant(
        "metadata-difficulty-invalid",
        WARNING,
        'metadata.difficulty "Easy"',
        # An empty setup: with the usual object sources the spec would reject the case too, and the
        # warning would be an error (neither accepts, evals-json.md §14).
        _set(metadata={"difficulty": "Easy"}, setup={"kind": "empty"}),
        '"difficulty": "Easy"',
        '"Easy"',
        "/metadata/difficulty",
    ),
    _Plant(
        "regex-invalid",
        ERROR,
        "regex '🎉 (unclosed' (emoji: UTF-16 columns)",
        _set(assertions=[{"type": "regex-match", "pattern": "🎉 (unclosed", "target": "assistant-text"}]),
        '"pattern": "🎉 (unclosed"',
        '"🎉 (unclosed"',
        "/assertions/0/pattern",
    ),
)


def _plant_indices(case_count: int, plant_count: int) -> list[int]:
    """Spread the planted cases over the file (first, last and evenly between)."""
    if case_count <= 1:
        return [0][:plant_count]
    count = min(plant_count, case_count)
    return sorted({round(k * (case_count - 1) / max(count - 1, 1)) for k in range(count)})


# ---------------------------------------------------------------------------------------------
# Suites


def generate_suite(target_bytes: int, *, seed: int = DEFAULT_SEED, planted: bool = False) -> Suite:
    """A suite whose UTF-8 size is at least ``target_bytes`` (by less than one case).

    With ``planted``, the same cases carry the violations of ``PLANTS`` spread over the file; the
    suite then has at least ``len(PLANTS) + 1`` cases so one is left for editing."""
    rng = random.Random(seed)
    cases: list[dict[str, Any]] = []
    size = len(_HEADER.encode("utf-8")) + len(_FOOTER.encode("utf-8"))
    minimum = len(PLANTS) + 1 if planted else 1
    while size < target_bytes or len(cases) < minimum:
        case = build_case(rng, len(cases))
        cases.append(case)
        size += len(_render_case(case).encode("utf-8")) + (2 if len(cases) > 1 else 0)

    plant_at: dict[int, _Plant] = {}
    if planted:
        plant_at = dict(zip(_plant_indices(len(cases), len(PLANTS)), PLANTS, strict=False))
        for index, plant in plant_at.items():
            plant.mutate(cases[index])

    pieces: list[str] = [_HEADER]
    offset = len(_HEADER)
    suite = Suite(text="", case_count=len(cases))
    case_starts: list[int] = []
    rendered: list[str] = []
    for index, case in enumerate(cases):
        if index:
            pieces.append(",\n")
            offset += 2
        case_text = _render_case(case)
        case_starts.append(offset)
        rendered.append(case_text)
        pieces.append(case_text)
        offset += len(case_text)
    pieces.append(_FOOTER)
    suite.text = "".join(pieces)

    for index, plant in sorted(plant_at.items()):
        start = case_starts[index] + _anchor_start(rendered[index], plant)
        suite.planted.append(
            Planted(
                plant.code,
                plant.severity,
                f"/evals/{index}{plant.pointer}",
                start,
                start + len(plant.anchor),
                plant.what,
            )
        )

    middle = len(cases) // 2
    candidates = sorted((i for i in range(len(cases)) if i not in plant_at), key=lambda i: abs(i - middle))
    suite.edit_case = candidates[0] if candidates else middle
    prompt_key = '"prompt": "'
    edit_text = rendered[suite.edit_case]
    suite.edit_offset = case_starts[suite.edit_case] + edit_text.index(prompt_key) + len(prompt_key)
    return suite


def _anchor_start(case_text: str, plant: _Plant) -> int:
    if plant.marker is None:
        return len(_CASE_INDENT)  # the case's opening brace
    at = case_text.index(plant.marker)
    if case_text.find(plant.marker, at + 1) != -1:
        raise ValueError(f"planted marker {plant.marker!r} is not unique in its case")
    return at + len(plant.marker) - len(plant.anchor)


def lsp_position(text: str, offset: int) -> tuple[int, int]:
    """(line, UTF-16 character) of a code-point offset. The generator writes only ``\\n`` line
    breaks and no raw U+2028/U+2029, so counting ``\\n`` is LSP's line count here."""
    line = text.count("\n", 0, offset)
    line_start = text.rfind("\n", 0, offset) + 1
    prefix = text[line_start:offset]
    return line, len(prefix.encode("utf-16-le")) // 2


def write_suite_tree(root: Path, suite: Suite, *, sources: bool = True) -> Path:
    """Lay the suite out as a small skill repository under ``root`` (``skills/<skill>/SKILL.md``,
    ``evals/evals.json`` and the source directories the cases copy from); return the suite path.
    Files are rewritten only when their content changed, so repeated runs reuse them.

    ``sources=False`` leaves the directories out: a suite still being written, whose cases name
    files that are not there yet (a "noisy" suite: every such case carries findings)."""
    skill = root / "skills" / SKILL_NAME
    evals_dir = skill / "evals"
    _write_if_changed(skill / "SKILL.md", f"---\nname: {SKILL_NAME}\ndescription: benchmark skill\n---\n")
    for rel in (*SOURCE_DIRS, *FIXTURE_DIRS) if sources else ():
        _write_if_changed(evals_dir / rel / "README.md", f"# {rel}\n")
    path = root / SUITE_REL_PATH
    _write_if_changed(path, suite.text)
    return path


def prepare_suite(
    label: str, directory: str, *, planted: bool = False, sources: bool = True
) -> tuple[Path, Suite]:
    """The suite of size ``label`` written under ``.data/<directory>`` (the path of its file, and
    the suite); ``planted``: with the planted cases the LSP benchmarks aim at; ``sources``: with the
    directories its cases copy from (without them every case naming one carries findings)."""
    suite = generate_suite(SIZES[label], planted=planted)
    return write_suite_tree(DATA_DIR / directory, suite, sources=sources), suite


def _write_if_changed(path: Path, text: str) -> None:
    data = text.encode("utf-8")
    if path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def parse_sizes(spec: str) -> list[str]:
    """``"20k,200k"`` → ``["20k", "200k"]``; raises ValueError on an unknown label."""
    labels = [s.strip().lower() for s in spec.split(",") if s.strip()]
    unknown = [s for s in labels if s not in SIZES]
    if unknown:
        raise ValueError(f"unknown size(s) {', '.join(unknown)}; choose from {', '.join(SIZES)}")
    return labels


if __name__ == "__main__":  # pragma: no cover - a quick look at what the generator makes
    for label, target in SIZES.items():
        made = generate_suite(target, planted=True)
        print(f"{label:>5}: {made.size:>10,} bytes, {made.case_count:>6} cases, {len(made.planted)} planted")
