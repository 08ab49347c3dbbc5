"""The repository ``bench.soak`` works in, and the hostile texts of its hostile phase.

* 200 suites (``skills/s<n>/evals/evals.json`` with a ``SKILL.md``), sizes spread log-uniformly
  from 2 KB to 200 KB, every other one without the directories its cases copy from (so it has
  findings, as a suite being written has), and two 2 MB suites;
* hostile files on disk, checked by the workspace scan like any other: a 10 MB suite (the
  cases of a 2 MB suite five times over: duplicate ids, thousands of findings) and a suite with
  200,000 keys at the top level.

The hostile phase opens, pulls, types into and closes texts that each stress one thing (size,
nesting, keys, strings, line ends, broken JSON), in the spirit of the stress run of issue 33.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass, field
from pathlib import Path

from bench.harness.generate import SKILL_NAME, SOURCE_DIRS, generate_suite

SUITES = 200
MIN_SUITE_BYTES = 2 * 1024
MAX_SUITE_BYTES = 200 * 1024
LARGE_SUITE_BYTES = 2 * 1024 * 1024
HOSTILE_KEYS = 200_000


@dataclass(slots=True)
class Workspace:
    root: Path
    suites: list[Path] = field(default_factory=list)  # every suite path the client may open
    hostile: list[Path] = field(default_factory=list)  # on disk, never opened by the week
    moved: int = 0  # how many skills were moved or replaced (their new names count up)

    def fresh_skill(self) -> Path:
        self.moved += 1
        return self.root / "skills" / f"moved-{self.moved}"


def _with_skill(text: str, skill: str) -> str:
    return text.replace(f'"skill_name": "{SKILL_NAME}"', f'"skill_name": "{skill}"', 1)


def write_skill(directory: Path, text: str, *, sources: bool) -> Path:
    """``directory`` as a skill holding ``text`` as its suite; returns the suite path."""
    evals = directory / "evals"
    evals.mkdir(parents=True, exist_ok=True)
    (directory / "SKILL.md").write_text(f"---\nname: {directory.name}\n---\n", encoding="utf-8")
    for rel in SOURCE_DIRS if sources else ():
        (evals / rel).mkdir(parents=True, exist_ok=True)
        (evals / rel / "README.md").write_text("# source\n", encoding="utf-8")
    path = evals / "evals.json"
    path.write_text(_with_skill(text, directory.name), encoding="utf-8")
    return path


def suite_sizes(rng: random.Random, count: int) -> list[int]:
    low, high = math.log(MIN_SUITE_BYTES), math.log(MAX_SUITE_BYTES)
    return [int(math.exp(rng.uniform(low, high))) for _ in range(count)]


def build_workspace(root: Path, *, suites: int = SUITES, seed: int = 33) -> Workspace:
    rng = random.Random(seed)
    (root / ".git").mkdir(parents=True, exist_ok=True)
    workspace = Workspace(root)
    for index, size in enumerate(suite_sizes(rng, suites)):
        text = generate_suite(size, seed=seed + index).text
        workspace.suites.append(write_skill(root / "skills" / f"s{index}", text, sources=index % 2 == 0))
    large = generate_suite(LARGE_SUITE_BYTES, seed=seed).text
    for index in range(2):
        workspace.suites.append(write_skill(root / "skills" / f"large{index}", large, sources=index == 0))
    workspace.hostile.append(write_skill(root / "skills" / "huge", ten_megabytes(large), sources=False))
    workspace.hostile.append(write_skill(root / "skills" / "keys", many_keys(), sources=False))
    return workspace


def ten_megabytes(large: str) -> str:
    """The cases of a 2 MB suite five times over: 10 MB, every id a duplicate."""
    suite = json.loads(large)
    suite["evals"] = suite["evals"] * 5
    return json.dumps(suite, ensure_ascii=False, indent=2)


def many_keys() -> str:
    members = ",\n".join(f'  "key{n}": {n}' for n in range(HOSTILE_KEYS))
    return (
        '{\n  "skill_name": "'
        + SKILL_NAME
        + '",\n  "evals": [{"id": "a", "prompt": "p"}],\n'
        + members
        + "\n}\n"
    )


def hostile_texts(large: str) -> dict[str, str]:
    """Texts a long session meets sooner or later, each at the scale that hurts."""
    case = '{"id": "c", "prompt": "p 😀"}'
    clean = [{"id": f"c{i}", "prompt": "x 😀" * 10, "setup": {"kind": "empty"}} for i in range(45_000)]
    return {
        "10 MB suite": ten_megabytes(large),
        "200,000 keys": many_keys(),
        "one line, 5 MB": json.dumps({"skill_name": "demo", "evals": clean}, ensure_ascii=False),
        "arrays 100,000 deep": '{"skill_name": "d", "evals": [' + "[" * 100_000 + "]" * 100_000 + "]}",
        "objects 100,000 deep": '{"skill_name": "d", "evals": ['
        + '{"a": ' * 100_000
        + "1"
        + "}" * 100_000
        + "]}",
        "a 5 MB string": json.dumps({"skill_name": "d", "evals": [{"id": "a", "prompt": "p" * 5_000_000}]}),
        "2 MB, broken every case": large.replace('"prompt": "', '"prompt": "\n', 2_000),
        "2 MB, no closing bracket": large.rstrip().rstrip("}").rstrip().rstrip("]"),
        "CR line ends, 2 MB": large.replace("\n", "\r"),
        "50,000 cases, one id": json.dumps({"skill_name": "d", "evals": [json.loads(case)] * 50_000}),
        "NUL and BOM": "\ufeff" + large.replace('"prompt": "', '"prompt": "\x00', 500),
        "U+2028 in strings": large.replace('"prompt": "', '"prompt": "\u2028', 5_000),
    }
