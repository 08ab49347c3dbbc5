"""`evalfix-ls --check --fix` (`--unsafe-fixes`, `--diff`, `--migrate`) on copied trees: exit codes,
what is written and what is not, atomic writes that keep permissions, CRLF and CJK bytes, refusal
of files changed since they were read or over the size limit."""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from fixture_paths import make_walking
from test_check import run

from evalfix_ls.batch import fix as fix_module
from evalfix_ls.batch.analyze import Analyzer
from evalfix_ls.batch.fix import FileFix, FixOptions, commit, fix_paths, prepare
from evalfix_ls.batch.run import plan
from evalfix_ls.config.project_config import ProjectConfigs
from evalfix_ls.workspace.view import FileSystemView

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SUITE = "skills/release-notes-broken/evals/evals.json"
CASES = "skills/spec-demo-broken/evals/cases.json"
LEGACY = {
    "schema_version": "prompt-examples/v1",
    "skill": "demo",
    "source_refs": ["skills/demo/SKILL.md"],
    "examples": [
        {
            "name": "Plan the export",
            "user_intent": "计划导出功能 📦",
            "expected_posture": "Plans first.",
            "negative_signal": "writes code",
            "context": "legacy local field",
            "coverage_tags": ["trigger"],
        }
    ],
}


def copy_tree(name: str, dest: Path) -> Path:
    root = Path(shutil.copytree(EXAMPLES / name, dest / name))
    (root / ".git").mkdir()
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_fix_applies_safe_fixes_and_exits_by_what_is_left(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_tree("broken", tmp_path)
    os.chmod(root / SUITE, 0o640)
    before = snapshot(root)
    code, out, err = run(["--check", "--fix"], root, capsys)
    assert code == 1  # errors no safe fix can remove are left (a missing prompt needs the user)
    after = snapshot(root)
    changed = {rel for rel in before if before[rel] != after[rel]}
    assert changed == {SUITE, CASES, "skills/spec-demo-broken/evals/zz-more-cases.json"}
    assert stat.S_IMODE((root / SUITE).stat().st_mode) == 0o640
    assert not list(root.rglob("*.evalfix-tmp"))
    assert f"{SUITE}: applied 10 fixes (" in err and "with --unsafe-fixes" in err
    # The re-check printed the remaining findings only.
    assert (
        "setup-kind-invalid" not in out
        and "mount-mode-flatten]" not in out
        and "error[prompt-required]" in out
    )
    fixed = json.loads((root / SUITE).read_text(encoding="utf-8"))
    assert fixed["evals"][2]["setup"]["kind"] == "seeded" and fixed["version"] == "2"
    assert "リリースノートを書いて 📝" in (root / SUITE).read_text(encoding="utf-8")
    # A second run has nothing left to fix: every file stays byte-for-byte.
    code_again, _, err_again = run(["--check", "--fix"], root, capsys)
    assert code_again == 1 and snapshot(root) == after
    assert "0 fixes in 0 files" in err_again


def test_unsafe_fixes_add_the_rest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = copy_tree("broken", tmp_path)
    run(["--check", "--fix"], root, capsys)
    safe = snapshot(root)
    code, out, _ = run(["--check", "--fix", "--unsafe-fixes"], root, capsys)
    assert snapshot(root)[SUITE] != safe[SUITE]
    text = (root / SUITE).read_text(encoding="utf-8")
    assert '"prompt": "TODO: write the prompt"' in text
    assert "error[prompt-required]" not in out
    assert code == 1  # an invalid regex and a source that is a number still need the user


def test_clean_tree_is_left_byte_for_byte(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = copy_tree("clean", tmp_path)
    before = snapshot(root)
    mtimes = {p: p.stat().st_mtime_ns for p in root.rglob("*.json")}
    code, _, err = run(["--check", "--fix", "--unsafe-fixes"], root, capsys)
    assert code == 0 and snapshot(root) == before
    assert {p: p.stat().st_mtime_ns for p in root.rglob("*.json")} == mtimes
    assert "0 fixes in 0 files" in err
    # --migrate touches only the legacy workflow fixture of the clean example.
    code, _, err = run(["--check", "--migrate"], root, capsys)
    after = snapshot(root)
    assert code == 0 and {rel for rel in before if before[rel] != after[rel]} == {
        "skills/spec-demo/evals/trigger-cases.json"
    }
    assert "1 file migrated" in err


def test_diff_prints_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = copy_tree("broken", tmp_path)
    before = snapshot(root)
    code, out, err = run(["--check", "--diff", "--format", "json"], root, capsys)
    assert code == 1 and snapshot(root) == before
    assert f"--- a/{SUITE}\n+++ b/{SUITE}\n" in out
    assert '-    {"id": "wrong-kind", "prompt": "Tidy the CHANGELOG 🧹", "setup": {"kind": "Seeded"' in out
    assert '+    {"id": "wrong-kind", "prompt": "Tidy the CHANGELOG 🧹", "setup": {"kind": "seeded"' in out
    assert "would apply" in err
    # What the diff shows is exactly what --fix then writes.
    run(["--check", "--fix"], root, capsys)
    written = "".join(p.read_text(encoding="utf-8") for p in root.rglob("*.json"))
    added = [line[1:] for line in out.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert added and all(line in written for line in added)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to apply the diff")
def test_diff_applies_with_git_as_fix_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--diff`` is a patch: ``git apply`` of it gives what ``--fix`` writes. Lines are split at
    LF only (U+2028 or U+0085 inside a string split Python's lines, and the patch was corrupt),
    and a last line without a line break carries git's "\\ No newline at end of file" (it was
    glued to the next line of the diff)."""
    root = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    texts = {
        "a": '{\n  "skill_name": "a",\n  "evals": [\n    {"id": "a", "prompt": "one\u2028two\x85three",'
        ' "setup": {"kind": "Empty"}}\n  ]\n}\n',
        "b": '{"skill_name": "b", "evals": [{"id": "b", "prompt": "p", "setup": {"kind": "Empty"}}]}',
    }
    for name, text in texts.items():
        (root / name / "evals").mkdir(parents=True)
        (root / name / "SKILL.md").write_text(f"---\nname: {name}\n---\n", encoding="utf-8")
        (root / name / "evals/evals.json").write_bytes(text.encode("utf-8"))
    code, patch, _ = run(["--check", "--diff"], root, capsys)
    assert code == 1
    (tmp_path / "fix.diff").write_bytes(patch.encode("utf-8"))
    applied = subprocess.run(
        ["git", "apply", str(tmp_path / "fix.diff")], cwd=root, capture_output=True, text=True
    )
    assert applied.returncode == 0, applied.stderr + patch
    patched = snapshot(root)
    for name, text in texts.items():  # back to the originals, then --fix
        (root / name / "evals/evals.json").write_bytes(text.encode("utf-8"))
    run(["--check", "--fix"], root, capsys)
    assert snapshot(root) == patched
    assert '"kind": "empty"' in (root / "b/evals/evals.json").read_text(encoding="utf-8")


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to apply the diff")
def test_a_file_name_with_control_characters_is_quoted_in_the_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The diff's ``---``/``+++`` lines named the file as it is: an ESC in a fixture's name reached
    the terminal, a LF broke the patch. Such names are quoted as git quotes them, which ``git
    apply`` reads back."""
    root, legacy = _walking_repository_with_a_legacy_fixture(tmp_path)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    hostile = legacy.with_name('a\x1b[31m\tb"\\\u202e.json')
    hostile.write_text(json.dumps({**LEGACY, "source_ref_authority": ""}), encoding="utf-8")
    code, patch, _ = run(["--check", "--diff"], root, capsys)
    assert code == 1 and "\x1b" not in patch and "\u202e" not in patch
    header = '"a/skills/demo/evals/a\\033[31m\\tb\\"\\\\\\342\\200\\256.json"'
    assert f"--- {header}\n" in patch, patch
    (tmp_path / "fix.diff").write_bytes(patch.encode("utf-8"))
    applied = subprocess.run(
        ["git", "apply", str(tmp_path / "fix.diff")], cwd=root, capture_output=True, text=True
    )
    assert applied.returncode == 0, applied.stderr + patch
    assert "source_ref_authority" not in json.loads(hostile.read_text(encoding="utf-8"))


def test_diff_on_a_clean_tree_exits_like_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = copy_tree("clean", tmp_path)
    code, out, _ = run(["--check", "--diff"], root, capsys)
    assert code == 0 and "---" not in out


def _walking_repository_with_a_legacy_fixture(tmp_path: Path) -> tuple[Path, Path]:
    """A repository and the path of its (not yet written) legacy fixture: a legacy shape is a
    workflow fixture only where the walk reads it."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    make_walking(root)
    (root / "skills/demo").mkdir(parents=True)
    (root / "skills/demo/SKILL.md").write_text("# demo\n", encoding="utf-8")
    legacy = root / "skills/demo/evals/examples.json"
    legacy.parent.mkdir()
    return root, legacy


def test_migrate_rewrites_legacy_fixtures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root, legacy = _walking_repository_with_a_legacy_fixture(tmp_path)
    legacy.write_bytes(
        (json.dumps(LEGACY, ensure_ascii=False, indent=2) + "\n").replace("\n", "\r\n").encode()
    )
    code, out, err = run(["--check", "--migrate", "--diff"], root, capsys)
    assert code == 1 and '+  "schema_version": "spec-first.workflow-eval-fixtures.v1",\r\n' in out
    assert json.loads(legacy.read_text(encoding="utf-8")) == LEGACY  # --diff wrote nothing
    assert "skills/demo/evals/examples.json: would migrate (7 changes)\n" in err, err
    code, out, err = run(["--check", "--migrate"], root, capsys)
    assert code == 0, out
    raw = legacy.read_bytes()
    assert raw.count(b"\r\n") == raw.count(b"\n")  # every line ending still CRLF
    data = json.loads(raw)
    assert data["schema_version"] == "spec-first.workflow-eval-fixtures.v1"
    assert data["cases"][0]["input"] == "计划导出功能 📦" and data["cases"][0]["id"] == "plan-the-export"
    assert "skills/demo/evals/examples.json: migrated (7 changes)\n" in err, err


@pytest.mark.parametrize("flags", [["--migrate"], ["--migrate", "--fix"]])
def test_a_migration_held_back_is_reported_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, flags: list[str]
) -> None:
    """The safety net after a migration (the migrated file must read the same) never fires on real
    fixtures; when it does, the report says the file was not migrated — it said nothing (alone)
    or "migrated (1 changes)" next to the fixes that were written."""
    monkeypatch.setattr(fix_module, "same_reading", lambda before, after: False)
    root, legacy = _walking_repository_with_a_legacy_fixture(tmp_path)
    fixable = {**LEGACY, "source_ref_authority": ""}  # authority_defaulted: a safe fix removes it
    legacy.write_text(json.dumps(fixable, ensure_ascii=False, indent=2), encoding="utf-8")
    _, _, err = run(["--check", *flags], root, capsys)
    rel = "skills/demo/evals/examples.json"
    assert f"{rel}: not migrated: the result would read differently" in err, err
    assert "migrated (" not in err and "file migrated" not in err, err
    data = json.loads(legacy.read_text(encoding="utf-8"))
    assert "schema_version" in data and data["schema_version"] == LEGACY["schema_version"]
    assert ("source_ref_authority" in data) == (flags == ["--migrate"]), err


def test_migrate_handles_values_nested_deeper_than_python_recurses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The migration is checked by comparing the normalized cases before and after; on an outcome
    nested 5,000 levels deep that comparison was a RecursionError traceback."""
    root, legacy = _walking_repository_with_a_legacy_fixture(tmp_path)
    depth = 5_000
    deep = '{"a": ' * depth + "1" + "}" * depth
    case = '"name": "Deep 深", "user_intent": "plan it", "coverage_tags": ["trigger"], '
    case += f'"expected": {deep}, "source_refs": ["skills/demo/SKILL.md"]'
    legacy.write_text(f'{{"skill": "demo", "examples": [{{{case}}}]}}', encoding="utf-8")
    code, _, err = run(["--check", "--migrate"], root, capsys)
    assert "migrated" in err and "not migrated" not in err, err
    text = legacy.read_text(encoding="utf-8")
    assert '"schema_version": "spec-first.workflow-eval-fixtures.v1"' in text
    assert '"expected_outcome": ' + deep in text


def test_fix_flags_need_check(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(["--fix"], tmp_path, capsys)
    assert code == 2 and "need --check" in err


def _prepared(root: Path, rel: str) -> FileFix:
    configs = ProjectConfigs()
    _, tasks = plan([root / rel], root=None, cwd=root, configs=configs)
    return prepare(tasks[0], Analyzer(FileSystemView()), configs, FixOptions())


def test_file_changed_since_it_was_read_is_not_written(tmp_path: Path) -> None:
    root = copy_tree("broken", tmp_path)
    result = _prepared(root, SUITE)
    assert result.changes
    concurrent = (
        (root / SUITE).read_text(encoding="utf-8").replace('"Write notes"', '"Written by the editor"')
    )
    (root / SUITE).write_text(concurrent, encoding="utf-8")  # an editor saved meanwhile
    commit(result)
    assert not result.written and result.refused == "changed since it was read; not written"
    assert (root / SUITE).read_text(encoding="utf-8") == concurrent
    assert not list(root.rglob("*.evalfix-tmp"))


def test_file_over_the_size_limit_is_refused(tmp_path: Path) -> None:
    root = copy_tree("broken", tmp_path)
    before = (root / SUITE).read_bytes()
    results = fix_paths([root], root=root, cwd=root, options=FixOptions(max_bytes=len(before) - 1))
    (refused,) = [r for r in results if r.display == SUITE]
    assert refused.refused is not None and "larger than" in refused.refused
    assert (root / SUITE).read_bytes() == before


def test_invalid_utf8_is_refused(tmp_path: Path) -> None:
    root = copy_tree("broken", tmp_path)
    data = (root / SUITE).read_bytes().replace(b'"Seeded"', b'"Seeded\xff"')
    (root / SUITE).write_bytes(data)
    result = _prepared(root, SUITE)
    assert result.refused is not None and "UTF-8" in result.refused
    assert (root / SUITE).read_bytes() == data


def test_crlf_file_keeps_its_bytes(tmp_path: Path) -> None:
    root = copy_tree("broken", tmp_path)
    text = (root / SUITE).read_text(encoding="utf-8")
    (root / SUITE).write_bytes(text.replace("\n", "\r\n").encode("utf-8"))
    fix_paths([root / SUITE], root=root, cwd=root)
    raw = (root / SUITE).read_bytes()
    assert raw.count(b"\r\n") == raw.count(b"\n") == text.count("\n")
    assert "Tidy the CHANGELOG 🧹".encode() in raw and b'"kind": "seeded"' in raw


@pytest.mark.parametrize("newline", ["\r", "\r\n"], ids=["cr", "crlf"])
def test_inserted_members_use_the_files_own_line_break(tmp_path: Path, newline: str) -> None:
    """A member a fix adds goes on a line of its own, ended as the file's lines are: a file with
    classic Mac line endings (lone CR) got a LF in the middle."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "SKILL.md").write_text("# mocks\n", encoding="utf-8")
    suite = root / "evals/evals.json"
    suite.parent.mkdir()
    case = {"id": "mocked", "prompt": "列出 📂", "sandboxMocks": [{"command": "ls"}]}
    text = json.dumps({"skill_name": "repo", "evals": [case]}, ensure_ascii=False, indent=2)
    suite.write_bytes(text.replace("\n", newline).encode("utf-8"))
    (result,) = fix_paths([suite], root=root, cwd=root, options=FixOptions(unsafe=True))
    assert [fix.code for fix in result.fixes] == ["sandbox-mocks-unused"]
    raw = suite.read_bytes().decode("utf-8")
    assert '"sandbox": "just-bash"' in raw
    assert raw.count(newline) == text.count("\n") + 1  # one more line, and no other kind of break
    assert len(raw.replace(newline, "").splitlines()) == 1


def test_read_only_file_is_not_written(tmp_path: Path) -> None:
    root = copy_tree("broken", tmp_path)
    before = (root / SUITE).read_bytes()
    os.chmod(root / SUITE, 0o444)
    (result,) = [r for r in fix_paths([root / SUITE], root=root, cwd=root) if r.display == SUITE]
    assert not result.written and result.refused == "cannot be written: the file is read-only"
    assert (root / SUITE).read_bytes() == before
    assert stat.S_IMODE((root / SUITE).stat().st_mode) == 0o444


def test_symbolic_link_stays_a_link(tmp_path: Path) -> None:
    root = copy_tree("broken", tmp_path)
    real = root / "shared" / "elsewhere.json"  # a link inside the repository is followed
    real.parent.mkdir()
    before = (root / SUITE).read_bytes()
    real.write_bytes(before)
    (root / SUITE).unlink()
    (root / SUITE).symlink_to(real)
    fix_paths([root / SUITE], root=root, cwd=root)
    assert (root / SUITE).is_symlink()
    assert real.read_bytes() != before and '"version": "2"' in real.read_text(encoding="utf-8")


def test_every_hard_link_of_a_fixed_file_sees_the_fix(tmp_path: Path) -> None:
    """A rename would give the fixed text a new inode under one name and leave the file's other
    names (hard links: a shared fixture, a checkout with ``git worktree``-style links) on the old
    text. A file with several links is written through its own inode."""
    root = copy_tree("broken", tmp_path)
    suite = root / SUITE
    other = root / "shared.json"
    os.link(suite, other)
    os.chmod(suite, 0o640)
    before = suite.stat()
    (result,) = [r for r in fix_paths([suite], root=root, cwd=root) if r.display == SUITE]
    assert result.written and result.fixes
    after = suite.stat()
    assert (after.st_ino, after.st_nlink, stat.S_IMODE(after.st_mode)) == (before.st_ino, 2, 0o640)
    assert other.read_bytes() == suite.read_bytes() == result.new_text.encode("utf-8")
    assert not list(root.rglob("*.evalfix-tmp"))


@pytest.mark.parametrize("rename_fails", [False, True])
def test_an_in_place_write_that_fails_keeps_the_fixed_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rename_fails: bool
) -> None:
    """Writing through the inode is not atomic: when it fails midway (a full disk), the complete
    fixed text stays beside the file — as ``<file>.evalfix-fixed``, or under its temporary name
    when even that rename fails — and the refusal says where."""
    root = copy_tree("broken", tmp_path)
    suite = root / SUITE
    os.link(suite, root / "shared.json")

    def disk_full(fd: int, data: bytes) -> int:  # the temporary copy is written by its file object
        raise OSError(errno.ENOSPC, "No space left on device")

    def no_rename(source: str, destination: str) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "write", disk_full)
    if rename_fails:
        monkeypatch.setattr(os, "replace", no_rename)
    (result,) = [r for r in fix_paths([suite], root=root, cwd=root) if r.display == SUITE]
    temporaries = list(root.rglob("*.evalfix-tmp"))
    kept = temporaries[0] if rename_fails else Path(f"{suite}.evalfix-fixed")
    assert not result.written and len(temporaries) == rename_fails
    assert result.refused == f"cannot be written: No space left on device; its fixed text is in {kept}"
    assert kept.read_bytes() == result.new_text.encode("utf-8")


def test_an_in_place_write_interrupted_keeps_the_fixed_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C between the in-place write's first bytes and its end leaves the file holding part of
    the new text: the complete one must survive too (as ``<file>.evalfix-fixed``), and the
    interrupt still stops the run."""
    root = copy_tree("broken", tmp_path)
    suite = root / SUITE
    os.link(suite, root / "shared.json")

    def interrupted(fd: int, length: int) -> None:  # after every byte was written, before the end
        raise KeyboardInterrupt

    (preview,) = [
        r
        for r in fix_paths([suite], root=root, cwd=root, options=FixOptions(write=False))
        if r.display == SUITE
    ]
    monkeypatch.setattr(os, "ftruncate", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fix_paths([suite], root=root, cwd=root)
    kept = Path(f"{suite}.evalfix-fixed")
    assert not list(root.rglob("*.evalfix-tmp"))
    assert kept.read_bytes() == preview.new_text.encode("utf-8")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to give a file away")
def test_a_file_of_another_owner_keeps_its_owner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fixture owned by someone else in a folder we may write: the rename would replace it by a
    file of ours when the owner cannot be given back (as for any user but root: ``chown`` refused
    here on purpose); it is written in place instead, owner and group kept."""
    root = copy_tree("broken", tmp_path)
    suite = root / SUITE
    os.chown(suite, 65534, 65534)
    os.chmod(suite, 0o666)

    def refused(path: str, uid: int, gid: int) -> None:
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "chown", refused)
    (result,) = [r for r in fix_paths([suite], root=root, cwd=root) if r.display == SUITE]
    info = suite.stat()
    assert result.written and (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (65534, 65534, 0o666)
    assert suite.read_bytes() == result.new_text.encode("utf-8")
    assert not list(root.rglob("*.evalfix-tmp"))


def _fix_with_suite_linked_outside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], *, target_exists: bool
) -> tuple[int, str, str]:
    root = copy_tree("broken", tmp_path)
    outside = tmp_path / "outside.json"
    before = (root / SUITE).read_bytes().replace(b"Write notes", b"SECRET-f1x")  # fixable as it is
    if target_exists:
        outside.write_bytes(before)
    (root / SUITE).unlink()
    (root / SUITE).symlink_to(outside)
    result = run(["--check", *flags], root, capsys)
    assert not target_exists or outside.read_bytes() == before
    assert not list(tmp_path.glob("*.evalfix-tmp"))
    return result


@pytest.mark.parametrize("flags", [["--fix"], ["--fix", "--diff"]])
def test_a_link_leading_outside_the_repository_is_neither_read_nor_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str]
) -> None:
    code, out, err = _fix_with_suite_linked_outside(tmp_path / "a", capsys, flags, target_exists=True)
    assert "SECRET-f1x" not in out + err and f"{SUITE}: resolves outside the repository" in err
    # A link to nothing: the very same run.
    assert _fix_with_suite_linked_outside(tmp_path / "b", capsys, flags, target_exists=False) == (
        code,
        out,
        err,
    )


def test_unsafe_fixes_point_a_missing_ref_at_the_only_file_of_its_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--fix does not learn renames; a ref to a moved file gets the file of the same name, as an
    unsafe fix only (the name could be shared by an unrelated file)."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    make_walking(root)  # a legacy-shape fixture is checked only in a walking repository
    (root / "skills/demo").mkdir(parents=True)
    (root / "skills/demo/SKILL.md").write_text("# demo\n", encoding="utf-8")
    (root / "docs").mkdir()
    (root / "docs/指南.md").write_text("# 安装\n", encoding="utf-8")
    fixture = root / "skills/demo/evals/cases.json"
    fixture.parent.mkdir(parents=True)
    data = {**LEGACY, "source_refs": ["skills/demo/SKILL.md", "references/指南.md#安装"]}
    fixture.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    code, _, _ = run(["--check", "--fix"], root, capsys)
    assert code == 1 and json.loads(fixture.read_text("utf-8"))["source_refs"][1] == "references/指南.md#安装"
    code, _, _ = run(["--check", "--fix", "--unsafe-fixes"], root, capsys)
    assert json.loads(fixture.read_text("utf-8"))["source_refs"] == [
        "skills/demo/SKILL.md",
        "docs/指南.md#安装",
    ]
    assert code == 0
