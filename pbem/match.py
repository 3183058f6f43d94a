"""Matches: two games of one scenario with the sides swapped, scored by banners.

C&C battles are rarely balanced, so a fair contest plays a scenario twice,
each player taking each side once (``docs/scenarios.md``, "Matches"). The
match goes to the player with:

1. more banners in total over both games; if equal,
2. more games won; if equal,
3. nobody: the match is drawn.

Sides are the game system's (``system.sides``: ``north``/``south`` for C&C, any
two names for another system). Everything here is a pure function of the game
results.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["GameResult", "MatchError", "MatchResult", "PlayerScore", "pairings", "score_match"]


class MatchError(ValueError):
    """Games that do not form a match (wrong count, players, scenario or sides)."""


@dataclass(frozen=True)
class GameResult:
    """One finished game: who played each side, banners each side won, the winning side.

    ``players`` and ``banners`` are keyed by the game system's two sides (its
    ``sides``, e.g. ``north``/``south`` for C&C); ``winner`` is one of them or
    ``None`` (a drawn game: both sides reached their total at once, or the game
    was stopped).
    """

    scenario: str
    players: Mapping[str, str]
    banners: Mapping[str, int]
    winner: str | None

    @property
    def sides(self) -> tuple[str, ...]:
        """The sides, in the order ``players`` gives them."""
        return tuple(self.players)

    def banners_of(self, player: str) -> int:
        """Banners ``player`` won in this game (0 if they did not play it)."""
        return sum(self.banners.get(s, 0) for s, p in self.players.items() if p == player)

    def won_by(self, player: str) -> bool:
        """Whether ``player`` won this game."""
        return self.winner is not None and self.players.get(self.winner) == player


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


def pairings(
    scenario: str, first: str, second: str, sides: Sequence[str]
) -> tuple[GameResult, GameResult]:
    """Return the two games of a match as blank results: ``first`` plays ``sides[0]`` (the
    system's first side, e.g. north) in game 1 and ``sides[1]`` in game 2."""
    if first == second:
        raise MatchError("a match needs two different players")
    if len(sides) != 2:
        raise MatchError(f"a match swaps two sides; this system has {len(sides)}")
    a, b = sides
    zero = {a: 0, b: 0}
    return (
        GameResult(scenario, {a: first, b: second}, zero, None),
        GameResult(scenario, {a: second, b: first}, zero, None),
    )


def _check(games: Sequence[GameResult]) -> tuple[str, str]:
    if len(games) != 2:
        raise MatchError(f"a match is two games, not {len(games)}")
    one, two = games
    if one.scenario != two.scenario:
        raise MatchError(f"both games must use one scenario ({one.scenario} v {two.scenario})")
    sides = one.sides
    if len(sides) != 2 or set(two.sides) != set(sides):
        raise MatchError(f"both games must have the same two sides ({sides} v {two.sides})")
    a, b = sides
    if one.players[a] == one.players[b]:
        raise MatchError("a player cannot play both sides of a game")
    if (two.players[a], two.players[b]) != (one.players[b], one.players[a]):
        raise MatchError("the second game must swap the sides of the first")
    for g in games:
        if g.winner not in (*sides, None):
            raise MatchError(f"winner must be {a}, {b} or None, not {g.winner!r}")
        if set(g.banners) != set(sides) or any(n < 0 for n in g.banners.values()):
            raise MatchError(f"banners must be counted for {a} and {b}, none negative")
    return one.players[a], one.players[b]


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
