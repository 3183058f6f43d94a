"""engine/ stays pure: no I/O, clock, OS or hidden randomness (design.md section 1).

Same inputs must give byte-identical outputs, so no engine module may import
a source of time, chance or the outside world, nor open a file.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parent.parent / "engine"
FORBIDDEN = {
    "os",
    "sys",
    "time",
    "datetime",
    "random",
    "socket",
    "secrets",
    "subprocess",
    "pathlib",
    "io",
    "logging",
    "urllib",
}
# __import__ would dodge the import check.
FORBIDDEN_CALLS = {"open", "__import__"}

SOURCES = sorted(ENGINE.rglob("*.py"))


def impurities(path: Path) -> list[str]:
    """Name each forbidden import or call in ``path``, with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        found += [f"line {node.lineno}: import {n}" for n in names if n.split(".")[0] in FORBIDDEN]
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in FORBIDDEN_CALLS
        ):
            found.append(f"line {node.lineno}: calls {node.func.id}()")
    return sorted(found, key=lambda s: int(s.split(":")[0].split()[1]))


def test_engine_sources_are_found() -> None:
    assert ENGINE / "dice.py" in SOURCES
    assert ENGINE / "randomness.py" in SOURCES


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ENGINE)))
def test_engine_module_is_pure(path: Path) -> None:
    assert impurities(path) == []


def test_the_check_catches_what_it_should(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import os.path\nfrom random import choice\nfrom datetime import date\n"
        "x = open('f')\nimport hashlib\n",
        encoding="utf-8",
    )
    assert impurities(bad) == [
        "line 1: import os.path",
        "line 2: import random",
        "line 3: import datetime",
        "line 4: calls open()",
    ]
