"""The bot over a system's fast playout (:mod:`engine.core.playout`): no text, cheap copies.

:class:`FastPlayout` adapts :func:`engine.core.playout.playout_for` (a
system's ``playout`` capability, or the text playout over its autoplayer) to
the bot's :class:`engine.bot.adapter.Playout`. The view is the system's own
``masked`` state started as a playout state; a sample is the playout's
``determinize`` of it (the cards the side cannot see dealt again at random);
actions are the playout's, and :meth:`mail_text` writes the chosen one as a
mail with its headers.
"""

from __future__ import annotations

from typing import Any, cast

from engine.bot.adapter import (
    Action,
    Playout,
    TextPlayout,
    Turn,
    describe_text,
    random_rollout,
    template_head,
)
from engine.bot.evaluate import evaluate_view
from engine.bot.rng import SimRng
from engine.core.api import GameSystem, Question
from engine.core.playout import Playout as EnginePlayout
from engine.core.playout import playout_for as engine_playout_for

__all__ = ["FastPlayout", "playout_for"]


class FastPlayout:
    """The bot's :class:`~engine.bot.adapter.Playout` over the engine's playout API."""

    def __init__(self, system: GameSystem, po: EnginePlayout | None = None) -> None:
        self.system = system
        self.po = po if po is not None else engine_playout_for(system)
        self.sides: tuple[str, ...] = tuple(system.sides)

    def turn(self, state: Any) -> Turn:
        side = self.po.to_act(state)
        if side is None or self.po.is_over(state):
            return Turn("over", None, self.po.result(state))
        return Turn("question" if self.po.question(state) is not None else "orders", side)

    def view(self, state: Any, side: str) -> Any:
        return self.po.start(self.system.masked(state, side))

    def key(self, state: Any) -> str:
        return self.system.to_json(self.po.game_state(state))

    def sample(self, view: Any, side: str, rng: SimRng) -> Any:
        return self.po.determinize(view, side, _fast(rng))

    def actions(self, state: Any, side: str, rng: SimRng, width: int) -> tuple[Action, ...]:
        return tuple(self.po.legal_actions(state, _fast(rng), limit=width))

    def random_action(self, state: Any, side: str, rng: SimRng) -> Action:
        return self.po.random_action(state, _fast(rng))

    def apply(self, state: Any, side: str, action: Action, rng: SimRng) -> Any:
        return self.po.apply(state, cast(Any, action), _fast(rng))

    def rollout(self, state: Any, rng: SimRng, horizon: int) -> Any:
        """:func:`~engine.bot.adapter.random_rollout`'s state, the same draws from ``rng``;
        where the engine's playout can (:meth:`engine.cc.playout.CCPlayout.apply_answering`),
        the questions of a turn are answered as they arise instead of pausing the turn and
        replaying it for each answer: the answer drawn as :meth:`random_action` draws it,
        then the dice as :meth:`apply` would."""
        answering = getattr(self.po, "apply_answering", None)
        if answering is None:
            return random_rollout(self, state, rng, horizon)
        left = horizon

        def answer(q: Question) -> tuple[str, Any]:
            choices = q.answers or (q.default,)
            pick = choices[_fast(rng).below(len(choices))]
            return pick, _fast(rng)

        while left > 0:
            turn = self.turn(state)
            if turn.kind == "over" or turn.side is None:
                break
            action = self.random_action(state, turn.side, rng)
            left -= 1
            if turn.kind == "orders":
                state, answered = answering(state, action, _fast(rng), answer, left)
                left -= answered
            else:
                state = self.apply(state, turn.side, action, rng)
        return state

    def evaluate(self, state: Any, side: str) -> float:
        view = self.system.public_view(self.po.game_state(state))
        return evaluate_view(view, side, self.po.result(state))

    def describe(self, state: Any, side: str, action: Action) -> str:
        return describe_text(self.system, self.po.text(state, cast(Any, action)))

    def mail_text(self, state: Any, side: str, action: Action) -> str:
        body = self.po.text(state, cast(Any, action))
        head = template_head(self.system, self.po.game_state(state), side)
        return "\n".join([*head, body.rstrip("\n")]) + "\n"


def _fast(rng: SimRng) -> Any:
    """The playout's own stream type, seeded from the bot's (``legal_actions`` wants one)."""
    from engine.core.playout import FastRandomness  # noqa: PLC0415

    return FastRandomness(rng.next64())


def playout_for(system: GameSystem, *, fast: bool = True) -> Playout:
    """The adapter the bot uses for ``system``: :class:`FastPlayout` over the engine's
    playout, or with ``fast=False`` :class:`~engine.bot.adapter.TextPlayout` (the mail path)."""
    return FastPlayout(system) if fast else TextPlayout(system)
