"""What a finding hands its quick fix: one dataclass per shape, written by the rule and read by the
fixer under the same names (the evals and workflow contracts used to say the same thing with
different words: "expected"/"allowed", "missing"/"member").

``Finding.data`` stays a JSON object, since it travels to the editor in ``Diagnostic.data`` and
comes back with ``codeAction``: a shape writes itself into one (``fields``) and reads itself back
(``read``), None when the data does not hold it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class OneOf:
    """A value outside a closed set, or absent: the values allowed, and the one to put instead
    when one is clearly meant (None: let the user pick)."""

    allowed: tuple[Any, ...]
    replacement: Any = None

    def fields(self) -> dict[str, Any]:
        data: dict[str, Any] = {"allowed": list(self.allowed)}
        if self.replacement is not None:
            data["replacement"] = self.replacement
        return data

    @classmethod
    def read(cls, data: Mapping[str, Any]) -> OneOf | None:
        allowed = data.get("allowed")
        if not isinstance(allowed, (list, tuple)) or not allowed:
            return None
        return cls(tuple(allowed), data.get("replacement"))


@dataclass(frozen=True, slots=True)
class Missing:
    """A member absent from an object (the finding's pointer names the object or the case)."""

    member: str

    def fields(self) -> dict[str, Any]:
        return {"missing": self.member}

    @classmethod
    def read(cls, data: Mapping[str, Any]) -> Missing | None:
        member = data.get("missing")
        return cls(member) if isinstance(member, str) else None
