"""Tolerant, positioned JSON parser.

Produces a tree in which every value and member name keeps its character offsets, collects every
syntax error (with recovery, so one unclosed string or missing comma does not hide the rest of the
file) and never recurses on nesting depth: containers live on an explicit stack, so 100,000-deep
arrays parse like any other file.

Semantics follow JavaScript's ``JSON.parse``: no NaN/Infinity, no BOM, no comments, no trailing
commas; numbers are IEEE doubles (a 400-digit integer overflows to ``inf`` instead of raising);
duplicate member names keep the last value and every occurrence is recorded.

Speed matters (the whole analysis must stay within a small multiple of ``json.loads``): tokens are
matched by compiled regular expressions, string bodies without escapes are plain slices, and escaped
strings are decoded by the stdlib's C ``scanstring``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from json.decoder import scanstring

OBJECT = "object"
ARRAY = "array"
STRING = "string"
NUMBER = "number"
BOOLEAN = "boolean"
NULL = "null"
INVALID = "invalid"  # a value token that is not JSON (NaN, 'single', an identifier…)


class Node:
    """A JSON value with its offsets ``[start, end)`` in the document text (code points).

    ``value`` is the decoded scalar for strings (``str``), numbers (``float``), booleans and null
    (``None``). Objects keep ``members`` (every occurrence, in order) and ``props`` (name → the last
    member with that name, as ``JSON.parse`` keeps it). Arrays keep ``items``.
    """

    __slots__ = ("kind", "start", "end", "value", "members", "props", "items")

    def __init__(self, kind: str, start: int, end: int, value: object = None) -> None:
        self.kind = kind
        self.start = start
        self.end = end
        self.value = value
        self.members: list[Member] | None = None
        self.props: dict[str, Member] | None = None
        self.items: list[Node] | None = None

    # -- convenience for rules ---------------------------------------------------------------
    def get(self, name: str) -> Node | None:
        """The value of member ``name`` (the last one, as JS keeps it), or None if absent."""
        props = self.props
        if props is None:
            return None
        member = props.get(name)
        return None if member is None else member.value

    def has(self, name: str) -> bool:
        props = self.props
        return props is not None and name in props

    def member(self, name: str) -> Member | None:
        props = self.props
        return None if props is None else props.get(name)

    @property
    def is_object(self) -> bool:
        return self.kind == OBJECT

    @property
    def is_array(self) -> bool:
        return self.kind == ARRAY

    @property
    def is_string(self) -> bool:
        return self.kind == STRING

    @property
    def is_number(self) -> bool:
        return self.kind == NUMBER

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Node({self.kind}, {self.start}, {self.end}, {self.value!r})"


class Member:
    """One ``"name": value`` pair. ``value`` is None when recovery found no value."""

    __slots__ = ("key", "key_start", "key_end", "value")

    def __init__(self, key: str, key_start: int, key_end: int, value: Node | None = None) -> None:
        self.key = key
        self.key_start = key_start
        self.key_end = key_end
        self.value = value


@dataclass(frozen=True, slots=True)
class SyntaxIssue:
    """A place where ``JSON.parse`` would throw. ``start == end`` marks a zero-width position."""

    message: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class DuplicateKey:
    """Every occurrence of a member name that appears more than once in one object."""

    key: str
    occurrences: tuple[tuple[int, int], ...]  # (key_start, key_end) of each occurrence


@dataclass(slots=True)
class ParseResult:
    text: str
    root: Node | None
    errors: list[SyntaxIssue]
    duplicates: list[DuplicateKey]

    @property
    def ok(self) -> bool:
        return not self.errors


# -- lexical patterns ----------------------------------------------------------------------------
_WS = r"[ \t\n\r]*"
_STRING = r'"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"'
_NUMBER = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?(?![0-9A-Za-z_.+\-])"
_LITERAL = r"(?:true|false|null)(?![0-9A-Za-z_$])"

# One token after optional whitespace; the group number tells the token type.
_TOKEN = re.compile(_WS + rf"(?:({_STRING})|({_NUMBER})|({_LITERAL})|([{{}}\[\],:]))")
# The common shape inside objects: `"name" :` in one match.
_KEY_COLON = re.compile(_WS + rf"({_STRING}){_WS}:")
_SKIP_WS = re.compile(_WS)
_BAD_WORD = re.compile(r"[A-Za-z0-9_$+\-.]+")
_LINE_END = re.compile(r"[\n\r]")

_LITERALS = {"true": True, "false": False, "null": None}
_LITERAL_KIND = {"true": BOOLEAN, "false": BOOLEAN, "null": NULL}

# Parser states of the container on top of the stack.
_OBJ_KEY_OR_END, _OBJ_KEY, _OBJ_COLON, _OBJ_VALUE, _OBJ_NEXT = range(5)
_ARR_VALUE_OR_END, _ARR_VALUE, _ARR_NEXT = range(5, 8)

# Token kinds produced by the slow path.
_T_STRING, _T_NUMBER, _T_LITERAL, _T_PUNCT, _T_BAD, _T_EOF, _T_DECODED_STRING = range(7)


def _decode_string(text: str, start: int, end: int) -> str:
    """Decode a well-formed string token spanning ``[start, end)`` (quotes included)."""
    body = text[start + 1 : end - 1]
    if "\\" not in body:
        return body
    return scanstring(text, start + 1, True)[0]


def _lenient_string(text: str, start: int, errors: list[SyntaxIssue]) -> tuple[str, int]:
    """Scan a malformed string starting at ``start`` (a quote). Report each problem, return
    the best-effort value and the end offset. An unterminated string ends at the line end so
    that the rest of the file is still parsed."""
    n = len(text)
    i = start + 1
    pieces: list[str] = []
    while i < n:
        ch = text[i]
        if ch == '"':
            return "".join(pieces), i + 1
        if ch == "\\":
            esc = text[i + 1] if i + 1 < n else ""
            if esc in '"\\/bfnrt' and esc:
                pieces.append(_SIMPLE_ESCAPES[esc])
                i += 2
                continue
            if esc == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", text[i + 2 : i + 6] or ""):
                pieces.append(chr(int(text[i + 2 : i + 6], 16)))
                i += 6
                continue
            if esc in ("\n", "\r", ""):
                break
            errors.append(SyntaxIssue(f"invalid escape sequence '\\{esc}' in string", i, i + 2))
            pieces.append(esc)
            i += 2
            continue
        if ch in "\n\r":
            break
        if ch < " ":
            errors.append(
                SyntaxIssue(f"control character U+{ord(ch):04X} must be escaped inside a string", i, i + 1)
            )
        pieces.append(ch)
        i += 1
    errors.append(SyntaxIssue("unterminated string: missing closing quote", start, i))
    return "".join(pieces), i


_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _slow_token(text: str, pos: int, errors: list[SyntaxIssue]) -> tuple[int, int, int, object]:
    """Classify the text at ``pos`` when the fast token pattern failed.

    Returns (token kind, start, end, value). Malformed input is reported in ``errors`` and turned
    into the nearest sensible token so that parsing can continue.
    """
    n = len(text)
    while True:
        m = _TOKEN.match(text, pos)
        if m is not None:  # back on track after a comment, BOM or stray whitespace
            return _classify(m)
        pos = _SKIP_WS.match(text, pos).end()
        if pos >= n:
            return _T_EOF, n, n, None
        ch = text[pos]
        if ch == '"':
            value, end = _lenient_string(text, pos, errors)
            return _T_STRING, pos, end, value
        if ch == "/" and pos + 1 < n and text[pos + 1] in "/*":
            if text[pos + 1] == "/":
                m = _LINE_END.search(text, pos)
                end = m.start() if m else n
            else:
                close = text.find("*/", pos + 2)
                end = n if close < 0 else close + 2
            errors.append(SyntaxIssue("comments are not allowed in JSON", pos, end))
            pos = end
            continue
        if ch == "\ufeff" and pos == 0:
            errors.append(SyntaxIssue("byte order mark (BOM) at the start: JSON.parse rejects it", 0, 1))
            pos = 1
            continue
        if ch == "'":
            m = re.compile(r"'[^'\n\r]*'?").match(text, pos)
            end = m.end() if m else pos + 1
            errors.append(SyntaxIssue("strings must use double quotes", pos, end))
            return _T_BAD, pos, end, text[pos + 1 : end - 1]
        m = _BAD_WORD.match(text, pos)
        if m:
            word = m.group()
            if word in ("NaN", "Infinity", "-Infinity", "+Infinity"):
                msg = f"'{word}' is not valid JSON (JSON has no NaN or Infinity)"
            elif word[:1] in "-+.0123456789":
                msg = f"invalid number '{word}'"
            elif word.lower() in _LITERALS:
                msg = f"invalid literal '{word}'; JSON literals are lowercase true, false, null"
            else:
                msg = f"unexpected '{_shorten(word)}'; expected a JSON value"
            errors.append(SyntaxIssue(msg, pos, m.end()))
            return _T_BAD, pos, m.end(), word
        if ch in " \t\n\r":  # unreachable: whitespace was skipped
            pos += 1
            continue
        if ch.isspace():
            errors.append(
                SyntaxIssue(
                    f"U+{ord(ch):04X} is not JSON whitespace (only space, tab, CR and LF are)",
                    pos,
                    pos + 1,
                )
            )
            pos += 1
            continue
        errors.append(SyntaxIssue(f"unexpected character {ch!r}", pos, pos + 1))
        pos += 1


def _classify(m: re.Match[str]) -> tuple[int, int, int, object]:
    group = m.lastindex
    start, end = m.span(group)
    if group == 1:
        return _T_STRING, start, end, None
    if group == 2:
        return _T_NUMBER, start, end, float(m.group(2))
    if group == 3:
        return _T_LITERAL, start, end, m.group(3)
    return _T_PUNCT, start, end, m.group(4)


def _shorten(word: str, limit: int = 40) -> str:
    return word if len(word) <= limit else word[: limit - 1] + "…"


def parse(text: str) -> ParseResult:
    """Parse ``text`` into a positioned tree, collecting every syntax error.

    Valid documents (the common case) take the fast path: the stdlib's C parser confirms validity,
    then one regex pass places every token. Anything it rejects (and deep nesting or huge integers,
    which it cannot handle) goes through the tolerant state machine, which recovers and reports.
    """
    try:
        json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return parse_tolerant(text)
    return _parse_valid(text)


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


# Valid JSON only: separators are skipped, a string followed by ':' is a member name.
_VALID_TOKEN = re.compile(
    r'[ \t\n\r,]*(?:("[^"\\]*(?:\\.[^"\\]*)*")[ \t\n\r]*(:)?'
    r"|(-?[0-9][0-9.eE+\-]*)|(true|false|null)|([{\[])|([}\]]))"
)
_VALID_LITERALS = {"true": (BOOLEAN, True), "false": (BOOLEAN, False), "null": (NULL, None)}


def _parse_valid(text: str) -> ParseResult:
    """Positions for text already known to be valid JSON: no error handling on the hot path."""
    duplicates: list[DuplicateKey] = []
    dup_index: dict[tuple[int, str], int] = {}
    root: Node | None = None
    current: Node | None = None
    stack: list[Node | None] = []
    pending: Member | None = None
    for m in _VALID_TOKEN.finditer(text):
        group = m.lastindex
        if group <= 2:
            start, end = m.span(1)
            value = text[start + 1 : end - 1]
            if "\\" in value:
                value = scanstring(text, start + 1, True)[0]
            if group == 2:
                pending = Member(value, start, end)
                current.members.append(pending)
                props = current.props
                if value in props:
                    _record_duplicate(dup_index, duplicates, current, value, props[value], pending)
                props[value] = pending
                continue
            node = Node(STRING, start, end, value)
        elif group == 3:
            start, end = m.span(3)
            node = Node(NUMBER, start, end, float(m.group(3)))
        elif group == 4:
            start, end = m.span(4)
            kind, value = _VALID_LITERALS[m.group(4)]
            node = Node(kind, start, end, value)
        elif group == 5:
            start = m.start(5)
            if text[start] == "{":
                node = Node(OBJECT, start, start + 1)
                node.members = []
                node.props = {}
            else:
                node = Node(ARRAY, start, start + 1)
                node.items = []
        else:
            current.end = m.end()
            current = stack.pop()
            continue
        if current is None:
            root = node
        elif current.items is None:
            pending.value = node
        else:
            current.items.append(node)
        if group == 5:
            stack.append(current)
            current = node
    return ParseResult(text, root, [], duplicates)


def parse_tolerant(text: str) -> ParseResult:
    """The recovering state machine: every syntax error, and a best-effort tree."""
    errors: list[SyntaxIssue] = []
    duplicates: list[DuplicateKey] = []
    dup_index: dict[tuple[int, str], int] = {}
    n = len(text)
    token_match = _TOKEN.match
    key_match = _KEY_COLON.match

    root: Node | None = None
    # Each frame: [container node, state, pending member (objects), last comma offset]
    stack: list[list] = []
    pos = 0
    pending: Member | None = None  # member awaiting its value (top frame is an object)
    implied_comma = False  # the previous token was an unterminated string

    def close_to(frame_index: int, end: int) -> None:
        # Close every container from the top down to (and including) ``frame_index``.
        while len(stack) > frame_index:
            frame = stack.pop()
            node = frame[0]
            node.end = end
            if len(stack) > frame_index:  # an inner container closed implicitly
                errors.append(
                    SyntaxIssue(
                        f"missing '{'}' if node.kind == OBJECT else ']'}' to close this {node.kind}",
                        node.start,
                        node.start + 1,
                    )
                )
        if stack:
            top = stack[-1]
            top[1] = _OBJ_NEXT if top[0].kind == OBJECT else _ARR_NEXT

    while True:
        # ---------------------------------------------------------------- fast key path
        if stack:
            frame = stack[-1]
            state = frame[1]
            if state in (_OBJ_KEY_OR_END, _OBJ_KEY):
                m = key_match(text, pos)
                if m is not None:
                    ks, ke = m.span(1)
                    key = _decode_string(text, ks, ke)
                    obj = frame[0]
                    pending = Member(key, ks, ke)
                    obj.members.append(pending)
                    props = obj.props
                    if key in props:
                        _record_duplicate(dup_index, duplicates, obj, key, props[key], pending)
                    props[key] = pending
                    frame[1] = _OBJ_VALUE
                    pos = m.end()
                    # fall through to read the value token
        # ---------------------------------------------------------------- next token
        comma_implied, implied_comma = implied_comma, False
        m = token_match(text, pos)
        if m is not None:
            group = m.lastindex
            start, end = m.span(group)
            pos = end
            if group == 1:
                tkind, value = _T_STRING, None
            elif group == 2:
                tkind, value = _T_NUMBER, float(m.group(2))
            elif group == 3:
                tkind, value = _T_LITERAL, m.group(3)
            else:
                tkind, value = _T_PUNCT, m.group(4)
        else:
            tkind, start, end, value = _slow_token(text, pos, errors)
            pos = end
            if tkind == _T_STRING and value is not None:
                tkind = _T_DECODED_STRING  # already decoded (lenient)
                # An unterminated string probably swallowed the comma that followed it: do not
                # report a second, "missing comma" error for the next value.
                unterminated = end == start + 1 or text[end - 1] != '"'
                implied_comma = unterminated

        # ------------------------------------------------------------ build value nodes
        node: Node | None = None
        if tkind == _T_STRING:
            node = Node(STRING, start, end, _decode_string(text, start, end))
        elif tkind == _T_DECODED_STRING:
            node = Node(STRING, start, end, value)
            tkind = _T_STRING
        elif tkind == _T_NUMBER:
            node = Node(NUMBER, start, end, value)
        elif tkind == _T_LITERAL:
            node = Node(_LITERAL_KIND[value], start, end, _LITERALS[value])
        elif tkind == _T_BAD:
            node = Node(INVALID, start, end, value)
        elif tkind == _T_PUNCT and (value == "{" or value == "["):
            node = Node(OBJECT if value == "{" else ARRAY, start, end)
            if value == "{":
                node.members = []
                node.props = {}
            else:
                node.items = []

        # ---------------------------------------------------------------- top level
        if not stack:
            if tkind == _T_EOF:
                if root is None:
                    errors.append(SyntaxIssue("empty document: expected a JSON value", n, n))
                break
            if root is not None:
                if tkind != _T_BAD:  # a bad token was reported already
                    errors.append(
                        SyntaxIssue("unexpected content after the JSON value", start, max(end, start + 1))
                    )
                break
            if node is None:
                errors.append(SyntaxIssue(f"unexpected '{value}'; expected a JSON value", start, end))
                continue
            root = node
            if node.kind == OBJECT:
                stack.append([node, _OBJ_KEY_OR_END, None])
            elif node.kind == ARRAY:
                stack.append([node, _ARR_VALUE_OR_END, None])
            continue

        frame = stack[-1]
        container = frame[0]
        state = frame[1]

        if tkind == _T_EOF:
            closer = "}" if container.kind == OBJECT else "]"
            if state in (_OBJ_VALUE, _OBJ_COLON):
                errors.append(SyntaxIssue("unexpected end of text: expected a value", n, n))
            errors.append(
                SyntaxIssue(
                    f"unexpected end of text: missing '{closer}' to close the {container.kind} "
                    f"opened at offset {container.start}",
                    n,
                    n,
                )
            )
            while stack:
                stack.pop()[0].end = n
            break

        if container.kind == OBJECT:
            if state == _OBJ_VALUE:
                if node is not None:
                    pending.value = node
                    _enter_or_next(stack, frame, node)
                    continue
                if value == ",":
                    errors.append(SyntaxIssue("expected a value before ','", start, end))
                    frame[1] = _OBJ_KEY
                    continue
                if value == "}":
                    errors.append(SyntaxIssue("expected a value before '}'", start, end))
                    close_to(len(stack) - 1, end)
                    continue
                if value == "]" and _has_open(stack, ARRAY):
                    close_to(_innermost(stack, ARRAY), end)
                else:
                    errors.append(SyntaxIssue(f"unexpected '{value}'; expected a value", start, end))
                continue
            if state in (_OBJ_KEY_OR_END, _OBJ_KEY):
                if tkind == _T_STRING:  # a key the fast path could not take (no colon follows)
                    pending = Member(node.value, start, end)
                    container.members.append(pending)
                    if node.value in container.props:
                        _record_duplicate(
                            dup_index,
                            duplicates,
                            container,
                            node.value,
                            container.props[node.value],
                            pending,
                        )
                    container.props[node.value] = pending
                    frame[1] = _OBJ_COLON
                    continue
                if value == "}":
                    if state == _OBJ_KEY:
                        errors.append(SyntaxIssue("trailing comma before '}'", frame[2], frame[2] + 1))
                    close_to(len(stack) - 1, end)
                    continue
                if tkind in (_T_NUMBER, _T_LITERAL, _T_BAD):
                    if tkind != _T_BAD:
                        errors.append(
                            SyntaxIssue("property names must be strings in double quotes", start, end)
                        )
                    word = text[start:end]
                    pending = Member(word, start, end)
                    container.members.append(pending)
                    frame[1] = _OBJ_COLON
                    continue
                errors.append(
                    SyntaxIssue(f"unexpected '{value}'; expected a property name or '}}'", start, end)
                )
                if value == "]" and _has_open(stack, ARRAY):
                    close_to(_innermost(stack, ARRAY), end)
                elif node is not None:  # '{' or '[' where a name belongs: keep it as a value
                    pending = Member("", start, start)
                    container.members.append(pending)
                    pending.value = node
                    _enter_or_next(stack, frame, node)
                continue
            if state == _OBJ_COLON:
                if value == ":" and tkind == _T_PUNCT:
                    frame[1] = _OBJ_VALUE
                    continue
                errors.append(
                    SyntaxIssue(
                        "expected ':' after the property name",
                        pending.key_end,
                        pending.key_end + 1 if pending.key_end < n else n,
                    )
                )
                if node is not None:
                    pending.value = node
                    _enter_or_next(stack, frame, node)
                elif value == ",":
                    frame[1] = _OBJ_KEY
                    frame[2] = start
                elif value == "}":
                    close_to(len(stack) - 1, end)
                continue
            # _OBJ_NEXT
            if value == "," and tkind == _T_PUNCT:
                frame[1] = _OBJ_KEY
                frame[2] = start
                continue
            if value == "}" and tkind == _T_PUNCT:
                close_to(len(stack) - 1, end)
                continue
            if tkind == _T_STRING:
                if not comma_implied:
                    errors.append(SyntaxIssue("expected ',' or '}' before this property", start, end))
                pending = Member(node.value, start, end)
                container.members.append(pending)
                if node.value in container.props:
                    _record_duplicate(
                        dup_index,
                        duplicates,
                        container,
                        node.value,
                        container.props[node.value],
                        pending,
                    )
                container.props[node.value] = pending
                frame[1] = _OBJ_COLON
                continue
            if value == "]" and _has_open(stack, ARRAY):
                close_to(_innermost(stack, ARRAY), end)
                continue
            if tkind != _T_BAD:
                errors.append(
                    SyntaxIssue(f"unexpected {_describe(tkind, value)}; expected ',' or '}}'", start, end)
                )
            if node is not None and node.kind in (OBJECT, ARRAY):
                # Most likely a missing comma and name; keep the value so its contents parse.
                pending = Member("", start, start, node)
                container.members.append(pending)
                _enter_or_next(stack, frame, node)
            continue

        # ------------------------------------------------------------------ arrays
        if state == _ARR_NEXT:
            if value == "," and tkind == _T_PUNCT:
                frame[1] = _ARR_VALUE
                frame[2] = start
                continue
            if value == "]" and tkind == _T_PUNCT:
                close_to(len(stack) - 1, end)
                continue
            if node is not None:
                if not comma_implied:
                    errors.append(SyntaxIssue("expected ',' or ']' before this value", start, end))
                container.items.append(node)
                _enter_or_next(stack, frame, node)
                continue
            if value == "}" and _has_open(stack, OBJECT):
                close_to(_innermost(stack, OBJECT), end)
            else:
                errors.append(SyntaxIssue(f"unexpected '{value}'; expected ',' or ']'", start, end))
            continue
        # _ARR_VALUE_OR_END / _ARR_VALUE
        if node is not None:
            container.items.append(node)
            _enter_or_next(stack, frame, node)
            continue
        if value == "]":
            if state == _ARR_VALUE:
                errors.append(SyntaxIssue("trailing comma before ']'", frame[2], frame[2] + 1))
            close_to(len(stack) - 1, end)
            continue
        if value == "}" and _has_open(stack, OBJECT):
            close_to(_innermost(stack, OBJECT), end)
        else:
            errors.append(SyntaxIssue(f"unexpected '{value}'; expected a value", start, end))

    return ParseResult(text, root, errors, duplicates)


def _describe(tkind: int, value: object) -> str:
    if tkind == _T_PUNCT:
        return f"'{value}'"
    return "value"


def _enter_or_next(stack: list[list], frame: list, node: Node) -> None:
    """After a value was placed in ``frame``'s container: descend into it or expect a separator."""
    kind = node.kind
    if kind == OBJECT:
        frame[1] = _OBJ_NEXT if frame[0].kind == OBJECT else _ARR_NEXT
        stack.append([node, _OBJ_KEY_OR_END, None])
    elif kind == ARRAY:
        frame[1] = _OBJ_NEXT if frame[0].kind == OBJECT else _ARR_NEXT
        stack.append([node, _ARR_VALUE_OR_END, None])
    else:
        frame[1] = _OBJ_NEXT if frame[0].kind == OBJECT else _ARR_NEXT


