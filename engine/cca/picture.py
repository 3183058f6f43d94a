"""The Ancients picture builder: a public view and a turn's events become a neutral Picture.

pbem draws :class:`engine.core.picture.Picture` without knowing C&C: this
module says how each unit type looks (symbol shape and colour by weight, a
white ring for bordered units, cca.md §1.4-§1.5). Reading the view, the
board, the side bands, the flank names and last turn's marks (moves,
retreats, combats, eliminations) are the C&C family's (:mod:`engine.cc.picture`).

Each player sees the board from his own edge: North's picture is turned
round, and the flanks are named as the viewer calls them (cca.md §1.2).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from engine.cc.picture import NORTH, SOUTH, Look, LookBuilder, band, board_grid, build
from engine.cca.tables import BUNDLED
from engine.cca.terrain import ALIASES
from engine.core.picture import Counter, Picture

__all__ = ["LOOK", "NORTH", "SOUTH", "PictureBuilder", "board_grid", "build_picture"]

_SHAPE = {"light": "circle", "medium": "triangle", "heavy": "square"}
_SHAPE_COLOUR = {"light": "green", "medium": "blue", "heavy": "red"}
_SHORT = {"CCAM": "CCM"}  # every unit token fits a 4-character text cell
_STYLES = frozenset(
    {
        "hill",
        "steep-hill",
        "forest",
        "broken-ground",
        "river",
        "fordable-river",
        "lake",
        "camp",
        "ramparts",
        "marsh",
        "city-wall",
    }
)


def _terrain(name: str) -> tuple[str, str]:
    n = name.strip().lower().replace("_", "-").replace(" ", "-")
    n = ALIASES.get(n, n)
    return n, (n if n in _STYLES else "clear")


def _counter(u: Mapping[str, Any], side: str, hex_: str, leader: str) -> Counter:
    code = str(u["type"]).upper()
    spec = BUNDLED.units.get(code)  # a symbol and a strength to draw: the bundled row
    weight = spec.weight if spec else ""
    full = int(u.get("full", spec.blocks if spec else u.get("blocks", 1)))
    return Counter(
        hex=hex_,
        side=side,
        label=code,
        count=int(u.get("blocks", full)),
        full=full,
        short=_SHORT.get(code, code),
        symbol=_SHAPE.get(weight, ""),
        symbol_colour=_SHAPE_COLOUR.get(weight, "grey"),
        ring=bool(spec and spec.border),
        note=leader,
    )


def _legend(p: Picture, viewer: str) -> tuple[str, ...]:
    who = viewer.capitalize() if viewer in (NORTH, SOUTH) else "South"
    out = [
        "Units: type and blocks left, e.g. HI4 = heavy infantry with 4 blocks."
        f" Flanks as {who} sees them."
    ]
    if any(c.label in _SHORT for c in p.counters):
        out.append("CCM = CCAM (cataphracted camels).")
    return tuple(out)


def _legend_of(view: Mapping[str, Any]) -> Callable[[Picture, str], tuple[str, ...]]:
    return _legend


LOOK = Look(terrain=_terrain, counter=_counter, band=band, legend=_legend_of)
"""How an Ancients board looks."""


def build_picture(
    view: Mapping[str, Any],
    events: Iterable[Mapping[str, Any]] = (),
    viewer: str | None = None,
) -> Picture:
    """The picture of a ``public_view`` dict, with last turn's ``events`` (``Event.to_dict()``).

    ``viewer`` (``north``/``south``) turns the board so that his baseline is
    at the bottom; without one the board is drawn as South sees it. Raises
    ``ValueError`` when the dict is not a board (bad hexes or sides).
    """
    return build(LOOK, view, events, viewer)


class PictureBuilder(LookBuilder):
    """C&C Ancients' ``picture`` capability (:class:`engine.core.capabilities.PictureBuilder`)."""

    def __init__(self) -> None:
        super().__init__(LOOK)
