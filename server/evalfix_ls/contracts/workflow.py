"""The workflow eval fixture contract (specs/workflow-fixtures.md). Placeholder until the rules land."""

from __future__ import annotations

from ..findings import Finding


def check(ctx, extra: dict) -> list[Finding]:  # noqa: ANN001 - filled in by the workflow work
    return []
