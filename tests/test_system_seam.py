"""The seam between pbem and the game systems holds (issue 12).

pbem/ reaches a system only through the registry (engine.systems): no module
of pbem imports a system's package, and what every system promises about
hidden information holds for each registered one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from engine.core.capabilities import AUTOPLAY, find
from engine.systems import BUILT_IN, get_system, system_names
from pbem.enginecli import DiceSource, load, seed_bytes
from pbem.scenarios import list_scenarios

PBEM = Path(__file__).resolve().parent.parent / "pbem"
SYSTEM_PACKAGES = {target.split(":")[0] for target in BUILT_IN.values()}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


@pytest.mark.parametrize("path", sorted(PBEM.rglob("*.py")), ids=lambda p: str(p.relative_to(PBEM)))
def test_pbem_imports_no_system_package(path: Path) -> None:
    bad = [
        f"line {n}: import {m}"
        for n, m in _imports(path)
        if any(m == pkg or m.startswith(pkg + ".") for pkg in SYSTEM_PACKAGES)
    ]
    assert bad == [], "pbem/ must reach game systems through engine.systems only"


def _started(name: str, seed: str) -> tuple[object, object]:
    scenario = next(s for s in list_scenarios() if s.system == name and s.path is not None)
    assert scenario.path is not None
    return load(
        name, scenario.path.read_text(encoding="utf-8"), DiceSource("g", seed=seed_bytes(seed))
    )


@pytest.mark.parametrize("name", system_names())
def test_masking_keeps_what_a_side_knows_and_hides_the_rest(name: str) -> None:
    """Two deals that give ``side`` the same hand mask to the same state; masking is stable."""
    system = get_system(name)
    _, state = _started(name, "01")
    for side in system.sides:
        masked = system.masked(state, side)
        assert system.player_view(masked, side) == system.player_view(state, side)
        assert system.to_json(system.masked(masked, side)) == system.to_json(masked)
        for other in system.sides:
            if other != side:
                assert system.player_view(masked, other).get("standing", "") == ""


@pytest.mark.parametrize("name", system_names())
def test_the_autoplayer_is_deterministic(name: str) -> None:
    system = get_system(name)
    _, state = _started(name, "02")
    player = find(system, AUTOPLAY)
    assert player is not None
    assert player.orders(state, b"seed") == player.orders(state, b"seed")
