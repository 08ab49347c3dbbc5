"""JavaScript regular-expression validity: would ``new RegExp(pattern, flags)`` throw in Node?

arc-skill-eval compiles every ``regex-match`` pattern with ``new RegExp`` (evals-json.md §9.3, §16).
Python's ``re`` is the wrong judge (it disagrees with Node on ~18% of patterns), so validity is
decided by ``corvus_regex_ecma262``, an ECMA-262 (ES2025) grammar. It only compiles; nothing here
ever runs a pattern against input.

Verdicts:

* ``flags`` — the flags break §16.1 (checked first, directly, so a finding can point at ``flags``);
* ``pattern`` — the pattern is invalid under its flags in every supported Node version;
* ``newer`` — valid for ES2025 engines (Node 24) but rejected by Node 20: a modifier group
  ``(?i:…)`` or a group name repeated in different alternatives (§16.2);
* ``unchecked`` — the validator cannot decide (over its size or nesting limits, §16.3);
* ``ok``.

Cost: ``is_valid`` answers in microseconds and is the fast path; ``compile`` (about 50× slower)
runs only for rejected patterns, to learn why. Verdicts are cached by (pattern, flags).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import corvus_regex_ecma262 as ecma

VALID_FLAGS = "dgimsuvy"

OK = "ok"
FLAGS = "flags"
PATTERN = "pattern"
NEWER = "newer"
UNCHECKED = "unchecked"

# Patterns longer than this are not given to the engine at all: corvus' own limit is 1 MiB of
# compiled size (a run of 16,385 literal characters already exceeds it), so nothing longer could
# be decided anyway, and the work stays bounded on hostile input.
MAX_PATTERN_CHARS = 64 * 1024
# Only short patterns are worth keeping in the cache (long ones would pin memory).
_CACHEABLE_CHARS = 4096

MODIFIER_GROUP = "modifier group"
DUPLICATE_GROUP_NAME = "duplicate named group"


@dataclass(frozen=True, slots=True)
class RegexVerdict:
    status: str  # OK, FLAGS, PATTERN, NEWER or UNCHECKED
    detail: str = ""  # the engine's message, the flags problem, or the newer feature found

    @property
    def ok(self) -> bool:
        return self.status == OK


_OK = RegexVerdict(OK)


def flags_problem(flags: str) -> str | None:
    """Why ``flags`` would make ``new RegExp`` throw (§16.1), or None when they are valid."""
    seen: set[str] = set()
    for flag in flags:
        if flag not in VALID_FLAGS:
            return f"unknown flag {flag!r} (allowed: {', '.join(VALID_FLAGS)})"
        if flag in seen:
            return f"flag {flag!r} is repeated"
        seen.add(flag)
    if "u" in seen and "v" in seen:
        return "flags 'u' and 'v' cannot be combined"
    return None


def check_regex(pattern: str, flags: str = "") -> RegexVerdict:
    """The verdict of ``new RegExp(pattern, flags)``; ``flags`` must be a string."""
    if len(pattern) > _CACHEABLE_CHARS:
        return _check_uncached(pattern, flags)
    return _check_cached(pattern, flags)


@lru_cache(maxsize=4096)
def _check_cached(pattern: str, flags: str) -> RegexVerdict:
    return _check_uncached(pattern, flags)


def forget_verdicts() -> None:
    """Empty the verdict cache (the patterns of documents no longer open)."""
    _check_cached.cache_clear()


def cached_verdicts() -> int:
    return _check_cached.cache_info().currsize


def _check_uncached(pattern: str, flags: str) -> RegexVerdict:
    problem = flags_problem(flags)
    if problem is not None:
        return RegexVerdict(FLAGS, problem)
    if len(pattern) > MAX_PATTERN_CHARS:
        return RegexVerdict(UNCHECKED, f"the pattern is longer than {MAX_PATTERN_CHARS} characters")
    if not ecma.is_valid(pattern, flags):
        # Rejected: compile to learn whether the grammar or a size limit said no.
        try:
            ecma.compile(pattern, flags)
        except ecma.error as exc:
            kind = getattr(exc, "kind", PATTERN)
            if kind == "too_large":
                return RegexVerdict(UNCHECKED, str(exc))
            if kind == "flags":  # not reachable after flags_problem; kept for engine drift
                return RegexVerdict(FLAGS, str(exc))
            return RegexVerdict(PATTERN, _engine_message(str(exc)))
        return _OK  # pragma: no cover - is_valid and compile disagree; trust compile
    feature = newer_syntax(pattern, "v" in flags)
    if feature is not None:
        return RegexVerdict(NEWER, feature)
    return _OK


def _engine_message(message: str) -> str:
    # corvus prefixes its crate name and repeats the pattern; keep the useful part.
    message = message.removeprefix("ecmaregex: ")
    cut = message.find(' in "')
    return message[:cut] if cut > 0 else message


# -- ES2025 features a Node 20 engine rejects --------------------------------------------------------

_MODIFIERS = re.compile(r"(?=[ims-])[ims]*(?:-[ims]*)?:")
_NAME_ESCAPE = re.compile(r"\\u\{([0-9a-fA-F]+)\}|\\u([0-9a-fA-F]{4})")


def newer_syntax(pattern: str, v_mode: bool) -> str | None:
    """The ES2025-only feature a pattern uses, for a pattern an ES2025 engine accepted.

    A small scanner that knows escapes and character classes (nested classes in ``v`` mode), so
    ``\\(?i:`` or ``[(?i:]`` are not mistaken for groups. It relies on the pattern being valid.
    """
    names: set[str] = set()
    n = len(pattern)
    i = 0
    depth = 0  # character-class nesting
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if depth:
            if ch == "]":
                depth -= 1
            elif ch == "[" and v_mode:
                depth += 1
            i += 1
            continue
        if ch == "[":
            depth = 1
        elif ch == "(" and i + 1 < n and pattern[i + 1] == "?":
            after = i + 2
            if pattern.startswith("<", after) and not pattern.startswith(("<=", "<!"), after):
                close = pattern.find(">", after)
                name = _decode_group_name(pattern[after + 1 : close])
                if name in names:
                    return DUPLICATE_GROUP_NAME
                names.add(name)
            elif _MODIFIERS.match(pattern, after):
                return MODIFIER_GROUP
        i += 1
    return None


def _decode_group_name(raw: str) -> str:
    if "\\" not in raw:
        return raw

    def unescape(match: re.Match[str]) -> str:
        return chr(int(match.group(1) or match.group(2), 16))

    decoded = _NAME_ESCAPE.sub(unescape, raw)
    # `\ud835\udc9c` spells one astral character as two escapes: join the halves.
    return decoded.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
