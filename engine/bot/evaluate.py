"""How good a position looks for a side, from its public view alone.

The bot cuts its imagined games short and scores where they stopped:
1 for a win, 0 for a loss, one half for a draw, and otherwise a number
between read from what everyone can see. For the C&C family that is the
banners each side has won (of those it needs) and the blocks each has on
the board (its share of all blocks standing); for a race (the toy) it is how far each has come.
A system whose view has neither is scored one half until it ends.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = ["evaluate_view"]

BANNER_WEIGHT = 0.7
"""Share of the banner race in the estimate; the rest is blocks kept."""


def evaluate_view(view: Mapping[str, Any], side: str, result: str | None = None) -> float:
    """``side``'s prospects in [0, 1] (``result``: the winner's side or ``draw`` once over)."""
    if result is not None:
        return 0.5 if result not in (side, *_sides(view)) else float(result == side)
    sides = _sides(view)
    others = [s for s in sides if s != side]
    if side not in sides or not others:
        return 0.5
    other = others[0]
    score = 0.0
    info = view.get("sides", {})
    mine, theirs = info.get(side, {}), info.get(other, {})
    if "banners" in mine and "banners_needed" in mine:
        score += BANNER_WEIGHT * (_share(mine) - _share(theirs))
        mine_b, theirs_b = _blocks(view, side), _blocks(view, other)
        if mine_b + theirs_b:
            score += (1 - BANNER_WEIGHT) * (mine_b - theirs_b) / (mine_b + theirs_b)
    elif isinstance(view.get("pos"), Mapping):
        pos = view["pos"]
        score = math.tanh((float(pos.get(side, 0)) - float(pos.get(other, 0))) / 12.0)
    return min(1.0, max(0.0, 0.5 + 0.5 * score))


def _sides(view: Mapping[str, Any]) -> list[str]:
    sides = view.get("sides")
    return sorted(sides) if isinstance(sides, Mapping) else []


def _share(info: Mapping[str, Any]) -> float:
    needed = max(1, int(info.get("banners_needed", 1) or 1))
    return min(1.0, int(info.get("banners", 0) or 0) / needed)


def _blocks(view: Mapping[str, Any], side: str) -> int:
    """The blocks ``side`` has on the board."""
    units = view.get("units", ())
    return sum(
        int(u.get("blocks", 0) or 0)
        for u in units
        if isinstance(u, Mapping) and u.get("side") == side
    )
