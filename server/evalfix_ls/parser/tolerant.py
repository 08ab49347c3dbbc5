"""The recovering JSON parser: every syntax error, and a best-effort tree.

Used when the fast path in ``parser.parse`` finds the text invalid (or too deep / too large a
number for the stdlib's C parser). Containers live on an explicit stack, so nesting depth is
unbounded; each problem is recorded as a ``SyntaxIssue`` and the nearest sensible token is taken so
that one unclosed string or missing comma does not hide the rest of the file.
"""

from __future__ import annotations

from collections.abc import Callable

from .layout import line_and_indent, line_indent, starts_line_within
from .tokens import (
    KEY_COLON,
    LITERAL_KIND,
    LITERALS,
    T_BAD,
    T_DECODED_STRING,
    T_EOF,
    T_LITERAL,
    T_NUMBER,
    T_PUNCT,
    T_STRING,
    TOKEN,
    decode_string,
    slow_token,
    value_node,
)
from .tree import (
    ARRAY,
    NUMBER,
    OBJECT,
    SEPARATOR,
    STRING,
    DuplicateKey,
    Member,
    Node,
    ParseResult,
    SyntaxIssue,
    record_duplicate,
    unclosed,
)
from .values import string_of

# A missing separator is the container's error, reported on the first token of the next item (which
# may well be intact itself).
MISSING_COMMA_BEFORE_VALUE = "expected ',' or ']' before this value"
MISSING_COMMA_BEFORE_PROPERTY = "expected ',' or '}' before this property"

# Parser states of the container on top of the stack.
_OBJ_KEY_OR_END, _OBJ_KEY, _OBJ_COLON, _OBJ_VALUE, _OBJ_NEXT = range(5)
_ARR_VALUE_OR_END, _ARR_VALUE, _ARR_NEXT = range(5, 8)
_EXPECTS_VALUE = frozenset({_OBJ_VALUE, _ARR_VALUE, _ARR_VALUE_OR_END})


class _Frame:
    """A container the parser is inside: its node, the state it is in there, and where its last
    comma was (for a trailing comma's error); an array's also holds the list its items go to."""

    __slots__ = ("node", "state", "comma", "items")

    def __init__(self, node: Node, state: int) -> None:
        self.node = node
        self.state = state
        self.comma = -1  # no comma yet (read only in the states a comma leads to)
        items = node.items  # a list while a parser fills it (only moved trees hold lazy sequences)
        self.items = items if isinstance(items, list) else None

    def append_item(self, node: Node) -> None:
        items = self.items
        if items is not None:  # always, for the arrays' frames the grammar puts items in
            items.append(node)


def parse_tolerant(text: str) -> ParseResult:
    """The recovering state machine over the whole text: every syntax error, and a best-effort tree."""
    parser = TolerantParser(text)
    parser.run()
    return parser.result()


