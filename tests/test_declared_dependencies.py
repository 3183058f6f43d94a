"""Every third-party module the code imports is declared in pyproject.toml.

A module pulled in only as another package's dependency (markupsafe by
jinja2, sqlalchemy by sqlmodel) works until that package stops needing it:
then a fresh ``pip install pbem`` fails at the first board drawn. Scanned:
pbem/, engine/, bench/ and scripts/ (their Python files), every ``import``
at any depth, against the project's dependencies and its extras.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("pbem", "engine", "bench", "scripts")
OWN = {"pbem", "engine"}


def _declared() -> set[str]:
    """The normalised distribution names of the dependencies and every extra."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        specs.extend(extra)
    return {_norm(re.split(r"[\s<>=!~;\[]", spec, maxsplit=1)[0]) for spec in specs}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _python_files() -> list[Path]:
    files: list[Path] = []
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and (path.suffix == ".py" or _is_python_script(path)):
                files.append(path)
    return files


def _is_python_script(path: Path) -> bool:
    """A script without the .py suffix whose first line runs Python."""
    with path.open("rb") as f:
        first = f.readline()
    return first.startswith(b"#!") and b"python" in first


def _imports(path: Path) -> set[str]:
    """The top-level names of the absolute imports in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _is_local(name: str, path: Path) -> bool:
    """The project's own package, or a module beside a script (bench/benchkit.py) or in
    tests/ (the benchmarks put tests/ on their path for its kits)."""
    if name in OWN:
        return True
    return any(
        (here / f"{name}.py").exists() or (here / name / "__init__.py").exists()
        for here in (path.parent, ROOT / "tests")
    )


def test_every_third_party_import_is_a_declared_dependency() -> None:
    declared = _declared()
    dists = importlib.metadata.packages_distributions()
    undeclared: dict[str, list[str]] = {}
    for path in _python_files():
        for name in _imports(path):
            if name in sys.stdlib_module_names or _is_local(name, path):
                continue
            owners = {_norm(d) for d in dists.get(name, [name])}
            if not owners & declared:
                where = str(path.relative_to(ROOT))
                undeclared.setdefault(f"{name} ({', '.join(sorted(owners))})", []).append(where)
    assert undeclared == {}, f"imported but not declared in pyproject.toml: {undeclared}"


def test_the_scan_sees_imports_at_any_depth(tmp_path: Path) -> None:
    """The scan finds an import inside a function (the lazy imports of pillow and scipy)."""
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from markupsafe import escape\n    import yaml.x\n")
    assert _imports(module) == {"markupsafe", "yaml"}
    assert "markupsafe" in _declared()
