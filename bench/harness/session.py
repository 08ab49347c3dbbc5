"""One LSP session of a benchmark: a server spawned over stdio (``ServerSpec``: evalfix-ls or
Microsoft's JSON language server, installed on demand), initialized with the capabilities VS Code
offers, holding one open document of a generated suite (``prepare``), edited and timed
(``Session``). ``bench.lsp``, ``bench.lsp_typing``, ``bench.navigation``, ``bench.memory`` and
``bench.traffic`` drive it; it imports none of them.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.harness.client import LspClient, LspError, Published, RssSampler, file_uri, report_items
from bench.harness.common import BENCH_DIR, EVALS_SCHEMA, PEER_DIR
from bench.harness.generate import Suite, lsp_position, prepare_suite

OURS, PEER = "evalfix-ls", "vscode-json"
PEER_PACKAGE = "vscode-langservers-extracted@4.10.0"
PEER_BIN = PEER_DIR / "node_modules" / ".bin" / "vscode-json-language-server"
KEYSTROKES, KEYSTROKE_GAP = 10, 0.030
SETTLE = 1.0  # pause between typing bursts (the peer debounces pushes by 500 ms)


def timeouts_for(size: int) -> tuple[float, float]:
    """(open, per-edit) timeouts, generous for 10 MB and a slow server, yet bounded."""
    mb = max(size / 1e6, 0.02)
    return 30 + 30 * mb, 20 + 15 * mb


# ---------------------------------------------------------------------------------------------
# Servers


@dataclass(slots=True)
class EditingResult:
    """Completion and hover latencies of an editing session (``bench.lsp_editing``), and what failed."""

    completion: list[float]
    completion_after_edit: list[float]
    hover: list[float]
    failures: list[str]


@dataclass(slots=True)
class ServerSpec:
    name: str
    argv: list[str]
    settings: dict[str, Any]
    init_options: dict[str, Any] | None
    version: str = ""


PROFILE_PLACEHOLDER = "{profile}"


def ours_spec(*, profile: bool = False) -> ServerSpec:
    from evalfix_ls import __version__

    if profile:  # every session writes its own pstats file (the placeholder is replaced per session)
        argv = [sys.executable, str(BENCH_DIR / "tools" / "profile_server.py"), PROFILE_PLACEHOLDER]
        return ServerSpec(OURS, argv, {}, None, __version__ + " (under cProfile)")
    return ServerSpec(OURS, [sys.executable, "-m", "evalfix_ls"], {}, None, __version__)


def peer_spec(*, install: bool) -> ServerSpec | None:
    if not PEER_BIN.is_file():
        npm = shutil.which("npm")
        if not install or npm is None:
            why = "npm is not on PATH" if npm is None else "--no-install was given"
            print(f"{PEER} is not installed under {PEER_DIR} and {why}: skipping it.")
            return None
        print(f"installing {PEER_PACKAGE} into {PEER_DIR} (npm install --prefix) …", flush=True)
        try:
            subprocess.run(
                [npm, "install", "--prefix", str(PEER_DIR), "--no-audit", "--no-fund", PEER_PACKAGE],
                check=True,
                timeout=600,
                stdout=subprocess.DEVNULL,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            print(f"could not install {PEER_PACKAGE}: {exc}; skipping {PEER}")
            return None
    schema_uri = file_uri(EVALS_SCHEMA)
    settings = {
        "json": {
            "validate": {"enable": True},  # the server validates nothing unless told to
            "schemas": [{"fileMatch": ["evals/evals.json"], "url": schema_uri}],
        },
        "http": {"proxy": "", "proxyStrictSSL": False},
    }
    # Only file: schemas are fetched by the server itself; anything else would be asked of us.
    init_options = {"provideFormatter": False, "handledSchemaProtocols": ["file"]}
    node = shutil.which("node") or "node"
    return ServerSpec(PEER, [node, str(PEER_BIN), "--stdio"], settings, init_options, _peer_version())


def _peer_version() -> str:
    package = PEER_DIR / "node_modules" / "vscode-langservers-extracted" / "package.json"
    service = PEER_DIR / "node_modules" / "vscode-json-languageservice" / "package.json"
    parts = []
    for path in (package, service):
        try:
            parts.append(f"{path.parent.name} {json.loads(path.read_text())['version']}")
        except (OSError, ValueError, KeyError):
            continue
    return ", ".join(parts)


# The server capability that offers each request method (an empty options object offers it too:
# the peer answers ``documentLinkProvider: {}``).
PROVIDERS = {
    "textDocument/diagnostic": "diagnosticProvider",
    "textDocument/documentSymbol": "documentSymbolProvider",
    "textDocument/foldingRange": "foldingRangeProvider",
    "textDocument/codeLens": "codeLensProvider",
    "textDocument/inlayHint": "inlayHintProvider",
    "textDocument/documentLink": "documentLinkProvider",
    "textDocument/codeAction": "codeActionProvider",
    "textDocument/hover": "hoverProvider",
    "textDocument/completion": "completionProvider",
    "textDocument/documentHighlight": "documentHighlightProvider",
    "textDocument/selectionRange": "selectionRangeProvider",
    "textDocument/semanticTokens/full": "semanticTokensProvider",
    "textDocument/semanticTokens/full/delta": "semanticTokensProvider",
    "textDocument/semanticTokens/range": "semanticTokensProvider",
    "textDocument/formatting": "documentFormattingProvider",
    "textDocument/definition": "definitionProvider",
    "textDocument/references": "referencesProvider",
    "textDocument/documentColor": "colorProvider",
}


def offers(capabilities: dict[str, Any], method: str) -> bool:
    """Whether a server's ``initialize`` capabilities offer ``method``."""
    if method == "workspace/diagnostic":
        provider = capabilities.get("diagnosticProvider")
        return isinstance(provider, dict) and bool(provider.get("workspaceDiagnostics"))
    key = PROVIDERS.get(method)
    return key is not None and capabilities.get(key) not in (None, False)


