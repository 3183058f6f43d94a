"""A computer player that never peeks (issue 19): information-set Monte Carlo tree search.

- :mod:`engine.bot.players`: :class:`Bot` (levels by search budget), a greedy
  one-ply player and a random one, all deciding from the masked state only;
- :mod:`engine.bot.search`: the search;
- :mod:`engine.bot.adapter`: what the search asks of a game system;
- :mod:`engine.bot.evaluate`: how a position is scored when a playout stops;
- :mod:`engine.bot.rng`: the fast stream used for imagined games only.

Pure and deterministic: the same view, seed and budget give the same move.
"""

from engine.bot.players import (
    DEFAULT_LEVEL,
    LEVELS,
    Bot,
    Decision,
    GreedyPlayer,
    Player,
    RandomPlayer,
    make_player,
    parse_level,
)

__all__ = [
    "DEFAULT_LEVEL",
    "LEVELS",
    "Bot",
    "Decision",
    "GreedyPlayer",
    "Player",
    "RandomPlayer",
    "make_player",
    "parse_level",
]
