"""Helpers for the end-to-end tests: the real server over stdio, driven by pytest-lsp with the capabilities of
real clients.

Profiles (``CLIENTS``):

* ``vscode-push`` — VS Code 1.65.2 as pytest-lsp records it: UTF-16 (no ``positionEncodings``), push
  diagnostics, dynamic file watchers, ``workspace/configuration``, progress.
* ``vscode-pull`` — the same with pull diagnostics and ``workspace/diagnostic/refresh`` added by
  hand, as VS Code ≥ 1.67 sends them.
* ``neovim`` — Neovim 0.11: UTF-8 first, pull, no refresh support, no file watchers (Linux).
* ``emacs`` — eglot 29.1: UTF-32 first, push, file watchers, no related information.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest_lsp
from fixture_paths import make_walking
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from server_processes import end_language_client, server_process_of, started

SERVER = [sys.executable, "-m", "evalfix_ls"]
FAULTY_SERVER = [sys.executable, str(Path(__file__).with_name("faulty_server.py"))]
TIMEOUT = 10.0  # generous: a missing notification fails the test, a slow machine should not

CLIENTS = ["vscode-push", "vscode-pull", "neovim", "emacs"]
ENCODING_OF = {"vscode-push": "utf-16", "vscode-pull": "utf-16", "neovim": "utf-8", "emacs": "utf-32"}


def server_fixture(name: str, command: list[str], params: list[str]) -> Any:
    """A pytest-lsp fixture ``name``: the server ``command`` with each client profile of ``params``;
    the test initializes it. Its server ends within a bound however the test ended (skipped
    before ``initialize``, failed, cancelled): pytest-lsp's own teardown would wait forever for a
    server it never told to exit."""

    @pytest_lsp.fixture(config=ClientServerConfig(server_command=command), params=params, name=name)
    async def fixture(lsp_client: LanguageClient) -> Any:
        process = server_process_of(lsp_client)
        if process is not None:
            started.append(process)
        yield
        await end_language_client(lsp_client)

    return fixture


def capabilities_for(profile: str) -> types.ClientCapabilities:
    if profile.startswith("vscode"):
        caps = client_capabilities("visual-studio-code")
        if profile == "vscode-pull":
            caps.text_document.diagnostic = types.DiagnosticClientCapabilities(
                dynamic_registration=True, related_document_support=False
            )
            caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
        return caps
    return client_capabilities("neovim" if profile == "neovim" else "emacs")


def is_pull(profile: str) -> bool:
    return profile in ("vscode-pull", "neovim")


def has_watchers(profile: str) -> bool:
    return profile in ("vscode-push", "vscode-pull", "emacs")


# -- positions in each encoding (an oracle independent of the server's LineIndex) -------------------


def units(text: str, encoding: str) -> int:
    if encoding == "utf-16":
        return len(text.encode("utf-16-le")) // 2
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    return len(text)


def position_of(text: str, offset: int, encoding: str) -> tuple[int, int]:
    """(line, character) of a code-point offset, counting only LSP line breaks."""
    line_start = 0
    line = 0
    index = 0
    while index < offset:
        char = text[index]
        if char == "\r" and index + 1 < len(text) and text[index + 1] == "\n" and index + 1 < offset:
            index += 2
            line += 1
            line_start = index
            continue
        if char in "\r\n":
            line += 1
            line_start = index + 1
        index += 1
    return line, units(text[line_start:offset], encoding)


def lsp_range(text: str, start: int, end: int, encoding: str) -> types.Range:
    sl, sc = position_of(text, start, encoding)
    el, ec = position_of(text, end, encoding)
    return types.Range(start=types.Position(line=sl, character=sc), end=types.Position(line=el, character=ec))


def as_tuple(rng: types.Range) -> tuple[int, int, int, int]:
    return (rng.start.line, rng.start.character, rng.end.line, rng.end.character)


# -- workspaces ------------------------------------------------------------------------------------


def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return path


def workflow_fixture(skill: str, ids: list[str], *, refs: list[str] | None = None) -> dict[str, Any]:
    """A canonical fixture whose cases are valid except for what the test plants."""
    return {
        "schema_version": "spec-first.workflow-eval-fixtures.v1",
        "skill": skill,
        "source_refs": refs if refs is not None else [f"skills/{skill}/SKILL.md"],
        "coverage_tags": ["routing"],
        "cases": [
            {
                "id": case_id,
                "input": f"输入 {case_id} 🎉",
                "coverage_tags": ["trigger"],
                "expected_outcome": "ok",
            }
            for case_id in ids
        ],
    }


def noisy_suite(count: int) -> dict[str, Any]:
    """An eval suite whose every case names a source file that is not there: one finding per case
    at least (a suite still being written), CJK and emoji in every prompt."""
    cases = [
        {
            "id": f"case-{n}",
            "prompt": f"写 🎉 {n}",
            "setup": {"kind": "seeded", "sources": [f"files/gone-{n}"]},
        }
        for n in range(count)
    ]
    return {"skill_name": "demo", "evals": cases}


def make_repo(root: Path) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    return make_walking(root)


def two_fixtures(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A repository with ``a.json`` (case "one") and ``b.json`` (case "two") of skill demo.
    ``a.json`` sorts before ``b.json``: a duplicate id is reported on ``b.json``."""
    root = make_repo(tmp_path / "repo")
    (root / "skills" / "demo").mkdir(parents=True)
    (root / "skills" / "demo" / "SKILL.md").write_text("# demo\n", encoding="utf-8")
    a = write_json(root / "skills" / "demo" / "evals" / "a.json", workflow_fixture("demo", ["one"]))
    b = write_json(root / "skills" / "demo" / "evals" / "b.json", workflow_fixture("demo", ["two"]))
    return root, a, b


