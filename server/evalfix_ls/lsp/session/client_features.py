"""What the client can do, read once from its ``initialize`` capabilities."""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types


def _get(obj: object, *names: str) -> object:
    """The capability at an attribute path of lsprotocol's objects (None where one is missing)."""
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
    snippets: bool = False  # completion items may carry snippet syntax
    completion_markdown: bool = False  # completion documentation may be markdown
    hover_markdown: bool = False
    vscode: bool = False  # knows VS Code's own commands (editor.action.triggerSuggest)
    capabilities: types.ClientCapabilities | None = None  # the client's whole, for feature-specific checks

    def supports(self, *names: str) -> object:
        """A capability by attribute path, e.g. ``supports("text_document", "document_symbol",
        "hierarchical_document_symbol_support")`` (None when the client did not say)."""
        return _get(self.capabilities, *names)

    @classmethod
    def from_capabilities(
        cls, caps: types.ClientCapabilities, client_info: types.ClientInfo | None = None
    ) -> ClientFeatures:
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
            snippets=bool(_get(caps, "text_document", "completion", "completion_item", "snippet_support")),
            completion_markdown=_markdown(
                _get(caps, "text_document", "completion", "completion_item", "documentation_format")
            ),
            hover_markdown=_markdown(_get(caps, "text_document", "hover", "content_format")),
            vscode=_is_vscode(client_info.name if client_info is not None else None),
        )


def _markdown(formats: object) -> bool:
    """Whether a list of ``MarkupKind`` (as lsprotocol structures ``*Format`` capabilities) has markdown."""
    if not isinstance(formats, list | tuple):
        return False
    return any(str(getattr(f, "value", f)) == "markdown" for f in formats)


def _is_vscode(name: str | None) -> bool:
    """VS Code and its forks name themselves "Visual Studio Code", "code-server", "VSCodium" …"""
    lowered = str(name or "").lower()
    return "visual studio code" in lowered or "code-server" in lowered or "vscod" in lowered
