"""``evalfix/documentInfo`` and the hover on the root object (issue 20 point 2, issue 23 item 4):
the real server over stdio says which contract applies to a file and why — or why it is not
checked — never as a diagnostic. A lone surrogate in a document travels as its JSON escape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lsp_support import Session, position_of, workflow_fixture
from lsprotocol import types

from evalfix_ls.contracts.detection import CANONICAL_SCHEMA

SKILL_LOCAL = {"schema_version": "x.v2", "cases": [{"kind": "capability", "expected": ["a"]}]}


def repository(root: Path) -> Path:
    """A repository without spec-first's fixture walk (no normalizer): a canonical fixture, a
    skill-local shape, an eval suite, and a file mapped by configuration."""
    (root / ".git").mkdir(parents=True)
    (root / "skills/demo/evals").mkdir(parents=True)
    (root / "skills/demo/SKILL.md").write_text("---\nname: demo\n---\n")
    canonical = workflow_fixture("demo", ["one", "two"]) | {"schema_version": CANONICAL_SCHEMA}
    files = {
        "skills/demo/evals/canonical.json": canonical,
        "skills/demo/evals/capability-cases.json": SKILL_LOCAL,
        "skills/demo/evals/evals.json": {"skill_name": "demo", "evals": [{"id": "a", "prompt": "p"}]},
        "fixtures/mapped.json": {"cases": []},
    }
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(json.dumps(data, indent=2))
    (root / ".evalfix.toml").write_text('# mappings\n[files]\n"fixtures/*.json" = "workflow"\n')
    return root


async def info(session: Session, path: Path) -> Any:
    result = await session.client.protocol.send_request_async(
        "evalfix/documentInfo", {"textDocument": {"uri": path.as_uri()}}
    )
    return plain(result)


def plain(value: Any) -> Any:
    """The client's view of a custom result (pygls gives objects as named tuples) as JSON data."""
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    return value


async def test_document_info_says_which_contract_and_why(pull_session: Session, tmp_path: Path) -> None:
    root = repository(tmp_path)
    await pull_session.initialize([root])
    assert await info(pull_session, root / "skills/demo/evals/canonical.json") is None  # not open
    for rel in ("canonical.json", "capability-cases.json", "evals.json"):
        pull_session.open(root / "skills/demo/evals" / rel)
    pull_session.open(root / "fixtures/mapped.json")

    canonical = await info(pull_session, root / "skills/demo/evals/canonical.json")
    assert canonical["kind"] == "workflow-fixture" and canonical["title"] == "workflow fixture"
    assert canonical["reason"] == f'declares schema_version "{CANONICAL_SCHEMA}"'
    assert (canonical["shape"], canonical["cases"], canonical["decidedBy"]) == (CANONICAL_SCHEMA, 2, None)
    assert canonical["readiness"].startswith("readiness of demo: ")

    local = await info(pull_session, root / "skills/demo/evals/capability-cases.json")
    assert (local["kind"], local["title"], local["shape"], local["cases"]) == (
        "unknown",
        "not checked",
        "x.v2",
        None,
    )
    assert local["reason"] == (
        'skill-local shape (schema_version "x.v2") under skills/**/evals/ in a repository without '
        "spec-first's fixture walk: its own tests judge it"
    )
    assert local["readiness"] is None

    suite = await info(pull_session, root / "skills/demo/evals/evals.json")
    assert (suite["kind"], suite["title"], suite["cases"], suite["readiness"]) == (
        "evals",
        "eval suite",
        1,
        None,
    )

    mapped = await info(pull_session, root / "fixtures/mapped.json")
    assert mapped["kind"] == "workflow-fixture" and mapped["decidedBy"] == ".evalfix.toml:3"

    # Not checked is not a problem: no diagnostic for the skill-local file.
    uri = (root / "skills/demo/evals/capability-cases.json").as_uri()
    assert await pull_session.diagnostics(uri) == []


async def test_the_root_object_hover_tells_the_same(pull_session: Session, tmp_path: Path) -> None:
    root = repository(tmp_path)
    await pull_session.initialize([root])
    uri = pull_session.open(root / "skills/demo/evals/capability-cases.json")
    text = pull_session.texts[uri]
    line, character = position_of(text, 0, pull_session.encoding)  # the root object's `{`
    found = await pull_session.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
        )
    )
    assert found is not None
    assert found.contents.value.startswith(
        "**evalfix: not checked** — skill-local shape (`schema_version` `x.v2`)"
    )
    assert "* shape: `x.v2`" in found.contents.value
    inside = text.index('"capability"') + 2  # inside a value: no document hover there
    line, character = position_of(text, inside, pull_session.encoding)
    assert (
        await pull_session.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=line, character=character),
            )
        )
        is None
    )


async def test_a_lone_surrogate_reaches_the_client_as_its_escape(
    pull_session: Session, tmp_path: Path
) -> None:
    root = repository(tmp_path)
    path = root / "skills/demo/evals/evals.json"
    path.write_text('{"skill_name": "demo", "evals": [{"id": "a", "prompt": "p"}], "\\uDFAA": 0}\n')
    await pull_session.initialize([root])
    uri = pull_session.open(path)
    found = await pull_session.diagnostics(uri, lambda items: any(d.code == "key-ignored" for d in items))
    assert any("`\udfaa` is not part of the suite format" in d.message for d in found)


async def test_a_forced_walk_reads_legacy_shapes_with_their_duplicates(
    pull_session: Session, tmp_path: Path
) -> None:
    root = tmp_path
    (root / ".git").mkdir()
    (root / "skills/demo").mkdir(parents=True)
    (root / "skills/demo/SKILL.md").write_text("# demo\n")
    for name in ("a.json", "b.json"):
        data = workflow_fixture("demo", ["same"])
        del data["schema_version"]  # a legacy shape
        (root / "skills/demo/evals").mkdir(exist_ok=True)
        (root / "skills/demo/evals" / name).write_text(json.dumps(data, indent=2))
    (root / ".evalfix.toml").write_text("workflow_walk = true\n")
    await pull_session.initialize([root])
    uri = pull_session.open(root / "skills/demo/evals/b.json")
    found = await pull_session.diagnostics(uri, lambda items: bool(items))
    assert "duplicate_case_id" in {d.code for d in found}
    forced = await info(pull_session, root / "skills/demo/evals/b.json")
    assert forced["kind"] == "workflow-fixture" and forced["decidedBy"] == ".evalfix.toml:1"
    assert forced["reason"] == (
        "a JSON file under skills/**/evals/ where spec-first's fixture walk is forced on (.evalfix.toml:1): "
        "the walk normalizes it"
    )
