"""No import cycle inside engine/ or pbem/ (layout: folders show the architecture).

A module that imports another which (directly or through others) imports it
back hides the dependency order a reader needs, and works only while every
import of the loop is deferred into a function. Imports inside functions count
too (that is how such loops hide); imports under ``if TYPE_CHECKING:`` do not
(they never run).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "pbem")


def _modules() -> dict[str, tuple[Path, bool]]:
    """Map each module's dotted name to its file and whether it is a package."""
    found: dict[str, tuple[Path, bool]] = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _type_checking_only(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(name: str, path: Path, is_package: bool, known: set[str]) -> dict[str, int]:
    """Return the modules of ``known`` that ``name`` imports, each with a line number."""
    out: dict[str, int] = {}
    stack: list[ast.AST] = [ast.parse(path.read_text(encoding="utf-8"), filename=str(path))]
    while stack:
        node = stack.pop()
        if _type_checking_only(node):
            assert isinstance(node, ast.If)
            stack.extend(node.orelse)
            continue
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = name.split(".") if is_package else name.split(".")[:-1]
                here = here[: len(here) - (node.level - 1)]
                base = ".".join(here + ([node.module] if node.module else []))
            targets = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
            ]
        for target in targets:
            if target in known and target != name:
                out.setdefault(target, getattr(node, "lineno", 0))
        stack.extend(ast.iter_child_nodes(node))
    return out


def import_cycles() -> list[list[str]]:
    """Return every import cycle (a strongly connected set of modules), each as its edges."""
    mods = _modules()
    graph = {m: _imports(m, p, pkg, set(mods)) for m, (p, pkg) in mods.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            members = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                members.append(w)
                if w == v:
                    break
            if len(members) > 1:
                cycles.append(
                    sorted(
                        f"{a} -> {b} (line {graph[a][b]})"
                        for a in members
                        for b in graph[a]
                        if b in members
                    )
                )

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_modules_are_found() -> None:
    mods = _modules()
    assert "engine.cca.battle" in mods
    assert "pbem.deadlines" in mods


def test_no_import_cycle_in_engine_or_pbem() -> None:
    assert import_cycles() == []


def test_the_check_sees_a_cycle_hidden_in_a_function(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("def f():\n    from engine.a import x\n", encoding="utf-8")
    assert _imports("engine.b", path, False, {"engine.a", "engine.b"}) == {"engine.a": 2}
    path.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import engine.a\n",
        encoding="utf-8",
    )
    assert _imports("engine.b", path, False, {"engine.a", "engine.b"}) == {}
