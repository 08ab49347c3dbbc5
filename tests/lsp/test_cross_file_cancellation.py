"""Cross-file updates survive a cancelled wait (in-process, no client): the diagnostics manager with
a real workspace index and an executor whose calls the test can see start.

The race (seen once under load as a flaky ``test_sibling_gaining_a_duplicate_id_updates_the_other``):
a worker call that applies a repository's queued texts (``repo.sync()``) is already running — blocked
on the repository lock another analysis holds — when the coroutine awaiting it is cancelled (a newer
edit restarts the sync debounce; a client cancels ``workspace/diagnostic``). A running thread cannot
be cancelled: it still takes the queued texts, and the files they affect (a sibling that now holds
a duplicate id) were dropped with the cancelled wait, so nobody re-checked the sibling. Here the
test holds the repository lock itself, so "running but not yet synced" is a state it waits for, not
a timing it hopes for.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from lsp_support import two_fixtures, workflow_fixture, write_json
from lsprotocol import types

from evalfix_ls.lsp.diagnostics.manager import DiagnosticsManager
from evalfix_ls.lsp.jsonrpc.pygls_private import HookedProtocol
from evalfix_ls.lsp.session.client_features import ClientFeatures
from evalfix_ls.lsp.session.documents import DocumentStore
from evalfix_ls.lsp.session.host import Host
from evalfix_ls.lsp.session.settings import Settings
from evalfix_ls.lsp.session.workspace_index import RepoState, WorkspaceIndex
from evalfix_ls.text.line_index import Encoding

WAIT = 10.0  # bound for conditions that hold at once on a sane machine; never a pacing delay


class RecordingExecutor(ThreadPoolExecutor):
    """A thread pool that keeps the futures of its calls, so a test can wait until one runs."""

    def __init__(self) -> None:
        super().__init__(max_workers=2, thread_name_prefix="test-analysis")
        self.calls: list[tuple[Callable[..., Any], tuple[Any, ...], Future[Any]]] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future = super().submit(fn, *args, **kwargs)
        self.calls.append((fn, args, future))
        return future

    def running(self, name: str) -> list[tuple[tuple[Any, ...], Future[Any]]]:
        """(arguments, future) of the calls of the function ``name`` that a worker runs now."""
        return [(args, future) for fn, args, future in self.calls if fn.__name__ == name and future.running()]


class InProcessHost(Host):
    """The ``Host`` that ``DiagnosticsManager`` is written against, set up as ``EvalfixServer`` sets
    it up but with no client: the messages to the client are recorded."""

    executor: RecordingExecutor
    background: RecordingExecutor
    diagnostics: DiagnosticsManager

    def __init__(self, root: Path, *, pull: bool) -> None:
        super().__init__("evalfix-ls-test", "0", protocol_cls=HookedProtocol)
        self.documents = DocumentStore()
        self.workspace_index = WorkspaceIndex(watching=True)
        self.workspace_index.set_folders([root])
        self.settings = Settings(self.workspace_index)
        self.settings.set_client_settings({"evalfix": {"debounceMs": 0}}, {})
        self.client_features = ClientFeatures(pull=pull, diagnostic_refresh=pull, watch_dynamic=True)
        self.encoding = Encoding.UTF16
        self.executor = RecordingExecutor()
        self.background = self.executor  # one recorder sees the workspace's calls too
        self.loop: asyncio.AbstractEventLoop | None = None
        self.published: dict[str, list[types.PublishDiagnosticsParams]] = {}
        self.refreshes = 0
        self.diagnostics = DiagnosticsManager(self)
        self.diagnostics.settings_ready.set()

    def text_document_publish_diagnostics(self, params: types.PublishDiagnosticsParams) -> None:
        self.published.setdefault(params.uri, []).append(params)

    def workspace_diagnostic_refresh(
        self, params: None, callback: Callable[[None], None] | None = None
    ) -> Future[None]:
        self.refreshes += 1
        answered: Future[None] = Future()
        answered.set_result(None)
        return answered

    # the client's notifications, as server.py forwards them
    def open(self, path: Path) -> str:
        uri = path.as_uri()
        snapshot = self.documents.open(uri, 1, path.read_text(encoding="utf-8"))
        self.diagnostics.document_opened(snapshot)
        return uri

    def replace(self, uri: str, old: str, new: str) -> None:
        current = self.documents.require(uri)
        text = current.text.replace(old, new, 1)
        change = types.TextDocumentContentChangeWholeDocument(text=text)
        snapshot = self.documents.change(uri, current.version + 1, [change], self.encoding)
        self.diagnostics.document_changed(snapshot)

    def repo(self, root: Path) -> RepoState:
        return self.workspace_index.repo(root)


@contextlib.contextmanager
def shut_down(host: InProcessHost) -> Iterator[InProcessHost]:
    try:
        yield host
    finally:
        host.diagnostics.cancel_all()
        host.executor.shutdown(wait=True, cancel_futures=True)


async def until(condition: Callable[[], Any], what: str) -> None:
    """Yield to the loop (and the workers) until ``condition`` holds; fail after ``WAIT``."""
    deadline = asyncio.get_running_loop().time() + WAIT
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.005)


def settled(host: InProcessHost) -> bool:
    """No background task left and no worker call running or queued."""
    return not len(host.diagnostics.tasks) and all(future.done() for _, _, future in host.executor.calls)


def codes_of(params: types.PublishDiagnosticsParams) -> list[str]:
    return sorted(str(d.code) for d in params.diagnostics)


def latest_has_duplicate(host: InProcessHost, uri: str) -> bool:
    pushes = host.published.get(uri)
    return bool(pushes) and "duplicate_case_id" in codes_of(pushes[-1])


async def test_a_sync_cancelled_while_running_still_updates_the_sibling(tmp_path: Path) -> None:
    """Push: the sync debounce restarted by the edit that the running sync then applies."""
    root, a, b = two_fixtures(tmp_path)
    with shut_down(InProcessHost(root, pull=False)) as host:
        b_uri = host.open(b)
        a_uri = host.open(a)
        await until(lambda: a_uri in host.published and b_uri in host.published, "the first pushes")
        await until(lambda: settled(host), "the first analyses and syncs to end")
        assert not latest_has_duplicate(host, b_uri)

        with host.repo(root).lock:  # "another analysis" holds the repository
            host.diagnostics.sync.schedule(root)
            await until(lambda: host.executor.running("sync_repo"), "the sync to start")
            [(_, syncing)] = host.executor.running("sync_repo")
            # The edit arrives while that sync waits for the lock: its text is queued, the
            # running sync's wait is cancelled (a new debounce starts), the thread goes on.
            host.replace(a_uri, '"one"', '"two"')
        # Nothing else reaches the lock first: the loop does not run (and submit the new sync or
        # the push of a) until the sync that was waiting has applied the queue.
        syncing.result(timeout=WAIT)
        # The running sync applies a's new text (b now shares its id); the sync and the push
        # of a that the edit scheduled find nothing left to apply.
        await until(lambda: latest_has_duplicate(host, b_uri), "b's duplicate_case_id")


async def test_a_cancelled_workspace_pull_still_refreshes_the_sibling(tmp_path: Path) -> None:
    """Pull: a closed file's analysis for ``workspace/diagnostic`` applies the queued edit, and
    the client cancels that request: it is still asked to pull again (for b, open)."""
    root, a, b = two_fixtures(tmp_path)
    write_json(root / "skills" / "demo" / "evals" / "c.json", workflow_fixture("demo", ["three"]))
    with shut_down(InProcessHost(root, pull=True)) as host:
        a_uri, b_uri = host.open(a), host.open(b)
        for uri in (a_uri, b_uri):  # their first findings, without the index (issue 30)
            await host.diagnostics.pull_document(document_params(uri))
        await until(lambda: settled(host), "the first analyses, the index load and syncs to end")
        for uri in (a_uri, b_uri):  # both cached with the index: the workspace pull analyses c only
            report = await host.diagnostics.pull_document(document_params(uri))
            assert "duplicate_case_id" not in [str(d.code) for d in report.items]
        await until(lambda: settled(host), "the second analyses to end")
        refreshes = host.refreshes

        with host.repo(root).lock:
            pull = asyncio.ensure_future(
                host.diagnostics.pull_workspace(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
            )
            await until(lambda: host.executor.running("_run_closed"), "c's analysis to start")
            [((jobs, _lookup), analyzing)] = host.executor.running("_run_closed")
            assert [job.path.name for job in jobs] == ["c.json"]
            host.replace(a_uri, '"one"', '"two"')
            pull.cancel()  # the client's $/cancelRequest
        analyzing.result(timeout=WAIT)  # c's job applied a's new text before anything else ran
        with contextlib.suppress(asyncio.CancelledError):
            await pull
        assert pull.cancelled()

        await until(lambda: host.refreshes > refreshes, "a workspace/diagnostic/refresh request")
        report = await host.diagnostics.pull_document(document_params(b_uri))
        assert "duplicate_case_id" in [str(d.code) for d in report.items]


def document_params(uri: str) -> types.DocumentDiagnosticParams:
    return types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