class TolerantParser:
    """The recovering state machine. ``parse_tolerant`` runs it from the start of a text; the
    incremental re-parse (``incremental``) starts it inside a container (``resumed``) and stops it
    where its state meets the previous parse's again (``watch``)."""

    __slots__ = (
        "text",
        "n",
        "errors",
        "duplicates",
        "_dup_index",
        "unclosed",
        "root",
        "stack",
        "pos",
        "pending",
        "implied_comma",
        "last_end",
        "limit",
        "watch_depth",
        "watch",
    )

    def __init__(self, text: str) -> None:
        self.text = text
        self.n = len(text)
        self.errors: list[SyntaxIssue] = []
        self.duplicates: list[DuplicateKey] = []
        self._dup_index: dict[tuple[int, str], int] = {}
        self.unclosed: list[int] = []  # starts of containers closed without their own closer
        self.root: Node | None = None
        # The open containers, outermost first
        self.stack: list[_Frame] = []
        self.pos = 0
        self.pending: Member | None = None  # member awaiting its value (top frame is an object)
        self.implied_comma = False  # the previous token was an unterminated string
        self.last_end = 0  # end of the previous token (where a container left open is closed)
        self.limit = self.n  # stop once a token ends beyond this offset
        self.watch_depth = -1  # call ``watch`` after each token while the stack is this deep or less
        self.watch: Callable[[], bool] = _never  # returns True to stop

    def result(self) -> ParseResult:
        return ParseResult(self.text, self.root, self.errors, self.duplicates, tuple(sorted(self.unclosed)))

    def run(self) -> None:
        """Read tokens until the end of the text (or until ``watch`` or ``limit`` stops it)."""
        text = self.text
        stack = self.stack
        token_match = TOKEN.match
        key_match = KEY_COLON.match
        limit = self.limit
        while True:
            pos = self.pos
            if stack:  # the common shape inside objects: `"name" :` in one match
                frame = stack[-1]
                if frame.state <= _OBJ_KEY:
                    m = key_match(text, pos)
                    if m is not None:
                        ks, ke = m.span(1)
                        self.pending = self._add_member(frame.node, decode_string(text, ks, ke), ks, ke)
                        frame.state = _OBJ_VALUE
                        pos = m.end()
            comma_implied = self.implied_comma
            self.implied_comma = False
            m = token_match(text, pos)
            value: object
            node: Node | None
            if m is not None:  # the common tokens, built here rather than in ``value_node``
                group = m.lastindex or 0  # each alternative of TOKEN is a group: never 0
                start, end = m.span(group)
                if group == 1:
                    tkind, value = T_STRING, None
                    node = Node(STRING, start, end, decode_string(text, start, end))
                elif group == 2:
                    number = float(m.group(2))
                    tkind, value = T_NUMBER, number
                    node = Node(NUMBER, start, end, number)
                elif group == 3:
                    word = m.group(3)
                    tkind, value = T_LITERAL, word
                    node = Node(LITERAL_KIND[word], start, end, LITERALS[word])
                else:
                    punct = m.group(4)
                    tkind, value = T_PUNCT, punct
                    node = value_node(text, tkind, start, end, punct) if punct in "{[" else None
            else:
                tkind, start, end, value = slow_token(text, pos, self.errors)
                if tkind == T_STRING and value is not None:
                    tkind = T_DECODED_STRING  # already decoded (lenient)
                    # An unterminated string probably swallowed the comma that followed it: do not
                    # report a second, "missing comma" error for the next value.
                    self.implied_comma = end == start + 1 or text[end - 1] != '"'
                node = value_node(text, tkind, start, end, value)
                if tkind == T_DECODED_STRING:
                    tkind = T_STRING
            self.pos = end
            if not self._step(tkind, start, end, value, node, comma_implied):
                return
            self.last_end = end
            if len(stack) <= self.watch_depth and self.watch():
                return
            if end > limit:
                return

    def _step(
        self, tkind: int, start: int, end: int, value: object, node: Node | None, comma_implied: bool
    ) -> bool:
        """Apply one token to the container on top of the stack; False at the end of the text."""
        stack = self.stack
        if not stack:
            return self._top_level(tkind, start, end, value, node)
        if tkind == T_EOF:
            self._at_eof()
            return False
        frame = stack[-1]
        state = frame.state
        if node is not None:
            if state in _EXPECTS_VALUE:
                # the common case, inline (a call per value costs the parse a few per cent): a
                # value where one is expected
                if state == _OBJ_VALUE:
                    pending = self.pending
                    if pending is not None:  # always: the name came first
                        pending.value = node
                else:
                    items = frame.items
                    if items is not None:  # always: an array's frame
                        items.append(node)
                self._enter_or_next(frame, node)
                return True
            if tkind == T_PUNCT and len(stack) > 1:  # '{' or '[' where the grammar rejects it
                top = self._close_left_open(frame, start)
                if top is not frame:  # the comma missing before it is part of the same mistake
                    frame, comma_implied, state = top, True, top.state
        if frame.node.kind == OBJECT:
            if state == _OBJ_VALUE:
                self._object_value(frame, start, end, value, node)
            elif state == _OBJ_COLON:
                self._object_colon(frame, tkind, start, end, value, node)
            elif state == _OBJ_NEXT:
                self._object_next(frame, tkind, start, end, value, node, comma_implied)
            else:
                self._object_key(frame, tkind, start, end, value, node)
        elif frame.state == _ARR_NEXT:
            self._array_next(frame, tkind, start, end, value, node, comma_implied)
        else:
            self._array_value(frame, start, end, value, node)
        return True

    # -- top level and the end of the text -------------------------------------------------------

    def _top_level(self, tkind: int, start: int, end: int, value: object, node: Node | None) -> bool:
        errors = self.errors
        if tkind == T_EOF:
            if self.root is None:
                errors.append(SyntaxIssue("empty document: expected a JSON value", self.n, self.n))
            return False
        if self.root is not None:
            if tkind != T_BAD:  # a bad token was reported already
                errors.append(
                    SyntaxIssue("unexpected content after the JSON value", start, max(end, start + 1))
                )
            return False
        if node is None:
            errors.append(SyntaxIssue(f"unexpected '{value}'; expected a JSON value", start, end))
            return True
        self.root = node
        if node.kind == OBJECT:
            self.stack.append(_Frame(node, _OBJ_KEY_OR_END))
        elif node.kind == ARRAY:
            self.stack.append(_Frame(node, _ARR_VALUE_OR_END))
        return True

    def _at_eof(self) -> None:
        stack, n = self.stack, self.n
        frame = stack[-1]
        container = frame.node
        closer = "}" if container.kind == OBJECT else "]"
        if frame.state in (_OBJ_VALUE, _OBJ_COLON) and container.kind == OBJECT:
            self.errors.append(SyntaxIssue("unexpected end of text: expected a value", n, n))
        self.errors.append(unclosed(closer, container.start, end_of_text=n))
        while stack:
            node = stack.pop().node
            node.end = n
            self.unclosed.append(node.start)

    # -- objects ---------------------------------------------------------------------------------

    def _object_value(self, frame: _Frame, start: int, end: int, value: object, node: Node | None) -> None:
        if node is not None:
            self._take_value(node)
            self._enter_or_next(frame, node)
        elif value == ",":
            self.errors.append(SyntaxIssue("expected a value before ','", start, end))
            frame.state = _OBJ_KEY
            frame.comma = start  # where a '}' right after it reports the trailing comma
        elif value == "}":
            self.errors.append(SyntaxIssue("expected a value before '}'", start, end))
            self._close_to(len(self.stack) - 1, end)
        elif value == "]" and (target := self._closing_target(ARRAY, start)) is not None:
            self._close_to(target, end)
        else:
            self.errors.append(SyntaxIssue(f"unexpected '{value}'; expected a value", start, end))

    def _object_key(
        self, frame: _Frame, tkind: int, start: int, end: int, value: object, node: Node | None
    ) -> None:
        container = frame.node
        if tkind == T_STRING:  # a key the fast path could not take (no colon follows)
            self.pending = self._add_member(container, string_of(node) or "", start, end)
            frame.state = _OBJ_COLON
            return
        if value == "}":
            if frame.state == _OBJ_KEY:
                self.errors.append(SyntaxIssue("trailing comma before '}'", frame.comma, frame.comma + 1))
            self._close_to(len(self.stack) - 1, end)
            return
        if tkind in (T_NUMBER, T_LITERAL, T_BAD):
            if tkind != T_BAD:
                self.errors.append(SyntaxIssue("property names must be strings in double quotes", start, end))
            self.pending = self._add_nameless(container, self.text[start:end], start, end)
            frame.state = _OBJ_COLON
            return
        self.errors.append(SyntaxIssue(f"unexpected '{value}'; expected a property name or '}}'", start, end))
        if value == "]" and (target := self._closing_target(ARRAY, start)) is not None:
            self._close_to(target, end)
        elif node is not None:  # '{' or '[' where a name belongs: keep it as a value
            self._nameless_member(frame, node, start)

    def _object_colon(
        self, frame: _Frame, tkind: int, start: int, end: int, value: object, node: Node | None
    ) -> None:
        if value == ":" and tkind == T_PUNCT:
            frame.state = _OBJ_VALUE
            return
        # At the token found instead, where V8 (JSON.parse) and Microsoft's JSON service put it.
        at_end = start + 1 if start < self.n else self.n
        self.errors.append(SyntaxIssue("expected ':' after the property name", start, at_end))
        if node is not None:
            self._take_value(node)
            self._enter_or_next(frame, node)
        elif value == ",":
            frame.state = _OBJ_KEY
            frame.comma = start
        elif value == "}":
            self._close_to(len(self.stack) - 1, end)

    def _object_next(
        self,
        frame: _Frame,
        tkind: int,
        start: int,
        end: int,
        value: object,
        node: Node | None,
        comma_implied: bool,
    ) -> None:
        if tkind == T_PUNCT and value == ",":
            frame.state = _OBJ_KEY
            frame.comma = start
        elif tkind == T_PUNCT and value == "}":
            self._close_to(len(self.stack) - 1, end)
        elif tkind == T_STRING:
            if not comma_implied:
                self.errors.append(SyntaxIssue(MISSING_COMMA_BEFORE_PROPERTY, start, end, SEPARATOR))
            self.pending = self._add_member(frame.node, string_of(node) or "", start, end)
            frame.state = _OBJ_COLON
        elif value == "]" and (target := self._closing_target(ARRAY, start)) is not None:
            self._close_to(target, end)
        else:
            if tkind != T_BAD:
                self.errors.append(
                    SyntaxIssue(f"unexpected {_describe(tkind, value)}; expected ',' or '}}'", start, end)
                )
            if node is not None and node.kind in (OBJECT, ARRAY):
                # Most likely a missing comma and name; keep the value so its contents parse.
                self._nameless_member(frame, node, start)

    def _nameless_member(self, frame: _Frame, node: Node, start: int) -> None:
        self.pending = self._add_nameless(frame.node, "", start, start)
        self.pending.value = node
        self._enter_or_next(frame, node)

    # -- arrays ----------------------------------------------------------------------------------

    def _array_next(
        self,
        frame: _Frame,
        tkind: int,
        start: int,
        end: int,
        value: object,
        node: Node | None,
        comma_implied: bool,
    ) -> None:
        if tkind == T_PUNCT and value == ",":
            frame.state = _ARR_VALUE
            frame.comma = start
        elif tkind == T_PUNCT and value == "]":
            self._close_to(len(self.stack) - 1, end)
        elif node is not None:
            if not comma_implied:
                self.errors.append(SyntaxIssue(MISSING_COMMA_BEFORE_VALUE, start, end, SEPARATOR))
            frame.append_item(node)
            self._enter_or_next(frame, node)
        elif value == "}" and (target := self._closing_target(OBJECT, start)) is not None:
            self._close_to(target, end)
        else:
            self.errors.append(SyntaxIssue(f"unexpected '{value}'; expected ',' or ']'", start, end))

    def _array_value(self, frame: _Frame, start: int, end: int, value: object, node: Node | None) -> None:
        if node is not None:
            frame.append_item(node)
            self._enter_or_next(frame, node)
        elif value == "]":
            if frame.state == _ARR_VALUE:
                self.errors.append(SyntaxIssue("trailing comma before ']'", frame.comma, frame.comma + 1))
            self._close_to(len(self.stack) - 1, end)
        elif value == "}" and (target := self._closing_target(OBJECT, start)) is not None:
            self._close_to(target, end)
        else:
            self.errors.append(SyntaxIssue(f"unexpected '{value}'; expected a value", start, end))

    # -- containers ------------------------------------------------------------------------------

    def _add_member(self, obj: Node, key: str, start: int, end: int) -> Member:
        member = Member(key, start, end)
        members, props = obj.members, obj.props
        if members is None or props is None:  # never: only an object's frame takes names
            return member
        members.append(member)
        if key in props:
            record_duplicate(self._dup_index, self.duplicates, obj, key, props[key], member)
        props[key] = member
        return member

    def _add_nameless(self, obj: Node, key: str, start: int, end: int) -> Member:
        """A member of ``obj`` that is not in ``props``: its name is not a string, or it has none
        (``JSON.parse`` would keep neither)."""
        member = Member(key, start, end)
        members = obj.members
        if members is not None:  # always: only an object's frame takes names
            members.append(member)
        return member

    def _take_value(self, node: Node) -> None:
        """``node`` is the value of the member whose name (and colon) came last."""
        pending = self.pending
        if pending is not None:  # always in the object states that expect a value
            pending.value = node

    def _enter_or_next(self, frame: _Frame, node: Node) -> None:
        """After a value was placed in ``frame``'s container: descend into it or expect a separator."""
        frame.state = _OBJ_NEXT if frame.node.kind == OBJECT else _ARR_NEXT
        kind = node.kind
        if kind == OBJECT:
            self.stack.append(_Frame(node, _OBJ_KEY_OR_END))
        elif kind == ARRAY:
            self.stack.append(_Frame(node, _ARR_VALUE_OR_END))

    def _close_to(self, frame_index: int, end: int) -> None:
        """Close every container from the top down to (and including) ``frame_index``; the ones
        above it had no closer of their own."""
        stack = self.stack
        while len(stack) > frame_index:
            node = stack.pop().node
            node.end = end
            if len(stack) > frame_index:  # an inner container closed implicitly
                self._report_unclosed(node)
        if stack:
            top = stack[-1]
            top.state = _OBJ_NEXT if top.node.kind == OBJECT else _ARR_NEXT

    def _report_unclosed(self, node: Node) -> None:
        closer = "}" if node.kind == OBJECT else "]"
        self.errors.append(unclosed(closer, node.start))
        self.unclosed.append(node.start)

    def _closing_target(self, kind: str, start: int) -> int | None:
        """The stack index of the container a closer that does not match the innermost container
        closes (the ones above it had no closer), or None to skip the closer as a stray one.

        On one line, the innermost container of its kind. A closer that starts a line closes the
        innermost container of its kind whose opening line is indented like it, and none if there
        is no such container: a case's closing brace left over after its assertion object lost its
        opening brace (a '"' typed before it) must not close the whole document."""
        stack = self.stack
        if not _has_open(stack, kind):
            return None
        text = self.text
        line, column = line_and_indent(text, start)
        if line + column != start:
            return _innermost(stack, kind)
        for index in range(len(stack) - 1, -1, -1):
            node = stack[index].node
            if node.kind == kind and line_indent(text, node.start) == column:
                return index
        return None

    def _close_left_open(self, frame: _Frame, start: int) -> _Frame:
        """Layout recovery, for a '{' or '[' that starts a line.

        The author is most likely typing a new case (``{"id": …``) before the next one: when the
        token is where an object expects a name, ':' or a separator, and is indented no deeper than
        the line where that object opened — or in an array, indented less than the line where the
        array opened — close the container there, so that the token (the next case) is read by the
        enclosing container instead of being swallowed. For objects only a token the grammar
        rejects anyway triggers this; in arrays, valid JSON is never indented that way by the
        tools that write it."""
        stack, text = self.stack, self.text
        while len(stack) > 1:
            node = frame.node
            if node.kind == OBJECT:
                if frame.state == _OBJ_VALUE or not starts_line_within(text, start, node.start, 0):
                    break
            elif frame.state != _ARR_NEXT or not (
                starts_line_within(text, start, node.start, 1) or self._offside(start)
            ):
                break  # a value where one is expected is never a reason: valid text stays as it is
            stack.pop()
            node.end = self.last_end
            self._report_unclosed(node)
            frame = stack[-1]
            frame.state = _OBJ_NEXT if frame.node.kind == OBJECT else _ARR_NEXT
        return frame

    def _offside(self, start: int) -> bool:
        """Is the token at ``start`` (first on its line) indented no deeper than the lines where the
        top container and every container down to a less indented one opened — and is there such
        a less indented one? Then it belongs to that one (a new case's ``"assertions": [`` left
        open before the next case); a document indented flat never has one."""
        text = self.text
        line, column = line_and_indent(text, start)
        if line + column != start:
            return False  # not the first token on its line
        for frame in reversed(self.stack):
            if line_indent(text, frame.node.start) < column:
                return frame is not self.stack[-1]
        return False


