"""A club game's result as the clubs read it: each side's banners, and won, drawn or lost.

Banners are read from the system's public view (``sides[side]["banners"]``,
a count); a system that shows none scores 0 banners.
"""

from __future__ import annotations

import json
from typing import Any

from pbem.clubs.models import ClubGame
from pbem.pipeline.games import GameContext

__all__ = ["banners_of", "outcome_of", "record_result"]


def banners_of(ctx: GameContext) -> dict[str, int]:
    """Each side's banners as the system's public view shows them (0 if it shows none)."""
    view: Any = ctx.system.public_view(ctx.state)
    sides = view.get("sides", {}) if isinstance(view, dict) else {}
    out: dict[str, int] = {}
    for side in ctx.system.sides:
        value = sides.get(side, {}).get("banners", 0) if isinstance(sides, dict) else 0
        out[side] = value if isinstance(value, int) and not isinstance(value, bool) else 0
    return out


def outcome_of(result: str, side: str) -> float:
    """1 if ``side`` won, 0.5 for a draw, 0 if it lost."""
    if result == side:
        return 1.0
    return 0.5 if result == "draw" or not result else 0.0


def record_result(row: ClubGame, result: str, banners: dict[str, int]) -> None:
    """Store the result of a club game on its row."""
    row.result = result[:32] or "draw"
    row.scores_json = json.dumps(banners, sort_keys=True)
