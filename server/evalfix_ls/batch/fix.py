"""The write path of ``evalfix-ls --check --fix`` (``--unsafe-fixes``, ``--diff``, ``--migrate``).

For each fixture file: read its bytes (refused over the size limit or when not UTF-8), analyse it
as ``--check`` does, migrate it (``--migrate``, legacy workflow fixtures), run the core's fix-all
(``services/fixes``: the same fixes as the editor's code actions), and then either print a unified
diff (``--diff``) or write the result: a temporary file beside it flushed to disk, then a rename
(or, for a file with several hard links or another owner, a write through its inode), keeping its
permissions and owner — and only if the file still holds the bytes that were read. A file with
nothing to fix is never written. The caller re-checks afterwards and exits by what is left.
"""

from __future__ import annotations

import contextlib
import difflib
import errno
import os
import stat
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..config.project_config import ProjectConfigs
from ..contracts.detection import UNKNOWN, WORKFLOW
from ..services.document import DocumentView
from ..services.fixes import Fix, fix_all, reanalyzer
from ..services.fixes.engine import round_of_fixes
from ..services.migrate import Migration, migrate_document, same_reading
from ..services.workspace_facts import WorkspaceFacts
from ..text.pieces import as_str
from ..workspace.confine import resolve_within
from ..workspace.files import MAX_FILE_BYTES, NotRegularFile, TooLarge, read_regular
from ..workspace.view import FileSystemView, relative_posix
from .analyze import Analyzer, FileTask, read_root
from .format_text import UNSHOWABLE
from .run import plan


@dataclass(frozen=True, slots=True)
class FixOptions:
    fix: bool = True  # apply fixes (safe ones; unsafe too with ``unsafe``)
    unsafe: bool = False
    migrate: bool = False
    write: bool = True  # False: --diff (compute and show, write nothing)
    max_bytes: int = MAX_FILE_BYTES


@dataclass(slots=True)
class FileFix:
    """What the fix run did (or would do) to one file."""

    path: Path
    display: str
    target: Path | None = None  # the real file read (links resolved inside the repository)
    original: bytes = b""
    new_text: str | None = None  # None: nothing to change
    fixes: list[Fix] = field(default_factory=list)
    migration: list[str] = field(default_factory=list)  # the changes of the migration applied
    not_migrated: str | None = None  # why a migration was computed but held back
    unsafe_left: int = 0  # fixes that --unsafe-fixes would add
    refused: str | None = None  # why the file was not changed
    written: bool = False

    @property
    def changed_text(self) -> str | None:
        """The text the file gets (or would get): None when nothing changes or it was refused."""
        return self.new_text if self.refused is None else None

    @property
    def changes(self) -> bool:
        return self.changed_text is not None

    @property
    def old_text(self) -> str:
        return self.original.decode("utf-8")


def fix_paths(
    paths: list[Path],
    *,
    root: Path | None = None,
    cwd: Path | None = None,
    configs: ProjectConfigs | None = None,
    options: FixOptions = FixOptions(),
) -> list[FileFix]:
    """Fix (or, without ``options.write``, preview) every fixture file of PATHS, in check order."""
    configs = configs or ProjectConfigs()
    _, tasks = plan(paths, root=root, cwd=(cwd or Path.cwd()).absolute(), configs=configs)
    analyzer = Analyzer(FileSystemView())
    results = []
    for task in tasks:
        result = prepare(task, analyzer, configs, options)
        if result.changes and options.write:
            commit(result)
        changed = result.changed_text
        if changed is not None:  # later files see this one as it is (or would be) now
            analyzer.index_for(task).update(relative_posix(task.path, task.repo_root) or "", changed)
        results.append(result)
    return results


def prepare(task: FileTask, analyzer: Analyzer, configs: ProjectConfigs, options: FixOptions) -> FileFix:
    """Read one file and compute its fixed text (nothing is written here)."""
    result = FileFix(task.path, task.display)
    result.refused = _read_confined(task, result, options.max_bytes)
    if result.refused is not None:
        return result
    try:
        text = result.original.decode("utf-8")
    except UnicodeDecodeError:
        result.refused = "not valid UTF-8; not fixed (writing it back would change its bytes)"
        return result
    document, again = _analyzed(task, text, analyzer, configs)
    if document.kind == UNKNOWN or not document.parses:
        return result
    facts = WorkspaceFacts(task.repo_root, analyzer.fs, analyzer.index_for(task))
    if options.migrate and document.kind == WORKFLOW:
        document = _migrated(document, again, result)
    if options.fix:
        outcome = fix_all(document, again, unsafe=options.unsafe, facts=facts)
        result.fixes = outcome.applied
        document = outcome.document or document
        if not options.unsafe:
            result.unsafe_left = len(round_of_fixes(document, True, facts))
    new_text = as_str(document.text)  # always a str here: a PieceText only serves completion
    if new_text != text:
        result.new_text = new_text
    return result


