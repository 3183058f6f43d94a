"""Swiss pairing, scoring and the single-elimination bracket (pure functions, no store).

The convention followed (docs/clubs.md, "Tournaments"), as C&C Ancients
tournaments run it:

- **Rounds by player count**: 4 rounds for 8 to 16 players, 5 for 17 to 48,
  6 for 49 to 128 (:func:`rounds_for`); the organiser may set another number.
- **A pairing is two games** of the round's scenario with sides swapped,
  started together: each player plays each side once per round, so sides
  are balanced round by round.
- **Scoring per pairing** (:func:`score_pairing`): the player who won more of
  the two games wins the pairing; one game each (or two draws) goes to the
  player with more banners over both games; equal banners is a drawn
  pairing. A pairing won scores :data:`WIN` points, drawn :data:`DRAW`, lost 0.
- **A bye** (odd number of players) goes to the lowest-ranked player who has
  had none; it scores a pairing won (:data:`WIN`) and no banners, and has no
  opponent, so it adds nothing to Strength of Opposition.
- **Standings** (:func:`standings`): points, then banners won, then Strength
  of Opposition (the sum of the points of every opponent met), then entry order.
- **Pairing** (:func:`pair_round`): players in standings order, each paired
  with the highest-ranked player they have not met; when that leaves someone
  unpaired the search backtracks, and repeats are allowed only when no
  pairing without one exists.
- **Bracket** (:func:`bracket_pairs`): the top N of the standings, seed 1 v N,
  2 v N-1, ...; winners meet in bracket order. A drawn bracket pairing goes
  to the higher seed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

__all__ = [
    "BYE",
    "DRAW",
    "WIN",
    "GameScore",
    "Pairing",
    "PairingResult",
    "Played",
    "Standing",
    "bracket_pairs",
    "next_bracket",
    "pair_round",
    "rounds_for",
    "score_pairing",
    "standings",
]

WIN = 2.0
"""Points for a pairing won (and for a bye)."""
DRAW = 1.0
"""Points for a drawn pairing."""
BYE = WIN

_SEARCH_LIMIT = 200_000
"""Backtracking steps before the pairing settles for the fewest repeats found greedily."""


def rounds_for(players: int) -> int:
    """Return the Swiss rounds the convention plays for ``players`` entrants.

    >>> [rounds_for(n) for n in (8, 16, 17, 48, 49, 128)]
    [4, 4, 5, 5, 6, 6]
    """
    if players < 2:
        return 0
    if players < 8:
        return min(3, players - 1)
    if players <= 16:
        return 4
    if players <= 48:
        return 5
    if players <= 128:
        return 6
    return 7


@dataclass(frozen=True)
class GameScore:
    """One game of a pairing as seen by player A: ``outcome`` 1 win, 0.5 draw, 0 loss."""

    outcome: float
    banners_a: int
    banners_b: int


@dataclass(frozen=True)
class PairingResult:
    """What a pairing scored: points and banners of A and B."""

    points_a: float
    points_b: float
    banners_a: int
    banners_b: int

    @property
    def winner(self) -> str:
        """``"a"``, ``"b"`` or ``"draw"``."""
        if self.points_a > self.points_b:
            return "a"
        if self.points_b > self.points_a:
            return "b"
        return "draw"


def score_pairing(games: Sequence[GameScore]) -> PairingResult:
    """Score a pairing from its games (see the module docstring).

    >>> score_pairing([GameScore(1, 6, 3), GameScore(0, 4, 6)]).points_a   # 1-1, banners 10-9
    2.0
    >>> score_pairing([GameScore(1, 6, 3), GameScore(0.5, 5, 5)]).winner
    'a'
    """
    won_a = sum(g.outcome for g in games)
    won_b = sum(1 - g.outcome for g in games)
    banners_a = sum(g.banners_a for g in games)
    banners_b = sum(g.banners_b for g in games)
    if won_a == won_b:
        won_a, won_b = banners_a, banners_b
    if won_a > won_b:
        return PairingResult(WIN, 0.0, banners_a, banners_b)
    if won_b > won_a:
        return PairingResult(0.0, WIN, banners_a, banners_b)
    return PairingResult(DRAW, DRAW, banners_a, banners_b)


@dataclass(frozen=True)
class Pairing:
    """A pairing of a round: ``a`` v ``b`` (``b`` None: a bye for ``a``)."""

    a: int
    b: int | None
    table: int

    @property
    def is_bye(self) -> bool:
        """Whether this is a bye."""
        return self.b is None


@dataclass(frozen=True)
class Played:
    """A scored pairing, for standings: who met whom and what each scored."""

    a: int
    b: int | None
    points_a: float
    points_b: float
    banners_a: int
    banners_b: int


@dataclass(frozen=True)
class Standing:
    """One player's line of the standings (``rank`` from 1)."""

    player: int
    rank: int
    points: float
    banners: int
    sos: float
    played: int
    byes: int
    opponents: tuple[int, ...] = field(default=())