# -- the client ------------------------------------------------------------------------------------


class Session:
    """A started client plus what the tests read from it."""

    def __init__(self, client: LanguageClient, profile: str) -> None:
        self.client = client
        self.profile = profile
        self.encoding = ENCODING_OF[profile]
        self.published: dict[str, list[types.PublishDiagnosticsParams]] = {}
        self.registrations: list[types.Registration] = []
        self.versions: dict[str, int] = {}
        self.texts: dict[str, str] = {}
        self.result_ids: dict[str, str] = {}
        self.last_items: dict[str, list[types.Diagnostic]] = {}
        self.result: types.InitializeResult | None = None
        self.code_lens_refreshes = 0
        # Partial results ($/progress values without a "kind") by their token, as sent.
        self.partial_results: dict[int | str, list[dict[str, Any]]] = {}

    @property
    def pull(self) -> bool:
        return is_pull(self.profile)

    async def initialize(
        self,
        folders: list[Path],
        *,
        init_options: Any = None,
        settings: dict[str, Any] | None = None,
        capabilities: types.ClientCapabilities | None = None,
    ) -> types.InitializeResult:
        if settings is not None:
            self.client.set_configuration(settings, section="evalfix")
        self.result = await self.client.initialize_session(
            types.InitializeParams(
                capabilities=capabilities or capabilities_for(self.profile),
                workspace_folders=[types.WorkspaceFolder(uri=f.as_uri(), name=f.name) for f in folders],
                root_uri=folders[0].as_uri() if folders else None,
                initialization_options=init_options,
            )
        )
        return self.result

    # documents
    def open(self, path: Path, text: str | None = None) -> str:
        uri = path.as_uri()
        text = path.read_text(encoding="utf-8") if text is None else text
        self.versions[uri] = 1
        self.texts[uri] = text
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="json", version=1, text=text)
            )
        )
        return uri

    def edit(self, uri: str, start: int, end: int, new_text: str) -> str:
        """Replace code points [start, end) of our copy, sent as a ranged change in the
        negotiated encoding. Returns the new text."""
        text = self.texts[uri]
        rng = lsp_range(text, start, end, self.encoding)
        self.versions[uri] += 1
        self.texts[uri] = text[:start] + new_text + text[end:]
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
                content_changes=[types.TextDocumentContentChangePartial(range=rng, text=new_text)],
            )
        )
        return self.texts[uri]

    def close(self, uri: str) -> None:
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )

    def file_events(self, *changes: tuple[Path, types.FileChangeType]) -> None:
        self.client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[types.FileEvent(uri=path.as_uri(), type=kind) for path, kind in changes]
            )
        )

    # diagnostics
    async def pull_document(self, uri: str, previous: str | None = None) -> Any:
        return await self.client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(
                text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=previous
            )
        )

    async def workspace_diagnostic(
        self, previous: list[types.PreviousResultId] | None = None, token: str | None = None
    ) -> tuple[list[Any], int]:
        """``workspace/diagnostic``'s reports, those streamed through ``$/progress`` with
        ``token`` first, then the response's; and how many of them were streamed."""
        params = types.WorkspaceDiagnosticParams(
            previous_result_ids=previous or [], partial_result_token=token
        )
        answer = await self.client.workspace_diagnostic_async(params)
        streamed = [
            self.client.protocol._converter.structure(value, types.WorkspaceDiagnosticReportPartialResult)
            for value in self.partial_results.pop(token, [])
        ]
        items = [item for part in streamed for item in part.items]
        return items + list(answer.items), len(items)

    async def diagnostics(
        self,
        uri: str,
        until: Callable[[list[types.Diagnostic]], bool] = lambda items: True,
        *,
        timeout: float = TIMEOUT,
    ) -> list[types.Diagnostic]:
        """The diagnostics of ``uri`` once ``until`` holds: the latest push (for push clients, of
        the latest version when the document is open), or a fresh pull (pull clients)."""
        deadline = asyncio.get_running_loop().time() + timeout
        last: list[types.Diagnostic] | None = None
        while True:
            if self.pull and uri in self.versions:
                report = await self.pull_document(uri, self.result_ids.get(uri))
                if report.kind == "full":
                    self.result_ids[uri] = report.result_id
                    self.last_items[uri] = list(report.items)
                last = self.last_items[uri]
            else:
                pushes = self.published.get(uri)
                if pushes:
                    latest = pushes[-1]
                    if uri not in self.versions or latest.version == self.versions[uri]:
                        last = list(latest.diagnostics)
            if last is not None and until(last):
                return last
            if asyncio.get_running_loop().time() > deadline:
                seen = codes(last or [])
                raise AssertionError(f"timed out waiting for diagnostics of {uri}; last seen: {seen}")
            await asyncio.sleep(0.05)


