"""Which answers are superseded (``supersession.Supersession``): only one whose document changed and
whose method the client asked about the same document again, on the newer text."""

from __future__ import annotations

from evalfix_ls.lsp.scheduling.point_first import PointFirst
from evalfix_ls.lsp.scheduling.supersession import Supersession

SYMBOLS, FOLDING, HOVER = "textDocument/documentSymbol", "textDocument/foldingRange", "textDocument/hover"


class Store:
    def __init__(self) -> None:
        self.revision = 1

    def revision_of(self, uri: str) -> int | None:
        return self.revision if uri == "file:///a.json" else 9


def test_an_answer_asked_again_on_a_newer_text_is_superseded_and_only_then() -> None:
    store = Store()
    requests = Supersession(store.revision_of)
    requests.asked(1, SYMBOLS, "file:///a.json", whole=True)
    requests.asked(2, SYMBOLS, "file:///a.json", whole=True)  # asked again, same text
    requests.asked(3, FOLDING, "file:///a.json", whole=True)
    requests.asked(4, HOVER, "file:///a.json", whole=False)
    store.revision = 2  # a keystroke
    first, same_text = requests.answered(1), requests.answered(2)
    assert first is not None and same_text is not None
    assert not requests.superseded(first)  # the document changed, but nothing asked again yet
    requests.asked(5, SYMBOLS, "file:///a.json", whole=True)
    requests.asked(6, HOVER, "file:///a.json", whole=False)
    requests.asked(7, SYMBOLS, "file:///b.json", whole=True)
    assert requests.superseded(first) and requests.superseded(same_text)
    folding, hover, newest = requests.answered(3), requests.answered(4), requests.answered(5)
    assert folding is not None and not requests.superseded(folding)  # another method
    assert hover is not None and not requests.superseded(hover)  # one position: never
    assert newest is not None and not requests.superseded(newest)  # the latest itself
    assert requests.answered(1) is None  # forgotten once answered


def test_a_closed_documents_requests_are_forgotten() -> None:
    store = Store()
    requests = Supersession(store.revision_of)
    requests.asked(1, SYMBOLS, "file:///a.json", whole=True)
    first = requests.answered(1)
    store.revision = 2
    requests.asked(2, SYMBOLS, "file:///a.json", whole=True)
    requests.forget("file:///a.json")
    assert first is not None and not requests.superseded(first)


def test_point_requests_hold_document_wide_work_only_until_answered() -> None:
    """``PointFirst``: nothing gives way once every point request that began is answered; an id
    the protocol never read (None) does not begin one, or nothing would end it."""
    point_first = PointFirst()
    point_first.begin(None)
    assert not point_first.give_way()
    point_first.begin(1)
    point_first.begin(2)
    point_first.answered(1)
    point_first.answered(3)  # any request's answer passes here
    point_first.answered(2)
    assert not point_first.give_way()
