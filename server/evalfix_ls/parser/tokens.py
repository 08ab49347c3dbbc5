"""The tokens of the recovering JSON parser: the fast token patterns, and the slow path that
classifies (and reports) whatever they do not match — comments, a BOM, single quotes, bad words,
unterminated strings — as the nearest sensible token."""

from __future__ import annotations

import json.decoder
import re
from collections.abc import Callable

from .tree import ARRAY, BOOLEAN, INVALID, NULL, NUMBER, OBJECT, STRING, Node, SyntaxIssue

# The stdlib's string scanner (its C one when built): ``json.decoder`` defines it, typeshed does not
# declare it (a gap of the stubs, not of the code).
scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]

# -- lexical patterns ----------------------------------------------------------------------------
_WS = r"[ \t\n\r]*"
_STRING = r'"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"'
_NUMBER = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?(?![0-9A-Za-z_.+\-])"
_LITERAL = r"(?:true|false|null)(?![0-9A-Za-z_$])"

# One token after optional whitespace; the group number tells the token type.
TOKEN = re.compile(_WS + rf"(?:({_STRING})|({_NUMBER})|({_LITERAL})|([{{}}\[\],:]))")
# The common shape inside objects: `"name" :` in one match.
KEY_COLON = re.compile(_WS + rf"({_STRING}){_WS}:")
_SKIP_WS = re.compile(_WS)
_BAD_WORD = re.compile(r"[A-Za-z0-9_$+\-.]+")
_LINE_END = re.compile(r"[\n\r]")

LITERALS = {"true": True, "false": False, "null": None}
LITERAL_KIND = {"true": BOOLEAN, "false": BOOLEAN, "null": NULL}

# Token kinds produced by the slow path.
T_STRING, T_NUMBER, T_LITERAL, T_PUNCT, T_BAD, T_EOF, T_DECODED_STRING = range(7)


def decode_string(text: str, start: int, end: int) -> str:
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


def slow_token(text: str, pos: int, errors: list[SyntaxIssue]) -> tuple[int, int, int, object]:
    """Classify the text at ``pos`` when the fast token pattern failed.

    Returns (token kind, start, end, value). Malformed input is reported in ``errors`` and turned
    into the nearest sensible token so that parsing can continue.
    """
    n = len(text)
    while True:
        m = TOKEN.match(text, pos)
        if m is not None:  # back on track after a comment, BOM or stray whitespace
            return _classify(m)
        blank = _SKIP_WS.match(text, pos)  # matches always (maybe nothing)
        if blank is not None:
            pos = blank.end()
        if pos >= n:
            return T_EOF, n, n, None
        ch = text[pos]
        if ch == '"':
            value, end = _lenient_string(text, pos, errors)
            return T_STRING, pos, end, value
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
        if pos == 0 and _read_from_utf16(text):  # every later character would be an error too
            errors.append(SyntaxIssue(_UTF16, 0, 2))
            return T_BAD, 0, n, None  # the whole text: one error, not one per character
        if ch == "\ufeff" and pos == 0:
            errors.append(SyntaxIssue("byte order mark (BOM) at the start: JSON.parse rejects it", 0, 1))
            pos = 1
            continue
        if ch == "'":
            m = re.compile(r"'[^'\n\r]*'?").match(text, pos)
            end = m.end() if m else pos + 1
            errors.append(SyntaxIssue("strings must use double quotes", pos, end))
            return T_BAD, pos, end, text[pos + 1 : end - 1]
        m = _BAD_WORD.match(text, pos)
        if m:
            word = m.group()
            if word in ("NaN", "Infinity", "-Infinity", "+Infinity"):
                msg = f"'{word}' is not valid JSON (JSON has no NaN or Infinity)"
            elif word[:1] in "-+.0123456789":
                msg = f"invalid number '{word}'"
            elif word.lower() in LITERALS:
                msg = f"invalid literal '{word}'; JSON literals are lowercase true, false, null"
            else:
                msg = f"unexpected '{_shorten(word)}'; expected a JSON value"
            errors.append(SyntaxIssue(msg, pos, m.end()))
            return T_BAD, pos, m.end(), word
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


_UTF16 = (
    "the file is UTF-16 (it starts with a UTF-16 byte order mark): Node reads it as UTF-8, so "
    "JSON.parse fails; re-save it as UTF-8"
)


def _read_from_utf16(text: str) -> bool:
    """A UTF-16 file read as UTF-8 (as Node's ``readFile(path, "utf-8")`` does): its byte order
    mark (FF FE or FE FF) became two U+FFFD, and each ASCII character came with a NUL."""
    return text.startswith("\ufffd\ufffd") and "\x00" in text[2:6]


def _classify(m: re.Match[str]) -> tuple[int, int, int, object]:
    group = m.lastindex or 0  # each alternative of TOKEN is a group: never 0
    start, end = m.span(group)
    if group == 1:
        return T_STRING, start, end, None
    if group == 2:
        return T_NUMBER, start, end, float(m.group(2))
    if group == 3:
        return T_LITERAL, start, end, m.group(3)
    return T_PUNCT, start, end, m.group(4)


def _shorten(word: str, limit: int = 40) -> str:
    return word if len(word) <= limit else word[: limit - 1] + "…"


def value_node(text: str, tkind: int, start: int, end: int, value: object) -> Node | None:
    """The node a value token makes (None for punctuation other than an opening bracket)."""
    if tkind == T_STRING:
        return Node(STRING, start, end, decode_string(text, start, end))
    if tkind == T_DECODED_STRING:
        return Node(STRING, start, end, value)
    if tkind == T_NUMBER:
        return Node(NUMBER, start, end, value)
    if tkind == T_LITERAL and isinstance(value, str):
        return Node(LITERAL_KIND[value], start, end, LITERALS[value])
    if tkind == T_BAD:
        return Node(INVALID, start, end, value)
    if tkind == T_PUNCT:
        if value == "{":
            node = Node(OBJECT, start, end)
            node.members = []
            node.props = {}
            return node
        if value == "[":
            node = Node(ARRAY, start, end)
            node.items = []
            return node
    return None
