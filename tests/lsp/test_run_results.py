"""Run results over stdio, in every client profile (UTF-8, UTF-16, UTF-32 positions; push and pull):
a lens per case, ✓/✗ hints after each assertion, failed assertions as diagnostics (source
``evalfix-ls results``), a hover with the evidence, stale marking after an edit, live updates when a
run writes new results (file events, or the server's poll for a client without them)."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
import results_trees as trees
from lsp_support import RawClient, Session, has_watchers, lsp_range, position_of
from lsprotocol import types

SOURCE = "evalfix-ls results"
MISSING = {"type": "file-exists", "path": "missing-😀.txt"}
JUDGED = "The reply greets 東京 😀"
CASES = [
    {"id": "東京 greeting", "prompt": "Greet 東京 😀", "assertions": [JUDGED, MISSING]},
    {"id": 2, "prompt": "q", "assertions": [JUDGED]},
]


def _workspace(tmp_path: Path) -> tuple[Path, Path]:
    root = trees.repo(tmp_path)
    skill = root / "skills" / "greeter"
    suite = trees.suite(skill, CASES)
    runs = skill / "evals-runs"
    trees.arc_run(runs / "2026-05-01T00-00-00-000Z", {"2": [(JUDGED, True, "older ok")]})
    trees.arc_run(
        runs / "2026-05-02T00-00-00-000Z",
        {"東京 greeting": [(JUDGED, True, "yes"), (MISSING, False, "No such file: `missing-😀.txt`")]},
    )
    return root, suite


def doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


async def lens_titles(session: Session, uri: str) -> list[str]:
    lenses = await session.client.text_document_code_lens_async(types.CodeLensParams(text_document=doc(uri)))
    return [lens.command.title for lens in lenses if lens.command and not lens.command.title.startswith("▶")]


async def hints(session: Session, uri: str) -> list[types.InlayHint]:
    text = session.texts[uri]
    whole = lsp_range(text, 0, len(text), session.encoding)
    return list(await session.client.text_document_inlay_hint_async(types.InlayHintParams(doc(uri), whole)))


def result_items(items: list[types.Diagnostic]) -> list[types.Diagnostic]:
    return [item for item in items if item.source == SOURCE]


async def test_lens_hints_hover_and_diagnostics_show_the_newest_result(
    session: Session, tmp_path: Path
) -> None:
    root, suite = _workspace(tmp_path)
    await session.initialize([root])
    uri = session.open(suite)
    text = session.texts[uri]
    tokyo, two = await lens_titles(session, uri)
    assert tokyo.startswith("1/2 passed · 41 s · 12.3k tokens · $0.12 · ")
    assert two.startswith(
        "no result in the newest run (2026-05-02T00-00-00-000Z) · from 2026-05-01T00-00-00-000Z: 1/1"
    )
    found = await hints(session, uri)
    judged = json.dumps(JUDGED, ensure_ascii=False)
    first_judged = text.index(judged)
    missing = text.index('"type": "file-exists"')
    missing_start, missing_end = text.rindex("{", 0, missing), text.index("}", missing) + 1
    judged_end = first_judged + len(judged)
    second_end = text.index(judged, judged_end) + len(judged)
    assert [(h.label, (h.position.line, h.position.character)) for h in found] == [
        ("✓", position_of(text, judged_end, session.encoding)),
        ("✗", position_of(text, missing_end, session.encoding)),
        ("✓", position_of(text, second_end, session.encoding)),
    ]
    (failed,) = result_items(await session.diagnostics(uri, lambda items: bool(result_items(items))))
    assert failed.severity == types.DiagnosticSeverity.Information
    assert failed.range == lsp_range(text, missing_start, missing_end, session.encoding)
    assert failed.message == "failed in run 2026-05-02T00-00-00-000Z: No such file: `missing-😀.txt`"
    line, character = position_of(text, missing_start + 3, session.encoding)
    hover = await session.client.text_document_hover_async(
        types.HoverParams(doc(uri), types.Position(line=line, character=character))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "✗ failed" in hover.contents.value and "No such file: `missing-😀.txt`" in hover.contents.value
    assert "assistant.md" in hover.contents.value and "outputs/" in hover.contents.value


async def test_an_edited_assertion_is_stale_not_failed(session: Session, tmp_path: Path) -> None:
    root, suite = _workspace(tmp_path)
    await session.initialize([root])
    uri = session.open(suite)
    await session.diagnostics(uri, lambda items: bool(result_items(items)))
    text = session.texts[uri]
    at = text.index("missing-😀.txt")
    text = session.edit(uri, at, at + len("missing"), "renamed")
    await session.diagnostics(uri, lambda items: not result_items(items))
    assert [h.label for h in await hints(session, uri)] == ["✓", "stale", "✓"]
    assert "1 stale" in (await lens_titles(session, uri))[0]
    line, character = position_of(text, at, session.encoding)
    hover = await session.client.text_document_hover_async(
        types.HoverParams(doc(uri), types.Position(line=line, character=character))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.value.startswith("**stale** — edited since the run")
    assert "✗ failed" in hover.contents.value  # what the run said of the assertion it graded there


async def test_compare_runs_in_a_bucket_show_the_delta(session: Session, tmp_path: Path) -> None:
    root, suite = _workspace(tmp_path)
    run = suite.parent.parent / "evals-runs" / "iteration-1" / "2026-05-03T00-00-00-000Z"
    trees.arc_compare_run(run, {"2": ([(JUDGED, True, "with")], [(JUDGED, False, "without")])})
    await session.initialize([root])
    uri = session.open(suite)
    tokyo, two = await lens_titles(session, uri)
    assert two.endswith("+1.00 vs without skill") and two.startswith("1/1 passed · 41 s")
    assert tokyo.startswith("no result in the newest run (iteration-1/2026-05-03T00-00-00-000Z)")


async def test_an_output_dir_root_and_the_severity_come_from_the_settings(
    session: Session, tmp_path: Path
) -> None:
    root, suite = _workspace(tmp_path)
    trees.arc_run(root / "out" / "greeter" / "2026-06-01T00-00-00-000Z", {"2": [(JUDGED, False, "late")]})
    await session.initialize([root], settings={"evals": {"results": ["out"], "resultDiagnostics": "warning"}})
    uri = session.open(suite)
    assert (await lens_titles(session, uri))[1].startswith("0/1 passed")
    items = result_items(await session.diagnostics(uri, lambda items: len(result_items(items)) == 2))
    assert {item.severity for item in items} == {types.DiagnosticSeverity.Warning}


async def test_result_diagnostics_can_be_switched_off(session: Session, tmp_path: Path) -> None:
    root, suite = _workspace(tmp_path)
    await session.initialize([root], settings={"evals": {"resultDiagnostics": "off"}})
    uri = session.open(suite)
    items = await session.diagnostics(uri)
    assert not result_items(items)
    assert len(await hints(session, uri)) == 3  # hints and lenses stay


SC_PROMPT = "Summarize 東京.csv 😀"


def _layout_a(iteration: Path, rows: list[dict[str, object]]) -> Path:
    """(a) one run per configuration, eval_metadata.json in the eval folder."""
    folder = iteration / "eval-0-quarterly"
    trees.dump(folder / "eval_metadata.json", {"eval_id": 1, "prompt": SC_PROMPT})
    return folder / "with_skill"


def _layout_b(iteration: Path, rows: list[dict[str, object]]) -> Path:
    """(b) run-K repeats; the folder tied to the case by its prompt."""
    folder = iteration / "quarterly"
    trees.dump(folder / "eval_metadata.json", {"eval_id": 0, "prompt": SC_PROMPT})
    return folder / "with_skill" / "run-1"


def _layout_c(iteration: Path, rows: list[dict[str, object]]) -> Path:
    """(c) the aggregator's older runs/eval-N/<config>/run-K/, no metadata: the folder number."""
    return iteration / "runs" / "eval-1" / "with_skill" / "run-1"


