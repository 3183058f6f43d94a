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
further hits. The enumeration and the records are shared with Napoleonics
(:mod:`engine.cc.odds`).
"""

from __future__ import annotations

from collections.abc import Callable
from copy import copy
from dataclasses import replace
from fractions import Fraction
from typing import Any

from engine.cc.decide import Decider
from engine.cc.odds import (
    BattleForecast,
    Forecast,
    MoveForecast,
    Odds,
    Scorer,
    faces_that_score,
    path_of,
    percent,
)
from engine.cc.odds import distribution as _distribution
from engine.cc.odds import odds_of as _odds_of
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
from engine.core.replay import AnswerBook
from engine.randomness import ScriptedDice

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


def distribution(score: Scorer) -> tuple[dict[tuple[int, int], Fraction], Fraction]:
    """Every (hits, flags) outcome of ``score`` with its exact probability, and the mass cut
    (sword re-rolls followed :data:`REROLL_DEPTH` deep, not below :data:`PRUNE`)."""
    return _distribution(score, FACES, REROLL_DEPTH, PRUNE)


def odds_of(score: Scorer, blocks: int, ignore_flags: int) -> Odds:
    """Summarise a scorer's outcomes against a target of ``blocks`` ignoring ``ignore_flags``."""
    return _odds_of(score, blocks, ignore_flags, FACES, REROLL_DEPTH, PRUNE)


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
        (
            "each battle is computed on the board after the moves written before it; "
            "the results of earlier battles are not applied",
        )
        if len(battles) > 1
        else ()
    )
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
    who = f"{side} {unit.type} {start}" if unit is not None else f"{side} {a.ref.notation()}"
    path = path_of(w.events[before:], start)
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
        s = roll_melee(x, u, tgt, n, "forecast") if close else score_ranged(x, tgt, n, "forecast")
        return s.hits, s.flags

    hit_faces, ignored = faces_that_score(score_n, FACES)
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
        notes.append(
            f"sword re-rolls followed up to {REROLL_DEPTH - 1} deep; "
            f"{percent(result.truncated)} of rolls would re-roll further "
            "(counted as no further hits)"
        )
    return BattleForecast(
        line=a.line,
        quote=a.quote,
        kind="close" if close else "ranged",
        attacker=u.label,
        attacker_hex=str(u.hex),
        target=tgt.label,
        target_hex=str(a.target),
        dice=dice,
        dice_steps=steps,
        hit_faces=hit_faces,
        ignored=ignored,
        target_blocks=tgt.blocks,
        flag_ignores=ign,
        odds=result,
        notes=tuple(notes),
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
        line=a.line,
        quote=a.quote,
        kind="close" if close else "ranged",
        attacker=u.label,
        attacker_hex=str(u.hex),
        target=f"{ld.side} leader {ld.name}",
        target_hex=str(a.target),
        dice=dice,
        dice_steps=steps,
        hit_faces=("H",),
        ignored=(),
        target_blocks=1,
        flag_ignores=0,
        odds=result,
        notes=("a lone leader is killed by a helmet; otherwise it evades",),
    )
