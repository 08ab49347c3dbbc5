"""Completion and hover latency, measured in ``bench.lsp``'s pull sessions (after its edits).

The point is a setup ``kind`` value in the middle of the suite (``"kind": "em|pty"``), where both
servers complete from the schema (the peer from ``schemas/evals.schema.json``):

* settled — ``textDocument/completion`` on a text whose analysis is done;
* after an edit — one letter typed at the point, then, as VS Code sends them, a diagnostic pull
  and the completion request at once; timed from the ``didChange`` to the completion answer (the
  analysis of that version is still running: the answer must not wait for it). The next sample
  deletes the letter again, so the text stays valid between samples;
* hover on the ``kind`` member name (settled).

Each sample is checked: a completion answer must offer ``empty`` (else the sample counts as a
failure, not a time).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

from bench.harness.generate import lsp_position
from bench.harness.session import EditingResult

KIND_VALUE = '"kind": "'
PAUSE = 0.25  # between after-edit samples: a typist's pause, so samples do not queue up
PENDING_TIMEOUT = 120.0  # the diagnostic pulls sent beside the completions, awaited at the end


@dataclass(frozen=True, slots=True)
class EditingPlan:
    settled: int
    after_edit: int
    hovers: int


EDITING_PLANS = {
    "20k": EditingPlan(30, 20, 20),
    "200k": EditingPlan(30, 20, 20),
    "2m": EditingPlan(20, 12, 12),
    "10m": EditingPlan(12, 8, 8),
}
QUICK_EDITING_PLANS = {
    "20k": EditingPlan(8, 6, 6),
    "200k": EditingPlan(8, 6, 6),
    "2m": EditingPlan(6, 4, 4),
    "10m": EditingPlan(4, 3, 3),
}


def completion_point(text: str) -> int:
    """Just after ``"em`` of a setup kind ``"empty"`` in the middle of the suite."""
    start = text.index(KIND_VALUE + "empty", len(text) // 2)
    return start + len(KIND_VALUE) + 2


def _position(text: str, offset: int) -> dict[str, int]:
    line, character = lsp_position(text, offset)
    return {"line": line, "character": character}


async def measure_editing(session: Any, plan: EditingPlan) -> EditingResult:
    """Run the three measurements on an open pull session (``bench.harness.session.Session``)."""
    result = EditingResult([], [], [], [])
    for _ in range(plan.settled):
        _count(result.completion, await _complete(session, result, completion_point(session.text)))
    pending: list[asyncio.Task[Any]] = []
    offset = completion_point(session.text)  # the samples type and delete a letter here
    for sample in range(plan.after_edit):
        change, cursor = _toggle_letter(session, offset, insert=sample % 2 == 0)
        # The cursor's position is computed before the clock starts, like the messages: counting
        # the lines up to the middle of a 10 MB text takes this client about 4 ms.
        position = _position(session.text, cursor)
        start = time.perf_counter()
        await session.client.send(change)
        pull = {"textDocument": {"uri": session.uri}}
        pending.append(
            asyncio.ensure_future(
                session.client.request("textDocument/diagnostic", pull, timeout=PENDING_TIMEOUT)
            )
        )
        _count(
            result.completion_after_edit,
            await _complete(session, result, cursor, since=start, position=position),
        )
        await asyncio.sleep(PAUSE)
    await asyncio.wait_for(asyncio.gather(*pending, return_exceptions=True), PENDING_TIMEOUT)
    for _ in range(plan.hovers):
        _count(result.hover, await _hover(session, result))
    return result


def _count(samples: list[float], elapsed: float | None) -> None:
    """A latency counts only for a right answer (a wrong one is in ``failures``, not timed)."""
    if elapsed is not None:
        samples.append(elapsed)


async def _complete(
    session: Any,
    result: EditingResult,
    offset: int,
    since: float | None = None,
    position: dict[str, int] | None = None,
) -> float | None:
    at = position if position is not None else _position(session.text, offset)
    params = {"textDocument": {"uri": session.uri}, "position": at}
    start = time.perf_counter() if since is None else since
    response = await session.client.request("textDocument/completion", params, timeout=session.edit_timeout)
    labels = _labels(response.result)
    if "empty" not in labels:
        result.failures.append(f"completion at {params['position']} without 'empty': {sorted(labels)[:8]}")
        return None
    return response.received_at - start


def _labels(answer: Any) -> set[str]:
    items = answer.get("items", []) if isinstance(answer, dict) else answer or []
    return {str(item.get("label", "")).strip('"') for item in items}


async def _hover(session: Any, result: EditingResult) -> float | None:
    offset = completion_point(session.text) - len(KIND_VALUE) - 1  # inside the member name
    params = {"textDocument": {"uri": session.uri}, "position": _position(session.text, offset)}
    start = time.perf_counter()
    response = await session.client.request("textDocument/hover", params, timeout=session.edit_timeout)
    if not response.result:
        result.failures.append(f"no hover at {params['position']}")
        return None
    return response.received_at - start


def _toggle_letter(session: Any, offset: int, *, insert: bool) -> tuple[bytes, int]:
    """Type ``x`` at ``offset`` (or delete the ``x`` typed there before); the encoded change and
    the cursor after it. Encoded before the clock starts."""
    text = session.text
    position = _position(text, offset)
    if insert:
        session.text = text[:offset] + "x" + text[offset:]
        rng, new_text, cursor = {"start": position, "end": position}, "x", offset + 1
    else:
        end = _position(text, offset + 1)
        session.text = text[:offset] + text[offset + 1 :]
        rng, new_text, cursor = {"start": position, "end": end}, "", offset
    session.version += 1
    changes = (
        [{"text": session.text}] if session.result.sync_kind == 1 else [{"range": rng, "text": new_text}]
    )
    message = session.client.encode_notification(
        "textDocument/didChange",
        {"textDocument": {"uri": session.uri, "version": session.version}, "contentChanges": changes},
    )
    return message, cursor
