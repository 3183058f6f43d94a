"""The Chariots of Fire playout (:mod:`engine.core.playout`): orders planned once, applied directly.

The mail path's random player plans an Orders Phase on a copy of the state
(each line tried as the orders check tries it), writes it, checks the text
on a second copy, and the engine checks it again on a third before
resolving it on a fourth. A playout plans on one copy
(:func:`engine.cof.autoplay.plan`, choices from the fast stream), takes the
submission without trying its lines again (:func:`engine.cof.orders.planned`)
and resolves it with the turn's own code (the system's ``resolve``), its
dice from the stream given. Whose turn it is and whether the battle is over
are read from the state, not from a prompt. Mailed with the same dice, the
same actions reach the same states (``tests/test_playout.py``).
"""

from __future__ import annotations

from typing import Any

from engine.cof.autoplay import body, header, plan
from engine.cof.orders import planned
from engine.cof.state import CofState
from engine.core.api import GameSystem
from engine.core.playout import Action, FastRandomness, TextPlayout

__all__ = ["CofPlayout"]


class CofPlayout(TextPlayout):
    """The ``playout`` capability of Chariots of Fire (see the module docstring)."""

    def __init__(self, system: GameSystem) -> None:
        super().__init__(system)

    def to_act(self, ps: CofState) -> str | None:
        if ps.result:
            return None
        return str(ps.pending["side"] if ps.pending else ps.active["side"])

    def is_over(self, ps: CofState) -> bool:
        return bool(ps.result)

    def result(self, ps: CofState) -> str | None:
        return ps.result or None

    def turn(self, ps: CofState) -> int:
        return ps.turn

    def random_action(self, ps: CofState, rng: FastRandomness) -> Action:
        side = self.to_act(ps)
        if side is None:
            raise ValueError("the battle is over: nobody acts")
        if ps.pending:  # a question (a Trump, a challenge): answered as the mail path reads it
            return super().random_action(ps, rng)
        return self._orders(ps, side, rng)

    def _orders(self, ps: CofState, side: str, rng: FastRandomness) -> Action:
        _, lines = plan(ps, side, rng)
        text = header(ps, side) + body(lines)
        return Action(side, "orders", planned(ps, side, text), text)

    def apply(self, ps: CofState, action: Action, rng: Any) -> CofState:
        state: CofState = self.system.resolve(ps, action.payload, rng).state
        return state

    def determinize(self, ps: CofState, side: str, rng: FastRandomness) -> CofState:
        """Nothing is hidden on the map but the other side's standing orders: they are
        blanked (the defaults play for them), as in ``side``'s masked state."""
        masked: CofState = self.system.masked(ps, side)
        return masked
