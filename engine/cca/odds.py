"""What a checked submission would do, without rolling a die (cca.md §7-§12).

:func:`forecast` replays a submission's moves on a working copy exactly as
resolution would (:func:`engine.cca.validate.move_step`), then, for each
``fire``/``attack`` line, asks the engine's own functions for the numbers:
the dice count (:func:`~engine.cca.combat.melee_dice`,
:func:`~engine.cca.combat.ranged_dice`: base, terrain caps, card bonuses),
the faces that score (the engine's scoring, :func:`~engine.cca.combat.roll_melee`
and :func:`~engine.cca.combat.score_ranged`, run on every possible roll) and
the flags the target may ignore (:func:`~engine.cca.retreat.flag_ignores`).
Nothing here restates a rule: the odds come from feeding each multiset of
faces to the engine's scoring through an enumerating :class:`Randomness`,
weighted by its multinomial probability, in exact fractions.

Each battle is computed on the board as it stands after the moves written
before it; the results of earlier battles (losses, retreats, eliminations,
advances) are not applied, since they depend on dice. Hidden things are not
consulted: the opponent's hand (First Strike) is ignored, evades and
battle backs are reported as possibilities. Elephant sword re-rolls are
followed :data:`REROLL_DEPTH` rolls deep, and not below :data:`PRUNE`; the
probability left unexplored is reported (``truncated``) and counted as no
further hits.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from copy import copy
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement
from math import factorial
from typing import Any

from engine.cc.decide import Decider
from engine.cca.combat import melee_dice, ranged_dice, roll_melee, score_ranged
from engine.cca.evade import evade_paths, may_evade
from engine.cca.movement import moved_too_far_to_battle
from engine.cca.ordering import order_units
from engine.cca.orders import Action, Submission
from engine.cca.retreat import flag_ignores
from engine.cca.special import enter_step
from engine.cca.state import State
from engine.cca.terrain import mover_kind
from engine.cca.validate import move_step
from engine.cca.work import BATTLE_DIE, Work, WUnit
from engine.core.api import Event
from engine.core.replay import AnswerBook
from engine.randomness import Die, ScriptedDice

__all__ = [
    "REROLL_DEPTH",
    "BattleForecast",
    "Forecast",
    "MoveForecast",
    "Odds",
    "distribution",
    "forecast",
    "odds_of",
    "percent",
]

REROLL_DEPTH = 4
"""Rolls followed per battle (the first roll and up to three rounds of sword re-rolls)."""

PRUNE = Fraction(1, 10**5)
"""Re-rolls are not followed below this probability (counted as ``truncated``)."""

FACES: tuple[str, ...] = BATTLE_DIE.faces
_PROBE = 8  # dice rolled all on one face to see whether (and how often) that face scores


@dataclass(frozen=True)
class MoveForecast:
    """One ``move`` or ``enter`` line: who goes where, and what stops it."""

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
    """One ``fire``/``attack`` line: dice, scoring faces and odds against the target.

    ``dice_steps`` explains the count: ``(what, dice after it)`` from the base
    to the final count. ``hit_faces`` are the faces that score on this target
    (``S`` only when swords count, ``H`` with leader support); ``ignored``
    says how many of a face the target ignores (e.g. ``{"S": 1}``).
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
    state: State  # the position after every move line, before any battle result
    events: tuple[Event, ...]  # the move events, as resolution would log them
    notes: tuple[str, ...] = ()


def percent(p: Fraction) -> str:
    """Format a probability as a percentage with one decimal (``59.8%``)."""
    return f"{float(p) * 100:.1f}%"


# --- enumerating every roll ---------------------------------------------------


class _Need(Exception):
    """The scoring asked for a roll beyond the prefix being explored."""

    def __init__(self, count: int) -> None:
        super().__init__(count)
        self.count = count


class _Branch:
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


@lru_cache(maxsize=32)
def _multisets(k: int) -> tuple[tuple[tuple[str, ...], Fraction], ...]:
    """Every multiset of ``k`` battle-die faces with its probability."""
    total = len(FACES) ** k
    out = []
    for combo in combinations_with_replacement(FACES, k):
        ways = factorial(k)
        for n in Counter(combo).values():
            ways //= factorial(n)
        out.append((combo, Fraction(ways, total)))
    return tuple(out)


Scorer = Callable[[Any], tuple[int, int]]
"""Given a Randomness, score one battle and return (hits, flags)."""


