"""The toy race's playout (:mod:`engine.core.playout`): cards and answers applied directly.

A state is the system's own state (a small dict). Orders are a card drawn
from the side's hand with the playout's fast stream, answers one of the
question's two; no text is written or read and nothing is checked again
(every card in the hand may be played, both answers are legal), and the
system's own ``resolve`` applies them, its dice from the stream given. The
mail path reaches the same states from the same actions and dice
(``tests/test_playout.py``).
"""

from __future__ import annotations

from typing import Any

from engine.core.api import GameSystem, Question
from engine.core.playout import Action, FastRandomness, TextPlayout

__all__ = ["ToyPlayout"]

ANSWERS = ("block", "allow")
"""The question's answers, in the order the system asks it."""


def _orders(side: str, card: str) -> Action:
    sub = {"side": side, "card": card, "answer": None}
    return Action(side, "orders", _Sub(f"{side} card {card}", sub), f"card {card}\n")


def _answer(side: str, answer: str) -> Action:
    sub = {"side": side, "card": None, "answer": answer}
    return Action(side, "answer", _Sub(f"{side} answer {answer}", sub), f"answer {answer}\n")


class _Sub:
    """A submission (the dict ``parse_orders`` returns), hashed and compared by its text."""

    __slots__ = ("key", "value")

    def __init__(self, key: str, value: dict[str, Any]) -> None:
        self.key = key
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Sub) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)


class ToyPlayout(TextPlayout):
    """The ``playout`` capability of the toy race (see the module docstring)."""

    def __init__(self, system: GameSystem) -> None:
        super().__init__(system)

    def to_act(self, ps: Any) -> str | None:
        if ps["result"]:
            return None
        pending = ps["pending"]
        return str(pending["side"] if pending is not None else ps["to_move"])

    def is_over(self, ps: Any) -> bool:
        return bool(ps["result"])

    def result(self, ps: Any) -> str | None:
        return ps["result"] or None

    def turn(self, ps: Any) -> int:
        return int(ps["turn"])

    def _answers(self, ps: Any, q: Question) -> list[Action]:
        return [_answer(q.side, a) for a in q.answers]

    def legal_actions(self, ps: Any, rng: FastRandomness, limit: int = 8) -> list[Action]:
        side = self.to_act(ps)
        if side is None:
            return []
        if ps["pending"] is not None:
            return [_answer(side, a) for a in ANSWERS]
        return [_orders(side, c) for c in dict.fromkeys(ps["hands"][side])][: max(1, limit)]

    def random_action(self, ps: Any, rng: FastRandomness) -> Action:
        side = self.to_act(ps)
        if side is None:
            raise ValueError("the race is over: nobody acts")
        if ps["pending"] is not None:
            return _answer(side, ANSWERS[rng.below(2)])
        hand = ps["hands"][side]
        return _orders(side, hand[rng.below(len(hand))])

    def apply(self, ps: Any, action: Action, rng: Any) -> Any:
        return self.system.resolve(ps, action.payload.value, rng).state

    def text(self, ps: Any, action: Action) -> str:
        return action.text
