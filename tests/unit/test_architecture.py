"""The architecture, checked: no import cycles among the imports that run (module level and lazy
ones inside functions), pygls/lsprotocol only under ``lsp/``, dependencies pointing down (for types
too), no over-long function.

An import under ``if TYPE_CHECKING:`` never runs, so it closes no cycle at run time; it may still
not name a higher layer (an annotation is a dependency), nor a module that imports this one (two
modules that name each other are read together: no cycle, type-only imports included)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
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
    ("schema", "findings", "json_value", "workspace", "results"),
    ("parser", "js"),
    ("text", "memory"),
    ("__init__",),
)

# Inside ``lsp/``, the same rule between its families (from the top; ``lsp/__init__`` holds only
# the map). The JSON-RPC layer knows no request scheduling, the scheduling no session state, the
# session no diagnostics, the diagnostics no editor feature; the wiring at the top knows them all.
LSP_LAYERS = (
    ("server", "lifecycle", "warm_up", "__init__"),
    ("features",),
    ("diagnostics",),
    ("session",),
    ("scheduling",),
    ("jsonrpc",),
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


@dataclass
class Imports:
    """The evalfix_ls modules one module imports: those that run (at module level or lazily, inside
    a function) and those named only for the type checker (under ``if TYPE_CHECKING:``)."""

    runtime: set[str] = field(default_factory=set)
    type_only: set[str] = field(default_factory=set)

    @property
    def all(self) -> set[str]:
        return self.runtime | self.type_only


def is_type_checking_test(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` or ``typing.TYPE_CHECKING`` (the guard whose body never runs)."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def type_checking_imports(tree: ast.Module) -> set[int]:
    """The ids of the import statements inside the body of an ``if TYPE_CHECKING:`` (its ``else``
    runs, so what it imports is a runtime import)."""
    guarded: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and is_type_checking_test(node.test):
            for statement in node.body:
                guarded.update(id(inner) for inner in ast.walk(statement))
    return guarded


def imports_of(name: str, path: Path, known: set[str]) -> Imports:
    """Every evalfix_ls module this module imports, anywhere in its body, told apart by whether the
    import runs."""
    base = name.split(".") if is_package(path) else name.split(".")[:-1]
    found = Imports()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    guarded = type_checking_imports(tree)
    for node in ast.walk(tree):
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
        into = found.type_only if id(node) in guarded else found.runtime
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                into.add(target)
    return found


def all_imports() -> dict[str, Imports]:
    mods = modules()
    known = set(mods)
    return {name: imports_of(name, path, known) for name, path in mods.items()}


def runtime_graph(imports: dict[str, Imports]) -> dict[str, set[str]]:
    """The imports that run: the edges an import cycle can go through."""
    return {name: found.runtime for name, found in imports.items()}


def upward_imports(imports: dict[str, Imports]) -> list[str]:
    """``module -> target`` for every import, runtime or for types, of a higher layer."""
    return sorted(
        f"{name} -> {target}"
        for name, found in imports.items()
        for target in found.all
        if layer_of(target) < layer_of(name)
    )


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


def lsp_layer_of(name: str) -> int | None:
    """The layer of an ``lsp`` module among ``LSP_LAYERS`` (None outside ``lsp/``)."""
    parts = name.split(".")
    if parts[1:2] != ["lsp"]:
        return None
    family = parts[2] if len(parts) > 2 else "__init__"
    for index, layer in enumerate(LSP_LAYERS):
        if family in layer:
            return index
    raise AssertionError(f"{name}: not in any layer of LSP_LAYERS (add its family there)")


def upward_lsp_imports(imports: dict[str, Imports]) -> list[str]:
    """``module -> target`` for every import, runtime or for types, of a higher family of ``lsp/``."""
    upward = []
    for name, found in imports.items():
        own = lsp_layer_of(name)
        if own is None:
            continue
        for target in found.all:
            theirs = lsp_layer_of(target)
            if theirs is not None and theirs < own:
                upward.append(f"{name} -> {target}")
    return sorted(upward)


def test_find_cycle_sees_a_cycle_through_three_modules() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_imports_of_tells_runtime_imports_from_type_checking_ones(tmp_path: Path) -> None:
    module = tmp_path / "a.py"
    module.write_text(
        "import typing\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from .b import B\n"
        "if typing.TYPE_CHECKING:\n    from ..e import E\nelse:\n    from . import f\n"
        "def g():\n    from ..c import d\n"
    )
    known = {"evalfix_ls.x.b", "evalfix_ls.c", "evalfix_ls.c.d", "evalfix_ls.e", "evalfix_ls.x.f"}
    found = imports_of("evalfix_ls.x.a", module, known)
    # a lazy import inside a function runs (when called); the ``else`` of the guard runs too
    assert found.runtime == {"evalfix_ls.c.d", "evalfix_ls.x.f"}
    assert found.type_only == {"evalfix_ls.x.b", "evalfix_ls.e"}


def test_a_type_checking_import_closes_no_cycle_but_may_not_point_up() -> None:
    # services.a runs contracts.b, which names services.a for its annotations only
    imports = {
        "evalfix_ls.services.a": Imports(runtime={"evalfix_ls.contracts.b"}),
        "evalfix_ls.contracts.b": Imports(type_only={"evalfix_ls.services.a"}),
    }
    assert find_cycle(runtime_graph(imports)) is None
    assert upward_imports(imports) == ["evalfix_ls.contracts.b -> evalfix_ls.services.a"]
    same_layer = {
        "evalfix_ls.contracts.a": Imports(runtime={"evalfix_ls.contracts.b"}),
        "evalfix_ls.contracts.b": Imports(type_only={"evalfix_ls.contracts.a"}),
    }
    assert upward_imports(same_layer) == []


def test_no_import_cycles() -> None:
    cycle = find_cycle(runtime_graph(all_imports()))
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def every_import_graph(imports: dict[str, Imports]) -> dict[str, set[str]]:
    """Every import, for types too: a cycle here is two modules that must be read together."""
    return {name: found.all for name, found in imports.items()}


def test_no_import_cycles_through_type_only_imports_either() -> None:
    """Two modules naming each other, even only for the type checker, are one module in two files
    (the second pass had four such pairs: protocol/transport, case_diagnostics/encoded …): one of
    them types against a protocol of its own instead."""
    cycle = find_cycle(every_import_graph(all_imports()))
    assert cycle is None, "import cycle (type-only imports included): " + " -> ".join(cycle or [])


def test_dependencies_point_down() -> None:
    upward = upward_imports(all_imports())
    assert not upward, "imports from a higher layer (for types too):\n" + "\n".join(upward)


def test_lsp_families_point_down() -> None:
    upward = upward_lsp_imports(all_imports())
    assert not upward, "lsp/: imports from a higher family (for types too):\n" + "\n".join(upward)


MAX_LSP_TOP_MODULES = 6


def test_the_top_of_lsp_is_thin() -> None:
    """Beside its families, ``lsp/`` holds the wiring only (the second pass had 26 modules of seven
    families there): a new module goes into its family, or into ``LSP_LAYERS``' top row knowingly."""
    top = sorted(path.stem for path in (PACKAGE / "lsp").glob("*.py") if path.stem != "__init__")
    assert len(top) <= MAX_LSP_TOP_MODULES, top
    assert set(top) <= set(LSP_LAYERS[0]), top


