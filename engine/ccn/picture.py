"""The Napoleonics picture builder: a public view and a turn's events become a neutral Picture.

pbem draws :class:`engine.core.picture.Picture` without knowing the game; this module says
how a Napoleonics board looks. A unit is a stack of blocks in its nation's colour (ccn.md §1:
France dark blue, Britain red, Portugal brown, so the Portuguese of an allied army stand out;
a side's band takes its first nation's) labelled with its type code (LN, LT, HC, FA...) and
its blocks left; its symbol's shape is its arm (circle infantry, triangle cavalry, square
artillery) and its colour its grade (blue regular, green elite, red guard, grey militia).
A unit in square (ccn.md §21) has its symbol ringed and ``Q`` before its type in the text
board. Leaders ride with their unit or stand alone as markers; victory objective hexes are
listed in the legend, field fortifications' fortified hexsides (ccn.md §23.5) drawn as thick
edges and listed there too. Terrain codes of ``engine/ccn/data/terrain.toml`` map to the
renderer's drawings. The board, side bands, flank names and last turn's marks are the C&C
family's (:mod:`engine.cc.picture`).

The view is the ccn system's ``public_view`` dict::

    {"name": ..., "board": {"wide", "deep", "section_lines"},
     "terrain": {hex: code},
     "units": [{"id", "side", "hex", "nation", "type", "blocks", "full", "square"}],
     "leaders": [{"name", "side", "hex", "nation"}],
     "sides": {side: {"army", "nation" or "nations", "colour", "banners", "banners_needed"}},
     "objectives": [{"side", "hexes"}],
     "fortified": {hex: [neighbour, ...]}}   # field fortifications' fortified hexsides

:func:`start_view` builds that dict for a scenario's set-up (``pbem scenario show`` before
a game exists, and the tests).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from engine.cc.picture import NORTH, SOUTH, Look, LookBuilder, band, build, grid_of
from engine.ccn.scenario.check import tables
from engine.ccn.scenario.model import Scenario
from engine.ccn.strength import start_blocks
from engine.core.picture import Counter, Picture, SideBand

__all__ = ["LOOK", "STYLES", "PictureBuilder", "build_picture", "colour_key", "start_view"]

#: terrain.toml code -> the renderer's drawing (clear when absent).
STYLES: Mapping[str, str] = {
    "hill": "hill",
    "woods": "forest",
    "steep_slope": "steep-hill",
    "town": "city-wall",
    "mill": "city-wall",
    "field_fortifications": "ramparts",
    "river": "river",
    "ford": "fordable-river",
    "bridge": "fordable-river",
    "sand_quarry": "broken-ground",
}
_SHAPE = {"infantry": "circle", "cavalry": "triangle", "artillery": "square"}
# A nation's block colour (nations.toml) -> the renderer's colour keys.
_BLOCK_KEY = {"dark blue": "blue", "blue": "blue", "red": "red", "brown": "brown", "green": "green"}
_GRADE_COLOUR = {"regular": "blue", "elite": "green", "guard": "red", "irregular": "grey"}


def colour_key(nation: str) -> str:
    """The renderer's block colour key for ``nation`` (nations.toml colour; ``""`` if none)."""
    row = tables().nations.get(nation)
    return _BLOCK_KEY.get(row.colour, "") if row else ""


def _kind(code: str) -> tuple[str, str]:
    """(arm, grade) of a unit type; empty for an unknown code."""
    unit = tables().units.get(code)
    return (unit.arm, unit.grade) if unit else ("", "")


def _counter(u: Mapping[str, Any], side: str, hex_: str, leader: str) -> Counter:
    code = str(u["type"]).upper()
    nation = str(u.get("nation", ""))
    full = int(u.get("full", u.get("blocks", 1)))
    square = bool(u.get("square", False))
    arm, grade = _kind(code)
    return Counter(
        hex=hex_,
        side=side,
        label=code,
        count=int(u.get("blocks", full)),
        full=full,
        short=("Q" if square else "") + code,
        symbol=_SHAPE.get(arm, ""),
        symbol_colour=_GRADE_COLOUR.get(grade, "grey"),
        ring=square,
        note=leader,
        colour=colour_key(nation),
    )


def _band(side: str, v: Mapping[str, Any]) -> SideBand:
    b = band(side, v)
    nations = v.get("nations") or [v.get("nation", "")]
    colour = b.colour if b.colour in _BLOCK_KEY.values() else colour_key(str(nations[0]))
    return SideBand(b.side, b.name, b.army, colour, b.score, b.goal)


