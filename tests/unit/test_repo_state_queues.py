"""A repository's queues of pending facts are emptied in place at every sync, not replaced (issue
19, point 5): a new empty queue made at every keystroke's sync was made during an analysis, and
the last one, kept by the repository for good, held one of its pymalloc arenas after close."""

from __future__ import annotations

from pathlib import Path

from evalfix_ls.lsp.workspace_index import RepoState


def test_sync_empties_the_queues_in_place(tmp_path: Path) -> None:
    state = RepoState(tmp_path, watching=True)
    texts, fs_paths = state._pending_texts, state._pending_fs
    state.queue_text("skills/a/evals/evals.json", "{}")
    state.queue_fs_change(tmp_path / "skills")
    state.ensure_index()  # (texts wait for the index: ``sync`` applies them once it is loaded)
    with state.lock:
        state.sync()
    assert state._pending_texts is texts and not texts
    assert state._pending_fs is fs_paths and not fs_paths
