"""Resolve a turn: the driver behind ``system.resolve`` (cca.md §4.2, §20).

A turn runs as one deterministic procedure on a :class:`Work`: play the
card, order, move, battle in the order written, then the end of turn
(objective banners, First Strike replacement, draw, Command changes). When
a decision needs a question, the state keeps the turn's start, the orders,
the answers and the dice so far (a :class:`Pending`); the answer replays
the turn from its start (engine.core.replay) and goes on with fresh dice.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from engine.cc.decide import Decider
from engine.cc.turnloop import StandingRules, resolve_turn
from engine.cca.battle import close_combat, fire
from engine.cca.ordering import order_units, sections_of
from engine.cca.orders import Action, Submission, parse_submission
from engine.cca.policy import DEFAULT_STANDING, parse_policy
from engine.cca.special import command_now, end_of_turn_specials, enter_step
from engine.cca.state import State, other, state_from_dict, state_to_dict
from engine.cca.validate import move_step
from engine.cca.work import Work, WUnit
from engine.core.api import CardMove, Resolution
from engine.core.replay import AnswerBook
from engine.randomness import Randomness

__all__ = ["TurnPlan", "play_planned", "resolve"]


class _Rules(StandingRules):
    """The Ancients' part of the shared C&C turn loop (:mod:`engine.cc.turnloop`)."""

    to_dict = staticmethod(state_to_dict)
    from_dict = staticmethod(state_from_dict)

    @staticmethod
    def begin(start: State, rng: Randomness, decider: Decider) -> Work:
        return Work.start(start, rng, decider)

    @staticmethod
    def play(w: Work, side: str, orders: str) -> State:
        _turn(w, side, _parsed(orders))
        _end_of_turn(w, side)
        return _advance(w.freeze(), w, side)


_PARSED: dict[str, Submission] = {}


def _parsed(orders: str) -> Submission:
    """The orders of a turn, parsed once (a turn's text is parsed again at every answer)."""
    sub = _PARSED.get(orders)
    if sub is None:
        sub = parse_submission(orders)
        if len(_PARSED) >= 512:
            _PARSED.clear()
        _PARSED[orders] = sub
    return sub


def resolve(
    state: State, submission: Submission, rng: Randomness, answers: AnswerBook | None = None
) -> Resolution:
    """Resolve an accepted submission (orders, or an answer to the pending question)."""
    return resolve_turn(_Rules(parse_policy, DEFAULT_STANDING), state, submission, rng, answers)


class TurnPlan(Protocol):
    """Orders chosen while the turn is played (a playout), instead of written beforehand.

    ``moves`` chooses the moves and carries them out on the working copy;
    ``battles`` then chooses the battle lines on the board after the moves,
    before any die of a battle is rolled (as a mail would write them);
    ``written`` is told the whole submission, as the turn's orders. Lines are
    numbered as the submission's text prints them (battles are bound by line).
    """

    @property
    def ordered(self) -> bool:
        """True if the card's orders are already marked on the working copy (the plan ran
        :func:`~engine.cca.ordering.order_units` there: a card that rolls no dice for it)."""
        ...

    def moves(self, w: Work, side: str) -> list[Action]: ...
    def battles(self, w: Work, side: str) -> list[Action]: ...
    def written(self, sub: Submission) -> None: ...


def _turn(w: Work, side: str, sub: Submission, plan: TurnPlan | None = None) -> None:
    code = sub.card
    assert code is not None
    w.log("card", f"{side} plays {w.state.tables.cards[code].name}", side=side, card=code)
    w.hands[side].remove(code)
    w.discard.append(code)
    w.cards.append(CardMove("discard", side, code))
    w.played = code
    if plan is None or not plan.ordered:
        problems = order_units(w, side, sub, validating=False)
        if problems:  # validated before; a replay can only get here through a bug
            raise ValueError("; ".join(str(p) for p in problems))
    leaders = [ld for ld in w.leaders.values() if ld.name in w.ordered_leaders]
    if leaders and leaders[0].hex is not None:
        secs = sorted(sections_of(w, side, leaders[0].hex))
        w.la_section = ",".join(secs) if secs else None  # a line hex is in two sections
    names = [f"{u.type} {u.hex}" for u in w.units.values() if u.id in w.ordered]
    names += [f"leader {n}" for n in sorted(w.ordered_leaders)]
    w.log(
        "ordered",
        "ordered: " + (", ".join(names) or "nothing"),
        units=sorted(w.ordered),
        leaders=sorted(w.ordered_leaders),
    )
    actions = sub.actions
    todo = actions
    if plan is not None:  # the moves are carried out as they are chosen
        moves = plan.moves(w, side)
        todo = tuple(plan.battles(w, side))
        actions = (*moves, *todo)
        plan.written(replace(sub, actions=actions))
    phase = 1
    bound: dict[int, tuple[WUnit | None, WUnit | None]] = {}
    for a in todo:
        if a.verb == "enter":
            why = enter_step(w, side, a)
            if why:
                w.log("moot", f"line {a.line}: entry skipped: {why}", line=a.line)
            continue
        if a.verb == "move":
            mp = 3 if phase == 2 else 1
            why = move_step(w, side, a, mp)
            if why:
                w.log("moot", f"line {a.line}: move skipped: {why}", line=a.line)
            continue
        if phase == 1:
            phase = 2
            bound = _bind(w, actions)
            end_of_turn_specials(w)  # objectives are taken where moves end (hold-banner)
        _battle(w, a, bound.get(a.line, (None, None)))
    if w.card == "SP" or (w.card is not None and code == "SP"):
        w.deck = w.deck + w.discard
        w.discard = []
        w.cards.append(CardMove("shuffle", pile="deck+discard"))
        order = w.rng.permutation(len(w.deck), "I am Spartacus: shuffle discards into the deck")
        w.deck = [w.deck[i] for i in order]
        w.log("shuffle", "the discards are shuffled into the deck")


