"""What a finding hands its quick fix: one dataclass per shape, written by the rule and read by the
fixer under the same names (the evals and workflow contracts used to say the same thing with
different words: "expected"/"allowed", "missing"/"member").

``Finding.data`` stays a JSON object, since it is copied into the editor's ``Diagnostic.data``
(the keys below are what a client sees there). A code action does not read it back from the
client: the server finds its own finding again (by code, pointer and case) and reads that one's
data. A shape writes itself into one (``fields``, merged with others when a finding carries
several) and reads itself back (``read``), None when the data does not hold it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeAlias

from ..json_value import JsonValue, is_json_value

# A finding's data as a fixer receives it (each value checked by the shape that reads it).
FixData: TypeAlias = Mapping[str, object]


@dataclass(frozen=True, slots=True)
class OneOf:
    """A value outside a closed set, or absent: the values allowed, and the one to put instead
    when one is clearly meant (None: let the user pick)."""

    allowed: tuple[JsonValue, ...]
    replacement: JsonValue = None

    def fields(self) -> dict[str, JsonValue]:
        data: dict[str, JsonValue] = {"allowed": list(self.allowed)}
        if self.replacement is not None:
            data["replacement"] = self.replacement
        return data

    @classmethod
    def read(cls, data: FixData) -> OneOf | None:
        allowed = data.get("allowed")
        replacement = data.get("replacement")
        if not isinstance(allowed, (list, tuple)) or not allowed or not is_json_value(replacement):
            return None
        return cls(tuple(value for value in allowed if is_json_value(value)), replacement)


@dataclass(frozen=True, slots=True)
class Missing:
    """A member absent from an object (the finding's pointer names the object or the case)."""

    member: str

    def fields(self) -> dict[str, JsonValue]:
        return {"missing": self.member}

    @classmethod
    def read(cls, data: FixData) -> Missing | None:
        member = data.get("missing")
        return cls(member) if isinstance(member, str) else None


@dataclass(frozen=True, slots=True)
class Replacement:
    """The one value to write in place of the finding's (the string JavaScript prints for a number,
    the form the loader accepts for one it rejects, a path relative to the right directory…)."""

    value: JsonValue

    def fields(self) -> dict[str, JsonValue]:
        return {"replacement": self.value}

    @classmethod
    def read(cls, data: FixData) -> Replacement | None:
        value = data.get("replacement")
        return cls(value) if value is not None and is_json_value(value) else None


@dataclass(frozen=True, slots=True)
class SiblingMember:
    """A member to set (add, or replace the value of) beside the finding's node, in the object that
    holds it: what makes the finding's member take effect (``"sandbox": "just-bash"`` for mocks)."""

    member: str
    value: JsonValue

    def fields(self) -> dict[str, JsonValue]:
        return {"set_member": self.member, "set_value": self.value}

    @classmethod
    def read(cls, data: FixData) -> SiblingMember | None:
        member, value = data.get("set_member"), data.get("set_value")
        if not isinstance(member, str) or value is None or not is_json_value(value):
            return None
        return cls(member, value)


@dataclass(frozen=True, slots=True)
class StringAssertion:
    """An assertion object that only holds a claim: the claim, for the plain string the judge grades."""

    claim: str

    def fields(self) -> dict[str, JsonValue]:
        return {"string_assertion": self.claim}

    @classmethod
    def read(cls, data: FixData) -> StringAssertion | None:
        claim = data.get("string_assertion")
        return cls(claim) if isinstance(claim, str) else None


@dataclass(frozen=True, slots=True)
class EquivalentSetup:
    """The ``setup`` object the loader derives from legacy ``files`` (the exact mapping it applies)."""

    setup: Mapping[str, JsonValue]

    def fields(self) -> dict[str, JsonValue]:
        return {"setup": self.setup}

    @classmethod
    def read(cls, data: FixData) -> EquivalentSetup | None:
        setup = data.get("setup")
        return cls(setup) if is_json_value(setup) and isinstance(setup, Mapping) else None


@dataclass(frozen=True, slots=True)
class WrittenPath:
    """The path a finding is about (one that names nothing, or leaves the repository), as written:
    relative to the directory its member is read from."""

    path: str

    def fields(self) -> dict[str, JsonValue]:
        return {"path": self.path}

    @classmethod
    def read(cls, data: FixData) -> WrittenPath | None:
        path = data.get("path")
        return cls(path) if isinstance(path, str) else None


@dataclass(frozen=True, slots=True)
class TagSuggestion:
    """A coverage tag as written and the valid tag it most likely meant (None: no close one)."""

    tag: str
    suggestion: str | None

    def fields(self) -> dict[str, JsonValue]:
        return {"tag": self.tag, "suggestion": self.suggestion}

    @classmethod
    def read(cls, data: FixData) -> TagSuggestion | None:
        tag = data.get("tag")
        suggestion = data.get("suggestion")
        if not isinstance(tag, str) or not (suggestion is None or isinstance(suggestion, str)):
            return None
        return cls(tag, suggestion)


@dataclass(frozen=True, slots=True)
class Rename:
    """A member to rename (``to``: its new name); ``key_start``/``key_end``: the offsets of its name
    when the object may hold several members the finding could mean."""

    to: str
    key_start: int | None = None
    key_end: int | None = None

    def fields(self) -> dict[str, JsonValue]:
        data: dict[str, JsonValue] = {"rename_to": self.to}
        if self.key_start is not None and self.key_end is not None:
            data["key_start"] = self.key_start
            data["key_end"] = self.key_end
        return data

    @classmethod
    def read(cls, data: FixData) -> Rename | None:
        to = data.get("rename_to")
        if not isinstance(to, str):
            return None
        key_start, key_end = data.get("key_start"), data.get("key_end")
        if isinstance(key_start, int) and isinstance(key_end, int):
            return cls(to, key_start, key_end)
        return cls(to)


@dataclass(frozen=True, slots=True)
class RepeatedKey:
    """One occurrence of a member name repeated in its object; ``last``: the one ``JSON.parse``
    keeps (every other is discarded)."""

    key: str
    last: bool

    def fields(self) -> dict[str, JsonValue]:
        return {"key": self.key, "last": self.last}

    @classmethod
    def read(cls, data: FixData) -> RepeatedKey | None:
        key, last = data.get("key"), data.get("last")
        return cls(key, last) if isinstance(key, str) and isinstance(last, bool) else None
