"""The Napoleonics playout (:mod:`engine.core.playout`): a turn planned on the board it moves.

The mail path's random player (:mod:`engine.ccn.autoplay`) plans a turn on fresh working
copies (one per card for the hints, two to plan, one per check of the text) and the engine
resolves it on another; an answer replays the turn. A playout turn
(:meth:`NapoleonicsPlayout.play_turn`) is planned and resolved on one working copy, as the
Ancients playout does (:mod:`engine.cca.playout`): the card and what it orders (checked by
the rules' own :func:`~engine.ccn.ordering.order_units`), each move or square broken chosen
from the piece's reach and carried out at once (a line the rules refuse is dropped, as the
random player drops it), the battles chosen on the board after the moves (before any die, as
a mail would write them), then resolved by the rules' own code; questions are answered at
random on the spot, so nothing is replayed. Élan and Rally roll for what they order, so
their turn is resolved on a second copy. The orders written down and the answers are
returned as actions: mailed with the same dice they give the same state
(``tests/test_playout.py``).

Orders as actions (``random_action``, ``legal_actions``) are planned the same way on a copy
that rolls no dice (as the orders check does); ``apply`` resolves them by the mail path's
``resolve`` without going through text.
"""

from __future__ import annotations

from typing import Any

from engine.cc.decide import Decider
from engine.cc.orders import Action as Line
from engine.cc.orders import Ref, Submission
from engine.cc.playout import PLANNER_LINES as _LINES
from engine.cc.playout import (
    CCPlayout,
    PlannedPlayout,
    RandomBook,
    RandomPlan,
    StandingPolicies,
    planned_orders,
    play_to_end,
)
from engine.cc.playout import Unplannable as _Unplannable
from engine.ccn.battle import fire_problem, melee_problem
from engine.ccn.cards import CARDS
from engine.ccn.movement import leader_reach, reach
from engine.ccn.ordering import effective_card, eligible, order_units
from engine.ccn.policy import DEFAULT_STANDING, parse_policy
from engine.ccn.state import State
from engine.ccn.steps import break_step, move_step
from engine.ccn.work import WLeader, Work, WUnit
from engine.core.playout import Action, FastRandomness
from engine.core.replay import AnswerBook
from engine.hexgrid import Hex
from engine.randomness import Randomness, ScriptedDice

__all__ = ["NapoleonicsPlayout"]


_policies = StandingPolicies(parse_policy, DEFAULT_STANDING)
"""Each side's standing orders over the defaults (parsed once per text)."""
_ROLLS_TO_ORDER = ("elan", "rally")
"""Cards whose dice choose what is ordered (the check marks every unit asked for)."""


def _work(state: State, rng: Randomness, decider: Decider) -> Work:
    return Work.start(state, rng, decider)


def _dry(state: State) -> Work:
    """A working copy that rolls no dice, as the orders check uses."""
    w = _work(state, ScriptedDice([]), Decider({}, AnswerBook(())))
    w.simulate = True
    return w


def _name(it: WUnit | WLeader) -> Ref:
    return Ref(leader=it.name) if isinstance(it, WLeader) else Ref(hex=it.hex)


def _order(w: Work, side: str, state: State, rng: FastRandomness) -> Submission:
    """Choose a card and what it orders; leave the ordered pieces marked on ``w`` (a refused
    try changes only the card in effect and the fallback flag, set again by the next one)."""
    hand = list(dict.fromkeys(state.sides[side].hand))
    playable = [c for c in hand if c != "first_strike"] or hand
    for i in rng.permutation(len(playable)):
        code = playable[i]
        acts, _ = effective_card(state, side, code)
        refs: list[Ref] = []
        if acts is not None:
            w.card = acts
            units = [_name(it) for it in eligible(w, side, acts)]
            card = CARDS[acts]
            most = card.orders or len(units)
            if card.order_rule == "command":
                most = len(state.sides[side].hand)
            order = rng.permutation(len(units)) if len(units) > 1 else range(len(units))
            refs = [units[j] for j in order][: max(1, most)]
        for _ in range(12):
            sub = Submission(
                game=state.game_id, turn=state.turn, side=side, card=code,
                orders=tuple(refs), card_line=4, order_lines=tuple(range(5, 5 + len(refs))),
                lines=_LINES[: 5 + len(refs)], card_title=CARDS[code].name,
            )  # fmt: skip
            problems = order_units(w, side, sub, validating=True)
            if not problems:
                return sub
            w.fallback = False
            bad = {p.line for p in problems if p.line > 0}
            if not bad or 4 in bad or not refs:
                break
            refs = [r for n, r in enumerate(refs, 5) if n not in bad]
    raise _Unplannable(f"no card of {hand} can be played")


def _toward(enemies: list[Hex], options: list[Hex], rng: FastRandomness) -> Hex:
    """Mostly a hex nearest the enemy (random games should fight), sometimes any."""
    if not enemies or rng.below(100) < 25:
        return options[rng.below(len(options))]
    gaps = [min(h.distance(e) for e in enemies) for h in options]
    low = min(gaps)
    near = [h for h, g in zip(options, gaps, strict=True) if g == low]
    return near[rng.below(len(near))]


