"""The push clients' workspace scan walks as ``--check`` does (issue 33): a link is classified by
``lstat``, never entered nor followed, so a suite path that is a link to a directory outside the
repository is reported as leaving it — before, the walk ``stat``-ed through the link, saw a
directory and passed over the path in silence."""

from __future__ import annotations

import json
from pathlib import Path

from lsp_support import Session, codes, make_repo

SECRET = "SECRET-0ut1"


async def test_the_scan_reports_a_suite_linked_to_an_outside_directory(
    push_session: Session, tmp_path: Path
) -> None:
    session = push_session
    outside = tmp_path / "outside"
    (outside / "evals").mkdir(parents=True)
    (outside / "evals/evals.json").write_text(json.dumps({"skill_name": SECRET, "evals": []}))
    root = make_repo(tmp_path / "repo")
    (root / "evals").mkdir()
    (root / "evals/evals.json").symlink_to(outside, target_is_directory=True)
    (root / "skills").mkdir(exist_ok=True)
    (root / "skills/out").symlink_to(outside, target_is_directory=True)  # never entered
    await session.initialize([root])

    found = await session.diagnostics((root / "evals/evals.json").as_uri())
    assert codes(found) == ["file-outside-repository"]
    assert "not read" in found[0].message
    published = [d.message for pushes in session.published.values() for p in pushes for d in p.diagnostics]
    assert not any(SECRET in message for message in published)
    assert not any("/skills/out/" in uri for uri in session.published)
