"""The server on hostile texts, as an editor sends them: a byte order mark kept, NUL characters,
U+FFFD where the file had invalid bytes, CR-only and mixed line ends, a 5 MB single line, nesting
100,000 deep, megabyte strings. Every feature answers (an internal error fails the request, a hang
the test's timeout) and the findings sit exactly where they should, in UTF-16 units."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lsp_support import Session, make_repo, position_of
from lsprotocol import types

CASE = {"id": "A b", "prompt": "p 😀", "setup": {"kind": "Empty"}}
TEXT = json.dumps({"skill_name": "demo", "evals": [CASE]}, indent=2, ensure_ascii=False)
PROMPT = '"p 😀"'


def _mixed_line_ends(text: str) -> str:
    ends = ("\r\n", "\r", "\n")
    return "".join(line + ends[i % 3] for i, line in enumerate(text.split("\n")))


def _hostile_texts() -> dict[str, str]:
    clean = [{"id": f"c{i}", "prompt": "x 😀" * 10, "setup": {"kind": "empty"}} for i in range(45_000)]
    huge = {**CASE, "id": "a" * 1_000_000, "prompt": "p" * 5_000_000}
    return {
        "bom": "\ufeff" + TEXT,
        "nul-in-a-string": TEXT.replace(PROMPT, '"p\x00 😀"'),
        "nul-after-the-value": TEXT + "\x00",
        "replaced-bytes": TEXT.replace(PROMPT, '"p\ufffd\ufffd 😀"'),
        "cr-only": TEXT.replace("\n", "\r"),
        "mixed-line-ends": _mixed_line_ends(TEXT),
        "one-line-5mb": json.dumps({"skill_name": "demo", "evals": [*clean, CASE]}, ensure_ascii=False),
        "arrays-100000-deep": TEXT.replace(PROMPT, f'{PROMPT}, "metadata": ' + "[" * 100_000 + "]" * 100_000),
        "objects-100000-deep": TEXT.replace(
            PROMPT, f'{PROMPT}, "metadata": ' + '{"a": ' * 100_000 + "1" + "}" * 100_000
        ),
        "huge-strings": json.dumps({"skill_name": "demo", "evals": [huge]}),
    }


# Where JSON.parse fails (the one error), for the texts that do not parse.
SYNTAX_ERROR_AT = {"bom": lambda text: 0, "nul-in-a-string": lambda text: text.index("\x00")}
SYNTAX_ERROR_AT["nul-after-the-value"] = lambda text: len(text) - 1


@pytest.mark.parametrize("name", list(_hostile_texts()))
async def test_every_feature_answers_on_a_hostile_text(
    pull_session: Session, tmp_path: Path, name: str
) -> None:
    session, client = pull_session, pull_session.client
    root = make_repo(tmp_path / "repo")
    path = root / "skills/demo/evals/evals.json"
    path.parent.mkdir(parents=True)
    text = _hostile_texts()[name]
    path.write_text(text, encoding="utf-8", newline="")
    await session.initialize([root])
    uri = session.open(path, text)
    found = await session.diagnostics(uri)

    def start_of(code: str) -> list[tuple[int, int]]:
        return [(d.range.start.line, d.range.start.character) for d in found if d.code == code]

    if name in SYNTAX_ERROR_AT:
        assert start_of("json-invalid") == [position_of(text, SYNTAX_ERROR_AT[name](text), session.encoding)]
    if name != "nul-in-a-string":  # that case holds the syntax error: nothing else is read from it
        assert start_of("setup-kind-invalid") == [position_of(text, text.index('"Empty"'), session.encoding)]

    document = types.TextDocumentIdentifier(uri=uri)
    at = types.Position(*position_of(text, text.index('"Empty"'), session.encoding))
    whole = types.Range(types.Position(0, 0), types.Position(*position_of(text, len(text), session.encoding)))
    await client.text_document_document_symbol_async(types.DocumentSymbolParams(document))
    await client.text_document_folding_range_async(types.FoldingRangeParams(document))
    await client.text_document_selection_range_async(types.SelectionRangeParams(document, [at]))
    await client.text_document_hover_async(types.HoverParams(document, at))
    await client.text_document_completion_async(types.CompletionParams(document, at))
    await client.text_document_document_link_async(types.DocumentLinkParams(document))
    await client.text_document_inlay_hint_async(types.InlayHintParams(document, whole))
    await client.text_document_code_lens_async(types.CodeLensParams(document))
    context = types.CodeActionContext(diagnostics=list(found), only=[types.CodeActionKind.Source])
    actions = await client.text_document_code_action_async(types.CodeActionParams(document, whole, context))
    for action in actions or []:
        if isinstance(action, types.CodeAction) and action.edit is None:
            await client.code_action_resolve_async(action)
