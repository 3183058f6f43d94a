"""The C&C systems' playout (:mod:`engine.core.playout`): random orders drawn directly.

The same as :class:`~engine.core.playout.TextPlayout` except that orders are
drawn by the system's own random player (:class:`engine.cc.autoplay.RandomRules`)
straight from the playout's fast stream, instead of through the autoplayer's
seeded (HMAC) choice stream.
"""

from __future__ import annotations

from typing import Any

from engine.cc.autoplay import RandomRules
from engine.core.api import GameSystem
from engine.core.playout import Action, FastRandomness, TextPlayout

__all__ = ["CCPlayout"]


class CCPlayout(TextPlayout):
    """A C&C system's playout over its mail path (see the module docstring)."""

    def __init__(self, system: GameSystem, rules: RandomRules) -> None:
        super().__init__(system)
        self._rules = rules

    def _orders(self, ps: Any, side: str, rng: FastRandomness) -> Action:
        text = self._rules.orders(self.system, ps, side, rng)
        return Action(side, "orders", self.system.parse_orders(ps, side, text), text)
