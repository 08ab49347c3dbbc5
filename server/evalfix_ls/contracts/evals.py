"""The evals.json contract (specs/evals-json.md). Placeholder until the rules land."""

from __future__ import annotations

from ..findings import Finding


def check(ctx) -> list[Finding]:  # noqa: ANN001 - filled in by the evals contract work
    return []
