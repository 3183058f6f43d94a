"""The header checks of an orders text (``game``, ``side``, whose turn, ``turn``).

One place for the checks the referee makes before the engine reads the
orders, shared by a mailed submission (:mod:`pbem.pipeline.orders`), a dry
run by mail (:mod:`pbem.pipeline.checkmail`) and ``pbem check``
(:mod:`pbem.check`), so all three refuse the same text with the same words.
The pipeline checks for a duplicate between the two halves, hence two
functions; :func:`header_problem` runs both in order.
"""

from __future__ import annotations

import re

from engine.core.api import Prompt
from pbem.mailviews.model import OrderError
from pbem.pipeline.inbound import header_lines

__all__ = ["game_problem", "header_problem", "line_of", "turn_problem"]

_TURN = re.compile(r"[0-9]{1,6}")  # ASCII digits only: int() of "¹" or 5,000 digits raises


def line_of(text: str, word: str) -> int | None:
    """Return the 1-based number of the first line starting with ``word``, if any."""
    for n, raw in enumerate(text.splitlines(), 1):
        if raw.strip().lower().startswith(word + " "):
            return n
    return None


def _expect(game_id: str, prompt: Prompt, side: str) -> str:
    return f"game {game_id}\nturn {prompt.turn}\nside {side}"


def game_problem(game_id: str, prompt: Prompt, side: str, text: str) -> OrderError | None:
    """The ``game`` line must name ``game_id``."""
    head = header_lines(text)
    if head.get("game", "").lower() == game_id:
        return None
    if "game" not in head:
        expect = _expect(game_id, prompt, side)
        return OrderError("no-game", f"the orders must name the game; start with:\n{expect}")
    return OrderError(
        "wrong-game",
        f"the orders name game {head['game']!r}, but this mail is about "
        f"game {game_id}; orders are refused unless they name the game they are sent to",
        line_of(text, "game"),
        f"game {head['game']}",
        (f"game {game_id}",),
    )


def turn_problem(game_id: str, prompt: Prompt, side: str, text: str) -> OrderError | None:
    """The ``side`` line, whose turn it is, then the ``turn`` line."""
    head = header_lines(text)
    if head.get("side") and head["side"].lower() != side:
        return OrderError(
            "wrong-side",
            f"you play {side}, not {head['side']}",
            line_of(text, "side"),
            f"side {head['side']}",
            (f"side {side}",),
        )
    if prompt.kind == "over":
        return OrderError("game-over", "the game is over")
    if prompt.side != side:
        waiting = "an answer" if prompt.kind == "question" else "orders"
        return OrderError(
            "not-your-turn",
            f"the game waits for {waiting} from {prompt.side} "
            f"(turn {prompt.turn}); nothing is pending from you",
        )
    turn = head.get("turn", "")
    if not _TURN.fullmatch(turn):
        return OrderError(
            "no-turn",
            f"the orders must name the turn they answer; the game "
            f"expects turn {prompt.turn}:\n{_expect(game_id, prompt, side)}",
        )
    if int(turn) != prompt.turn:
        code = "stale" if int(turn) < prompt.turn else "wrong-turn"
        return OrderError(
            code,
            f"these orders are for turn {turn}, but the game is at turn "
            f"{prompt.turn} and expects {prompt.kind} for turn {prompt.turn}",
            line_of(text, "turn"),
            f"turn {turn}",
            (f"turn {prompt.turn}",),
        )
    return None


def header_problem(game_id: str, prompt: Prompt, side: str, text: str) -> OrderError | None:
    """The first header problem of ``text`` (the game line, then the turn checks)."""
    return game_problem(game_id, prompt, side, text) or turn_problem(game_id, prompt, side, text)
