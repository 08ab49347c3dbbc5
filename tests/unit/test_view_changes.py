"""Which "changed" file events can change a fact of a ``FileSystemView`` (issue 19g): only those
do the language server let move the generation that cached per-case findings are keyed by."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evalfix_ls.workspace.view import FileSystemView


def test_a_file_only_asked_about_by_kind_changes_no_fact(tmp_path: Path) -> None:
    named = tmp_path / "input.txt"
    named.write_text("a", encoding="utf-8")
    view = FileSystemView()
    assert view.is_file(named, root=tmp_path)
    named.write_text("b", encoding="utf-8")
    assert not view.content_change_matters(named)


def test_a_file_whose_content_was_read_changes_a_fact(tmp_path: Path) -> None:
    skill_md = tmp_path / "SKILL.md"
    skill_md.write_text("---\nname: a\n---\n", encoding="utf-8")
    view = FileSystemView()
    assert view.read_text(skill_md, root=tmp_path) is not None
    assert view.content_change_matters(skill_md)


def test_a_link_or_a_path_whose_kind_changed_may_change_a_fact(tmp_path: Path) -> None:
    target = tmp_path / "target.txt"
    target.write_text("t", encoding="utf-8")
    link = tmp_path / "link.txt"
    os.symlink(target, link)
    became_file = tmp_path / "was-missing"
    view = FileSystemView()
    assert view.is_file(link, root=tmp_path)
    assert not view.exists(became_file, root=tmp_path)
    became_file.write_text("now a file", encoding="utf-8")
    assert view.content_change_matters(link)  # its target may be another file now
    assert view.content_change_matters(became_file)  # cached as missing, a file now
    assert view.content_change_matters(tmp_path)  # a directory: in doubt


def test_a_changed_link_is_answered_without_looking_where_it_leads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A link is "in doubt" from its ``lstat`` alone: ``realpath`` would have walked its target,
    outside the repository for a link that leads out (issue 33; it ran before the link test)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.json").write_text("{}", encoding="utf-8")
    link = tmp_path / "repo" / "x.json"
    link.parent.mkdir()
    link.symlink_to(outside / "x.json")
    resolved: list[str] = []
    real = os.path.realpath

    def recording(path: str) -> str:
        resolved.append(path)
        return real(path)

    monkeypatch.setattr(os.path, "realpath", recording)
    assert FileSystemView().content_change_matters(link)
    assert resolved == []