def _has_open(stack: list[list], kind: str) -> bool:
    return any(frame[0].kind == kind for frame in stack)


def _innermost(stack: list[list], kind: str) -> int:
    for i in range(len(stack) - 1, -1, -1):
        if stack[i][0].kind == kind:
            return i
    raise ValueError(kind)


def _record_duplicate(
    index: dict[tuple[int, str], int],
    duplicates: list[DuplicateKey],
    obj: Node,
    key: str,
    previous: Member,
    current: Member,
) -> None:
    slot = (id(obj), key)
    at = index.get(slot)
    if at is None:
        index[slot] = len(duplicates)
        duplicates.append(
            DuplicateKey(key, ((previous.key_start, previous.key_end), (current.key_start, current.key_end)))
        )
    else:
        old = duplicates[at]
        duplicates[at] = DuplicateKey(key, old.occurrences + ((current.key_start, current.key_end),))


# -- pointers and navigation -------------------------------------------------------------------


def escape_pointer_token(token: str | int) -> str:
    if isinstance(token, int):
        return str(token)
    return token.replace("~", "~0").replace("/", "~1")


def join_pointer(base: str, *tokens: str | int) -> str:
    return base + "".join("/" + escape_pointer_token(t) for t in tokens)


def resolve_pointer(root: Node | None, pointer: str) -> Node | None:
    """The node at an RFC 6901 pointer, or None."""
    node = root
    if pointer == "":
        return node
    for raw in pointer.split("/")[1:]:
        if node is None:
            return None
        token = raw.replace("~1", "/").replace("~0", "~")
        if node.kind == OBJECT:
            node = node.get(token)
        elif node.kind == ARRAY and token.isdigit():
            index = int(token)
            node = node.items[index] if index < len(node.items) else None
        else:
            return None
    return node


