"""``JsonValue``: a plain value that can be written into a JSON document — what a fix puts in
place of the user's value, what a finding hands the editor in ``Diagnostic.data``, the normalized
record of a workflow case. Read-only containers (``Sequence``/``Mapping``), so a ``list[str]`` or
a ``dict[str, str]`` is one too. It sits beside ``findings`` (below contracts/), since
``Finding.data`` is one.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from pathlib import PurePath
from typing import TypeAlias, TypeGuard

JsonValue: TypeAlias = str | int | float | bool | None | Sequence["JsonValue"] | Mapping[str, "JsonValue"]


def is_json_value(value: object) -> TypeGuard[JsonValue]:
    """Whether ``value`` is made of JSON scalars, sequences and string-keyed mappings only."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return True
    if isinstance(value, Mapping):
        return all(isinstance(key, str) and is_json_value(item) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return all(is_json_value(item) for item in value)
    return False


def same_json_values(left: object, right: object) -> bool:
    """``left == right`` for JSON values, without recursion: a fixture's value may nest deeper
    than Python's recursion limit, where ``==`` on nested containers raises ``RecursionError``."""
    pending = [(left, right)]
    while pending:
        one, other = pending.pop()
        if isinstance(one, Mapping) and isinstance(other, Mapping):
            if one.keys() != other.keys():
                return False
            pending.extend((one[key], other[key]) for key in one)
        elif isinstance(one, (list, tuple)) and isinstance(other, (list, tuple)):
            if len(one) != len(other):
                return False
            pending.extend(zip(one, other, strict=True))
        elif (
            isinstance(one, (Mapping, list, tuple))
            or isinstance(other, (Mapping, list, tuple))
            or one != other
        ):
            return False
    return True


def jsonable(value: object) -> JsonValue:
    """``value`` with every part JSON-serialisable (finding data may hold tuples, paths, enums)."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, enum.Enum):
        return jsonable(value.value)
    if isinstance(value, Mapping):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, PurePath):
        return value.as_posix()
    if isinstance(value, (set, frozenset)):
        return sorted((jsonable(item) for item in value), key=repr)
    if isinstance(value, Iterable):
        return [jsonable(item) for item in value]
    return str(value)
