"""The recovering JSON parser: every syntax error, and a best-effort tree.

Used when the fast path in ``jsontree.parse`` finds the text invalid (or too deep / too large a
number for the stdlib's C parser). Containers live on an explicit stack, so nesting depth is
unbounded; each problem is recorded as a ``SyntaxIssue`` and the nearest sensible token is taken so
that one unclosed string or missing comma does not hide the rest of the file.
"""

from __future__ import annotations

import re
from json.decoder import scanstring

from .tree import (
    ARRAY,
    BOOLEAN,
    INVALID,
    NULL,
    NUMBER,
    OBJECT,
    STRING,
    DuplicateKey,
    Member,
    Node,
    ParseResult,
    SyntaxIssue,
    record_duplicate,
)

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


def parse_tolerant(text: str) -> ParseResult:
    """The recovering state machine: every syntax error, and a best-effort tree."""
    # long-function: one state machine over the token stream, kept whole until the issue-15
    # rework of the tolerant parser splits it (the architecture test flags it without this line).
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

    def add_member(obj: Node, key: str, start: int, end: int) -> Member:
        member = Member(key, start, end)
        obj.members.append(member)
        props = obj.props
        if key in props:
            record_duplicate(dup_index, duplicates, obj, key, props[key], member)
        props[key] = member
        return member

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
                    pending = add_member(frame[0], key, ks, ke)
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
                    pending = add_member(container, node.value, start, end)
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
                pending = add_member(container, node.value, start, end)
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