@pytest.mark.parametrize("layout", [_layout_a, _layout_b, _layout_c], ids=["a", "b", "c"])
async def test_skill_creator_layouts(session: Session, tmp_path: Path, layout: Callable[..., Path]) -> None:
    root = trees.repo(tmp_path)
    skill = root / "skills" / "csv"
    suite = trees.suite(skill, [{"id": 1, "prompt": SC_PROMPT, "expectations": ["A 😀", "B"]}])
    workspace = root / "skills" / "csv-workspace"
    old = [
        {"text": "A 😀", "passed": False, "evidence": "old"},
        {"text": "B", "passed": False, "evidence": "old"},
    ]
    trees.dump(_layout_a(workspace / "iteration-1", old) / "grading.json", {"expectations": old})
    rows = [
        {"text": "A 😀", "passed": True, "evidence": "a"},
        {"text": "B", "passed": False, "evidence": "b"},
    ]
    run = layout(workspace / "iteration-2", rows)
    trees.dump(run / "grading.json", {"expectations": rows})
    trees.dump(run / "timing.json", {"total_tokens": 41873, "duration_ms": 38140})
    await session.initialize([root])
    uri = session.open(suite)
    (title,) = await lens_titles(session, uri)
    assert title.startswith("1/2 passed · 38 s · 41.9k tokens · ")  # iteration-2, not iteration-1
    assert [h.label for h in await hints(session, uri)] == ["✓", "✗"]


