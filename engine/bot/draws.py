"""Whether the bot accepts a draw offered to it: by how it rates where the game stands.

A draw is worth one half to each side. The bot rates its position with the
score its search gives a playout where it stops (:mod:`engine.bot.evaluate`:
banners won of those needed and blocks standing, from the public view of its
own masked state, so it never peeks) and accepts exactly when that rating is
below one half: it takes a draw when it stands worse than even, and plays on
otherwise. No search and no randomness: the same view always gives the same
answer, whatever the level.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.bot.fast import playout_for
from engine.core.api import GameSystem

__all__ = ["DRAW_WORTH", "DrawAnswer", "answer_draw"]

DRAW_WORTH = 0.5
"""What a draw is worth to either side: the bot accepts below it."""


@dataclass(frozen=True)
class DrawAnswer:
    """The bot's answer to a draw offer: ``accept`` or not, its rating and one line why."""

    side: str
    accept: bool
    estimate: float
    explanation: str


def answer_draw(system: GameSystem, state: Any, side: str) -> DrawAnswer:
    """``side``'s answer to a draw offered by its opponent, from what ``side`` sees only."""
    game = playout_for(system)
    estimate = game.evaluate(game.view(state, side), side)
    accept = estimate < DRAW_WORTH
    rating = f"{side} rates its position {round(100 * estimate)}%"
    if accept:
        why = f"{rating}, worse than the {DRAW_WORTH:.0%} a draw is worth: it accepts the draw"
    else:
        why = f"{rating}, no worse than the {DRAW_WORTH:.0%} a draw is worth: it plays on"
    return DrawAnswer(side, accept, estimate, why)
