"""What a checked Napoleonics submission would do, without rolling a die (ccn.md §11-§16, §22).

:func:`forecast` replays a submission's order, break and move lines on a working copy
exactly as resolution does (:func:`engine.ccn.ordering.order_units`,
:func:`engine.ccn.steps.move_step`, :func:`~engine.ccn.steps.break_step`), then, for each
``fire``/``attack`` line, asks the engine's own functions for the numbers: the dice
(:func:`engine.ccn.battle.fire_count`, :func:`~engine.ccn.battle.melee_count`,
:func:`engine.ccn.rules.combined_arms.artillery_dice`: dice by strength or by the
artillery chart, card dice, terrain reductions, the square cap), the faces that hit
(:func:`engine.ccn.rules.hits.score`, run on every possible roll through
:mod:`engine.cc.odds`, in exact fractions) and the flags the target may ignore
(:func:`engine.ccn.rules.flags.allowance`).

Each battle is computed on the board after the moves; earlier battles' results are not
applied, since they depend on dice. Hidden things are not consulted: the opponent's hand
(First Strike, and whether a square may be formed, which needs 3 cards) is not read; the
defender's own choices (square, retire and reform, battle back) are reported as
possibilities. Élan's and Rally's dice, rolled when the card is played, decide which of the
units listed are ordered: the forecast assumes every one of them is.
"""

from __future__ import annotations

from copy import copy
from typing import Any

from engine.cc.decide import Decider
from engine.cc.forecast_text import ForecastReport
from engine.cc.odds import (
    BattleForecast,
    Forecast,
    MoveForecast,
    faces_that_score,
    odds_of,
    path_of,
    percent,
)
from engine.cc.orders import Action, Submission
from engine.ccn.battle import (
    card_dice,
    fire_count,
    fire_problem,
    melee_count,
    melee_problem,
    moved_for_dice,
)
from engine.ccn.battle import may_battle as _may_battle
from engine.ccn.dice import FIRE, MELEE, fire_dice, melee_dice
from engine.ccn.ordering import order_units
from engine.ccn.rules.cavalry import may_retire
from engine.ccn.rules.combined_arms import artillery_dice, combined_sabres
from engine.ccn.rules.flags import allowance
from engine.ccn.rules.ground import reduction
from engine.ccn.rules.hits import BATTLE_DIE, RANGED, RETIRING, SABRE, sabres_hit, score
from engine.ccn.rules.hits import MELEE as SCORE_MELEE
from engine.ccn.rules.squares import capped
from engine.ccn.rules.take_ground import BATTLE_BACK
from engine.ccn.state import State
from engine.ccn.steps import break_step, find, move_step
from engine.ccn.strength import Strength
from engine.ccn.work import WLeader, Work, WUnit
from engine.core.replay import AnswerBook
from engine.hexgrid import Hex
from engine.randomness import ScriptedDice

__all__ = ["FACES", "LEGEND", "Forecaster", "forecast"]

FACES: tuple[str, ...] = BATTLE_DIE.faces
LEGEND = "INF, CAV, ART the symbols, SABRE sabres; FLAG never hits"
"""What the faces of the Napoleonics battle die are called in the forecast."""


class Forecaster:
    """The ``forecast`` capability: odds for accepted orders (not for answers)."""

    def forecast(self, state: State, side: str, submission: Submission) -> ForecastReport | None:
        """The forecast of ``submission``; None when the state waits for an answer."""
        if state.pending is not None:
            return None
        return ForecastReport(forecast(state, side, submission), LEGEND)


def forecast(state: State, side: str, sub: Submission) -> Forecast:
    """Describe what ``sub`` (already accepted by ``parse_orders``) would do; roll nothing.

    Raises ``ValueError`` if the submission turns out illegal here (it was not checked
    against this state).
    """
    if sub.card is None:
        return Forecast(side, None, (), (), state, (), ("no card played: nothing moves",))
    w = Work.start(state, ScriptedDice([]), Decider({}, AnswerBook(())))
    w.simulate = True
    w.hands[side].remove(sub.card)
    problems = order_units(w, side, sub, validating=True)
    if problems:
        raise ValueError("; ".join(str(p) for p in problems))
    moves: list[MoveForecast] = []
    battles: list[BattleForecast] = []
    for a in sub.actions:
        if a.verb in ("move", "break"):
            moves.append(_move(w, side, a))
        else:
            battles.append(_battle(w, side, a))
    notes: list[str] = []
    if len(battles) > 1:
        notes.append(
            "each battle is computed on the board after the moves; "
            "the results of earlier battles are not applied"
        )
    if w.card in ("elan", "rally") and not w.fallback:
        notes.append(
            "the card's dice decide which of the units listed are ordered; "
            "the forecast assumes every one is"
        )
    events = tuple(e for e in w.events if e.kind in ("move", "attach", "detach", "short-supply"))
    return Forecast(side, w.card, tuple(moves), tuple(battles), w.freeze(), events, tuple(notes))


