"""A missing path whose file name exists elsewhere in the repository — most often a file that was
moved without its fixtures: each file of that name offered in its place.

Unsafe (a guess: the name may be shared by unrelated files), preferred only when one file has
the name. ``--check --fix`` does not know which file moved where; this is its suggestion.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from ...parser.tree import Node
from .edits import json_text, replace_node
from .model import Fix, FixContext

MAX_SUGGESTIONS = 5


def same_name_fixes(ctx: FixContext, node: Node, written: str, base: Path, anchor: str = "") -> list[Fix]:
    """``node`` (a string naming the missing path ``written``, relative to ``base``) replaced by
    each path of the repository with the same last segment; ``anchor`` (``#heading``) is kept."""
    name = PurePosixPath(written.rstrip("/")).name
    if ctx.facts.repo_root is None or name in ("", ".", ".."):
        return []
    found = ctx.facts.paths_named(name)
    fixes = []
    for path in found[:MAX_SUGGESTIONS]:
        relative = Path(os.path.relpath(path, base)).as_posix() + anchor
        title = f"Change to {json_text(relative)} (a file of the same name elsewhere in the repository)"
        fixes.append(ctx.fix(title, replace_node(node, relative), safe=False, preferred=len(found) == 1))
    return fixes