def distribution(score: Scorer) -> tuple[dict[tuple[int, int], Fraction], Fraction]:
    """Every (hits, flags) outcome of ``score`` with its exact probability, and the mass cut.

    The scorer's order of faces within a roll never matters to the engine
    (ignores and re-rolls depend on counts), so each roll is one multiset.
    """
    out: dict[tuple[int, int], Fraction] = {}
    cut = Fraction(0)
    todo: list[tuple[tuple[tuple[str, ...], ...], Fraction]] = [((), Fraction(1))]
    while todo:
        prefix, p = todo.pop()
        deep = len(prefix) >= REROLL_DEPTH or (bool(prefix) and p < PRUNE)
        rng = _Branch(prefix, stop=deep)
        try:
            key = score(rng)
        except _Need as need:
            todo += [((*prefix, faces), p * q) for faces, q in _multisets(need.count)]
            continue
        if deep and rng.calls > len(prefix):
            cut += p
        out[key] = out.get(key, Fraction(0)) + p
    return out, cut


def odds_of(score: Scorer, blocks: int, ignore_flags: int) -> Odds:
    """Summarise a scorer's outcomes against a target of ``blocks`` ignoring ``ignore_flags``."""
    dist, cut = distribution(score)
    exp = sum((p * h for (h, _), p in dist.items()), Fraction(0))
    p_hit = sum((p for (h, _), p in dist.items() if h > 0), Fraction(0))
    p_elim = sum((p for (h, _), p in dist.items() if h >= blocks), Fraction(0))
    p_flag = sum((p for (_, f), p in dist.items() if f > 0), Fraction(0))
    p_ret = sum(
        (p for (h, f), p in dist.items() if h < blocks and f > ignore_flags), Fraction(0)
    )
    return Odds(exp, p_hit, p_elim, p_flag, p_ret, cut)


def _faces_that_score(score_n: Callable[[Any, int], tuple[int, int]]) -> tuple[
    tuple[str, ...], tuple[tuple[str, int], ...]
]:
    """Which faces score (rolling :data:`_PROBE` dice all on one face), and how many are ignored."""
    hits: list[str] = []
    ignored: list[tuple[str, int]] = []
    for f in FACES:
        h, _ = score_n(_Branch(((f,) * _PROBE,), stop=True), _PROBE)
        if h > 0:
            hits.append(f)
            if h < _PROBE:
                ignored.append((f, _PROBE - h))
    return tuple(hits), tuple(ignored)


# --- the forecast -------------------------------------------------------------


def _work(state: State) -> Work:
    return Work.start(state, ScriptedDice([]), Decider({}, AnswerBook(())))


def forecast(state: State, side: str, sub: Submission) -> Forecast:
    """Describe what ``sub`` (already accepted by ``parse_orders``) would do; roll nothing.

    Raises ``ValueError`` if the submission turns out illegal here (it was
    not checked against this state).
    """
    if sub.card is None:
        return Forecast(side, None, (), (), state, (), ("no card played: nothing moves",))
    w = _work(state)
    problems = order_units(w, side, sub, validating=True)
    if problems:
        raise ValueError("; ".join(str(p) for p in problems))
    moves: list[MoveForecast] = []
    battles: list[BattleForecast] = []
    phase = 1
    for a in sub.actions:
        if a.verb in ("move", "enter"):
            moves.append(_move(w, side, a, 3 if phase == 2 else 1))
        else:
            phase = 2
            battles.append(_battle(w, side, a))
    events = tuple(e for e in w.events if e.kind in ("move", "attach", "enter"))
    notes = (
        "each battle is computed on the board after the moves written before it; "
        "the results of earlier battles are not applied",
    ) if len(battles) > 1 else ()
    return Forecast(side, w.card, tuple(moves), tuple(battles), w.freeze(), events, notes)


def _move(w: Work, side: str, a: Action, mp: int) -> MoveForecast:
    before = len(w.events)
    if a.verb == "enter":
        why = enter_step(w, side, a)
        if why:
            raise ValueError(f"line {a.line}: {why}")
        who = f"leader {a.ref.leader}" if a.ref.leader else f"{side} {a.unit_type}"
        return MoveForecast(a.line, a.quote, who, (str(a.target),), note="enters the board")
    start = a.ref.hex
    unit = w.unit_at(start) if start is not None else None
    why = move_step(w, side, a, mp)
    if why:
        raise ValueError(f"line {a.line}: {why}")
    path: tuple[str, ...] = ()
    who = f"{side} {unit.type} {start}" if unit is not None else f"{side} {a.ref.notation()}"
    for e in w.events[before:]:
        if e.kind == "move" and e.data.get("path"):
            path = tuple(str(h) for h in e.data["path"])
            break
    if not path:
        path = (str(start),) if start is not None else ()
    stopped = None
    note = ""
    if unit is not None and unit.hex is not None:
        end = unit.hex
        if len(path) > 1 and mover_kind(unit.spec) in w.terrain(end).stop:
            stopped = w.state.terrain_at(end)
        note = "leaves the board" if a.off else moved_too_far_to_battle(w, unit) or ""
    return MoveForecast(a.line, a.quote, who, path, stopped, note)


