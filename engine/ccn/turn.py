"""Resolve a Napoleonics turn: the driver behind ``system.resolve`` (ccn.md §8, §25, §7).

A turn runs as one deterministic procedure on a :class:`~engine.ccn.work.Work` (the shared
C&C loop, :mod:`engine.cc.turnloop`, pauses it for questions and replays it): play the card,
order (§9), move and break squares in the order written (§10, §21.7), then battle in the
order written (§11-§22: all movement ends before the first battle), then the end of the turn
(§25): turn-start objectives (§7; the others are settled the moment a unit moves or falls,
:meth:`~engine.ccn.work.Work.settle_objectives`), the played card discarded, Élan's
reshuffle, First Strike's replacement, the draw (Scout: draw 2, keep 1), the next side to
move.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from engine.cc.decide import Decider
from engine.cc.orders import Action, Submission, parse_submission
from engine.cc.turnloop import StandingRules, resolve_turn
from engine.ccn.battle import fire, melee
from engine.ccn.cards import CARDS, LANGUAGE
from engine.ccn.ordering import order_units
from engine.ccn.policy import DEFAULT_STANDING, parse_policy
from engine.ccn.state import State, other, state_from_dict, state_to_dict
from engine.ccn.steps import break_step, move_step
from engine.ccn.work import Work, WUnit
from engine.core.api import CardMove, Resolution
from engine.core.replay import AnswerBook
from engine.hexgrid import Hex
from engine.randomness import Randomness

__all__ = ["TurnPlan", "play_planned", "resolve"]


class _Rules(StandingRules):
    """The Napoleonics part of the shared C&C turn loop (:mod:`engine.cc.turnloop`)."""

    to_dict = staticmethod(state_to_dict)
    from_dict = staticmethod(state_from_dict)

    @staticmethod
    def begin(start: State, rng: Randomness, decider: Decider) -> Work:
        return Work.start(start, rng, decider)

    @staticmethod
    def play(w: Work, side: str, orders: str) -> State:
        _turn(w, side, parse_submission(orders, LANGUAGE))
        _end_of_turn(w, side)
        return _advance(w.freeze(), w, side)


def resolve(
    state: State, submission: Submission, rng: Randomness, answers: AnswerBook | None = None
) -> Resolution:
    """Resolve an accepted submission (orders, or an answer to the pending question)."""
    return resolve_turn(_Rules(parse_policy, DEFAULT_STANDING), state, submission, rng, answers)


class TurnPlan(Protocol):
    """Orders chosen while the turn is played (a playout), instead of written beforehand.

    ``ordered``: the card's orders are already marked on the working copy (the plan ran
    :func:`~engine.ccn.ordering.order_units` there). ``moves`` chooses the moves and breaks
    and carries them out on the working copy; ``battles`` then chooses the battle lines on
    the board after the moves, before any die of a battle is rolled (as a mail would write
    them); ``written`` is told the whole submission, as the turn's orders.
    """

    @property
    def ordered(self) -> bool: ...

    def moves(self, w: Work, side: str) -> list[Action]: ...
    def battles(self, w: Work, side: str) -> list[Action]: ...
    def written(self, sub: Submission) -> None: ...


def _turn(w: Work, side: str, sub: Submission, plan: TurnPlan | None = None) -> None:
    code = sub.card
    assert code is not None
    w.log("card", f"{side} plays {CARDS[code].name}", side=side, card=code)
    w.hands[side].remove(code)
    # §25: the played card is discarded (kept in play order) - before Élan's or Rally's dice,
    # whose choice may pause the turn with the card already out of the hand.
    w.discard.append(code)
    w.cards.append(CardMove("discard", side, code))
    if plan is None or not plan.ordered:
        problems = order_units(w, side, sub, validating=False)
        if problems:  # validated before; a replay can only get here through a bug
            raise ValueError("; ".join(str(p) for p in problems))
    actions = todo = sub.actions
    if plan is not None:  # the moves are carried out as they are chosen
        moves = plan.moves(w, side)
        todo = tuple(plan.battles(w, side))
        actions = (*moves, *todo)
        plan.written(replace(sub, actions=actions))
    moving = True
    bound: dict[int, tuple[WUnit | None, Hex | None]] = {}
    for a in todo:
        if a.verb in ("move", "break"):
            if not moving:  # validation refuses this; keep the replay safe
                continue
            why = move_step(w, side, a) if a.verb == "move" else break_step(w, side, a)
            if why:
                w.log("moot", f"line {a.line}: {a.verb} skipped: {why}", line=a.line)
            continue
        if moving:
            moving = False
            bound = _bind(w, actions)
        _battle(w, a, bound.get(a.line, (None, None)))


def play_planned(w: Work, side: str, sub: Submission, plan: TurnPlan) -> State:
    """Play a turn whose card and orders are ``sub`` and whose actions ``plan`` chooses.

    ``w`` was started on the state the turn starts from; questions go to its decider (a
    playout answers them at once). Returns the state after the turn;
    :class:`~engine.ccn.work.GameOver` ends the battle as in :func:`resolve`.
    """
    _turn(w, side, sub, plan)
    _end_of_turn(w, side)
    return _advance(w.freeze(), w, side)


def _bind(w: Work, actions: tuple[Action, ...]) -> dict[int, tuple[WUnit | None, Hex | None]]:
    """Fix which unit each battle line means, as the board stands after the moves."""
    out: dict[int, tuple[WUnit | None, Hex | None]] = {}
    for a in actions:
        if a.verb in ("fire", "attack") and a.ref.hex is not None:
            out[a.line] = (w.unit_at(a.ref.hex), a.target)
    return out


def _battle(w: Work, a: Action, bound: tuple[WUnit | None, Hex | None]) -> None:
    u, target = bound
    if u is None or u.hex is None or target is None:
        w.log("moot", f"line {a.line}: {a.verb} skipped: the unit is gone", line=a.line)
        return
    if a.verb == "fire":
        fire(w, u, target, a)
    else:
        melee(w, u, target, a)


# --- end of turn --------------------------------------------------------------


def _shuffle_in(w: Work, cards: list[str], pile: str, why: str) -> list[str]:
    w.cards.append(CardMove("shuffle", pile=pile))
    order = w.rng.permutation(len(cards), why)
    return [cards[i] for i in order]


def _draw(w: Work, side: str, n: int) -> list[str]:
    """Draw ``n`` cards for ``side``; an empty deck is remade from the discards (§25.4)."""
    got: list[str] = []
    for _ in range(n):
        if not w.deck:
            if not w.discard:
                break
            w.deck = _shuffle_in(w, w.discard, "discard", "shuffle the discards into a new deck")
            w.discard = []
            w.log("shuffle", "the deck is empty: the discards are shuffled into a new deck")
        got.append(w.deck.pop(0))
        w.cards.append(CardMove("draw", side, got[-1]))
    w.hands[side] += got
    if got:
        w.log(
            "draw",
            f"{side} draws {len(got)} card{'s' if len(got) > 1 else ''}",
            side=side,
            n=len(got),
        )
    return got


def _end_of_turn(w: Work, side: str) -> None:
    """§25 in its [R] order: objectives, Élan reshuffle, First Strike replacement, draws."""
    w.settle_objectives(other(side))
    if w.card == "elan":
        w.deck = _shuffle_in(
            w, w.deck + w.discard, "deck+discard", "Élan: shuffle discards and deck together"
        )
        w.discard = []
        w.log("shuffle", "Élan: the discards and the deck are shuffled into a new deck")
    if w.first_strikes:
        _draw(w, other(side), w.first_strikes)  # the defender's replacements come first
    if w.card is not None and CARDS[w.card].scout and not w.fallback:
        drawn = _draw(w, side, 2)
        if len(drawn) == 2:
            names = [f"{c} ({CARDS[c].name})" for c in drawn]
            pol = w.decider.policy(side, "scout")
            keep = w.decider.choose(
                side,
                "scout",
                "Scout: which card do you keep?",
                names,
                names[0],
                names[0] if pol != "ask" else None,
            )
            drop = drawn[1 - names.index(keep)]
            w.hands[side].remove(drop)
            w.discard.append(drop)
            w.cards.append(CardMove("discard", side, drop))
            w.log(
                "scout",
                f"{side} keeps one of the two cards drawn and discards the other",
                side=side,
            )
    else:
        _draw(w, side, 1)


def _advance(s: State, w: Work, side: str) -> State:
    last = dict(s.last_cards)
    if w.card is not None:
        last[side] = w.card  # Counter-Attack copies what was copied (§24.2 [R])
    s = s.with_side(side, turns=s.sides[side].turns + 1)
    return replace(s, to_move=other(side), turn=s.turn + 1, last_cards=last)
