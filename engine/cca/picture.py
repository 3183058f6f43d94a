"""The Ancients picture builder: a public view and a turn's events become a neutral Picture.

pbem draws :class:`engine.core.picture.Picture` without knowing C&C: this
module says how each unit type looks (symbol shape and colour by weight, a
white ring for bordered units, cca.md §1.4-§1.5). The board, the side bands,
the flank names and last turn's marks (moves, retreats, combats,
eliminations) are the C&C family's (:mod:`engine.cc.picture`).

Each player sees the board from his own edge: North's picture is turned
round, and the flanks are named as the viewer calls them (cca.md §1.2).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.cc.picture import (
    NORTH,
    SOUTH,
    CCGrid,
    band,
    board_grid,
    frame,
    grid_of,
    last_turn,
    place_leaders,
    side_of,
)
from engine.cca.terrain import ALIASES
from engine.cca.units import UNITS
from engine.core.picture import Counter, Picture

__all__ = ["NORTH", "SOUTH", "PictureBuilder", "board_grid", "build_picture"]

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


def _counter(u: Mapping[str, Any], grid: CCGrid, leader: str) -> Counter:
    code = str(u["type"]).upper()
    spec = UNITS.get(code)
    weight = spec.weight if spec else ""
    full = int(u.get("full", spec.blocks if spec else u.get("blocks", 1)))
    return Counter(
        hex=grid.parse(str(u["hex"])),
        side=str(u["side"]),
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
    try:
        grid = grid_of(view)
        terrain = {
            grid.parse(str(h)): _terrain(str(t)) for h, t in (view.get("terrain") or {}).items()
        }
        unit_hex = {
            (grid.parse(str(u["hex"])), str(u["side"])) for u in view.get("units", []) or []
        }
        leaders_at, lone = place_leaders(grid, view.get("leaders", []) or [], unit_hex)
        counters: list[Counter] = []
        final: dict[str, str] = {}
        kinds: dict[str, tuple[str, str]] = {}
        seen: set[str] = set()
        for u in view.get("units", []) or []:
            side = side_of(u["side"])
            c = _counter(
                {**u, "side": side}, grid, leaders_at.get((grid.parse(str(u["hex"])), side), "")
            )
            if c.hex in seen:
                raise ValueError(f"two units in {c.hex}")
            seen.add(c.hex)
            counters.append(c)
            final[str(u.get("id"))] = c.hex
            kinds[str(u.get("id"))] = (side, c.label)
        kinds.update(
            {f"leader:{ld['name']}": (str(ld["side"]), "") for ld in view.get("leaders", []) or []}
        )
        sides = view.get("sides") or {}
        bands = tuple(band(s, sides.get(s) or {}) for s in (NORTH, SOUTH))
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"not a public view: {exc}") from exc
    marks = last_turn(list(events), final, kinds, grid)
    title = str(view.get("name", ""))
    return frame(
        grid,
        terrain,
        bands=bands,
        counters=counters,
        markers=lone,
        marks=marks,
        title=title,
        viewer=viewer,
        legend=_legend,
    )


class PictureBuilder:
    """C&C Ancients' ``picture`` capability (:class:`engine.core.capabilities.PictureBuilder`)."""

    def picture(
        self,
        view: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]] = (),
        viewer: str | None = None,
    ) -> Picture:
        """See :func:`build_picture`."""
        return build_picture(view, events, viewer)