def _move(w: Work, side: str, a: Action) -> MoveForecast:
    before = len(w.events)
    got = find(w, None if w.card == "short_supply" else side, a.ref)
    start = got.hex if not isinstance(got, str) else a.ref.hex
    why = move_step(w, side, a) if a.verb == "move" else break_step(w, side, a)
    if why:
        raise ValueError(f"line {a.line}: {why}")
    if isinstance(got, WLeader):
        who = f"{got.side} leader {got.name}"
    elif isinstance(got, WUnit):
        who = f"{got.side} {got.nation} {got.type} {start}"
    else:
        who = f"{side} {a.ref.notation()}"
    if a.verb == "break":
        return MoveForecast(a.line, a.quote, who, (str(start),), note="breaks its square")
    path = path_of(w.events[before:], start, ("move", "short-supply"))
    stopped = None
    note = ""
    if isinstance(got, WUnit) and got.hex is not None:
        if len(path) > 1 and w.terrain(got.hex).stop:
            stopped = w.terrain_at(got.hex)
        if got.side == side:
            note = _may_battle(w, got) or ""
    return MoveForecast(a.line, a.quote, who, path, stopped, note)


def _steps(base: int, card: int, red: int, square: bool) -> list[tuple[str, int]]:
    """Explain a count in the order of ccn.md §11: base, card dice, terrain, the square cap."""
    steps = [("base", base)]
    if square:
        steps.append(("square", 1))
        if red:
            steps.append(("terrain", max(0, 1 - red)))
        return steps
    if card:
        steps.append(("card", base + card))
    if red:
        steps.append(("terrain", max(0, base + card - red)))
    return steps


def _strength(u: WUnit) -> Strength:
    return Strength(u.nation, u.type, u.blocks)


def _count_steps(w: Work, u: WUnit, target: Hex, kind: str) -> list[tuple[str, int]]:
    """The dice of ``u``'s fire or melee at ``target``, step by step; the last step is the
    engine's own count (:func:`fire_count`, :func:`melee_count`)."""
    assert u.hex is not None
    moved = moved_for_dice(w, u)
    tgt = w.unit_at(target)
    if kind == FIRE:
        base = fire_dice(w.tables, _strength(u), moved, u.hex.distance(target))
        total = fire_count(w, u, target)
        square = u.square
    else:
        base = melee_dice(w.tables, _strength(u), moved, w.arm(tgt) if tgt is not None else "")
        total = melee_count(w, u, target)
        square = capped(w, u, tgt)
    red = reduction(w, u.hex, w.arm(u), kind, target)
    steps = _steps(base, 0 if square else card_dice(w, u, kind, target), red, square)
    if steps[-1][1] != total:  # a rule the steps do not spell out: say the engine's count
        steps.append(("rules", total))
    return steps


