"""Answers the client no longer needs, because it asked the same again on a newer text
(``Supersession``), and the requests it compares (``Asked``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Asked:
    """A request about a document: its id, method, document and that document's revision then."""

    msg_id: object
    method: str
    uri: str
    revision: int | None
    whole: bool  # about the whole document, not one position: may be superseded


class Supersession:
    """Which answers the client no longer needs: it asked the same method about the same document
    again, on a newer text.

    An editor asks for symbols, folding, lenses, links, hints, diagnostics … after every keystroke
    and, typing faster than a 2 MB suite is answered, gets the answers of the earlier keystrokes
    too: a megabyte of symbols or of diagnostics each, written one after the other into the pipe,
    which the client reads and parses in order, so a hover answered meanwhile waited behind
    all of them (traced: 150-350 ms of a hover's 200-400 ms under load). Such an answer describes
    a text the client no longer has and a newer request of the same kind is already on its way,
    so it is replaced by a short error: ``ContentModified``, for a diagnostic pull
    ``ServerCancelled`` without ``retriggerRequest`` (the newer pull answers). That is looked at
    twice: when the answer is ready (on the loop), and when the writer takes it from its queue
    (``transport.StreamWriter``: it may have waited there behind other large answers while the
    client typed on). An answer asked again on the same text is still right and is sent.

    ``asked`` runs on the loop when a request is read (the text it is about is the current one
    then), ``answered`` when its answer is ready."""

    def __init__(self, revision_of: Callable[[str], int | None]) -> None:
        self._revision_of = revision_of  # the current revision of an open document
        self._asked: dict[object, Asked] = {}  # by request id, until answered
        # (method, uri) -> the latest such request
        self._latest: dict[tuple[str, str], Asked] = {}

    def asked(self, msg_id: object, method: str, uri: str, *, whole: bool) -> None:
        asked = Asked(msg_id, method, uri, self._revision_of(uri), whole)
        self._asked[msg_id] = asked
        if whole:
            self._latest[(method, uri)] = asked

    def answered(self, msg_id: object) -> Asked | None:
        """The request ``msg_id`` was about, forgotten here (None: not one about a document)."""
        return self._asked.pop(msg_id, None)

    def superseded(self, asked: Asked) -> bool:
        """Whether the same method was asked about the same document again, on another text
        (revisions are never reused: another one means the text changed in between). Read by
        the writer thread too: one dict lookup."""
        latest = self._latest.get((asked.method, asked.uri)) if asked.whole else None
        return latest is not None and latest.msg_id != asked.msg_id and latest.revision != asked.revision

    def forget(self, uri: str) -> None:
        """The document was closed: its latest requests are no longer compared with."""
        for key in [key for key in self._latest if key[1] == uri]:
            del self._latest[key]