async def test_a_new_run_updates_lenses_and_diagnostics_without_reopening(
    session: Session, tmp_path: Path
) -> None:
    root, suite = _workspace(tmp_path)
    await session.initialize([root])
    uri = session.open(suite)
    assert (await lens_titles(session, uri))[0].startswith("1/2 passed")
    await session.diagnostics(uri, lambda items: len(result_items(items)) == 1)
    run = suite.parent.parent / "evals-runs" / "2026-05-07T00-00-00-000Z"
    case = run / "eval----greeting"
    case.mkdir(parents=True)
    full = json.dumps(trees.grading("東京 greeting", [(JUDGED, True, "y"), (MISSING, True, "Found")]))
    (case / "grading.json").write_text(full[:40], encoding="utf-8")  # caught half written
    if has_watchers(session.profile):
        session.file_events((case / "grading.json", types.FileChangeType.Created))

    async def titles() -> list[str]:
        return await lens_titles(session, uri)

    # meanwhile the older run answers; no error anywhere
    assert "results being written" in (await titles())[0] or (await titles())[0].startswith("1/2")
    (case / "grading.json").write_text(full, encoding="utf-8")
    if has_watchers(session.profile):
        session.file_events((case / "grading.json", types.FileChangeType.Changed))
    latest: list[str] = []

    async def updated() -> bool:
        latest[:] = await titles()
        return latest[0].startswith("2/2 passed")

    await wait_until_async(updated, "the lens of the new run")
    await session.diagnostics(uri, lambda items: not result_items(items))


