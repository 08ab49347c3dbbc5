"""A small asyncio LSP client over stdio (JSON-RPC 2.0 with Content-Length framing), the same one
for every server the LSP benchmark drives, plus a /proc sampler for the server's memory.

It answers what servers ask of a client (``workspace/configuration`` from the settings it was given,
registrations, refresh requests, progress tokens) and records every ``publishDiagnostics`` with the
time it arrived. Every wait has a timeout; nothing here talks to anything but the child's pipes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HEADER_END = b"\r\n\r\n"
READ_LIMIT = 1 << 20  # StreamReader buffer limit for header lines; bodies use readexactly


class LspError(Exception):
    """The server answered with an error, died, or did not answer in time."""


@dataclass(slots=True)
class Response:
    result: Any
    sent_at: float  # perf_counter() just before the request was written
    received_at: float  # perf_counter() when the whole response had been read

    @property
    def elapsed(self) -> float:
        return self.received_at - self.sent_at


@dataclass(slots=True)
class Published:
    received_at: float
    version: int | None
    diagnostics: list[dict[str, Any]]


@dataclass(slots=True)
class ClientLog:
    server_requests: dict[str, int] = field(default_factory=dict)
    log_messages: list[str] = field(default_factory=list)  # the last few window/logMessage texts


def file_uri(path: Path) -> str:
    return path.resolve().as_uri()


def encode(message: dict[str, Any]) -> bytes:
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _lookup(settings: dict[str, Any], section: str | None) -> Any:
    if not section:
        return settings
    node: Any = settings
    for part in section.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


class LspClient:
    def __init__(
        self,
        argv: list[str],
        *,
        cwd: Path,
        settings: dict[str, Any] | None = None,
        stderr_path: Path | None = None,
    ) -> None:
        self.argv = argv
        self.cwd = cwd
        self.settings = settings or {}
        self.stderr_path = stderr_path
        self.proc: asyncio.subprocess.Process | None = None
        self.spawned_at = 0.0
        self.log = ClientLog()
        self.published: dict[str, list[Published]] = {}
        self.partial_results: dict[str, list[Any]] = {}  # ``$/progress`` values by token
        self._next_id = 0
        self._pending: dict[int, tuple[asyncio.Future[Response], float]] = {}
        self._publish_event = asyncio.Event()
        self._reader_task: asyncio.Task[None] | None = None
        self._stderr_file: Any = None
        self._closed_reason: str | None = None
        self._write_lock = asyncio.Lock()

    # -- lifecycle -------------------------------------------------------------------------

    async def start(self) -> None:
        if self.stderr_path is not None:
            self.stderr_path.parent.mkdir(parents=True, exist_ok=True)
            self._stderr_file = open(self.stderr_path, "wb")  # noqa: SIM115 - lives as long as the child
        self.spawned_at = time.perf_counter()
        self.proc = await asyncio.create_subprocess_exec(
            *self.argv,
            cwd=self.cwd,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=self._stderr_file or asyncio.subprocess.DEVNULL,
            limit=READ_LIMIT,
        )
        self._reader_task = asyncio.create_task(self._read_loop())

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    async def stop(self, timeout: float = 10.0) -> None:
        """``shutdown`` + ``exit``; kill the child if it does not leave in time."""
        if self.proc is None:
            return
        if self.proc.returncode is None and self._closed_reason is None:
            with contextlib.suppress(LspError, OSError, ConnectionError):
                await self.request("shutdown", None, timeout=timeout)
                await self.notify("exit", None)
        try:
            await asyncio.wait_for(self.proc.wait(), timeout)
        except asyncio.TimeoutError:
            self.proc.kill()
            await self.proc.wait()
        if self._reader_task is not None:
            self._reader_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader_task
        if self._stderr_file is not None:
            self._stderr_file.close()

    # -- sending ---------------------------------------------------------------------------

    def encode_notification(self, method: str, params: Any) -> bytes:
        return encode({"jsonrpc": "2.0", "method": method, "params": params})

    async def send(self, data: bytes) -> None:
        if self._closed_reason is not None:
            raise LspError(self._closed_reason)
        assert self.proc is not None and self.proc.stdin is not None
        async with self._write_lock:
            self.proc.stdin.write(data)
            await self.proc.stdin.drain()

    async def notify(self, method: str, params: Any) -> None:
        await self.send(self.encode_notification(method, params))

    def reserve_id(self) -> int:
        """An id for a request sent later (``request(…, request_id=…)``), to cancel it by."""
        self._next_id += 1
        return self._next_id

    async def request(
        self, method: str, params: Any, *, timeout: float, request_id: int | None = None
    ) -> Response:
        if request_id is None:
            request_id = self.reserve_id()
        data = encode({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        future: asyncio.Future[Response] = asyncio.get_running_loop().create_future()
        sent_at = time.perf_counter()
        self._pending[request_id] = (future, sent_at)
        await self.send(data)
        try:
            return await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError:
            raise LspError(f"{method}: no answer within {timeout:.0f} s") from None
        finally:
            self._pending.pop(request_id, None)

    # -- diagnostics -----------------------------------------------------------------------

    def publish_mark(self, uri: str) -> int:
        """How many publishes for ``uri`` have arrived so far (pass to ``wait_for_publish``)."""
        return len(self.published.get(uri, ()))

    async def wait_for_publish(
        self,
        uri: str,
        *,
        mark: int,
        timeout: float,
        version: int | None = None,
        not_before: float = 0.0,
    ) -> Published:
        """The first publish for ``uri`` after ``mark`` that arrived at or after ``not_before`` and,
        when ``version`` is given and the server sends versions, is for that version."""
        deadline = time.perf_counter() + timeout
        while True:
            for item in self.published.get(uri, [])[mark:]:
                if item.received_at < not_before:
                    continue
                if version is not None and item.version is not None and item.version != version:
                    continue
                return item
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise LspError(f"no diagnostics published for {uri} within {timeout:.0f} s")
            if self._closed_reason is not None:
                raise LspError(self._closed_reason)
            self._publish_event.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._publish_event.wait(), remaining)

    async def wait_for_any_publish(self, *, timeout: float) -> None:
        """Until the next publish for any document arrives."""
        if self._closed_reason is not None:
            raise LspError(self._closed_reason)
        self._publish_event.clear()
        try:
            await asyncio.wait_for(self._publish_event.wait(), timeout)
        except asyncio.TimeoutError:
            raise LspError(f"no diagnostics published within {timeout:.0f} s") from None

    # -- receiving -------------------------------------------------------------------------

    async def _read_loop(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        stdout = self.proc.stdout
        try:
            while True:
                header = await stdout.readuntil(HEADER_END)
                length = None
                for line in header.decode("ascii", "replace").split("\r\n"):
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                if length is None:
                    raise LspError(f"message without Content-Length: {header[:200]!r}")
                body = await stdout.readexactly(length)
                received_at = time.perf_counter()
                await self._dispatch(json.loads(body), received_at)
        except (asyncio.IncompleteReadError, ConnectionError) as exc:
            self._fail(f"server closed its output ({type(exc).__name__})")
        except asyncio.CancelledError:
            self._fail("client stopped")
            raise
        except Exception as exc:  # noqa: BLE001 - any protocol breakage ends the session cleanly
            self._fail(f"client read error: {exc!r}")

    def _fail(self, reason: str) -> None:
        self._closed_reason = self._closed_reason or reason
        for future, _ in self._pending.values():
            if not future.done():
                future.set_exception(LspError(reason))
        self._publish_event.set()

    async def _dispatch(self, message: dict[str, Any], received_at: float) -> None:
        method = message.get("method")
        if method is None:  # a response to one of our requests
            pending = self._pending.get(message.get("id"))  # type: ignore[arg-type]
            if pending is None:
                return
            future, sent_at = pending
            if future.done():
                return
            if "error" in message:
                future.set_exception(LspError(f"server error: {message['error']}"))
            else:
                future.set_result(Response(message.get("result"), sent_at, received_at))
            return
        if "id" in message:  # a request from the server
            self.log.server_requests[method] = self.log.server_requests.get(method, 0) + 1
            await self._answer(message["id"], method, message.get("params"))
            return
        if method == "textDocument/publishDiagnostics":
            params = message.get("params") or {}
            item = Published(received_at, params.get("version"), list(params.get("diagnostics") or []))
            self.published.setdefault(params.get("uri", ""), []).append(item)
            self._publish_event.set()
        elif method == "$/progress":
            params = message.get("params") or {}
            self.partial_results.setdefault(str(params.get("token")), []).append(params.get("value"))
        elif method == "window/logMessage":
            self.log.log_messages = [
                *self.log.log_messages[-19:],
                str((message.get("params") or {}).get("message")),
            ]

    async def _answer(self, request_id: Any, method: str, params: Any) -> None:
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id}
        if method == "workspace/configuration":
            items = (params or {}).get("items") or []
            reply["result"] = [_lookup(self.settings, item.get("section")) for item in items]
        elif method == "vscode/content":
            # The peer asks the client for schema URIs it will not fetch itself: no network here.
            reply["error"] = {"code": -32601, "message": "content requests are not served by this client"}
        else:  # registrations, refresh requests, progress tokens, messages: acknowledge
            reply["result"] = None
        with contextlib.suppress(LspError, OSError, ConnectionError):
            await self.send(encode(reply))


# ---------------------------------------------------------------------------------------------
# Memory


def status_kib(pid: int, field_name: str) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith(field_name + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants, from /proc (``task/*/children``; a full /proc scan as fallback)."""
    tree, queue = [], [pid]
    while queue and len(tree) < 1000:
        current = queue.pop()
        tree.append(current)
        children: list[int] = []
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children", encoding="ascii") as handle:
                    children.extend(int(c) for c in handle.read().split())
        except FileNotFoundError:
            children = _children_by_scan(current)
        except OSError:
            continue
        queue.extend(children)
    return tree