def initialize_params(root: Path, capabilities: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """The ``initialize`` params of a session on the repository ``root``: this process's id, the
    root as the one workspace folder, ``capabilities`` (``client_capabilities`` for the usual
    ones); ``extra`` adds or overrides members (``clientInfo``, ``initializationOptions`` …)."""
    uri = file_uri(root)
    params = {
        "processId": os.getpid(),
        "rootUri": uri,
        "workspaceFolders": [{"uri": uri, "name": root.name}],
        "capabilities": capabilities,
    }
    return {**params, **extra}


def client_capabilities(*, pull: bool, watch_files: bool = True) -> dict[str, Any]:
    """What VS Code offers for what these sessions use: UTF-16 positions, configuration, file
    watching by dynamic registration (the client never reports a change: nothing on disk changes
    during a run), and pull diagnostics when ``pull``."""
    text_document: dict[str, Any] = {
        "synchronization": {"dynamicRegistration": False, "didSave": True},
        "publishDiagnostics": {"relatedInformation": True, "versionSupport": True, "dataSupport": True},
    }
    workspace: dict[str, Any] = {
        "configuration": True,
        "workspaceFolders": True,
        "didChangeConfiguration": {"dynamicRegistration": False},
    }
    if watch_files:
        workspace["didChangeWatchedFiles"] = {"dynamicRegistration": True, "relativePatternSupport": True}
    text_document["completion"] = {
        "completionItem": {"snippetSupport": True, "documentationFormat": ["markdown", "plaintext"]},
        "contextSupport": True,
    }
    text_document["hover"] = {"contentFormat": ["markdown", "plaintext"]}
    if pull:
        text_document["diagnostic"] = {"dynamicRegistration": False, "relatedDocumentSupport": False}
        workspace["diagnostics"] = {"refreshSupport": True}
    return {
        "general": {"positionEncodings": ["utf-16"]},
        "workspace": workspace,
        "textDocument": text_document,
        "window": {"workDoneProgress": False},
    }


# ---------------------------------------------------------------------------------------------
# Sessions


@dataclass(slots=True)
class SessionResult:
    startup: float | None = None
    open_to_diagnostics: float | None = None
    single_edits: list[float] = field(default_factory=list)
    whole_edits: list[float] = field(default_factory=list)
    typing: list[float] = field(default_factory=list)
    peak_rss_kib: int | None = None
    open_diagnostics: list[dict[str, Any]] = field(default_factory=list)
    sync_kind: int | None = None
    position_encoding: str | None = None
    versioned_publishes: bool | None = None
    server_requests: dict[str, int] = field(default_factory=dict)
    error: str | None = None
    profile: str | None = None  # the pstats file of a --profile-server run
    editing: EditingResult | None = None  # completion and hover latency (pull sessions)


class Session:
    """One server process, one open document."""

    def __init__(
        self,
        spec: ServerSpec,
        path: Path,
        suite: Suite,
        *,
        pull: bool,
        log_dir: Path,
        watch_files: bool = True,
    ) -> None:
        self.spec = spec
        self.path = path
        self.uri = file_uri(path)
        self.repo_root = path.parents[3]
        self.suite = suite
        self.text = suite.text
        self.version = 1
        self.typed = 0  # characters typed at the edit offset so far
        self.pull = pull
        self.watch_files = watch_files
        self.result = SessionResult()
        mode = "pull" if pull else "push"
        stem = f"{spec.name}-{path.parents[3].name}-{mode}"
        argv = list(spec.argv)
        if PROFILE_PLACEHOLDER in argv:
            self.result.profile = str(log_dir / f"{stem}.prof")
            argv[argv.index(PROFILE_PLACEHOLDER)] = self.result.profile
        self.client = LspClient(
            argv,
            cwd=self.repo_root,
            settings=spec.settings,
            stderr_path=log_dir / f"{stem}.stderr.log",
        )
        self.sampler: RssSampler | None = None
        self.open_timeout, self.edit_timeout = timeouts_for(suite.size)
        self.server_capabilities: dict[str, Any] = {}

    def offers(self, method: str) -> bool:
        return offers(self.server_capabilities, method)

    async def start(
        self, capabilities: dict[str, Any] | None = None, client_info: dict[str, str] | None = None
    ) -> None:
        """Spawn, ``initialize`` (with ``capabilities``: by default what VS Code offers for these
        sessions, ``client_capabilities``), ``initialized`` and the settings."""
        await self.client.start()
        self.sampler = RssSampler(self.client.pid).start()
        if capabilities is None:
            capabilities = client_capabilities(pull=self.pull, watch_files=self.watch_files)
        params = initialize_params(
            self.repo_root,
            capabilities,
            clientInfo=client_info or {"name": "evalfix-bench", "version": "1"},
            rootPath=str(self.repo_root),
            initializationOptions=self.spec.init_options,
            trace="off",
        )
        init = await self.client.request("initialize", params, timeout=60)
        self.result.startup = init.received_at - self.client.spawned_at
        capabilities = (init.result or {}).get("capabilities", {})
        self.server_capabilities = capabilities
        sync = capabilities.get("textDocumentSync")
        self.result.sync_kind = sync.get("change") if isinstance(sync, dict) else sync
        self.result.position_encoding = capabilities.get("positionEncoding", "utf-16")
        if self.pull and "diagnosticProvider" not in capabilities:
            raise LspError("the server did not offer pull diagnostics (no diagnosticProvider)")
        await self.client.notify("initialized", {})
        await self.client.notify("workspace/didChangeConfiguration", {"settings": self.spec.settings})

    async def stop(self) -> None:
        if self.sampler is not None:
            self.result.peak_rss_kib = self.sampler.stop()
        self.result.server_requests = dict(self.client.log.server_requests)
        await self.client.stop()

    # -- pull ------------------------------------------------------------------------------

    async def pull(self) -> list[dict[str, Any]]:
        response = await self.client.request(
            "textDocument/diagnostic", {"textDocument": {"uri": self.uri}}, timeout=self.edit_timeout
        )
        report = response.result or {}
        return list(report.get("items") or [])

    async def open_pull(self) -> None:
        opened = self._did_open()
        start = time.perf_counter()
        await self.client.send(opened)
        response = await self.client.request(
            "textDocument/diagnostic", {"textDocument": {"uri": self.uri}}, timeout=self.open_timeout
        )
        self.result.open_to_diagnostics = response.received_at - start
        self.result.open_diagnostics = list((response.result or {}).get("items") or [])

    async def edit_pull(self, *, whole: bool) -> float:
        change = self._type_one(whole=whole)
        start = time.perf_counter()
        await self.client.send(change)
        response = await self.client.request(
            "textDocument/diagnostic", {"textDocument": {"uri": self.uri}}, timeout=self.edit_timeout
        )
        report_items(response)
        return response.received_at - start

    # -- push ------------------------------------------------------------------------------

    async def open_push(self) -> None:
        opened = self._did_open()
        mark = self.client.publish_mark(self.uri)
        start = time.perf_counter()
        await self.client.send(opened)
        published = await self.client.wait_for_publish(self.uri, mark=mark, timeout=self.open_timeout)
        self.result.open_to_diagnostics = published.received_at - start
        self.result.versioned_publishes = published.version is not None

    async def typing_burst(self) -> float:
        """``KEYSTROKES`` single-character edits ``KEYSTROKE_GAP`` apart; the time from the last
        one to the diagnostics for its version (for a server that publishes without versions:
        the first publish after the last keystroke)."""
        published: Published | None = None
        for stroke in range(KEYSTROKES):
            change = self._type_one(whole=False)
            if stroke < KEYSTROKES - 1:
                await self.client.send(change)
                await asyncio.sleep(KEYSTROKE_GAP)
                continue
            mark = self.client.publish_mark(self.uri)
            start = time.perf_counter()
            await self.client.send(change)
            published = await self.client.wait_for_publish(
                self.uri, mark=mark, timeout=self.edit_timeout, version=self.version, not_before=start
            )
            elapsed = published.received_at - start
        if published is not None and published.version is not None:
            self.result.versioned_publishes = True
        await asyncio.sleep(SETTLE)
        return elapsed

    # -- documents -------------------------------------------------------------------------

    def _did_open(self) -> bytes:
        return self.client.encode_notification(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": self.uri,
                    "languageId": "json",
                    "version": self.version,
                    "text": self.text,
                }
            },
        )

    def _type_one(self, *, whole: bool) -> bytes:
        """Insert one letter at the edit point (inside a prompt string, so the JSON stays valid)
        and encode the change: incremental, or the whole new text."""
        offset = self.suite.edit_offset + self.typed
        letter = "abcdefghij"[self.typed % 10]
        self.typed += 1
        return self.insert(offset, letter, whole=whole)

    def insert(self, offset: int, letter: str, *, whole: bool = False) -> bytes:
        """Insert ``letter`` at ``offset`` of the text; the encoded didChange (incremental, or the
        whole new text). Encoded before the clock starts, so client-side JSON encoding is not
        charged to the server."""
        line, character = lsp_position(self.text, offset)
        self.text = self.text[:offset] + letter + self.text[offset:]
        self.version += 1
        if whole or self.result.sync_kind == 1:
            changes: list[dict[str, Any]] = [{"text": self.text}]
        else:
            position = {"line": line, "character": character}
            changes = [{"range": {"start": position, "end": position}, "text": letter}]
        return self.client.encode_notification(
            "textDocument/didChange",
            {"textDocument": {"uri": self.uri, "version": self.version}, "contentChanges": changes},
        )


async def run_then_stop(session: Session, work: Callable[[], Awaitable[None]]) -> str | None:
    """Run ``work`` on ``session``, then stop its server whatever happened; the error, if any
    (a server that failed or died is a result to report, not a reason to stop the benchmark)."""
    try:
        await work()
    except (LspError, OSError) as exc:
        return str(exc)
    finally:
        await session.stop()
    return None


def prepare(label: str, *, noisy: bool = False) -> tuple[Path, Suite]:
    """The planted suite of ``label``; ``noisy``: laid out without the directories its cases copy
    from (a suite still being written: every case that names one carries findings)."""
    directory = f"planted-noisy-{label}" if noisy else f"planted-{label}"
    return prepare_suite(label, directory, planted=True, sources=not noisy)
