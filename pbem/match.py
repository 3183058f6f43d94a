"""Matches: two games of one scenario with the sides swapped, scored by banners.

C&C battles are rarely balanced, so a fair contest plays a scenario twice,
each player taking each side once (``docs/scenarios.md``, "Matches"). The
match goes to the player with:

1. more banners in total over both games; if equal,
2. more games won; if equal,
3. nobody: the match is drawn.

Everything here is a pure function of the game results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["GameResult", "MatchError", "MatchResult", "PlayerScore", "pairings", "score_match"]

SIDES = ("north", "south")


class MatchError(ValueError):
    """Games that do not form a match (wrong count, players, scenario or sides)."""


@dataclass(frozen=True)
class GameResult:
    """One finished game: who played each side, banners each side won, the winning side.

    ``winner`` is ``"north"``, ``"south"`` or ``None`` (a drawn game: both sides
    reached their total at once, or the game was stopped).
    """

    scenario: str
    north: str
    south: str
    banners_north: int
    banners_south: int
    winner: str | None

    def banners_of(self, player: str) -> int:
        """Banners ``player`` won in this game (0 if they did not play it)."""
        if player == self.north:
            return self.banners_north
        if player == self.south:
            return self.banners_south
        return 0

    def won_by(self, player: str) -> bool:
        """Whether ``player`` won this game."""
        return self.winner is not None and getattr(self, self.winner) == player


@dataclass(frozen=True)
class PlayerScore:
    """A player's totals over the match."""

    player: str
    banners: int
    wins: int


@dataclass(frozen=True)
class MatchResult:
    """The outcome: ``winner`` (a player, or None for a draw) and what decided it.

    ``decided_by`` is ``"banners"``, ``"games"`` or ``"draw"``; ``scores`` lists
    both players, the first player of the first game first.
    """

    winner: str | None
    decided_by: str
    scores: tuple[PlayerScore, PlayerScore]


def pairings(scenario: str, first: str, second: str) -> tuple[GameResult, GameResult]:
    """Return the two games of a match as blank results: ``first`` plays north in game 1."""
    if first == second:
        raise MatchError("a match needs two different players")
    return (
        GameResult(scenario, first, second, 0, 0, None),
        GameResult(scenario, second, first, 0, 0, None),
    )


def _check(games: Sequence[GameResult]) -> tuple[str, str]:
    if len(games) != 2:
        raise MatchError(f"a match is two games, not {len(games)}")
    one, two = games
    if one.scenario != two.scenario:
        raise MatchError(f"both games must use one scenario ({one.scenario} v {two.scenario})")
    if one.north == one.south:
        raise MatchError("a player cannot play both sides of a game")
    if (two.north, two.south) != (one.south, one.north):
        raise MatchError("the second game must swap the sides of the first")
    for g in games:
        if g.winner not in (*SIDES, None):
            raise MatchError(f"winner must be north, south or None, not {g.winner!r}")
        if g.banners_north < 0 or g.banners_south < 0:
            raise MatchError("banners cannot be negative")
    return one.north, one.south


def score_match(games: Sequence[GameResult]) -> MatchResult:
    """Score two games of one scenario with swapped sides; raise :class:`MatchError` otherwise."""
    a, b = _check(games)
    sa, sb = (
        PlayerScore(p, sum(g.banners_of(p) for g in games), sum(g.won_by(p) for g in games))
        for p in (a, b)
    )
    if sa.banners != sb.banners:
        return MatchResult(a if sa.banners > sb.banners else b, "banners", (sa, sb))
    if sa.wins != sb.wins:
        return MatchResult(a if sa.wins > sb.wins else b, "games", (sa, sb))
    return MatchResult(None, "draw", (sa, sb))
