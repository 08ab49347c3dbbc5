"""What the client can do, read once from its ``initialize`` capabilities."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


def _get(obj: Any, *names: str) -> Any:
    for name in names:
        if obj is None:
            return None
        obj = getattr(obj, name, None)
    return obj


@dataclass(frozen=True, slots=True)
class ClientFeatures:
    pull: bool = False  # textDocument/diagnostic
    diagnostic_refresh: bool = False  # workspace/diagnostic/refresh
    related_information: bool = True
    watch_dynamic: bool = False  # workspace/didChangeWatchedFiles registration
    configuration: bool = False  # workspace/configuration
    configuration_dynamic: bool = False  # workspace/didChangeConfiguration registration
    work_done_progress: bool = False
    capabilities: Any = None  # the client's whole ClientCapabilities, for feature-specific checks

    def supports(self, *names: str) -> Any:
        """A capability by attribute path, e.g. ``supports("text_document", "document_symbol",
        "hierarchical_document_symbol_support")`` (None when the client did not say)."""
        return _get(self.capabilities, *names)

    @classmethod
    def from_capabilities(cls, caps: Any) -> ClientFeatures:
        related = _get(caps, "text_document", "publish_diagnostics", "related_information")
        return cls(
            pull=_get(caps, "text_document", "diagnostic") is not None,
            diagnostic_refresh=bool(_get(caps, "workspace", "diagnostics", "refresh_support")),
            # Pull clients take related information as part of the 3.17 report; push clients say.
            related_information=bool(related) or _get(caps, "text_document", "diagnostic") is not None,
            watch_dynamic=bool(_get(caps, "workspace", "did_change_watched_files", "dynamic_registration")),
            configuration=bool(_get(caps, "workspace", "configuration")),
            configuration_dynamic=bool(
                _get(caps, "workspace", "did_change_configuration", "dynamic_registration")
            ),
            work_done_progress=bool(_get(caps, "window", "work_done_progress")),
            capabilities=caps,
        )