def standings(
    players: Sequence[int], results: Sequence[Played], seeds: Mapping[int, int] | None = None
) -> list[Standing]:
    """Rank ``players`` by points, banners, Strength of Opposition, then seed (entry order)."""
    seeds = seeds or {p: i for i, p in enumerate(players)}
    points = dict.fromkeys(players, 0.0)
    banners = dict.fromkeys(players, 0)
    opponents: dict[int, list[int]] = {p: [] for p in players}
    byes = dict.fromkeys(players, 0)
    for r in results:
        for me, other, pts, ban in (
            (r.a, r.b, r.points_a, r.banners_a),
            (r.b, r.a, r.points_b, r.banners_b),
        ):
            if me is None or me not in points:
                continue
            points[me] += pts
            banners[me] += ban
            if other is None:
                byes[me] += 1
            else:
                opponents[me].append(other)
    sos = {p: sum(points.get(o, 0.0) for o in opponents[p]) for p in players}
    order = sorted(
        players, key=lambda p: (-points[p], -banners[p], -sos[p], seeds.get(p, 1 << 30), p)
    )
    return [
        Standing(
            p, i + 1, points[p], banners[p], sos[p], len(opponents[p]), byes[p], tuple(opponents[p])
        )
        for i, p in enumerate(order)
    ]


def _met(results: Sequence[Played]) -> set[frozenset[int]]:
    return {frozenset((r.a, r.b)) for r in results if r.b is not None}


def _bye_candidates(order: Sequence[int], byes: Mapping[int, int]) -> list[int]:
    """Who may get the bye, best first: fewest byes so far, then the lowest-ranked."""
    ranked = list(reversed(order))
    return sorted(ranked, key=lambda p: byes.get(p, 0))


def pair_round(
    ranked: Sequence[int], results: Sequence[Played], byes: Mapping[int, int] | None = None
) -> list[Pairing]:
    """Pair the players of ``ranked`` (standings order, active players only) for one round.

    Every player is paired once or given the one bye (odd count); no pairing
    repeats one of ``results`` while a pairing without repeats exists (the
    bye then goes to the next candidate among those with the fewest byes).
    """
    order = list(ranked)
    met = _met(results)
    if len(order) % 2 == 0:
        pairs = _search(order, met) or _fewest_repeats(order, met)
        return [Pairing(a, b, i + 1) for i, (a, b) in enumerate(pairs)]
    candidates = _bye_candidates(order, byes or {})
    fewest = (byes or {}).get(candidates[0], 0)
    chosen: tuple[int, list[tuple[int, int]]] | None = None
    for bye in candidates:
        if (byes or {}).get(bye, 0) > fewest:
            break
        found = _search([p for p in order if p != bye], met)
        if found is not None:
            chosen = (bye, found)
            break
    if chosen is None:
        bye = candidates[0]
        chosen = (bye, _fewest_repeats([p for p in order if p != bye], met))
    bye, pairs = chosen
    out = [Pairing(a, b, i + 1) for i, (a, b) in enumerate(pairs)]
    out.append(Pairing(bye, None, len(out) + 1))
    return out


def _search(order: list[int], met: set[frozenset[int]]) -> list[tuple[int, int]] | None:
    """Pair top-down, each with the best-ranked player not met; backtrack when stuck."""
    steps = [0]

    def go(left: list[int]) -> list[tuple[int, int]] | None:
        if not left:
            return []
        steps[0] += 1
        if steps[0] > _SEARCH_LIMIT:
            return None
        first, rest = left[0], left[1:]
        for i, other in enumerate(rest):
            if frozenset((first, other)) in met:
                continue
            tail = go(rest[:i] + rest[i + 1 :])
            if tail is not None:
                return [(first, other), *tail]
        return None

    return go(order)


def _fewest_repeats(order: list[int], met: set[frozenset[int]]) -> list[tuple[int, int]]:
    """Greedy pairing that takes an unmet opponent when there is one, else the next player."""
    left = list(order)
    out = []
    while left:
        first = left.pop(0)
        pick = next((o for o in left if frozenset((first, o)) not in met), left[0])
        left.remove(pick)
        out.append((first, pick))
    return out


def bracket_pairs(seeded: Sequence[int]) -> list[Pairing]:
    """First bracket round for the top players in seed order: 1 v N, 2 v N-1, ...

    The order of the list keeps the bracket: winners of pairings 1 and 2 meet
    next, and so on (:func:`next_bracket`).

    >>> [(p.a, p.b) for p in bracket_pairs([1, 2, 3, 4, 5, 6, 7, 8])]
    [(1, 8), (4, 5), (2, 7), (3, 6)]
    """
    n = len(seeded)
    if n < 2 or n & (n - 1):
        raise ValueError(f"a bracket needs 2, 4, 8, 16 ... players, not {n}")
    slots = [1]
    while len(slots) < n:
        size = len(slots) * 2
        slots = [s for seed in slots for s in (seed, size + 1 - seed)]
    return [
        Pairing(seeded[slots[i] - 1], seeded[slots[i + 1] - 1], i // 2 + 1) for i in range(0, n, 2)
    ]


def next_bracket(winners: Sequence[int]) -> list[Pairing]:
    """The next bracket round: the winners, in bracket order, two by two."""
    return [Pairing(winners[i], winners[i + 1], i // 2 + 1) for i in range(0, len(winners) - 1, 2)]
