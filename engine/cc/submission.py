"""The checks every C&C submission goes through before its orders (shared by the C&C systems).

:func:`check_common` checks the header (game, turn, side: optional, but must match where
given), standing-order lines, an answer to a pending question, standing orders sent alone,
whose turn it is and the card played. It returns the problems found and, when the
submission needs nothing more (an answer, standing orders alone), the accepted submission.
:func:`bare_answer` lets a player answer a question with the choice alone on a line.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import replace
from typing import Any

from engine.cc.decide import norm_answer
from engine.cc.orders import Submission
from engine.core.api import OrdersError, OrdersProblem
from engine.hexgrid import Board, Hex

__all__ = ["bare_answer", "check_common", "unknown_hexes"]


def bare_answer(text: str, verbs: Collection[str]) -> str:
    """``text`` with every line that is not an order (by its first word) made an answer."""
    out = []
    for raw in text.splitlines():
        body = raw.split("#", 1)[0].strip()
        word = body.split(" ", 1)[0].lower().rstrip(":") if body else ""
        out.append(raw if not body or word in verbs or body.startswith(">") else f"answer {body}")
    return "\n".join(out)


def check_common(  # noqa: PLR0917 (the checks read this many things)
    state: Any,
    side: str,
    sub: Submission,
    parse_standing: Callable[[str, int], object],
    card_name: Callable[[str], str],
    reaction_cards: Collection[str] = (),
) -> tuple[list[OrdersProblem], Submission | None]:
    """Problems of the header, answer, turn and card; and the accepted submission when it
    holds nothing else to check (see the module docstring). ``state`` is any C&C state
    (``result``, ``game_id``, ``turn``, ``pending``, ``to_move``, ``sides[side].hand``);
    ``reaction_cards`` are played in the opponent's turn, never as a turn (First Strike)."""
    problems: list[OrdersProblem] = []

    def bad(line: int, code: str, msg: str, legal: tuple[str, ...] = ()) -> None:
        quote = sub.lines[line - 1] if 0 < line <= len(sub.lines) else ""
        problems.append(OrdersProblem(line, quote, code, msg, legal))

    def line_of(word: str) -> int:
        for i, raw in enumerate(sub.lines, 1):
            if raw.strip().lower().startswith(word):
                return i
        return 0

    if state.result is not None:
        raise OrdersError([OrdersProblem(0, "", "game-over", "the battle is over")])
    # The header is optional here: the referee (pbem.pipeline.headers) insists on
    # it for mailed orders, while a position tested with `pbem engine` has none.
    # Where it is given it must match.
    if sub.game is not None and sub.game != state.game_id:
        bad(line_of("game"), "wrong-game", f"this is game {state.game_id}", (state.game_id,))
    if sub.turn is not None and sub.turn != state.turn:
        bad(line_of("turn"), "stale-turn", f"the game is at turn {state.turn}", (str(state.turn),))
    if sub.side is not None and sub.side != side:
        bad(line_of("side"), "wrong-side", f"you play {side}", (side,))
    for i, raw in enumerate(sub.lines, 1):
        if raw.strip().lower().startswith("standing"):
            try:
                parse_standing(raw.strip()[8:].strip(), i)
            except OrdersError as e:
                problems += [
                    OrdersProblem(p.line, raw, p.code, p.message, p.legal) for p in e.problems
                ]
    if state.pending is not None:
        q = state.pending.question
        if side != q.side:
            bad(0, "not-your-question", f"the game waits for {q.side}'s answer")
        elif sub.answer is None:
            bad(0, "answer-needed", q.text, q.answers)
        elif norm_answer(sub.answer) not in {norm_answer(a) for a in q.answers}:
            bad(line_of("answer"), "bad-answer", f"not an answer to: {q.text}", q.answers)
        if sub.card or sub.actions or sub.orders:
            bad(sub.card_line, "question-pending", "answer the question first; no orders now")
        return problems, replace(sub, side=side)
    if sub.standing and not (sub.card or sub.orders or sub.actions or sub.answer):
        # standing orders alone may be sent by either side at any time
        return problems, replace(sub, side=side)
    if sub.answer is not None:
        bad(line_of("answer"), "no-question", "there is no question to answer")
    if side != state.to_move:
        bad(0, "not-your-turn", f"it is {state.to_move}'s turn")
    hand = state.sides[side].hand
    if sub.card is None:
        bad(0, "no-card", "play a card: 'card <code>'", tuple(hand))
    elif sub.card not in hand:
        bad(
            sub.card_line, "card-not-in-hand", f"you do not hold {card_name(sub.card)}", tuple(hand)
        )
    elif sub.card in reaction_cards:
        bad(
            sub.card_line,
            "first-strike-not-a-turn",
            f"{card_name(sub.card)} is played when you are attacked, not as your turn",
            tuple(c for c in hand if c not in reaction_cards),
        )
    return problems, None


def unknown_hexes(board: Board, sub: Submission) -> list[OrdersProblem]:
    """A hex named in the orders that is not on the board (a typo such as G44)."""
    out: list[OrdersProblem] = []
    named: list[tuple[int, Hex]] = [
        (n, r.hex) for r, n in zip(sub.orders, sub.order_lines, strict=True) if r.hex is not None
    ]
    for a in sub.actions:
        hexes = (a.ref.hex, a.target, a.to, a.extra, a.bonus, *a.path, *a.joined)
        named += [(a.line, h) for h in hexes if h is not None]
    for line, h in named:
        if h not in board:
            quote = sub.lines[line - 1] if 0 < line <= len(sub.lines) else ""
            try:
                board.parse(str(h))
                why = f"{h} is not a hex of this board"
            except ValueError as e:
                why = str(e)
            out.append(OrdersProblem(line, quote, "unknown-hex", f"unknown hex: {why}"))
    return out
