"""Listeners: what other parts of pbem do when a game ends, a deadline is missed, a game may start.

The pipeline calls :func:`game_ended`, :func:`deadline_missed` and
:func:`start_group` at those moments, inside the transaction that makes them
happen. It never imports the packages that listen (clubs build on the
pipeline, not the other way round): the modules named in
:data:`LISTENER_MODULES` are imported on first use, by name, like the
daemon's ``EXTENSIONS``, and add their functions to the lists below.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlmodel import Session

    from pbem.pipeline.games import GameContext
    from pbem.pipeline.turns import Env

__all__ = [
    "DEADLINE_MISSED",
    "GAME_ENDED",
    "LISTENER_MODULES",
    "START_GROUPS",
    "deadline_missed",
    "game_ended",
    "start_group",
]

LISTENER_MODULES: tuple[str, ...] = ("pbem.clubs.hooks",)
"""Modules that register listeners when imported."""

GAME_ENDED: list[Callable[[Env, GameContext, str], None]] = []
"""Called with the game and its result (a side, or "draw") when a game ends."""

DEADLINE_MISSED: list[Callable[[Env, GameContext, str, datetime, int], None]] = []
"""Called with the side, the deadline's due time and the misses in a row, at each missed turn."""

START_GROUPS: list[Callable[[Session, str], list[str] | None]] = []
"""Asked which games start now that every seat of a game joined (None: not my game)."""

_LOADED: list[bool] = []


def _load() -> None:
    if not _LOADED:
        _LOADED.append(True)
        for name in LISTENER_MODULES:
            importlib.import_module(name)


def game_ended(env: Env, ctx: GameContext, result: str) -> None:
    """Tell every listener that ``ctx`` ended with ``result``."""
    _load()
    for listener in GAME_ENDED:
        listener(env, ctx, result)


def deadline_missed(env: Env, ctx: GameContext, side: str, due_at: datetime, in_a_row: int) -> None:
    """Tell every listener that ``side`` missed the turn deadline due at ``due_at``."""
    _load()
    for listener in DEADLINE_MISSED:
        listener(env, ctx, side, due_at, in_a_row)


def start_group(session: Session, game_id: str) -> list[str]:
    """The games to deal and start now that every seat of ``game_id`` joined (default: itself).

    An empty list means: not yet (a linked game still waits for its joins).
    """
    _load()
    for listener in START_GROUPS:
        found = listener(session, game_id)
        if found is not None:
            return found
    return [game_id]