async def wait_until_async(
    condition: Callable[[], Awaitable[bool]], what: str, timeout: float = 15.0
) -> None:
    """Ask again until ``condition`` holds (the poll's period is 2 s: a bound, not a wait)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not await condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.1)


@pytest.mark.corpus
async def test_the_corpus_runs_show_what_their_readme_says(
    session: Session, tmp_path: Path, corpus_dir: Path
) -> None:
    """../shared/corpus/arc-runs (written by arc-skill-eval's own code), copied to tmp_path: each
    case from the run the spec's rule picks, with its verdicts."""
    import shutil

    root = shutil.copytree(corpus_dir / "arc-runs" / "repo", tmp_path / "repo")
    await session.initialize([root])
    uri = session.open(root / "skills" / "greeter" / "evals" / "evals.json")
    default, two, tokyo, empty = await lens_titles(session, uri)
    assert default.startswith("3/6 passed · ")
    newest = "no result in the newest run (2026-12-03T08-00-00-000Z) · from 2026-12-02T11-30-00-000Z: "
    assert two.startswith(newest + "3/3 passed") and two.endswith("+0.00 vs without skill")
    assert tokyo.startswith(newest + "1/2 passed")
    assert empty.startswith(newest + "no assertions graded")
    labels = [h.label for h in await hints(session, uri) if h.label in ("✓", "✗", "stale")]
    assert labels == ["✓", "✗", "✓", "✗", "✓", "✗"] + ["✓", "✓", "✓"] + ["✓", "✗"]
    failed = result_items(await session.diagnostics(uri, lambda items: len(result_items(items)) == 4))
    assert any("No such file: `missing-notes.txt`" in item.message for item in failed)


PROBE_SERVER = [sys.executable, str(Path(__file__).with_name("probe_server.py"))]


async def test_keystrokes_open_no_result_file(tmp_path: Path) -> None:
    """Counted in the server (the probe's ``result files read``), not timed: after the first
    lens, each keystroke's lenses, hints and diagnostics are answered from the results index."""
    root, suite = _workspace(tmp_path)
    client = await RawClient.start(*PROBE_SERVER)
    try:
        capabilities = {
            "textDocument": {"diagnostic": {"dynamicRegistration": False}},
            "workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}},
        }
        folders = [{"uri": root.as_uri(), "name": "repo"}]
        params = {"processId": None, "capabilities": capabilities, "workspaceFolders": folders}
        assert "result" in await client.request("initialize", params)
        client.notify("initialized", {})
        uri, text = suite.as_uri(), suite.read_text(encoding="utf-8")
        item = {"uri": uri, "languageId": "json", "version": 1, "text": text}
        client.notify("textDocument/didOpen", {"textDocument": item})
        document = {"textDocument": {"uri": uri}}

        async def features() -> list[str]:
            lenses = (await client.request("textDocument/codeLens", document))["result"]
            end = {"line": text.count("\n"), "character": 0}
            whole = {"start": {"line": 0, "character": 0}, "end": end}
            await client.request("textDocument/inlayHint", {**document, "range": whole})
            await client.request("textDocument/diagnostic", document)
            return [
                lens["command"]["title"] for lens in lenses if not lens["command"]["title"].startswith("▶")
            ]

        first = await features()
        assert first[0].startswith("1/2 passed")
        read = (await client.request("evalfix/test/state", {}))["result"]["result files read"]
        assert read == 4  # 東京's grading.json and timing.json in the newest run, case 2's in the older
        for version in range(2, 7):  # typing in the prompt of the first case
            at = text.index('"Greet ') + len('"Greet ')
            text = text[:at] + "x" + text[at:]
            change = {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}
            client.notify("textDocument/didChange", change)
            assert (await features())[0].startswith("1/2 passed")
        state = (await client.request("evalfix/test/state", {}))["result"]
        assert state["result files read"] == read
    finally:
        await client.close()


async def test_a_configuration_not_graded_yet_shows_its_timing_and_no_verdict(
    session: Session, tmp_path: Path
) -> None:
    """Example C's eval-1-empty-file: with_skill has only timing.json (not graded yet, or crashed),
    without_skill is graded. The hints asked for the whole file failed on it before (a verdict
    list shorter than the assertions)."""
    root = trees.repo(tmp_path)
    skill = root / "skills" / "csv"
    suite = trees.suite(skill, [{"id": 2, "prompt": "Summarize", "expectations": ["No rows", "No file"]}])
    folder = root / "skills" / "csv-workspace" / "iteration-2" / "eval-1-empty-file"
    trees.dump(folder / "eval_metadata.json", {"eval_id": 2, "prompt": "Summarize"})
    trees.dump(folder / "with_skill" / "run-1" / "timing.json", {"total_tokens": 12002, "duration_ms": 15020})
    rows = [
        {"text": "No rows", "passed": True, "evidence": "a"},
        {"text": "No file", "passed": False, "evidence": "b"},
    ]
    trees.dump(folder / "without_skill" / "run-1" / "grading.json", {"expectations": rows})
    await session.initialize([root])
    uri = session.open(suite)
    (title,) = await lens_titles(session, uri)
    assert title.startswith("not graded yet · 15 s · 12.0k tokens · ")
    assert await hints(session, uri) == []
    assert not result_items(await session.diagnostics(uri))


def test_a_fault_in_reading_results_leaves_the_other_items_but_a_stopped_request_stops() -> None:
    from pygls.exceptions import JsonRpcContentModified

    from evalfix_ls.lsp.features.results import _guarded
    from evalfix_ls.lsp.scheduling.request_runner import RequestStopped

    def broken() -> list[str]:
        raise KeyError("a result file of an unforeseen shape")

    assert _guarded(broken, ["fallback"], "test") == ["fallback"]
    for stop in (RequestStopped(), JsonRpcContentModified(message="changed")):

        def stopped(error: Exception = stop) -> list[str]:
            raise error

        with pytest.raises(type(stop)):
            _guarded(stopped, [], "test")