def _objectives(view: Mapping[str, Any]) -> list[str]:
    grid = grid_of(view)
    out = []
    for o in view.get("objectives", []) or []:
        hexes = ", ".join(grid.parse(str(h)) for h in o.get("hexes", []))
        who = str(o.get("side", "")).capitalize() or "Either side"
        out.append(f"{who} objective: {hexes}.")
    return out


def _squares(view: Mapping[str, Any]) -> list[str]:
    """Each side's square chart (ccn.md §21.4): slot number and the unit's type and hex."""
    where = {str(u.get("id")): f"{u['type']} {u['hex']}" for u in view.get("units", []) or []}
    out = []
    for side, entry in sorted((view.get("sides") or {}).items()):
        slots = [f"{i} {where[uid]}" for i, uid in enumerate(entry.get("squares") or [], 1)
                 if uid in where]  # fmt: skip
        if slots:
            out.append(f"{str(side).capitalize()} square chart: {', '.join(slots)}.")
    return out


def _fortified(view: Mapping[str, Any]) -> list[str]:
    """The field fortifications' fortified hexsides (ccn.md §23.5), drawn as thick edges."""
    grid = grid_of(view)
    works = view.get("fortified") or {}
    sides = [
        f"{grid.parse(str(h))} toward {', '.join(grid.parse(str(n)) for n in works[h])}"
        for h in sorted(works)
        if works[h]
    ]
    return [f"Fortified hexsides (thick brown edges): {'; '.join(sides)}."] if sides else []


def _legend_of(view: Mapping[str, Any]) -> Callable[[Picture, str], tuple[str, ...]]:
    objectives = _objectives(view) + _fortified(view) + _squares(view)

    def legend(p: Picture, viewer: str) -> tuple[str, ...]:
        who = viewer.capitalize() if viewer in (NORTH, SOUTH) else "South"
        out = [
            "Units: type and blocks left, e.g. LN4 = line infantry with 4 blocks; blocks in"
            " their nation's colour; symbol: circle infantry, triangle cavalry, square"
            " artillery; blue regular, green elite, red guard, grey militia."
            f" Flanks as {who} sees them."
        ]
        if any(c.ring for c in p.counters):
            out.append("Q before the type, ringed symbol: the unit is in square.")
        drawn = sorted(
            {(h.style, h.terrain) for h in p.hexes if h.style not in ("clear", h.terrain)}
        )
        if drawn:
            out.append("Terrain drawn as: " + ", ".join(f"{s} = {t}" for s, t in drawn) + ".")
        return (*out, *objectives)

    return legend


def _terrain(code: str) -> tuple[str, str]:
    return code, STYLES.get(code, "clear")


LOOK = Look(terrain=_terrain, counter=_counter, band=_band, legend=_legend_of)
"""How a Napoleonics board looks."""


def build_picture(
    view: Mapping[str, Any],
    events: Iterable[Mapping[str, Any]] = (),
    viewer: str | None = None,
) -> Picture:
    """The picture of a ccn public view after ``events``, seen by ``viewer`` (see ``build``)."""
    return build(LOOK, view, events, viewer)


def start_view(scenario: Scenario) -> dict[str, Any]:
    """The public view of ``scenario``'s set-up (no cards dealt, no banners won)."""
    t = tables()
    units = []
    for side in scenario.sides:
        for i, u in enumerate(side.units):
            full = start_blocks(t, u.nation, u.type, u.blocks)
            units.append(
                {"id": f"{side.side[0]}{i + 1}", "side": side.side, "hex": u.hex,
                 "nation": u.nation, "type": u.type, "blocks": full, "full": full,
                 "square": False}
            )  # fmt: skip
    return {
        "system": "ccn",
        "name": scenario.name,
        "year": scenario.year,
        "terrain": dict(scenario.terrain),
        "units": units,
        "leaders": [
            {"name": ld.name, "side": s.side, "hex": ld.hex, "nation": ld.nation}
            for s in scenario.sides
            for ld in s.leaders
        ],
        "sides": {
            s.side: {
                "army": s.army,
                "nations": list(s.nations),
                "command": s.command,
                "banners": 0,
                "banners_needed": s.banners,
            }
            for s in scenario.sides
        },
        "objectives": [{"side": o.side, "hexes": list(o.hexes)} for o in scenario.objectives],
        "fortified": {h: list(ns) for h, ns in scenario.fortified.items()},
    }


class PictureBuilder(LookBuilder):
    """The ccn ``picture`` capability (:class:`engine.core.capabilities.PictureBuilder`)."""

    def __init__(self) -> None:
        super().__init__(LOOK)