def codes(items: list[types.Diagnostic]) -> list[str]:
    return sorted(str(d.code) for d in items)


def _install_recorders(session: Session) -> None:
    client = session.client
    features = client.protocol.fm.features

    def on_publish(params: types.PublishDiagnosticsParams) -> None:
        session.published.setdefault(params.uri, []).append(params)
        client.diagnostics[params.uri] = params.diagnostics

    def on_code_lens_refresh(params: None) -> None:
        session.code_lens_refreshes += 1

    def on_register(params: types.RegistrationParams) -> None:
        session.registrations.extend(params.registrations)

    work_done_progress = features[types.PROGRESS]

    def on_progress(params: types.ProgressParams) -> None:
        if isinstance(params.value, dict) and "kind" not in params.value:
            session.partial_results.setdefault(params.token, []).append(params.value)
        else:
            work_done_progress(params)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = on_publish
    features[types.PROGRESS] = on_progress
    features[types.CLIENT_REGISTER_CAPABILITY] = on_register
    features[types.WORKSPACE_CODE_LENS_REFRESH] = on_code_lens_refresh


def expected_diagnostics(
    text: str, path: Path, root: Path, encoding: str, buffers: dict[Path, str] | None = None
) -> set[tuple[str, tuple[int, int, int, int]]]:
    """(code, range) of what the core finds in ``text``, with ranges from the oracle above: what
    the server must show, whatever the rules of the day are (for an open buffer: with the findings
    of the intact parts of a text that does not parse, ``recover``)."""
    from evalfix_ls.analysis import analyze
    from evalfix_ls.contracts.workflow.index import WorkflowIndex
    from evalfix_ls.workspace.view import FileSystemView, relative_posix

    fs = FileSystemView()
    index = WorkflowIndex(root, fs)
    for other, other_text in (buffers or {}).items():
        index.update(relative_posix(other, root) or "", other_text)
    rel = relative_posix(path, root) or ""
    index.update(rel, text)
    analysis = analyze(text, path=path, repo_root=root, fs=fs, workspace=index, explicit=True, recover=True)
    return {(f.code, as_tuple(lsp_range(text, f.start, f.end, encoding))) for f in analysis.findings}


def shown(items: list[types.Diagnostic]) -> set[tuple[str, tuple[int, int, int, int]]]:
    return {(str(d.code), as_tuple(d.range)) for d in items}