def _battle(w: Work, side: str, a: Action) -> BattleForecast:
    assert a.ref.hex is not None and a.target is not None
    u = w.unit_at(a.ref.hex)
    if u is None or u.side != side:
        raise ValueError(f"line {a.line}: none of your units is in {a.ref.hex}")
    close = a.verb == "attack"
    why = melee_problem(w, u, a.target, a.joined) if close else fire_problem(w, u, a.target)
    if why:
        raise ValueError(f"line {a.line}: {why}")
    tgt = w.unit_at(a.target)
    steps = _count_steps(w, u, a.target, MELEE if close else FIRE)
    notes: list[str] = []
    if close:
        for h in a.joined:
            art = w.unit_at(h)
            assert art is not None
            extra = artillery_dice(
                w, art, a.target, w.moved.get(art.id, 0), card_dice(w, art, MELEE, a.target)
            )
            steps.append((f"{art.type} {h} joins", steps[-1][1] + extra))
    dice = steps[-1][1]
    x = copy(w)  # one shallow copy whose dice source is swapped per roll explored
    if tgt is None or tgt.side == side:
        return _lone_leader(w, u, a, x, dice, tuple(steps))
    kind = SCORE_MELEE if close else RANGED
    sabres = close and (combined_sabres(w, u) if a.joined else sabres_hit(w.tables, u.type))
    target_arm = w.arm(tgt)

    def score_n(rng: Any, n: int) -> tuple[int, int]:
        x.rng = rng
        s = score(x.roll(n, "forecast"), target_arm, kind, sabres)
        return s.hits, s.flags

    hit_faces, ignored = faces_that_score(score_n, FACES)
    repulse = u.square and target_arm == "cavalry"
    ign = allowance(w, tgt, u.hex, repulse).total
    result = odds_of(lambda rng: score_n(rng, dice), tgt.blocks, ign, FACES)
    notes += _maybes(w, u, tgt, close, dice, x)
    return BattleForecast(
        line=a.line, quote=a.quote, kind="close" if close else "ranged",
        attacker=u.label, attacker_hex=str(u.hex), target=tgt.label, target_hex=str(a.target),
        dice=dice, dice_steps=tuple(steps), hit_faces=hit_faces, ignored=ignored,
        target_blocks=tgt.blocks, flag_ignores=ign, odds=result, notes=tuple(notes),
    )  # fmt: skip


def _maybes(w: Work, u: WUnit, tgt: WUnit, close: bool, dice: int, x: Work) -> list[str]:  # noqa: PLR0917
    """What the defender may choose, and what else may follow the roll."""
    notes: list[str] = []
    if w.attached(tgt) is not None:
        notes.append("the target's leader is checked (2 SABREs kill him) if it loses blocks")
    if tgt.square:
        notes.append("a square cannot retreat: it loses blocks for the flags it does not ignore")
    if not close:
        return notes
    assert u.hex is not None and tgt.hex is not None
    if w.arm(u) == "cavalry" and w.arm(tgt) == "infantry" and not tgt.square:
        # Hand size and square markers are hidden here: the terrain is what is said (§21.3).
        notes.append(
            f"the {tgt.type} may form square: it then rolls first with 1 die, "
            "and the cavalry rolls 1 die"
        )
    if may_retire(w, tgt, u, "attack") is None:

        def retiring(rng: Any) -> tuple[int, int]:
            x.rng = rng
            return score(x.roll(dice, "forecast"), "cavalry", RETIRING).hits, 0

        p = odds_of(retiring, tgt.blocks, 0, FACES)
        notes.append(
            f"the {tgt.type} may retire and reform 2 hexes: then only CAV hits "
            f"(expected hits {float(p.expected_hits):.2f}, eliminated {percent(p.p_eliminate)})"
        )
    if w.spec(tgt).battle_back:
        back = melee_count(w, tgt, u.hex, BATTLE_BACK)
        if back:
            notes.append(f"if it holds its hex, the {tgt.type} may battle back with {back} dice")
    return notes


def _lone_leader(  # noqa: PLR0917
    w: Work, u: WUnit, a: Action, x: Work, dice: int, steps: tuple[tuple[str, int], ...]
) -> BattleForecast:
    """A lone leader as the target: one SABRE kills him, else he retreats (ccn.md §16.3)."""
    assert a.target is not None
    ld = w.leader_at(a.target)
    assert ld is not None

    def killed(rng: Any) -> tuple[int, int]:
        x.rng = rng
        return (1 if SABRE in x.roll(dice, "forecast") else 0), 0

    return BattleForecast(
        line=a.line, quote=a.quote, kind="close", attacker=u.label, attacker_hex=str(u.hex),
        target=f"{ld.side} leader {ld.name}", target_hex=str(a.target), dice=dice,
        dice_steps=steps, hit_faces=(SABRE,), ignored=(), target_blocks=1, flag_ignores=0,
        odds=odds_of(killed, 1, 0, FACES),
        notes=("a lone leader is killed by a SABRE; otherwise he retreats",),
    )  # fmt: skip