@dataclass(frozen=True, slots=True)
class PathStep:
    """One step from the root towards an offset: the container and how we went into it."""

    container: Node
    key: str | int  # member name or array index
    member: Member | None  # the member, for objects


def path_at(root: Node | None, offset: int) -> tuple[list[PathStep], Node | None, Member | None]:
    """Descend from the root to the innermost node containing ``offset``.

    Returns the steps taken, the innermost node (or None), and — when the offset lies on a member
    name — that member. Iterative, so any depth works; uses binary search in big containers.
    """
    steps: list[PathStep] = []
    node = root
    if node is None or not (node.start <= offset <= node.end):
        return steps, None, None
    while True:
        if node.kind == OBJECT and node.members:
            found = None
            for member in _candidates(node.members, offset, lambda m: m.key_start):
                value = member.value
                if member.key_start <= offset <= member.key_end:
                    steps.append(PathStep(node, member.key, member))
                    return steps, node, member
                if value is not None and value.start <= offset <= value.end:
                    found = member
                    break
            if found is None:
                return steps, node, None
            steps.append(PathStep(node, found.key, found))
            node = found.value
            continue
        if node.kind == ARRAY and node.items:
            found_index = -1
            items = node.items
            lo, hi = 0, len(items)
            while lo < hi:  # last item whose start <= offset
                mid = (lo + hi) // 2
                if items[mid].start <= offset:
                    lo = mid + 1
                else:
                    hi = mid
            for idx in (lo - 1, lo):
                if 0 <= idx < len(items) and items[idx].start <= offset <= items[idx].end:
                    found_index = idx
                    break
            if found_index < 0:
                return steps, node, None
            steps.append(PathStep(node, found_index, None))
            node = items[found_index]
            continue
        return steps, node, None


def _candidates(members: list[Member], offset: int, start_of) -> Iterator[Member]:
    """Members that may contain ``offset``: binary search on their start, then neighbours."""
    lo, hi = 0, len(members)
    while lo < hi:
        mid = (lo + hi) // 2
        if start_of(members[mid]) <= offset:
            lo = mid + 1
        else:
            hi = mid
    for idx in (lo - 1, lo, lo - 2):
        if 0 <= idx < len(members):
            yield members[idx]


def pointer_of(steps: list[PathStep]) -> str:
    return join_pointer("", *(step.key for step in steps))


def iter_nodes(root: Node | None) -> Iterator[Node]:
    """Every node of the tree, depth first, without recursion."""
    if root is None:
        return
    pending = [root]
    while pending:
        node = pending.pop()
        yield node
        if node.kind == OBJECT:
            pending.extend(m.value for m in reversed(node.members) if m.value is not None)
        elif node.kind == ARRAY:
            pending.extend(reversed(node.items))
