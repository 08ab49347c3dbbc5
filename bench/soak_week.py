"""The operations of ``bench.soak``'s week, as an editor sends them, and the server they go to.

Each ``step`` draws one operation (seeded: the same week every run) and waits for what a user
would wait for (a pull's answer, the push of the version typed); notifications alone (a keystroke)
are not awaited. Texts are tracked on the client side exactly, so every range sent is right.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.harness.client import LspClient, LspError
from bench.harness.generate import generate_suite, lsp_position
from bench.memory import started
from bench.soak_server import STATE_METHOD
from bench.soak_workspace import Workspace, suite_sizes, write_skill

TIMEOUT = 300.0  # one answer; a 10 MB suite's first analysis takes seconds on a busy machine
MAX_OPEN = 4  # documents open at once, as a few editor tabs
PROMPT = '"prompt": "'
CREATED, DELETED = 1, 3  # FileChangeType
# Operation → weight. Moves, deletions and configuration changes make every closed file's result
# stale (the repository's generation moves): rare, as on a real day.
WEIGHTS = {
    "type": 45.0,
    "pull": 12.0,
    "feature": 12.0,
    "cancel": 6.0,
    "open": 8.0,
    "close": 8.0,
    "workspace": 3.0,
    "move": 0.25,
    "delete": 0.15,
    "configure": 0.1,
}
SEVERITY_OFF = {"evalfix": {"severity": {"id-not-kebab": "off"}}}


def uri_of(path: Path) -> str:
    return path.absolute().as_uri()  # not resolved: a link stays a link


def _server_argv() -> list[str]:
    bench_parent = str(Path(__file__).resolve().parent.parent)
    code = f"import sys; sys.path.insert(0, {bench_parent!r}); from bench.soak_server import serve; serve()"
    return [sys.executable, "-c", code]


async def started_server(root: Path, *, pull: bool) -> LspClient:
    return await started(root, argv=_server_argv(), pull=pull, settings={"evalfix": {}})


@dataclass(slots=True)
class Document:
    path: Path
    text: str
    version: int = 1
    broken_at: int | None = None  # offset of the stray quote that makes the text invalid JSON
    mark: int = 0  # publishes for its uri before it was opened (push: older versions' are not its)


class Week:
    def __init__(self, client: LspClient, workspace: Workspace, rng: random.Random, *, pull: bool) -> None:
        self.client = client
        self.workspace = workspace
        self.rng = rng
        self.pull = pull
        self.documents: dict[str, Document] = {}
        self.workspace_ids: dict[str, str] = {}
        self.counts: dict[str, int] = {}
        self._kinds = list(WEIGHTS)
        self._weights = [WEIGHTS[kind] for kind in self._kinds]
        if not pull:
            self._weights[self._kinds.index("workspace")] = 0.0

    async def server_state(self) -> dict[str, Any]:
        response = await self.client.request(STATE_METHOD, None, timeout=TIMEOUT)
        return dict(response.result)

    async def first_look(self) -> None:
        """The session's start: a pull client pulls the workspace (every closed file checked)."""
        if self.pull:
            await self._workspace()

    async def step(self) -> None:
        kind = self.rng.choices(self._kinds, self._weights)[0]
        if not self.documents and kind in ("type", "pull", "feature", "cancel", "close"):
            kind = "open"
        self.counts[kind] = self.counts.get(kind, 0) + 1
        await getattr(self, f"_{kind}")()

    # -- documents -------------------------------------------------------------------------------

    async def _open(self) -> None:
        if len(self.documents) >= MAX_OPEN:
            await self._close()
        closed = [path for path in self.workspace.suites if uri_of(path) not in self.documents]
        path = self.rng.choice(closed)
        await self.open(path, path.read_text(encoding="utf-8"))
        await self._pull()

    async def open(self, path: Path, text: str) -> str:
        uri = uri_of(path)
        self.documents[uri] = Document(path, text, mark=self.client.publish_mark(uri))
        item = {"uri": uri, "languageId": "json", "version": 1, "text": text}
        await self.client.notify("textDocument/didOpen", {"textDocument": item})
        return uri

    async def _close(self, uri: str | None = None) -> None:
        uri = uri or self.rng.choice(list(self.documents))
        del self.documents[uri]
        await self.client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    def _pick(self) -> tuple[str, Document]:
        uri = self.rng.choice(list(self.documents))
        return uri, self.documents[uri]

    async def _type(self, uri: str | None = None) -> None:
        """One keystroke: the stray quote of the last one removed, else a letter typed into a
        prompt, or (one time in five) a stray quote that breaks the JSON."""
        if uri is None:
            uri, document = self._pick()
        else:
            document = self.documents[uri]
        if document.broken_at is not None:
            start, end, new = document.broken_at, document.broken_at + 1, ""
            document.broken_at = None
        else:
            start = self._prompt_offset(document.text)
            end, new = start, '"' if self.rng.random() < 0.2 else self.rng.choice("abcdefgh é😀")
            document.broken_at = start if new == '"' else None
        await self.change(uri, start, end, new)

    def _prompt_offset(self, text: str) -> int:
        at = text.find(PROMPT, self.rng.randrange(len(text)))
        at = text.find(PROMPT) if at < 0 else at
        return at + len(PROMPT) if at >= 0 else 0

    async def change(self, uri: str, start: int, end: int, new: str) -> None:
        document = self.documents[uri]
        text = document.text
        (sl, sc), (el, ec) = lsp_position(text, start), lsp_position(text, end)
        document.text = text[:start] + new + text[end:]
        document.version += 1
        span = {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}
        params = {
            "textDocument": {"uri": uri, "version": document.version},
            "contentChanges": [{"range": span, "text": new}],
        }
        await self.client.notify("textDocument/didChange", params)

    # -- answers ---------------------------------------------------------------------------------

    async def _pull(self, uri: str | None = None) -> None:
        """The diagnostics of the current version: pulled, or (push client) their push awaited."""
        uri = uri or self._pick()[0]
        if self.pull:
            await self.client.request(
                "textDocument/diagnostic", {"textDocument": {"uri": uri}}, timeout=TIMEOUT
            )
            return
        document = self.documents[uri]
        # Any push of this version since the open (it may have come before this wait began).
        await self.client.wait_for_publish(uri, mark=document.mark, timeout=TIMEOUT, version=document.version)

    async def _cancel(self, uri: str | None = None) -> None:
        """A keystroke, then a request for it cancelled at once (a pull, or symbols for push)."""
        uri = uri or self._pick()[0]
        await self._type(uri)
        method = "textDocument/diagnostic" if self.pull else "textDocument/documentSymbol"
        request_id = self.client.reserve_id()
        sent = asyncio.ensure_future(
            self.client.request(
                method, {"textDocument": {"uri": uri}}, timeout=TIMEOUT, request_id=request_id
            )
        )
        await asyncio.sleep(0)  # written
        await self.client.notify("$/cancelRequest", {"id": request_id})
        with contextlib.suppress(LspError):  # "request cancelled", or an answer that was quicker
            await sent

    async def _feature(self) -> None:
        uri, document = self._pick()
        method = self.rng.choice(
            ["textDocument/documentSymbol", "textDocument/foldingRange", "textDocument/hover"]
        )
        params: dict[str, Any] = {"textDocument": {"uri": uri}}
        if method == "textDocument/hover":
            line, character = lsp_position(document.text, self._prompt_offset(document.text))
            params["position"] = {"line": line, "character": character}
        with contextlib.suppress(LspError):  # the text may be broken: an error answer is an answer
            await self.client.request(method, params, timeout=TIMEOUT)

    async def _workspace(self) -> None:
        previous = [{"uri": uri, "value": value} for uri, value in self.workspace_ids.items()]
        response = await self.client.request(
            "workspace/diagnostic", {"previousResultIds": previous}, timeout=TIMEOUT
        )
        for item in response.result.get("items", []):
            if item.get("resultId"):
                self.workspace_ids[item["uri"]] = item["resultId"]

    # -- the disk and the configuration ----------------------------------------------------------

    def _closed_suite(self) -> int | None:
        closed = [i for i, path in enumerate(self.workspace.suites) if uri_of(path) not in self.documents]
        return self.rng.choice(closed) if closed else None

    async def _events(self, *changes: tuple[Path, int]) -> None:
        events = [{"uri": uri_of(path), "type": kind} for path, kind in changes]
        await self.client.notify("workspace/didChangeWatchedFiles", {"changes": events})

    async def _move(self) -> None:
        """A skill renamed (``git mv``): its suite and SKILL.md deleted here, created there."""
        index = self._closed_suite()
        if index is None:
            return
        old = self.workspace.suites[index]
        skill = old.parent.parent
        target = self.workspace.fresh_skill()
        skill.rename(target)
        new = target / "evals" / "evals.json"
        self.workspace.suites[index] = new
        await self._events(
            (old, DELETED), (skill / "SKILL.md", DELETED), (new, CREATED), (target / "SKILL.md", CREATED)
        )

    async def _delete(self) -> None:
        """A skill deleted, and another one written elsewhere (the workspace keeps its size)."""
        index = self._closed_suite()
        if index is None:
            return
        old = self.workspace.suites[index]
        shutil.rmtree(old.parent.parent)
        size = suite_sizes(self.rng, 1)[0]
        new = write_skill(
            self.workspace.fresh_skill(),
            generate_suite(size, seed=self.rng.randrange(1 << 30)).text,
            sources=False,
        )
        self.workspace.suites[index] = new
        await self._events((old, DELETED), (new, CREATED))

    async def _configure(self) -> None:
        self.client.settings = {"evalfix": {}} if self.client.settings.get("evalfix") else dict(SEVERITY_OFF)
        await self.client.notify("workspace/didChangeConfiguration", {"settings": self.client.settings})

    # -- the hostile phase -----------------------------------------------------------------------

    async def hostile_round(self, path: Path, text: str) -> None:
        """Open, pull, a keystroke with its pull cancelled, a keystroke pulled, close."""
        uri = await self.open(path, text)
        await self._pull(uri)
        await self._cancel(uri)
        await self.change(uri, 0, 0, " ")
        await self._pull(uri)
        await self._close(uri)