def resumed(text: str, ancestors: list[Node], container: Node, pos: int, after_item: bool) -> TolerantParser:
    """A parser at ``pos`` inside ``container`` (a fresh node holding what precedes ``pos``), in the
    state a full parse of ``text`` has there: every ancestor expects a separator, ``container`` a
    first item or key (``after_item``: a separator). The ancestors are stand-ins, so nothing the
    parser does reaches the caller's tree."""
    parser = TolerantParser(text)
    for node in ancestors:
        stand_in = Node(node.kind, node.start, node.end)
        if node.kind == OBJECT:
            stand_in.members, stand_in.props = [], {}
        else:
            stand_in.items = []
        parser.stack.append(_Frame(stand_in, _OBJ_NEXT if node.kind == OBJECT else _ARR_NEXT))
    if container.kind == OBJECT:
        state = _OBJ_NEXT if after_item else _OBJ_KEY_OR_END
    else:
        state = _ARR_NEXT if after_item else _ARR_VALUE_OR_END
    parser.stack.append(_Frame(container, state))
    parser.root = parser.stack[0].node
    parser.pos = parser.last_end = pos
    return parser


def at_item_boundary(parser: TolerantParser, container: Node) -> bool:
    """True when ``container`` (an array) is on top and has just taken a complete item."""
    top = parser.stack[-1] if parser.stack else None
    return top is not None and top.node is container and top.state == _ARR_NEXT and not parser.implied_comma


def _never() -> bool:
    return False


def _describe(tkind: int, value: object) -> str:
    if tkind == T_PUNCT:
        return f"'{value}'"
    return "value"


def _has_open(stack: list[_Frame], kind: str) -> bool:
    return any(frame.node.kind == kind for frame in stack)


def _innermost(stack: list[_Frame], kind: str) -> int:
    for i in range(len(stack) - 1, -1, -1):
        if stack[i].node.kind == kind:
            return i
    raise ValueError(kind)
