"""The C&C systems' playout (:mod:`engine.core.playout`): whole random turns, never paused.

Orders are drawn by the system's own random player (:class:`engine.cc.autoplay.RandomRules`)
straight from the playout's fast stream, and checked once (the random player's own check is
kept, not repeated). :meth:`CCPlayout.play_turn` resolves them with every question of the
turn answered at random the moment it arises (:class:`RandomBook`), so no turn is paused
and replayed as the mail path does: mailing the orders and then the answers, every epoch
rolling from the same continuing stream, reaches the same state (``tests/test_playout.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, cast

from engine.cc.autoplay import RandomRules
from engine.cc.roster import GameOver
from engine.cc.turnloop import LiveAnswers, StandingPolicies
from engine.core.api import GameSystem, Question, Resolution
from engine.core.playout import Action, FastRandomness, TextPlayout, redeal, redeal_start
from engine.core.replay import AnswerBook
from engine.randomness import Randomness

__all__ = [
    "PLANNER_LINES",
    "Answerer",
    "CCPlayout",
    "PlannedPlayout",
    "RandomBook",
    "RandomPlan",
    "Resolver",
    "StandingPolicies",
    "Unplannable",
    "first_line",
    "play_to_end",
]

Resolver = Callable[[Any, Any, Randomness, AnswerBook | None], Resolution]
"""A system's ``resolve(state, submission, rng, answers)`` (``engine.<system>.turn``)."""


Answerer = Callable[[Question], tuple[str, Randomness]]
"""A question's answer and the dice the turn goes on with (:meth:`CCPlayout.apply_answering`)."""


class Unplannable(Exception):
    """The planner found no orders it could write (the mail path's random player takes over)."""


PLANNER_LINES = ("",) * 64
"""Quotes for problems the planner drops (never shown)."""


def first_line(sub: Any) -> int:
    """The line of the first move or battle in ``sub``'s text (after the header and order)."""
    head = (sub.game, sub.turn, sub.side, sub.card)
    return 1 + sum(x is not None for x in head) + (1 if sub.orders else 0)


def play_to_end(play_planned: Callable[..., Any], w: Any, side: str, sub: Any, plan: Any) -> Any:
    """``play_planned(w, side, sub, plan)``'s final state, or the state the battle ended in
    (the moves made are then the orders if it ended during the moves)."""
    try:
        return play_planned(w, side, sub, plan)
    except GameOver as over:
        result = over.result
        w.log("victory", "the battle is a draw" if result == "draw"
              else f"{result} wins the battle", result=result)  # fmt: skip
        final = replace(w.freeze(), result=result, pending=None)
        if plan.sub is sub:  # it ended during the moves: the moves made are the orders
            plan.sub = replace(sub, actions=tuple(plan.moved))
        return final


MovesPlanner = Callable[[Any, str, FastRandomness, list[Any], int], list[Any]]
"""A system's ``_moves(work, side, rng, moved, first_line)``: random moves, made as drawn."""
BattlesPlanner = Callable[[Any, str, FastRandomness, int], list[Any]]
"""A system's ``_battles(work, side, rng, first_line)``: random battles, fought as drawn."""


class RandomPlan:
    """A turn's moves and battles chosen at random while it is played (a ``TurnPlan``),
    by the system's own planners."""

    def __init__(
        self,
        rng: FastRandomness,
        sub: Any,
        ordered: bool,
        moves: MovesPlanner,
        battles: BattlesPlanner,
    ) -> None:
        self.rng = rng
        self.sub = sub
        self.first = first_line(sub)
        self.moved: list[Any] = []
        self.ordered = ordered
        self._moves = moves
        self._battles = battles

    def moves(self, w: Any, side: str) -> list[Any]:
        return self._moves(w, side, self.rng, self.moved, self.first)

    def battles(self, w: Any, side: str) -> list[Any]:
        return self._battles(w, side, self.rng, self.first + len(self.moved))

    def written(self, sub: Any) -> None:
        self.sub = sub


def planned_orders(
    w: Any,
    side: str,
    sub: Any,
    rng: FastRandomness,
    *,
    moves: MovesPlanner,
    battles: BattlesPlanner,
) -> Any:
    """``sub`` with random moves and then battles planned on ``w`` (a copy rolling no dice)."""
    first = first_line(sub)
    planned = moves(w, side, rng, [], first)
    return replace(sub, actions=(*planned, *battles(w, side, rng, first + len(planned))))


class RandomBook(AnswerBook):
    """Answers every question the moment it is asked, at random (the default one time in
    five, as the random player does); ``given`` lists ``(side, answer)`` in order."""

    def __init__(self, rng: FastRandomness) -> None:
        super().__init__(())
        self.rng = rng
        self.given: list[tuple[str, str]] = []

    def next_answer(self, question: Question) -> str:
        answers = question.answers
        if not answers or self.rng.below(100) < 20:
            ans = question.default
        else:
            ans = answers[self.rng.below(len(answers))]
        self.given.append((question.side, ans))
        return ans


