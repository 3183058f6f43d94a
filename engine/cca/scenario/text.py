"""Draw a scenario as plain text: the board row by row, then leaders, reserves and rules.

``pbem scenario show`` draws the board with the shared renderer
and prints :func:`render_details` under it; :func:`render_scenario`
is the self-contained text picture for callers without the renderer. Each hex
is a 6-character cell: a terrain mark, then the unit
code (lower case = North, upper case = South) and ``*`` when a leader is with
it; a lone leader shows as ``@ldr`` / ``@LDR``. Even rows are indented half a
cell, as on the board (``docs/board.md``).
"""

from __future__ import annotations

from engine.cca.scenario.model import Scenario, Side
from engine.hexgrid import STANDARD_BOARD, Hex

__all__ = ["TERRAIN_MARKS", "render_details", "render_scenario"]

#: One character per terrain (``.`` = clear).
TERRAIN_MARKS = {
    "hill": "^",
    "forest": "T",
    "broken-ground": "%",
    "fordable-river": "f",
    "river": "~",
    "lake": "L",
    "steep-hill": "X",
    "camp": "C",
    "ramparts": "R",
    "marsh": "m",
    "city-wall": "W",
}
_LETTERS = "ABCDEFGHIJKLM"
_CELL = 6


def _cell(scenario: Scenario, h: Hex) -> str:
    name = str(h)
    mark = TERRAIN_MARKS.get(scenario.terrain.get(name, ""), ".")
    for side in (scenario.north, scenario.south):
        case = str.lower if side.side == "north" else str.upper
        leader = any(ld.hex == name for ld in side.leaders)
        for u in side.units:
            if u.hex == name:
                strength = str(u.blocks) if u.blocks is not None else ""
                return mark + case(u.type) + strength + ("*" if leader else "")
        if leader:
            return mark + "@" + case("ldr")
    return mark


def _side_line(side: Side, first: str) -> str:
    colour = f" ({side.blocks})" if side.blocks else ""
    moves = " · moves first" if side.side == first else ""
    return (
        f"{side.side.capitalize()}: {side.army}{colour} · Command {side.command}"
        f" · {side.banners} banners to win · {len(side.units)} units{moves}"
    )


def _board(scenario: Scenario) -> list[str]:
    header = "      " + "".join(f"{c:<{_CELL}}" for c in _LETTERS)
    out = [header.rstrip()]
    for row in range(STANDARD_BOARD.deep, 0, -1):
        count = STANDARD_BOARD.wide if row % 2 else STANDARD_BOARD.wide - 1
        indent = "" if row % 2 else " " * (_CELL // 2)
        cells = "".join(
            f"{_cell(scenario, Hex.from_offset(c, row)):<{_CELL}}" for c in range(count)
        )
        out.append(f"{row:>3}   {indent}{cells}".rstrip())
    out.append(header.rstrip())
    return out


def render_details(scenario: Scenario) -> list[str]:
    """Return the lines under the board: leaders, reserves, special rules and the legend."""
    out: list[str] = []
    for side in (scenario.north, scenario.south):
        if side.leaders:
            names = ", ".join(f"{ld.name} ({ld.hex})" for ld in side.leaders)
            out.append(f"{side.side.capitalize()} leaders: {names}")
        if side.reserve:
            units = ", ".join(" ".join((r.type, *r.tags)) for r in side.reserve)
            out.append(f"{side.side.capitalize()} reserve (off the board): {units}")
    for rule in scenario.special:
        params = ", ".join(f"{k}={v}" for k, v in rule.items() if k not in ("rule", "note"))
        out.append(f"Special rule {rule['rule']}: {params}")
    used = sorted(set(scenario.terrain.values()))
    legend = ", ".join(f"{TERRAIN_MARKS[t]} {t}" for t in used if t in TERRAIN_MARKS)
    out.append(
        "Legend: . clear"
        + (f", {legend}" if legend else "")
        + "; lower case = North, upper case = South, * = leader attached, @ = lone leader"
    )
    return out


def render_scenario(scenario: Scenario) -> str:
    """Return the scenario as a text picture (North's baseline at the top), ending in a newline."""
    lines = [
        f"{scenario.name} ({scenario.year}) [{scenario.id}]",
        _side_line(scenario.north, scenario.first),
        "",
        *_board(scenario),
        "",
        _side_line(scenario.south, scenario.first),
        *render_details(scenario),
    ]
    return "\n".join(lines) + "\n"
