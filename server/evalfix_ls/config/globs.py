"""The globs of ``files`` mappings (``"fixtures/*.json" = "workflow"``), as regular expressions."""

from __future__ import annotations

import re


def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """Translate a POSIX glob to a regex over ``/``-separated relative paths.

    ``*`` and ``?`` never cross ``/``; ``**`` as a whole segment matches any number of segments;
    ``[...]`` is a character class. A pattern without ``/`` matches a file name in any directory
    (as in ``.gitignore``)."""
    pattern = pattern.strip()
    while pattern.startswith("./"):
        pattern = pattern[2:]
    if "/" not in pattern:
        pattern = "**/" + pattern
    out: list[str] = []
    index = 0
    length = len(pattern)
    while index < length:
        char = pattern[index]
        if pattern.startswith("**/", index) and (index == 0 or pattern[index - 1] == "/"):
            out.append("(?:[^/]*/)*")
            index += 3
        elif pattern.endswith("**") and index + 2 == length and (index == 0 or pattern[index - 1] == "/"):
            out.append(".*")
            index += 2
        elif char == "*":
            out.append("[^/]*")
            index += 1
        elif char == "?":
            out.append("[^/]")
            index += 1
        elif char == "[":
            close = pattern.find("]", index + 2 if pattern.startswith("[!", index) else index + 1)
            if close == -1:
                out.append(re.escape(char))
                index += 1
            else:
                body = pattern[index + 1 : close]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                index = close + 1
        else:
            out.append(re.escape(char))
            index += 1
    return re.compile("".join(out))
