"""The bundled JSON Schemas (``schemas/``): the one source of field docs and enums.

In an installed wheel the schemas live inside the package (``evalfix_ls/schemas``); in a source
checkout they are read from the top-level ``schemas/`` folder.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

EVALS_SCHEMA = "evals.schema.json"
WORKFLOW_SCHEMA = "workflow-fixture.schema.json"


def schemas_dir() -> Path:
    packaged = Path(__file__).with_name("schemas")
    if packaged.is_dir():
        return packaged
    source = Path(__file__).resolve().parents[2] / "schemas"
    if source.is_dir():
        return source
    raise FileNotFoundError("evalfix-ls: bundled schemas not found (broken installation?)")


@cache
def load(name: str) -> dict[str, object]:
    with (schemas_dir() / name).open(encoding="utf-8") as handle:
        schema = json.load(handle)
    if not isinstance(schema, dict):
        raise ValueError(f"evalfix-ls: bundled schema {name} is not a JSON object (broken installation?)")
    return schema


def definition(name: str, def_name: str) -> dict[str, object]:
    """A named subschema from ``$defs``."""
    defs = load(name).get("$defs")
    subschema = defs.get(def_name) if isinstance(defs, dict) else None
    if not isinstance(subschema, dict):
        raise ValueError(f"evalfix-ls: {name}: $defs/{def_name} is not a schema (broken installation?)")
    return subschema


def enum(name: str, def_name: str) -> tuple[str, ...]:
    """The ``enum`` of a ``$defs`` entry (strings), in schema order."""
    values = definition(name, def_name).get("enum")
    if not isinstance(values, list) or not all(isinstance(value, str) for value in values):
        raise ValueError(
            f"evalfix-ls: {name}: $defs/{def_name} has no enum of strings (broken installation?)"
        )
    return tuple(values)


def enum_descriptions(name: str, def_name: str) -> dict[str, str]:
    """Value → description, from ``enumDescriptions`` (falls back to ``markdownEnumDescriptions``)."""
    sub = definition(name, def_name)
    texts = sub.get("enumDescriptions") or sub.get("markdownEnumDescriptions")
    pairs = zip(enum(name, def_name), texts if isinstance(texts, list) else [], strict=False)
    return {value: text for value, text in pairs if isinstance(text, str)}
