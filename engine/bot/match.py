"""Whole games between computer players, on simulated dice (benchmarks, hot-seat tests).

:func:`play_match` starts a game from a loaded position, asks each side's
:class:`Player` whenever that side must act (orders or an answer), applies
what it sends through the system's public interface (``parse_orders`` then
``resolve``) and stops when the game ends or ``max_epochs`` decisions were
made. The dice and the first shuffle come from a :class:`SimRng` seeded by
``seed``: the same players and seed replay the same game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.bot.players import Decision, Player
from engine.bot.rng import SimRng, seed_of
from engine.core.api import GameSystem

__all__ = ["MatchResult", "play_match"]


@dataclass(frozen=True)
class MatchResult:
    """How a game between players ended: ``winner`` (a side, ``draw`` or None if cut short)."""

    winner: str | None
    epochs: int
    state: Any


def play_match(
    system: GameSystem,
    position: Any,
    players: Mapping[str, Player],
    seed: int,
    *,
    max_epochs: int = 400,
    on_decision: Callable[[Decision], None] | None = None,
) -> MatchResult:
    """Play ``players`` (side -> player) against each other from ``position``."""
    dice = SimRng(seed_of("match dice", seed))
    state = system.new_game(position, None, dice)
    for epoch in range(max_epochs):
        p = system.prompt(state)
        if p.kind == "over":
            return MatchResult(p.result, epoch, state)
        side = p.question.side if p.question is not None else p.side
        if side is None:
            break
        decision = players[side].decide(system, state, side)
        if on_decision is not None:
            on_decision(decision)
        sub = system.parse_orders(state, side, decision.text)
        state = system.resolve(state, sub, dice).state
    p = system.prompt(state)
    return MatchResult(p.result if p.kind == "over" else None, max_epochs, state)
