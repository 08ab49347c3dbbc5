"""Typing through invalid JSON, one keystroke at a time, with a pull and a push client.

After every keystroke the findings of the other cases are still shown at their exact ranges
(computed from the valid text before typing, shifted by what was typed: an oracle that knows nothing
of recovery), and while the text does not parse there is exactly one ``json-invalid`` /
``invalid_json`` error, at the text being typed.
"""

from __future__ import annotations

import json
from pathlib import Path

from lsp_support import Session, as_tuple, lsp_range, make_repo

from evalfix_ls.analysis import analyze
from evalfix_ls.contracts.detection import CANONICAL_SCHEMA

SKILL_MD = "---\nname: demo\ndescription: A demo skill.\n---\n# Demo\n"


def evals_suite() -> str:
    cases = [
        {"id": "Case One", "prompt": "写一个文件 😀 for Zoë", "extra": 1},  # id-style, key-ignored
        {"id": "target", "prompt": "typed into", "assertions": ["the reply is polite"]},
        {"id": "three", "prompt": "", "files": "notes.md"},  # prompt-required, files-not-array
    ]
    return json.dumps({"skill_name": "demo", "evals": cases}, indent=2, ensure_ascii=False) + "\n"


def workflow_fixture() -> str:
    sibling = {"id": "no-outcome", "input": "规划 😀 it", "coverage_tags": ["trigger"]}
    done = {"id": "done", "input": "Do it.", "coverage_tags": ["trigger"], "expected_outcome": "ok"}
    payload = {
        "schema_version": CANONICAL_SCHEMA,
        "skill": "demo",
        "source_refs": ["skills/demo/SKILL.md"],
        "source_ref_authority": "source",
        "cases": [sibling, done],
    }
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"


def parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


async def type_and_check(
    session: Session,
    path: Path,
    root: Path,
    at: int,
    typed: str,
    edited_case: tuple[int, int],
    invalid_code: str,
) -> int:
    """Type ``typed`` at ``at`` character by character; after each keystroke check the diagnostics.
    ``edited_case`` is the span (in the original text) of the case being edited, whose own findings
    may change. Returns how many keystrokes left the text invalid."""
    text = path.read_text(encoding="utf-8")
    findings = analyze(text, path=path, repo_root=root).findings
    kept = [f for f in findings if not edited_case[0] <= f.start < edited_case[1]]
    assert kept, [f.code for f in findings]  # the fixture has findings outside the edit
    uri = session.open(path)
    await session.diagnostics(uri, lambda items: len(items) >= len(kept))
    invalid_states = at_the_edit = 0
    for count in range(1, len(typed) + 1):
        text = session.edit(uri, at + count - 1, at + count - 1, typed[count - 1])
        items = await session.diagnostics(uri)
        shown = {(str(d.code), as_tuple(d.range)) for d in items}
        for finding in kept:
            shift = count if finding.start >= at else 0
            rng = lsp_range(text, finding.start + shift, finding.end + shift, session.encoding)
            assert (finding.code, as_tuple(rng)) in shown, (typed[:count], finding.code, sorted(shown))
        invalid = [d for d in items if str(d.code) == invalid_code]
        if parses(text):
            assert invalid == []
            continue
        invalid_states += 1
        assert len(invalid) == 1, typed[:count]
        rest = text[at + count :]
        next_token = at + count + len(rest) - len(rest.lstrip())  # a missing comma is reported there
        typed_from = lsp_range(text, at, next_token, session.encoding)
        start = invalid[0].range.start
        # never before the edit: the text before it did not change
        assert (typed_from.start.line, typed_from.start.character) <= (start.line, start.character), typed[
            :count
        ]
        at_the_edit += (start.line, start.character) <= (typed_from.end.line, typed_from.end.character)
    return invalid_states, at_the_edit


def evals_repo(tmp_path: Path) -> tuple[Path, Path]:
    root = make_repo(tmp_path / "repo")
    (root / "skills/demo/evals").mkdir(parents=True)
    (root / "skills/demo/SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    path = root / "skills/demo/evals/evals.json"
    path.write_text(evals_suite(), encoding="utf-8")
    return root, path


async def check_new_assertion(session: Session, tmp_path: Path) -> None:
    root, path = evals_repo(tmp_path)
    text = path.read_text(encoding="utf-8")
    await session.initialize([root])
    at = text.index('"the reply is polite"') + len('"the reply is polite"')
    case = (text.index('"id": "target"'), text.index('"id": "three"'))
    invalid, at_the_edit = await type_and_check(
        session, path, root, at, ', "名前 😀 shown"', case, "json-invalid"
    )
    assert invalid >= 10 and at_the_edit == invalid


async def check_new_case(session: Session, tmp_path: Path) -> None:
    root, path = evals_repo(tmp_path)
    text = path.read_text(encoding="utf-8")
    await session.initialize([root])
    at = text.index("},", text.index('"Case One"')) + 2  # after the first case, as after Enter
    typed = '\n    {"id": "new-case", "prompt": "写", "assertions": ["ok"]},'
    invalid, at_the_edit = await type_and_check(session, path, root, at, typed, (at, at), "json-invalid")
    # While the new case's assertions array is open ("assertions": [), the next cases are valid
    # items of it, and the first error is at the end of the text, as JSON.parse sees it; their
    # findings stay all the same (checked after every keystroke).
    assert invalid >= 20 and at_the_edit >= invalid - 1


async def test_pull_client_types_a_new_assertion(pull_session: Session, tmp_path: Path) -> None:
    await check_new_assertion(pull_session, tmp_path)


async def test_push_client_types_a_new_assertion(push_session: Session, tmp_path: Path) -> None:
    await check_new_assertion(push_session, tmp_path)


async def test_pull_client_types_a_new_case(pull_session: Session, tmp_path: Path) -> None:
    await check_new_case(pull_session, tmp_path)


async def test_push_client_types_a_new_case(push_session: Session, tmp_path: Path) -> None:
    await check_new_case(push_session, tmp_path)


async def check_workflow_case(session: Session, tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    (root / "skills/demo/evals").mkdir(parents=True)
    (root / "skills/demo/SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    path = root / "skills/demo/evals/cases.json"
    path.write_text(workflow_fixture(), encoding="utf-8")
    text = path.read_text(encoding="utf-8")
    await session.initialize([root])
    findings = analyze(text, path=path, repo_root=root).findings
    assert "missing_expected_outcome" in [f.code for f in findings]
    at = text.index('"cases": [') + len('"cases": [')  # before the sibling: typing may swallow it
    typed = '\n    {"id": "new", "input": "x", "coverage_tags": ["trigger"]},'
    invalid, at_the_edit = await type_and_check(session, path, root, at, typed, (at, at), "invalid_json")
    # While the new case's tag array is open ("coverage_tags": [), the next cases are valid items
    # of it, and the first error is at the end of the text, as JSON.parse sees it.
    assert invalid >= 20 and at_the_edit >= invalid - 1


async def test_pull_client_types_a_workflow_case(pull_session: Session, tmp_path: Path) -> None:
    await check_workflow_case(pull_session, tmp_path)


async def test_push_client_types_a_workflow_case(push_session: Session, tmp_path: Path) -> None:
    await check_workflow_case(push_session, tmp_path)
