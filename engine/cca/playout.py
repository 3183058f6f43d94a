"""The Ancients playout (:mod:`engine.core.playout`): a random turn planned on the board it moves.

The mail path's random player plans a turn on one working copy, writes it as
text, and the engine checks the text on a second copy and resolves it on a
third (each computing every unit's reach again); an answer replays the turn.
A playout turn (:meth:`AncientsPlayout.play_turn`) is planned and resolved on
one working copy: the card, what it orders (checked by the rules' own
:func:`~engine.cca.ordering.order_units`), each move chosen from the unit's
reach and carried out at once, the battles chosen on the board after the
moves (before any die, as a mail would write them), then resolved by the
rules' own code; questions are answered at random on the spot, so nothing is
replayed. The orders written down (:class:`~engine.cca.orders.Submission`)
and the answers are returned as actions: mailed with the same dice they give
the same state (``tests/test_playout.py``).

Orders as actions (:meth:`~AncientsPlayout.random_action`,
``legal_actions``) are planned the same way on a copy that rolls no dice (as
the orders check does), and :meth:`~AncientsPlayout.apply` resolves them
without checking them again or going through text.
"""

from __future__ import annotations

from typing import Any

from engine.cc.decide import Decider
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
from engine.cca import combat, movement
from engine.cca.autoplay import _effective_card, _own_refs
from engine.cca.ordering import order_units
from engine.cca.orders import Action as Line
from engine.cca.orders import Ref, Submission
from engine.cca.policy import DEFAULT_STANDING, parse_policy
from engine.cca.state import State
from engine.cca.work import Work, WUnit
from engine.core.playout import Action, FastRandomness
from engine.core.replay import AnswerBook
from engine.hexgrid import Hex
from engine.randomness import Randomness, ScriptedDice

__all__ = ["AncientsPlayout"]


_policies = StandingPolicies(parse_policy, DEFAULT_STANDING)
"""Each side's standing orders over the defaults (parsed once per text)."""


def _order(w: Work, side: str, state: State, rng: FastRandomness) -> Submission:
    """Choose a card and what it orders; leave the ordered units marked on ``w``."""
    hand = list(state.sides[side].hand)
    playable = [c for c in hand if c != "FS"] or hand
    order = rng.permutation(len(playable))
    for i in order:
        code = playable[i]
        refs = _own_refs(state, side, _effective_card(state, code), rng)
        for _ in range(12):
            sub = Submission(
                game=state.game_id, turn=state.turn, side=side, card=code,
                orders=tuple(_ref(r) for r in refs), card_line=4,
                order_lines=tuple(range(5, 5 + len(refs))), lines=_LINES[: 5 + len(refs)],
                card_title=state.tables.cards[code].name if code in state.tables.cards else code,
            )  # fmt: skip
            problems = order_units(w, side, sub, validating=True)
            if not problems:
                return sub
            bad = {p.line for p in problems if p.line > 0}
            if not bad or 4 in bad or not refs:
                break
            refs = [r for n, r in enumerate(refs, 5) if n not in bad]
    raise _Unplannable(f"no card of {hand} can be played")


def _ref(text: str) -> Ref:
    if text.lower().startswith("leader "):
        return Ref(leader=text.split(" ", 1)[1])
    return Ref(hex=Hex.parse(text))


def _moves(w: Work, side: str, rng: FastRandomness, lines: list[Line], first: int) -> list[Line]:
    """Move ordered units (three in four) toward the enemy, carried out on ``w`` at once;
    each move is added to ``lines`` (its line numbered from ``first``) before it is made
    (it may end the battle)."""
    if w.effect in ("CS", "DS"):
        return lines
    ordered = [u for u in w.units.values() if u.id in w.ordered and u.hex is not None]
    for i in rng.permutation(len(ordered)):
        u = ordered[i]
        if u.hex is None or u.id in w.pinned or rng.below(100) >= 75:
            continue
        dests = movement.reach(w, u)
        to = _toward(w, u, dests, rng)
        if to is None:
            continue
        lines.append(Line("move", Ref(hex=u.hex), to=to, line=first + len(lines)))
        movement.do_move(w, u, dests[to])
    return lines


def _toward(
    w: Work, u: WUnit, dests: dict[Hex, tuple[Hex, ...]], rng: FastRandomness
) -> Hex | None:
    """A destination: mostly one nearest the enemy unit nearest ``u`` (random games should
    fight), sometimes any; None if ``u`` can go nowhere."""
    here = u.hex
    assert here is not None
    choices = [h for h in dests if h != here]  # the search's order: stable
    if not choices:
        return None
    if rng.below(100) < 30:
        return choices[rng.below(len(choices))]
    enemies = [e.hex for e in w.units.values() if e.hex is not None and e.side != u.side]
    if not enemies:
        return choices[rng.below(len(choices))]
    distance = here.distance
    target = min(enemies, key=distance)
    gap = target.distance
    low = min(gap(h) for h in choices)
    best = [h for h in choices if gap(h) == low]
    return best[rng.below(len(best))]


