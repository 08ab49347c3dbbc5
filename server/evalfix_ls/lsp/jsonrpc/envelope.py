"""What JSON-RPC 2.0 requires of a message before LSP looks at it (pygls drops the rest silently).

``check`` returns why a decoded body is not a valid JSON-RPC message, and the id to answer with:
the message's own id when it is a valid one (so the client can match the answer), else null, as
JSON-RPC says for an id that cannot be determined.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeGuard


@dataclass(frozen=True, slots=True)
class Invalid:
    reason: str
    answer_id: int | str | None
    is_response: bool  # a response to one of our requests: log it, never answer it


def valid_id(value: object) -> TypeGuard[int | str]:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def check(data: object) -> Invalid | None:
    if not isinstance(data, dict):
        return Invalid(f"a message must be a JSON object, not {_json_type(data)}", None, False)
    msg_id = data.get("id")
    answer_id = msg_id if valid_id(msg_id) else None
    is_response = "method" not in data and ("result" in data or "error" in data)
    reason = _problem(data, is_response)
    return None if reason is None else Invalid(reason, answer_id, is_response)


def _problem(data: dict[str, object], is_response: bool) -> str | None:
    if data.get("jsonrpc") != "2.0":
        if "jsonrpc" not in data:
            return 'the message has no "jsonrpc" member (it must be "2.0")'
        return f'"jsonrpc" must be "2.0", not {data["jsonrpc"]!r}'
    if "id" in data and not valid_id(data["id"]) and not (is_response and data["id"] is None):
        return f'"id" must be an integer or a string, not {_json_type(data["id"])}'
    if is_response:
        return None
    if "method" not in data:
        return 'the message has no "method" (and is no response)'
    if not isinstance(data["method"], str):
        return f'"method" must be a string, not {_json_type(data["method"])}'
    params = data.get("params")
    if params is not None and not isinstance(params, dict | list):  # null: sent for "no params"
        return f'"params" must be an object or an array, not {_json_type(data["params"])}'
    return None


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"
