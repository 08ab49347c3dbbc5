"""``textDocument/inlayHint``, ``textDocument/codeLens`` and the ``evalfix.caseCommand`` command.

Both are switched by settings (``inlayHints``, ``codeLens``); inlay hints cover only the requested
range. Lenses are refreshed (``workspace/codeLens/refresh``) when the readiness of a skill can have
changed: the diagnostics of a sibling file were recomputed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from lsprotocol import types

from ...services.commands import CASE_COMMAND
from ..jsonrpc.encoded import EncodedResult
from . import FeatureServer, feature, json_text
from .context import FeatureContext

if TYPE_CHECKING:
    from ...services.inline_facts import CodeLens

logger = logging.getLogger("evalfix_ls")


def register(server: FeatureServer) -> None:
    # Neither reads findings: answered from the current text's tree without waiting for its analysis.
    hint_options = types.InlayHintOptions(resolve_provider=False)
    feature(server, types.TEXT_DOCUMENT_INLAY_HINT, hint_options, wait_for_analysis=False)(hints)
    lens_options = types.CodeLensOptions(resolve_provider=False)
    feature(server, types.TEXT_DOCUMENT_CODE_LENS, lens_options, wait_for_analysis=False)(lenses)

    server.diagnostics.index_listeners.append(_lens_refresher(server))

    @server.command(CASE_COMMAND)
    def case_command(ls: FeatureServer, *arguments: object) -> str:
        """``[skill dir, case id]`` → the command line that runs that case alone."""
        args = list(arguments)
        if len(args) == 1 and isinstance(args[0], list):  # some clients wrap the argument list
            args = args[0]
        match args:
            case [str() as skill_dir, str() as case_id]:
                from ...services.inline_facts import case_command_line

                return case_command_line(skill_dir, case_id)
        from pygls.exceptions import JsonRpcInvalidParams

        raise JsonRpcInvalidParams(message=f"{CASE_COMMAND} takes [skill directory, case id]")


LENS_REFRESH_DELAY = 0.5  # seconds: a burst of keystrokes in a sibling file is one refresh


def _lens_refresher(server: FeatureServer) -> Callable[[], None]:
    """A listener that asks the client to re-request code lenses (readiness may have changed),
    at most once per ``LENS_REFRESH_DELAY``, when the client supports the refresh request."""
    pending: list[asyncio.TimerHandle] = []

    async def refresh() -> None:
        pending.clear()
        try:
            await server.workspace_code_lens_refresh_async(None)
        except Exception:  # noqa: BLE001 - a client may refuse or be gone: the lenses stay as they are
            logger.debug("codeLens refresh refused", exc_info=True)

    def listener() -> None:
        if not server.client_features.supports("workspace", "code_lens", "refresh_support") or pending:
            return
        loop = asyncio.get_running_loop()
        pending.append(loop.call_later(LENS_REFRESH_DELAY, lambda: loop.create_task(refresh())))

    return listener


def hints(ctx: FeatureContext, params: types.InlayHintParams) -> list[types.InlayHint]:
    from ...services.inline_facts import inlay_hints

    if not ctx.config.inlay_hints:
        return []
    from .results import result_hints

    start = ctx.offset(params.range.start)
    end = ctx.offset(params.range.end)
    return [
        types.InlayHint(
            position=ctx.position(hint.offset),
            label=hint.label,
            tooltip=hint.tooltip or None,
            padding_left=True,
        )
        for hint in inlay_hints(ctx.document, start, end) + result_hints(ctx, start, end)
    ]


def lenses(ctx: FeatureContext, params: types.CodeLensParams) -> EncodedResult:
    """Written as JSON directly (``json_text``): a 10 MB suite has 7,500 lenses."""
    if not ctx.config.code_lens:
        return EncodedResult("[]")
    from ...contracts.detection import WORKFLOW
    from ...services.inline_facts import code_lenses
    from ...services.workspace_facts import WorkspaceFacts
    from .results import result_lenses

    # Only a workflow fixture's lens (readiness) reads the workspace facts; an eval suite's first
    # lenses do not wait for the workflow index to load (a walk of every folder below skills/,
    # 40,000 run-result files included: 4.8 s of a 5.6 s first lens, bench.results).
    facts = ctx.facts if ctx.document.kind == WORKFLOW else WorkspaceFacts.empty()
    found = code_lenses(ctx.document, facts) + result_lenses(ctx)
    # Each lens spans the opening brace of its object (a case, or the fixture): its range is its
    # start and the next character, and its JSON is that of the previous request while its title,
    # command and start (line, character) are the same (typing within a line moves no case).
    ctx.token.check_now()
    starts = ctx.snapshot.line_index.positions([lens.start for lens in found], ctx.encoding)
    previous = ctx.memos.lens_texts if ctx.memos is not None else {}
    kept: dict[tuple[object, ...], str] = {}
    texts = []
    for lens, start in zip(found, starts, strict=True):
        ctx.token.check()
        key = (lens.title, lens.command, lens.arguments, start)
        text = previous.get(key)
        if text is None:
            text = written_lens(lens, start)
        kept[key] = text
        texts.append(text)
    if ctx.memos is not None:
        ctx.memos.lens_texts = kept
    return EncodedResult(json_text.array(texts))


def written_lens(lens: CodeLens, start: tuple[int, int]) -> str:
    """A lens on an object's opening brace at ``start`` as JSON."""
    line, character = start
    rng = (
        f'{{"start": {{"line": {line}, "character": {character}}}, '
        f'"end": {{"line": {line}, "character": {character + 1}}}}}'
    )
    return _lens(lens, rng)


def _lens(lens: CodeLens, rng: str) -> str:
    arguments = json_text.array(map(json_text.string, lens.arguments)) if lens.command else None
    command = json_text.members(
        (
            ("title", json_text.string(lens.title)),
            ("command", json_text.string(lens.command or "")),
            ("arguments", arguments),
        )
    )
    return f'{{"range": {rng}, "command": {command}}}'