def make_session(client: LanguageClient, profile: str) -> Session:
    session = Session(client, profile)
    _install_recorders(session)
    return session


async def wait_until(condition: Callable[[], bool], what: str, timeout: float = TIMEOUT) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


class Capture:
    """A writer for ``protocol.set_writer`` that keeps what the server wrote (in-process tests)."""

    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> None:
        self.data += data

    def close(self) -> None:
        pass


class RawClient:
    """A bare JSON-RPC client over the server's stdio (or a TCP connection), for what pytest-lsp
    will not send: malformed params, requests in the wrong state, exit without shutdown."""

    def __init__(self, reader: asyncio.StreamReader, writer: Any, process: Any = None) -> None:
        self.reader = reader
        self.writer = writer
        self.process = process
        self.notifications: list[dict[str, Any]] = []
        self._next_id = 0
        self._log: Any = None  # the server's standard error, when kept (``server_log``)

    @classmethod
    async def start(cls, *args: str, stderr: int | None = None) -> RawClient:
        """A server started over stdio; its standard error goes to ``stderr`` when given, else to
        a temporary file that ``server_log`` reads (an error answer says "details are in its
        log": a failing test shows them)."""
        log = tempfile.TemporaryFile() if stderr is None else None  # noqa: SIM115 - closed by close()
        process = await asyncio.create_subprocess_exec(
            *(args or SERVER),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=log if log is not None else stderr,
        )
        started.append(process)  # ended after the test if the test did not end it
        client = cls(process.stdout, process.stdin, process)
        client._log = log
        return client

    def server_log(self, limit: int = 6000) -> str:
        """The last ``limit`` characters of what the server logged so far: the errors and
        warnings it sent as ``window/logMessage`` (tracebacks included) and what it wrote to
        standard error when that was kept."""
        logged = [
            message["params"]["message"]
            for message in self.notifications
            if message.get("method") == "window/logMessage" and message["params"].get("type", 4) <= 2
        ]
        if self._log is not None:
            self._log.seek(0)
            logged.append(self._log.read().decode("utf-8", "replace"))
        return "\n".join(logged)[-limit:]

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def receive(self) -> dict[str, Any]:
        length = 0
        while True:
            line = await asyncio.wait_for(self.reader.readline(), TIMEOUT)
            if not line:
                raise EOFError("the server closed its output")
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
            if line == b"\r\n":
                break
        return json.loads(await self.reader.readexactly(length))

    async def request(self, method: str, params: Any = None) -> dict[str, Any]:
        """The response (``result`` or ``error``) to one request; notifications are kept and
        requests from the server are answered with null."""
        self._next_id += 1
        msg_id = self._next_id
        self.send({"id": msg_id, "method": method, "params": params})
        while True:
            message = await self.receive()
            if message.get("id") == msg_id and "method" not in message:
                return message
            if "method" in message and "id" in message:
                self.send({"id": message["id"], "result": None})
            elif "method" in message:
                self.notifications.append(message)

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"method": method, "params": params})

    def send_raw(self, data: bytes) -> None:
        """Bytes as they are (broken framing, bodies that are not JSON-RPC)."""
        self.writer.write(data)

    async def next_response(self) -> dict[str, Any]:
        """The next response (or array of responses) the server sends; notifications are kept."""
        while True:
            message = await self.receive()
            if isinstance(message, list) or "method" not in message:
                return message
            if "id" in message:
                self.send({"id": message["id"], "result": None})
            else:
                self.notifications.append(message)

    async def initialize(self, root: Path | None = None) -> dict[str, Any]:
        params: dict[str, Any] = {"processId": None, "capabilities": {}}
        if root is not None:
            params["workspaceFolders"] = [{"uri": root.as_uri(), "name": root.name}]
        response = await self.request("initialize", params)
        self.notify("initialized", {})
        return response

    async def wait(self) -> int:
        assert self.process is not None
        return await asyncio.wait_for(self.process.wait(), TIMEOUT)

    async def close(self) -> None:
        """Kill the server if it still runs and release its pipes while the loop is alive (a
        transport collected after the loop closed raises from ``__del__``)."""
        if self.process is None:
            return
        if self.process.returncode is None:
            self.process.kill()
        await self.process.wait()
        self.writer.close()
        if self._log is not None:
            self._log.close()
            self._log = None