def _battles(w: Work, side: str, rng: FastRandomness, first: int) -> list[Line]:
    """Battle lines on the board after the moves, each one the orders check accepts
    (numbered from line ``first``)."""
    from engine.cca.legal import target_hexes  # noqa: PLC0415
    from engine.cca.validate import _dice_against  # noqa: PLC0415

    lines: list[Line] = []
    eff = w.effect
    close_ok = eff not in ("MFM", "DS")
    fire_ok = eff not in ("CS", "DT", "CH")
    ordered = [u for u in w.units.values() if u.id in w.ordered and u.hex is not None]
    must: list[WUnit] = []
    for i in rng.permutation(len(ordered)):
        u = ordered[i]
        assert u.hex is not None
        need = u.spec.must_melee_after
        forced = bool(need) and w.moved.get(u.id, 0) >= need
        if movement.moved_too_far_to_battle(w, u):
            if forced:
                must.append(u)
            continue
        adjacent = bool(w.enemy_units_adjacent(u))
        if adjacent or forced:
            if close_ok and (forced or rng.below(100) < 85):
                legal = target_hexes(w, u, True)
                if legal:
                    to = legal[rng.below(len(legal))]
                    line = Line("attack", Ref(hex=u.hex), target=to, line=first + len(lines))
                    if _dice_against(w, u, line) >= 1:
                        lines.append(line)
                        continue
            if forced:
                must.append(u)
            continue
        if not fire_ok or combat.fire_range(w, u) <= 0:
            continue
        legal = target_hexes(w, u, False)
        shots = 2 if eff == "DS" else 1
        for _ in range(shots):
            if legal and rng.below(100) < 85:
                to = legal[rng.below(len(legal))]
                line = Line("fire", Ref(hex=u.hex), target=to, line=first + len(lines))
                if _dice_against(w, u, line) >= 1:
                    lines.append(line)
    if must:
        raise _Unplannable("warriors that moved must attack and cannot")
    return lines


class AncientsPlayout(PlannedPlayout):
    """The ``playout`` capability of C&C Ancients (see the module docstring)."""

    def __init__(self) -> None:
        from engine.cca.autoplay import _Random  # noqa: PLC0415 - the system loads this lazily
        from engine.cca.system import SYSTEM  # noqa: PLC0415
        from engine.cca.turn import resolve  # noqa: PLC0415

        super().__init__(SYSTEM, _Random(), resolve)

    def play_turn(
        self, ps: State, rng: FastRandomness, dice: Randomness | None = None
    ) -> tuple[State, list[Action]]:
        """A whole random turn (orders and every answer it asks for); the actions taken.

        Choices come from ``rng``, dice from ``dice`` (``rng`` if None). A state
        waiting for an answer is answered first (at random); an ended game is
        returned as it is. Mailing the actions in order, every epoch rolling
        from one stream that continues (``dice``), reaches the same state.
        """
        from engine.cca.turn import play_planned  # noqa: PLC0415

        roll = rng if dice is None else dice
        ps, done, over = self._settle(ps, rng, roll)
        if over:
            return ps, done
        side = ps.to_move
        book = RandomBook(rng)
        w = Work.start(ps, roll, Decider(_policies(ps), book))
        try:
            sub = _order(w, side, ps, rng)
        except _Unplannable:
            return self._by_mail(ps, rng, roll, done)
        # The check marked the orders as resolution would, unless the card rolls for them.
        plan = RandomPlan(rng, sub, w.card not in ("SP", "RA"), _moves, _battles)
        final = play_to_end(play_planned, w, side, sub, plan)
        done.append(Action(side, "orders", plan.sub))
        done += [self._answer(s, a) for s, a in book.given]
        return final, done

    def _by_mail(
        self, ps: State, rng: FastRandomness, roll: Randomness, done: list[Action]
    ) -> tuple[State, list[Action]]:
        ps, more = CCPlayout.play_turn(self, ps, rng, roll)
        return ps, done + more

    def _orders(self, ps: Any, side: str, rng: FastRandomness) -> Action:
        """Random orders planned on a copy that rolls no dice, as the orders check does."""
        w = Work.start(ps, ScriptedDice([]), Decider({}, AnswerBook(())))
        w.simulate = True
        try:
            sub = planned_orders(
                w, side, _order(w, side, ps, rng), rng, moves=_moves, battles=_battles
            )
        except _Unplannable:
            return super()._orders(ps, side, rng)
        return Action(side, "orders", sub)