def _steps(w: Work, count: Callable[[Work], int]) -> tuple[tuple[str, int], ...]:
    """Explain a dice count: base (no terrain, no card), after terrain, after the card."""
    bare_state = replace(w.state, terrain=())
    no_card = replace(w, card=None, bonus_dice={})
    base = count(replace(no_card, state=bare_state))
    ter = count(no_card)
    final = count(w)
    steps: list[tuple[str, int]] = [("base", base)]
    if ter != base:
        steps.append(("terrain", ter))
    if final != ter:
        steps.append(("card", final))
    return tuple(steps)


def _battle(w: Work, side: str, a: Action) -> BattleForecast:
    assert a.ref.hex is not None and a.target is not None
    u = w.unit_at(a.ref.hex)
    if u is None or u.side != side:
        raise ValueError(f"line {a.line}: none of your units is in {a.ref.hex}")
    close = a.verb == "attack"
    tgt = w.unit_at(a.target)
    notes: list[str] = []
    if tgt is None or tgt.side == side:
        return _lone_leader(w, u, a, close)
    att_full, def_full = w.full_strength(u), w.full_strength(tgt)

    def count(x: Work) -> int:
        xu, xt = x.units[u.id], x.units[tgt.id]
        if close:
            return melee_dice(x, xu, xt, "attack", att_full, target_full=def_full)
        return ranged_dice(x, xu, a.target)  # type: ignore[arg-type]

    steps = _steps(w, count)
    dice = steps[-1][1]

    x = copy(w)  # one shallow copy whose dice source is swapped per roll explored

    def score_n(rng: Any, n: int) -> tuple[int, int]:
        x.rng = rng
        s = (roll_melee(x, u, tgt, n, "forecast") if close
             else score_ranged(x, tgt, n, "forecast"))
        return s.hits, s.flags

    hit_faces, ignored = _faces_that_score(score_n)
    ign = flag_ignores(w, tgt, u, close, True, def_full)
    result = odds_of(lambda rng: score_n(rng, dice), tgt.blocks, ign)
    if w.attached(tgt) is not None:
        notes.append("the target's leader may be hit (leader check) if it loses blocks")
    if close:
        if may_evade(w, tgt, u) and evade_paths(w, tgt):
            notes.append(f"the {tgt.type} may evade instead of standing")
        back = melee_dice(w, tgt, u, "back", def_full, target_full=att_full)
        if back:
            notes.append(f"if it holds its hex, the {tgt.type} may battle back with {back} dice")
    if result.truncated:
        notes.append(f"sword re-rolls followed up to {REROLL_DEPTH - 1} deep; "
                     f"{percent(result.truncated)} of rolls would re-roll further "
                     "(counted as no further hits)")
    return BattleForecast(
        line=a.line, quote=a.quote, kind="close" if close else "ranged",
        attacker=u.label, attacker_hex=str(u.hex), target=tgt.label, target_hex=str(a.target),
        dice=dice, dice_steps=steps, hit_faces=hit_faces, ignored=ignored,
        target_blocks=tgt.blocks, flag_ignores=ign, odds=result, notes=tuple(notes),
    )


def _lone_leader(w: Work, u: WUnit, a: Action, close: bool) -> BattleForecast:
    """A lone leader as the target: a helmet kills it (§16.3; attack_lone_leader's test)."""
    assert a.target is not None
    ld = w.leader_at(a.target)
    if ld is None or ld.side == u.side:
        raise ValueError(f"line {a.line}: no enemy in {a.target}")

    def count(x: Work) -> int:
        xu = x.units[u.id]
        if close:
            return melee_dice(x, xu, None, "attack", x.full_strength(xu), target_hex=a.target)
        return ranged_dice(x, xu, a.target)  # type: ignore[arg-type]

    steps = _steps(w, count)
    dice = steps[-1][1]

    x = copy(w)

    def score(rng: Any) -> tuple[int, int]:
        x.rng = rng
        faces = x.roll(dice, "forecast")
        return (1 if "H" in faces else 0), 0

    result = odds_of(score, 1, 0)
    return BattleForecast(
        line=a.line, quote=a.quote, kind="close" if close else "ranged",
        attacker=u.label, attacker_hex=str(u.hex), target=f"{ld.side} leader {ld.name}",
        target_hex=str(a.target), dice=dice, dice_steps=steps, hit_faces=("H",), ignored=(),
        target_blocks=1, flag_ignores=0, odds=result,
        notes=("a lone leader is killed by a helmet; otherwise it evades",),
    )
