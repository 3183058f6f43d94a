"""Exact battle odds for both C&C systems' ``check`` forecast, without rolling a die.

A system's forecast (:mod:`engine.cca.odds`, :mod:`engine.ccn.odds`) replays a
submission's moves on a working copy, then, for each battle line, hands this module a
*scorer*: a function that rolls through a given :class:`~engine.randomness.Randomness`
with the engine's own scoring and returns ``(hits, flags)``. :func:`distribution` feeds
the scorer every multiset of faces (each roll's order never matters to the C&C scoring:
ignores and re-rolls depend on counts), weighted by its multinomial probability, in exact
fractions; a scorer that rolls again (Ancients' sword re-rolls) is followed ``depth`` rolls
deep and not below ``prune``, the rest reported as ``truncated``. :func:`faces_that_score`
finds which faces hit a target by rolling every die on one face. Nothing here restates a
rule: the numbers are the engine's.

The records (:class:`MoveForecast`, :class:`BattleForecast`, :class:`Forecast`) are what
``pbem check`` prints (:mod:`engine.cc.forecast_text`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement
from math import factorial
from typing import Any

from engine.core.api import Event
from engine.randomness import Die

__all__ = [
    "PROBE",
    "BattleForecast",
    "Branch",
    "Forecast",
    "MoveForecast",
    "Odds",
    "Scorer",
    "distribution",
    "faces_that_score",
    "odds_of",
    "path_of",
    "percent",
]

PROBE = 8
"""Dice rolled all on one face to see whether (and how often) that face scores."""


@dataclass(frozen=True)
class MoveForecast:
    """One ``move`` (or ``enter``, ``break``) line: who goes where, and what stops it."""

    line: int
    quote: str
    who: str
    path: tuple[str, ...]  # the start hex, then every hex entered
    stopped_by: str | None = None  # terrain that ends the move on entry ("forest")
    note: str = ""  # e.g. why the unit may not battle after this move


@dataclass(frozen=True)
class Odds:
    """Exact odds of one roll against one target (fractions in [0, 1])."""

    expected_hits: Fraction
    p_hit: Fraction
    p_eliminate: Fraction
    p_flag: Fraction
    p_retreat: Fraction
    truncated: Fraction = Fraction(0)  # probability of re-rolls not followed


@dataclass(frozen=True)
class BattleForecast:
    """One battle line: dice, scoring faces and odds against the target.

    ``dice_steps`` explains the count: ``(what, dice after it)`` from the base
    to the final count. ``hit_faces`` are the faces that score on this target;
    ``ignored`` says how many of a face the target ignores (e.g. ``{"S": 1}``).
    """

    line: int
    quote: str
    kind: str  # "ranged" | "close"
    attacker: str
    attacker_hex: str
    target: str
    target_hex: str
    dice: int
    dice_steps: tuple[tuple[str, int], ...]
    hit_faces: tuple[str, ...]
    ignored: tuple[tuple[str, int], ...]
    target_blocks: int
    flag_ignores: int
    odds: Odds
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Forecast:
    """Moves and battles of a submission, and the board after the moves."""

    side: str
    card: str | None
    moves: tuple[MoveForecast, ...]
    battles: tuple[BattleForecast, ...]
    state: Any  # the system's state after every move line, before any battle result
    events: tuple[Event, ...]  # the move events, as resolution would log them
    notes: tuple[str, ...] = ()


def path_of(
    events: Sequence[Event], start: object, kinds: tuple[str, ...] = ("move",)
) -> tuple[str, ...]:
    """The hexes a move line went through: the first move event's ``path`` among ``events``
    (those the line logged), else just ``start`` (no move)."""
    for e in events:
        if e.kind in kinds and e.data.get("path"):
            return tuple(str(h) for h in e.data["path"])
    return (str(start),) if start is not None else ()


def percent(p: Fraction) -> str:
    """Format a probability as a percentage with one decimal (``59.8%``)."""
    return f"{float(p) * 100:.1f}%"


# --- enumerating every roll ---------------------------------------------------


class _Need(Exception):
    """The scoring asked for a roll beyond the prefix being explored."""

    def __init__(self, count: int) -> None:
        super().__init__(count)
        self.count = count


class Branch:
    """A Randomness that serves a fixed prefix of rolls, then asks to branch (or stops)."""

    def __init__(self, prefix: tuple[tuple[str, ...], ...], stop: bool) -> None:
        self.prefix = prefix
        self.stop = stop
        self.calls = 0

    def roll(self, die: Die, count: int, purpose: str) -> tuple[str, ...]:
        i = self.calls
        self.calls += 1
        if i < len(self.prefix):
            return self.prefix[i]
        if self.stop:
            return ()
        raise _Need(count)

    def permutation(self, n: int, purpose: str) -> tuple[int, ...]:
        return tuple(range(n))


@lru_cache(maxsize=64)
def _multisets(faces: tuple[str, ...], k: int) -> tuple[tuple[tuple[str, ...], Fraction], ...]:
    """Every multiset of ``k`` faces of a die with ``faces`` (a face may be printed on
    several sides: the Napoleonics INF) with its probability."""
    sides = Counter(faces)
    out = []
    for combo in combinations_with_replacement(tuple(sides), k):
        p = Fraction(factorial(k))
        for f, n in Counter(combo).items():
            p = p / factorial(n) * Fraction(sides[f], len(faces)) ** n
        out.append((combo, p))
    return tuple(out)


Scorer = Callable[[Any], tuple[int, int]]
"""Given a Randomness, score one battle and return (hits, flags)."""


def distribution(
    score: Scorer, faces: tuple[str, ...], depth: int = 1, prune: Fraction = Fraction(0)
) -> tuple[dict[tuple[int, int], Fraction], Fraction]:
    """Every (hits, flags) outcome of ``score`` with its exact probability, and the mass cut.

    ``faces`` are the die's sides; rolls after the first are followed up to ``depth``
    rolls and not below probability ``prune`` (the mass cut is returned).
    """
    out: dict[tuple[int, int], Fraction] = {}
    cut = Fraction(0)
    todo: list[tuple[tuple[tuple[str, ...], ...], Fraction]] = [((), Fraction(1))]
    while todo:
        prefix, p = todo.pop()
        deep = len(prefix) >= depth or (bool(prefix) and p < prune)
        rng = Branch(prefix, stop=deep)
        try:
            key = score(rng)
        except _Need as need:
            todo += [((*prefix, f), p * q) for f, q in _multisets(faces, need.count)]
            continue
        if deep and rng.calls > len(prefix):
            cut += p
        out[key] = out.get(key, Fraction(0)) + p
    return out, cut


def odds_of(  # noqa: PLR0917 (a roll's summary reads this many things)
    score: Scorer,
    blocks: int,
    ignore_flags: int,
    faces: tuple[str, ...],
    depth: int = 1,
    prune: Fraction = Fraction(0),
) -> Odds:
    """Summarise a scorer's outcomes against a target of ``blocks`` ignoring ``ignore_flags``."""
    dist, cut = distribution(score, faces, depth, prune)
    exp = sum((p * h for (h, _), p in dist.items()), Fraction(0))
    p_hit = sum((p for (h, _), p in dist.items() if h > 0), Fraction(0))
    p_elim = sum((p for (h, _), p in dist.items() if h >= blocks), Fraction(0))
    p_flag = sum((p for (_, f), p in dist.items() if f > 0), Fraction(0))
    p_ret = sum((p for (h, f), p in dist.items() if h < blocks and f > ignore_flags), Fraction(0))
    return Odds(exp, p_hit, p_elim, p_flag, p_ret, cut)


def faces_that_score(
    score_n: Callable[[Any, int], tuple[int, int]], faces: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[tuple[str, int], ...]]:
    """Which faces score (rolling :data:`PROBE` dice all on one face), and how many are
    ignored; ``score_n(rng, n)`` scores ``n`` dice."""
    hits: list[str] = []
    ignored: list[tuple[str, int]] = []
    for f in dict.fromkeys(faces):
        h, _ = score_n(Branch(((f,) * PROBE,), stop=True), PROBE)
        if h > 0:
            hits.append(f)
            if h < PROBE:
                ignored.append((f, PROBE - h))
    return tuple(hits), tuple(ignored)