def _bind(w: Work, actions: tuple[Action, ...]) -> dict[int, tuple[WUnit | None, WUnit | None]]:
    """Fix which unit each battle line means, as the board stands after the moves."""
    out: dict[int, tuple[WUnit | None, WUnit | None]] = {}
    for a in actions:
        if a.verb in ("fire", "attack") and a.ref.hex is not None and a.target is not None:
            out[a.line] = (w.unit_at(a.ref.hex), w.unit_at(a.target))
    return out


def _battle(w: Work, a: Action, bound: tuple[WUnit | None, WUnit | None]) -> None:
    u, t = bound
    if u is None or u.hex is None:
        w.log("moot", f"line {a.line}: {a.verb} skipped: the unit is gone", line=a.line)
        return
    if u.id not in w.ordered:
        w.log("moot", f"line {a.line}: {a.verb} skipped: the {u.type} was not ordered", line=a.line)
        return
    assert a.target is not None
    if t is not None and t.hex != a.target:
        w.log(
            "moot", f"line {a.line}: {a.verb} skipped: the target has left {a.target}", line=a.line
        )
        return
    if a.verb == "fire":
        fire(w, u, a.target, a)
    else:
        close_combat(w, u, a.target, a)


def _draw(w: Work, side: str, n: int) -> None:
    drawn = 0
    for _ in range(n):
        if not w.deck:
            if not w.discard:
                break
            w.cards.append(CardMove("shuffle", pile="discard"))
            order = w.rng.permutation(len(w.discard), "shuffle the discards into a new deck")
            w.deck = [w.discard[i] for i in order]
            w.discard = []
            w.log("shuffle", "the deck is empty: the discards are shuffled into a new deck")
        card = w.deck.pop(0)
        w.hands[side].append(card)
        w.cards.append(CardMove("draw", side, card))
        drawn += 1
    if drawn:
        w.log("draw", f"{side} draws {drawn} card{'s' if drawn > 1 else ''}", side=side, n=drawn)


def _end_of_turn(w: Work, side: str) -> None:
    """Objective banners, then the draws: First Strike's replacement first (§5.3)."""
    end_of_turn_specials(w)
    turns_done = w.state.sides[side].turns + 1
    old = w.state.sides[side].command
    # a Counter-Attack copies the command, never a hand-size change.
    played = w.state.tables.cards.get(w.played or "")
    if w.state.option("circled_cards_raise_hand") and played is not None:
        w.command[side] += played.circled_hand
    if w.specials("hand-schedule", side) or w.specials("hand-on-banners", side):
        w.command[side] = command_now(w, side, turns_done)
    fs = w.first_strike_used
    if fs is not None:
        _draw(w, fs, 1)
    _draw(w, side, max(0, 1 + w.command[side] - old))
    opp = other(side)
    if w.specials("hand-on-banners", opp):
        new = command_now(w, opp, w.state.sides[opp].turns)
        if new > w.command[opp]:
            _draw(w, opp, new - w.command[opp])
        w.command[opp] = new


def _advance(s: State, w: Work, side: str) -> State:
    last = {"side": side, "code": w.card or "", "section": w.la_section}
    sides = dict(s.sides)
    sides[side] = replace(sides[side], turns=sides[side].turns + 1)
    return s.evolve(sides=sides, to_move=other(side), turn=s.turn + 1, last_card=last)


def play_planned(w: Work, side: str, sub: Submission, plan: TurnPlan) -> State:
    """Play a turn whose card and orders are ``sub`` and whose actions ``plan`` chooses.

    ``w`` was started on the state the turn starts from; questions go to its
    decider (a playout answers them at once). Returns the state after the
    turn; :class:`~engine.cc.roster.GameOver` ends the battle as in :func:`resolve`.
    """
    _turn(w, side, sub, plan)
    _end_of_turn(w, side)
    return _advance(w.freeze(), w, side)
