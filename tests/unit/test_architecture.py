"""The architecture, checked: no import cycles (lazy and ``TYPE_CHECKING`` imports included),
pygls/lsprotocol only under ``lsp/``, dependencies pointing down, no over-long function."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "evalfix_ls"
MAX_FUNCTION_LINES = 100
# A function may be longer when its body says why, in a comment holding this marker.
LENGTH_REASON = "long-function:"

# Layers from the top; a module may import its own layer or a lower one, never a higher one.
LAYERS = (
    ("cli", "__main__"),
    ("lsp", "batch"),
    ("services",),
    ("analysis", "config"),
    ("contracts",),
    ("schema", "findings", "workspace"),
    ("parser", "js"),
    ("__init__",),
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """Every evalfix_ls module this module imports, anywhere in its body (lazy, TYPE_CHECKING)."""
    base = name.split(".") if is_package(path) else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                prefix = base[: len(base) - (node.level - 1)]
                module = ".".join(prefix + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            # ``from pkg import mod`` imports the module ``pkg.mod``; ``from mod import name``
            # imports ``mod`` (a package's own __init__ is named only when nothing else is)
            submodules = [f"{module}.{alias.name}" for alias in node.names]
            targets = [t for t in submodules if t in known] or [module]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imports_of(name, path, known) for name, path in mods.items()}


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle, or None (iterative depth-first search)."""
    state: dict[str, int] = {}
    for start in sorted(edges):
        if state.get(start):
            continue
        stack = [(start, iter(sorted(edges[start])))]
        path = [start]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                state[node] = 2
            elif state.get(child) == 1:
                return path[path.index(child) :] + [child]
            elif not state.get(child):
                state[child] = 1
                path.append(child)
                stack.append((child, iter(sorted(edges.get(child, ())))))
    return None


def layer_of(name: str) -> int:
    top = name.split(".")[1] if "." in name else "__init__"
    for index, layer in enumerate(LAYERS):
        if top in layer:
            return index
    raise AssertionError(f"{name}: not in any layer of LAYERS (add its folder there)")


def test_find_cycle_sees_a_cycle_through_three_modules() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_imports_of_counts_lazy_and_type_checking_imports(tmp_path: Path) -> None:
    module = tmp_path / "a.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from .b import B\n"
        "def f():\n    from ..c import d\n"
    )
    known = {"evalfix_ls.x.b", "evalfix_ls.c", "evalfix_ls.c.d", "evalfix_ls.e"}
    assert imports_of("evalfix_ls.x.a", module, known) == {"evalfix_ls.x.b", "evalfix_ls.c.d"}


def test_no_import_cycles() -> None:
    cycle = find_cycle(graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_dependencies_point_down() -> None:
    upward = [
        f"{name} -> {target}"
        for name, targets in graph().items()
        for target in targets
        if layer_of(target) < layer_of(name)
    ]
    assert not upward, "imports from a higher layer:\n" + "\n".join(sorted(upward))


def test_protocol_libraries_only_under_lsp() -> None:
    offenders = []
    for name, path in modules().items():
        if name.startswith("evalfix_ls.lsp"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                targets = [node.module or ""]
            offenders += [f"{name}: {t}" for t in targets if t.split(".")[0] in ("pygls", "lsprotocol")]
    assert not offenders


def long_functions(source: str, limit: int = MAX_FUNCTION_LINES) -> list[tuple[str, int]]:
    """Functions longer than ``limit`` lines whose source holds no ``long-function:`` reason."""
    lines = source.splitlines()
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            body = "\n".join(lines[node.lineno - 1 : node.end_lineno])
            if length > limit and LENGTH_REASON not in body:
                out.append((node.name, length))
    return out


def test_long_functions_detector() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(5))
    assert long_functions(f"def f():\n{body}\n", limit=4) == [("f", 6)]
    assert long_functions(f"def f():\n    # {LENGTH_REASON} a state machine\n{body}\n", limit=4) == []


@pytest.mark.parametrize("name", sorted(modules()))
def test_no_function_over_the_agreed_length(name: str) -> None:
    assert long_functions(modules()[name].read_text(encoding="utf-8")) == []


def readme_layout() -> set[str]:
    """The folders of ``server/evalfix_ls/`` that the README's layout block names."""
    readme = (PACKAGE.parents[1] / "README.md").read_text(encoding="utf-8")
    block = readme[readme.index("```\nserver/evalfix_ls/\n") + 4 :]
    block = block[: block.index("```")]
    folders: set[str] = set()
    parents: list[tuple[int, str]] = []
    for line in block.splitlines()[1:]:
        entry = line.split("#")[0].rstrip()
        indent = len(entry) - len(entry.lstrip())
        if indent == 0:
            break
        name = entry.strip()
        parents = [(depth, folder) for depth, folder in parents if depth < indent]
        if name.endswith("/"):
            folder = (parents[-1][1] if parents else "") + name
            folders.add(folder.rstrip("/"))
            parents.append((indent, folder))
    return folders


def test_readme_layout_names_every_folder() -> None:
    actual = {
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_dir() and (path / "__init__.py").exists()
    }
    assert readme_layout() == actual