def test_upward_lsp_imports_sees_a_family_reaching_up() -> None:
    imports = {
        "evalfix_ls.lsp.jsonrpc.protocol": Imports(type_only={"evalfix_ls.lsp.diagnostics.encoded"}),
        "evalfix_ls.lsp.features.hover": Imports(runtime={"evalfix_ls.lsp.session.documents"}),
        "evalfix_ls.lsp.session.documents": Imports(runtime={"evalfix_ls.memory.tables"}),
    }
    assert upward_lsp_imports(imports) == [
        "evalfix_ls.lsp.jsonrpc.protocol -> evalfix_ls.lsp.diagnostics.encoded"
    ]


CONVERTERS = {"evalfix_ls.lsp.diagnostics.convert", "evalfix_ls.lsp.diagnostics.case_blocks"}


def conversions_outside_diagnostics(imports: dict[str, Imports]) -> list[str]:
    """``module -> converter`` for every module outside ``lsp/diagnostics/`` that imports the
    conversion of findings to LSP diagnostics."""
    return sorted(
        f"{name} -> {target}"
        for name, found in imports.items()
        if not name.startswith("evalfix_ls.lsp.diagnostics")
        for target in found.all & CONVERTERS
    )


def test_findings_are_converted_only_in_diagnostics() -> None:
    """One family turns findings into diagnostics (the second pass had three such modules loose
    at the top of ``lsp/``); features read diagnostics, they never convert findings themselves."""
    assert conversions_outside_diagnostics(all_imports()) == []
    planted = {"evalfix_ls.lsp.features.hover": Imports(type_only={"evalfix_ls.lsp.diagnostics.convert"})}
    assert conversions_outside_diagnostics(planted) == [
        "evalfix_ls.lsp.features.hover -> evalfix_ls.lsp.diagnostics.convert"
    ]


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