def _children_by_scan(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                found.append(int(entry))
        except (OSError, IndexError, ValueError):
            continue
    return found


class RssSampler:
    """Samples the RSS of a process tree every ``interval`` seconds on a thread (so that it keeps
    sampling while the event loop is busy); ``peak_kib`` is the largest sum seen, or the root's
    own kernel high-water mark (VmHWM, read at ``stop``) when that is larger."""

    def __init__(self, pid: int, interval: float = 0.02) -> None:
        self.pid = pid
        self.interval = interval
        self.peak_kib = 0
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"rss-{pid}", daemon=True)

    def start(self) -> RssSampler:
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)

    def sample(self) -> int:
        total = sum(status_kib(pid, "VmRSS") for pid in process_tree(self.pid))
        self.samples += 1
        self.peak_kib = max(self.peak_kib, total)
        return total

    def stop(self) -> int:
        """Stop sampling (call while the process still runs, so VmHWM can be read)."""
        self.peak_kib = max(self.peak_kib, status_kib(self.pid, "VmHWM"))
        self._stop.set()
        self._thread.join(timeout=5)
        return self.peak_kib


def report_items(response: Any) -> list[dict[str, Any]]:
    """The diagnostics of a ``textDocument/diagnostic`` answer, which must be a full report: an
    answer of another shape is a failure of the session, not a fast sample."""
    report = response.result
    if (
        not isinstance(report, dict)
        or report.get("kind") != "full"
        or not isinstance(report.get("items"), list)
    ):
        raise LspError(f"textDocument/diagnostic: not a full report: {str(report)[:120]}")
    return report["items"]