def _read_confined(task: FileTask, result: FileFix, limit: int) -> str | None:
    """Read the file's bytes into ``result`` as ``--check`` reads them, or say why not: only a
    regular file (a FIFO would block, ``/dev/zero`` never end), and only where it resolves inside
    its repository (workspace/confine.py) — a link leading outside is neither read nor written,
    whether its target exists or not."""
    target = resolve_within(task.path, read_root(task))
    if target is None:
        return "resolves outside the repository (a symbolic link or '..'); not read, not fixed"
    try:
        result.original = read_regular(target, limit)
    except NotRegularFile as exc:
        return f"{exc.what}, not a regular file; not fixed"
    except TooLarge:
        return f"larger than {limit} bytes; not fixed"
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    result.target = Path(target)
    return None


def _migrated(document: DocumentView, again: Callable[[str], DocumentView], result: FileFix) -> DocumentView:
    migration: Migration | None = migrate_document(document)
    if migration is None or migration.text == document.text:
        return document
    after = again(migration.text)
    if not same_reading(document, after):  # a safety net: the tests prove it never fires
        result.not_migrated = "not migrated: the result would read differently"
        return document
    result.migration = migration.changes
    return after


def _analyzed(
    task: FileTask, text: str, analyzer: Analyzer, configs: ProjectConfigs
) -> tuple[DocumentView, Callable[[str], DocumentView]]:
    config = configs.for_path(task.path)
    index = analyzer.index_for(task)
    analysis = analyzer.analyze_text(task, text)
    analysis.findings = config.apply(analysis.findings)
    rel = relative_posix(task.path, task.repo_root)
    document = DocumentView(text, analysis, task.path, task.repo_root, rel)
    return document, reanalyzer(document, fs=analyzer.fs, workspace=index, apply=config.apply)


# -- writing -----------------------------------------------------------------------------------------


class ChangedSinceRead(Exception):
    """The file no longer holds the bytes the fixes were computed from."""


def commit(result: FileFix) -> FileFix:
    """Write ``result.new_text`` over the file, atomically, unless it changed since it was read."""
    target, new_text = result.target, result.new_text
    if target is None or new_text is None:  # nothing was read, or nothing is to be written
        return result
    try:
        write_atomically(target, new_text.encode("utf-8"), expected=result.original)
        result.written = True
    except ChangedSinceRead:
        result.refused = "changed since it was read; not written"
    except OSError as exc:
        result.refused = f"cannot be written: {exc.strerror or exc}"
    return result


def write_atomically(target: Path, data: bytes, *, expected: bytes) -> None:
    """Replace the content of the real file ``target`` (a link to it stays a link: the caller
    resolved it, inside the repository) by ``data``, keeping what the file is: its permission
    bits, owner, and every name it has. Raises ``ChangedSinceRead`` when its current bytes are not
    ``expected``: an editor or another tool wrote it meanwhile.

    First ``data`` goes to a temporary file beside it, flushed to disk. Then, as Vim's
    ``backupcopy=auto`` and Emacs' ``backup-by-copying-when-linked`` decide: a file with one name
    whose owner the copy could take gets the copy renamed over it (atomic: a reader sees the old
    or the new text, never a mix); a file with several hard links, or whose owner the copy could
    not take (another user's file in a group-writable folder), is rewritten through its own inode
    — a rename would leave its other names on the old text, or give it to us. An in-place write
    that fails midway leaves the complete new text in the temporary copy, and says so."""
    if _current_bytes(target, len(expected)) != expected:
        raise ChangedSinceRead(str(target))
    info = target.stat()
    if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):  # a rename would ignore it
        raise PermissionError(errno.EACCES, "the file is read-only")
    temporary = _synced_copy(target, data, info)
    began = False  # whether the in-place write may have changed the file's bytes
    try:
        in_place = info.st_nlink > 1 or not _took_owner(temporary, info)
        if _current_bytes(target, len(expected)) != expected:  # once more, right before the write
            raise ChangedSinceRead(str(target))
        if in_place:
            fd = os.open(
                target, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0)
            )  # failing here, nothing was written
            began = True
            _write_through(fd, data)
        else:
            os.replace(temporary, target)
            _sync_directory(target.parent)
    except BaseException as exc:
        if not began:
            Path(temporary).unlink(missing_ok=True)
            raise
        # The file may hold part of the new text: the copy is the only complete one, whatever
        # stopped the write (a full disk, or an interrupt: Ctrl-C between two writes), so it stays.
        kept = _keep_copy(target, temporary)
        if isinstance(exc, OSError):
            raise PartlyWritten(exc.errno, f"{exc.strerror or exc}; its fixed text is in {kept}") from exc
        raise
    Path(temporary).unlink(missing_ok=True)  # written in place: the copy is no longer needed