def _moves(w: Work, side: str, rng: FastRandomness, lines: list[Line], first: int) -> list[Line]:
    """Move or break out of square ordered pieces (seven in ten), carried out on ``w`` at
    once; each line the rules accept is added to ``lines`` (numbered from ``first``)."""
    enemies = [u.hex for u in w.live_units() if u.side != side and u.hex is not None]
    pieces: list[WUnit | WLeader] = [w.units[i] for i in sorted(w.ordered)]
    pieces += [w.leaders[n] for n in sorted(w.ordered_leaders)]
    one = w.card == "short_supply" and not w.fallback  # Short Supply moves one unit
    order = rng.permutation(len(pieces)) if len(pieces) > 1 else range(len(pieces))
    for i in order:
        it = pieces[i]
        if it.hex is None or rng.below(100) >= 70:
            continue
        if one and any(a.verb == "move" for a in lines):
            break
        ref = _name(it)
        if isinstance(it, WUnit):
            if it.square and rng.below(100) < 50:
                line = Line("break", ref, line=first + len(lines))
                if break_step(w, side, line) is None:
                    lines.append(line)
                continue
            options = sorted(reach(w, it))
        else:
            options = sorted(leader_reach(w, it))
        if options:
            to = _toward(enemies, options, rng)
            line = Line("move", ref, to=to, line=first + len(lines))
            lines.append(line)  # before it is made: it may end the battle
            if move_step(w, side, line) is not None:
                lines.pop()
    return lines


def _battles(w: Work, side: str, rng: FastRandomness, first: int) -> list[Line]:
    """Battle lines on the board after the moves, each one the orders check accepts: a melee
    on an adjacent enemy, else fire at a target in range and sight (numbered from ``first``)."""
    lines: list[Line] = []
    for uid in sorted(w.ordered):
        u = w.units[uid]
        if u.hex is None or rng.below(100) >= 85:
            continue
        here = u.hex
        adjacent = [h for h in w.board.neighbours(here) if melee_problem(w, u, h) is None]
        if adjacent:
            to = adjacent[rng.below(len(adjacent))]
            lines.append(Line("attack", Ref(hex=here), target=to, line=first + len(lines)))
            continue
        targets = sorted(
            e.hex
            for e in w.live_units()
            if e.side != side and e.hex is not None and fire_problem(w, u, e.hex) is None
        )
        if targets:
            to = targets[rng.below(len(targets))]
            lines.append(Line("fire", Ref(hex=here), target=to, line=first + len(lines)))
    return lines


class NapoleonicsPlayout(PlannedPlayout):
    """The ``playout`` capability of C&C Napoleonics (see the module docstring)."""

    def __init__(self) -> None:
        from engine.ccn.autoplay import RULES  # noqa: PLC0415 - the system loads this lazily
        from engine.ccn.system import SYSTEM  # noqa: PLC0415
        from engine.ccn.turn import resolve  # noqa: PLC0415

        super().__init__(SYSTEM, RULES, resolve)

    def play_turn(
        self, ps: State, rng: FastRandomness, dice: Randomness | None = None
    ) -> tuple[State, list[Action]]:
        """A whole random turn (orders and every answer it asks for); the actions taken.

        Choices come from ``rng``, dice from ``dice`` (``rng`` if None). A state
        waiting for an answer is answered first (at random); an ended game is
        returned as it is. Mailing the actions in order, every epoch rolling
        from one stream that continues (``dice``), reaches the same state.
        """
        from engine.ccn.turn import play_planned  # noqa: PLC0415

        roll = rng if dice is None else dice
        ps, done, over = self._settle(ps, rng, roll)
        if over:
            return ps, done
        side = ps.to_move
        book = RandomBook(rng)
        decider = Decider(_policies(ps), book)
        w = _work(ps, roll, decider)
        try:
            sub = _order(w, side, ps, rng)
        except _Unplannable:
            ps, more = CCPlayout.play_turn(self, ps, rng, roll)
            return ps, done + more
        ordered = w.card not in _ROLLS_TO_ORDER
        if not ordered:  # the turn rolls for what the card orders: a copy the check left alone
            w = _work(ps, roll, decider)
        plan = RandomPlan(rng, sub, ordered, _moves, _battles)
        final = play_to_end(play_planned, w, side, sub, plan)
        done.append(Action(side, "orders", plan.sub))
        done += [self._answer(s, a) for s, a in book.given]
        return final, done

    def _orders(self, ps: Any, side: str, rng: FastRandomness) -> Action:
        """Random orders planned on a copy that rolls no dice, as the orders check does."""
        try:
            w = _dry(ps)
            sub = planned_orders(
                w, side, _order(w, side, ps, rng), rng, moves=_moves, battles=_battles
            )
        except _Unplannable:
            return super()._orders(ps, side, rng)
        return Action(side, "orders", sub)
