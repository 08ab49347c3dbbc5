"""``Hints``: the collector the workflow hint modules add their findings to, once per (code, anchor)."""

from __future__ import annotations

from collections.abc import Mapping

from ...findings import Finding, Related
from ...json_value import JsonValue
from .codes import WORKFLOW_CODES
from .values import Anchor


class Hints:
    """Collects findings, once per (code, anchor)."""

    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self._seen: set[tuple[str, str, int]] = set()

    def add(
        self,
        code: str,
        message: str,
        anchor: Anchor,
        case: int | None,
        data: Mapping[str, JsonValue] | None = None,
        related: tuple[Related, ...] = (),
    ) -> None:
        slot = (code, anchor.pointer, anchor.start)
        if slot in self._seen:
            return
        self._seen.add(slot)
        self.findings.append(
            Finding(
                code,
                WORKFLOW_CODES[code],
                message,
                anchor.pointer,
                anchor.start,
                anchor.end,
                case,
                data,
                related,
            )
        )