def _synced_copy(target: Path, data: bytes, info: os.stat_result) -> str:
    """A temporary file beside ``target`` holding ``data`` on disk, with ``target``'s permission bits."""
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".evalfix-tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, stat.S_IMODE(info.st_mode))
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return temporary


def _took_owner(temporary: str, info: os.stat_result) -> bool:
    """Whether the temporary file has (or could be given) the original's owner and group."""
    made = os.stat(temporary)
    if (made.st_uid, made.st_gid) == (info.st_uid, info.st_gid):
        return True
    try:
        os.chown(temporary, info.st_uid, info.st_gid)
    except (OSError, AttributeError):  # not allowed to give it away (or no chown: Windows)
        return False
    return True


class PartlyWritten(OSError):
    """The in-place write failed after it began; its message names the copy holding the new text."""


def _write_through(fd: int, data: bytes) -> None:
    """Overwrite the bytes of the file open as ``fd`` in place (same inode: every hard link sees
    them), flush them, and close it."""
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    finally:
        os.close(fd)


def _keep_copy(target: Path, temporary: str) -> str:
    """The temporary copy renamed to ``<file>.evalfix-fixed`` (or left under its own name when
    even that fails); where it is."""
    kept = f"{target}.evalfix-fixed"
    try:
        os.replace(temporary, kept)
    except OSError:
        return temporary
    return kept


def _sync_directory(directory: Path) -> None:
    """Flush the rename to disk (where a directory can be opened: not on Windows)."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _current_bytes(target: Path, expected_size: int) -> bytes | None:
    """The file's bytes now (one more than ``expected_size`` at most: enough to tell), or None
    when it is no longer a regular file."""
    try:
        return read_regular(target, expected_size + 1)
    except (NotRegularFile, TooLarge):
        return None


# -- reporting ---------------------------------------------------------------------------------------


def unified_diff(result: FileFix) -> str:
    """The change as a patch that ``git apply`` and ``patch`` read: lines end at LF only (as they
    count them; ``splitlines`` would also end one at U+2028 or U+0085 inside a string), and a last
    line without a line break is followed by their "\\ No newline at end of file" marker."""
    old, new = _patch_lines(result.old_text), _patch_lines(result.new_text or "")
    before, after = _patch_path(f"a/{result.display}"), _patch_path(f"b/{result.display}")
    out = []
    for line in difflib.unified_diff(old, new, before, after):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


_GIT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\t": "\\t", "\n": "\\n"}


def _patch_path(name: str) -> str:
    """A file name in a ``---``/``+++`` line, quoted as git quotes it when it holds a character a
    terminal would act on (``printable``'s), a tab, a quote or a backslash: in double quotes, those
    as C escapes or the octal of their UTF-8 bytes, which ``git apply`` reads back."""
    if not (UNSHOWABLE.search(name) or any(ch in name for ch in _GIT_ESCAPES)):
        return name
    quoted = (
        _GIT_ESCAPES.get(ch)
        or ("".join(f"\\{byte:03o}" for byte in ch.encode("utf-8")) if UNSHOWABLE.match(ch) else ch)
        for ch in name
    )
    return '"' + "".join(quoted) + '"'


def _patch_lines(text: str) -> list[str]:
    lines = text.split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


def summary_lines(results: list[FileFix], options: FixOptions) -> list[str]:
    """One line per file that changed (or would, or was refused), then a total."""
    applied, migrated = ("applied", "migrated") if options.write else ("would apply", "would migrate")
    lines = []
    for result in results:
        if result.not_migrated is not None:
            lines.append(f"{result.display}: {result.not_migrated}")
        if result.refused is not None:
            lines.append(f"{result.display}: {result.refused}")
        elif result.changes:
            parts = []
            if result.migration:
                parts.append(f"{migrated} ({_count(len(result.migration), 'change', 'changes')})")
            if result.fixes:
                parts.append(
                    f"{applied} {_count(len(result.fixes), 'fix', 'fixes')} ({_codes(result.fixes)})"
                )
            lines.append(f"{result.display}: " + ", ".join(parts))
    changed = [r for r in results if r.changes]
    total = sum(len(r.fixes) for r in changed)
    line = f"{_count(total, 'fix', 'fixes')} in {_count(len(changed), 'file', 'files')}"
    files_migrated = sum(1 for r in changed if r.migration)
    if files_migrated:
        line += f", {_count(files_migrated, 'file', 'files')} migrated"
    left = sum(r.unsafe_left for r in results)
    if left:
        line += f"; {_count(left, 'more fix', 'more fixes')} with --unsafe-fixes"
    lines.append(("" if options.write else "would apply: ") + line)
    return lines


def _codes(fixes: list[Fix]) -> str:
    counts = Counter(fix.code for fix in fixes)
    return ", ".join(code if n == 1 else f"{code} ×{n}" for code, n in sorted(counts.items()))


def _count(number: int, one: str, many: str) -> str:
    return f"{number} {one if number == 1 else many}"