class _Checked:
    """The system, with the last accepted submission kept: the random player checks its
    orders, and the playout takes that result instead of checking them again."""

    def __init__(self, system: GameSystem) -> None:
        self._system = system
        self._last: tuple[int, str, str, Any] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._system, name)

    def parse_orders(self, state: Any, side: str, text: str) -> Any:
        last = self._last
        if last is not None and last[0] == id(state) and last[1] == side and last[2] == text:
            return last[3]
        sub = self._system.parse_orders(state, side, text)
        self._last = (id(state), side, text, sub)
        return sub


class CCPlayout(TextPlayout):
    """A C&C system's playout (see the module docstring)."""

    def __init__(self, system: GameSystem, rules: RandomRules, resolver: Resolver) -> None:
        super().__init__(system)
        self._rules = rules
        self._resolver = resolver
        self._checked = cast(GameSystem, _Checked(system))

    def _orders(self, ps: Any, side: str, rng: FastRandomness) -> Action:
        text = self._rules.orders(self._checked, ps, side, rng)
        return Action(side, "orders", self._checked.parse_orders(ps, side, text), text)

    def apply(self, ps: Any, action: Action, rng: Any) -> Any:
        return self._resolver(ps, action.payload, rng, None).state

    def apply_answering(
        self, ps: Any, action: Action, rng: Randomness, answer: Answerer, budget: int
    ) -> tuple[Any, int]:
        """:meth:`apply` of orders, with up to ``budget`` of the questions the turn asks
        answered the moment they arise: ``answer(question)`` gives the answer and the dice
        the turn goes on with (:class:`~engine.cc.turnloop.LiveAnswers`). The state and how
        many were answered; the state is the one :meth:`apply` of the orders and then of
        each answer (with those dice) reaches, without pausing and replaying the turn."""
        book = LiveAnswers(answer, budget)
        return self._resolver(ps, action.payload, rng, book).state, len(book.given)

    def play_turn(
        self, ps: Any, rng: FastRandomness, dice: Randomness | None = None
    ) -> tuple[Any, list[Action]]:
        """A whole random turn (orders and every answer it asks for); the actions taken.

        Choices come from ``rng``, dice from ``dice`` (``rng`` if None). A state
        waiting for an answer is answered first (at random); an ended game is
        returned as it is. Mailing the actions in order, every epoch rolling
        from one stream that continues (``dice``), reaches the same state.
        """
        roll = rng if dice is None else dice
        ps, done, over = self._settle(ps, rng, roll)
        if over:
            return ps, done
        order = self._orders(ps, ps.to_move, rng)
        book = RandomBook(rng)
        ps = self._resolver(ps, order.payload, roll, book).state
        done.append(order)
        done += [self._answer(s, a) for s, a in book.given]
        return ps, done

    def _settle(
        self, ps: Any, rng: FastRandomness, roll: Randomness
    ) -> tuple[Any, list[Action], bool]:
        """A waiting question answered (at random, dice from ``roll``): the state, the
        actions taken and whether the turn is over (answered, or the game has ended)."""
        done: list[Action] = []
        while ps.pending is not None and ps.result is None:
            a = self.random_action(ps, rng)
            ps = self.apply(ps, a, roll)
            done.append(a)
            if ps.pending is None:
                return ps, done, True
        return ps, done, ps.result is not None

    def _answer(self, side: str, answer: str) -> Action:
        """The action of answering ``answer`` (what ``legal_actions`` lists for it)."""
        text = f"answer {answer}\n"
        return Action(side, "answer", self._answer_payload(side, answer), text)

    def _answer_payload(self, side: str, answer: str) -> Any:
        from engine.cc.orders import Submission  # noqa: PLC0415

        return Submission(side=side, answer=answer)

    def _answers(self, ps: Any, q: Question) -> list[Action]:
        return [self._answer(q.side, a) for a in (q.answers or (q.default,))]

    def determinize(self, ps: Any, side: str, rng: FastRandomness) -> Any:
        """:func:`~engine.core.playout.redeal_json` on the state itself, not its JSON: the
        same cards dealt the same way (the hands taken in the sides' sorted order, as in the
        JSON), a waiting turn's start dealt alike; a state the JSON made is equal to it."""
        sides = ps.sides
        names = sorted(sides)
        hands = {k: list(sides[k].hand or ()) for k in names}
        deck = list(ps.deck)
        new_hands, new_deck = redeal(hands, deck, side, rng)
        dealt = {k: replace(sides[k], hand=tuple(new_hands[k])) for k in names}
        pending = ps.pending
        if pending is not None and pending.start:
            start = redeal_start(pending.start, side, (hands, deck), (new_hands, new_deck))
            pending = replace(pending, start=start)
        return replace(ps, sides=dealt, deck=tuple(new_deck), pending=pending)

    def rollout(self, ps: Any, rng: FastRandomness, max_epochs: int = 2000) -> Any:
        epochs = 0
        while ps.result is None and epochs < max_epochs:
            ps, acts = self.play_turn(ps, rng)
            epochs += len(acts)
        return ps


class PlannedPlayout(CCPlayout):
    """A C&C playout whose orders are planned as the turn is played (not written as text):
    an action's text is its submission's notation."""

    def text(self, ps: Any, action: Action) -> str:
        sub = action.payload
        if sub.answer is not None:
            return f"answer {sub.answer}\n"
        return str(sub.notation())
