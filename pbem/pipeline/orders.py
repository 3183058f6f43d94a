"""Signed orders (or a signed answer) from a player: check, resolve, or refuse saying why.

Checks, in order, each refusal mailed to the player with what is expected:
the game is active; the signature is the player's current key (a
non-player's key with a player's From: is refused); the ``game`` line names
this game; the same signed text was not accepted before (duplicate); the
game waits for this side; the ``turn`` line is the turn the game is at
(replayed and stale orders are refused, naming the turn expected); the
engine accepts the whole submission (each bad line quoted with its number,
why, and what is legal). Then the submission is resolved as the next epoch.

Orders resolve on receipt: there is never anything pending to replace. A
second mail for the same turn is refused as stale (the turn has moved on)
or as a duplicate (same text). An answer, once applied, cannot be changed.
"""

from __future__ import annotations

import json

from sqlmodel import col, select

from engine.core.api import OrdersError
from engine.dice import hash_orders
from pbem.mailviews import model as mv
from pbem.pipeline.headers import game_problem, turn_problem
from pbem.pipeline.inbound import COMMAND_LINE
from pbem.pipeline.mails import format_deadline
from pbem.pipeline.steps import Outcome, Step, check_signature
from pbem.pipeline.turns import apply_submission, shown_deadline
from pbem.store import DiceEpoch, Event, GameStatus

__all__ = ["handle_orders", "status_refusal"]


def status_refusal(step: Step) -> Outcome | None:
    """Refuse when the game is not active (setup, paused, over)."""
    status = step.ctx.game.status
    if status == GameStatus.ACTIVE:
        return None
    why = {
        GameStatus.SETUP: "the game has not started yet (every player must join with a key)",
        GameStatus.PAUSED: "the operator paused the game; orders are refused until it resumes",
        GameStatus.FINISHED: "the game is over",
        GameStatus.ABANDONED: "the game was abandoned",
    }.get(status, f"the game is {status}")
    return step.refuse(f"game-{status}", why)


def handle_orders(step: Step) -> Outcome:
    """Handle a mail holding signed orders or an answer (see the module docstring)."""
    ctx = step.ctx
    refusal = status_refusal(step)
    if refusal is not None:
        return refusal
    signed = check_signature(step, ctx.seats[step.side].key)
    if isinstance(signed, Outcome):
        return signed
    # A "command answer" line is the mail's own business, not the engine's (blanked, so
    # line numbers stay those of the signed text).
    text = COMMAND_LINE.sub("", signed.decode("utf-8"))
    prompt = ctx.prompt()
    bad = game_problem(ctx.id, prompt, step.side, text)
    if bad is not None:
        return step.refuse(bad.code, bad.message, errors=(bad,))
    orders_hash = hash_orders(signed)
    earlier = _accepted_before(step, orders_hash.hex())
    if earlier is not None:
        return step.refuse(
            "duplicate",
            f"these exact orders were already accepted (epoch "
            f"{earlier}); nothing changed. {prompt.text}",
        )
    bad = turn_problem(ctx.id, prompt, step.side, text)
    if bad is not None:
        return step.refuse(bad.code, bad.message, errors=(bad,))
    try:
        submission = ctx.system.parse_orders(ctx.state, step.side, text)
    except OrdersError as exc:
        errors = tuple(
            mv.OrderError(p.code, p.message, p.line or None, p.quote or None, tuple(p.legal))
            for p in exc.problems
        )
        return step.refuse(exc.code, str(exc), errors=errors)
    epoch = apply_submission(
        step.env,
        ctx,
        step.side,
        submission=submission,
        orders_text=text,
        orders_hash=orders_hash,
        source="mail",
    )
    what = "answer" if prompt.kind == "question" else "orders"
    _acknowledge(step, what, prompt.turn, epoch)
    return Outcome.done(
        f"{what} of {step.side} for turn {prompt.turn} resolved as epoch {epoch}", ctx.id
    )


def _acknowledge(step: Step, what: str, turn: int, epoch: int) -> None:
    """Tell the sender his submission is stored when the turn now waits on someone else.

    A resolved turn mails everyone; a turn paused on the opponent's question
    would otherwise leave the sender without a word.
    """
    ctx = step.ctx
    after = ctx.prompt()
    if after.kind != "question" or not after.side or after.side == step.side:
        return
    deadline = shown_deadline(step.env, ctx)
    tz = ctx.seats[step.side].player.time_zone
    due = f", due by {format_deadline(deadline, tz)}" if deadline else ""
    step.notice(
        "accepted",
        f"Turn {turn}: your {what} accepted, nothing due from you",
        f"Your {what} for turn {turn} of {ctx.id} {'was' if what == 'answer' else 'were'} "
        f"accepted and stored (epoch {epoch}).\n\n"
        f"The turn now waits for {after.side}'s answer to a question{due}. Nothing is due "
        "from you: you will get the turn's result when it is resolved.\n",
    )


def _accepted_before(step: Step, orders_hash: str) -> int | None:
    """Return the epoch that accepted this exact text, if it counts as a duplicate now.

    The same answer text ("turn 7 / answer no") may answer two different
    questions of one turn; it is a duplicate only for the question it answered.
    """
    ctx = step.ctx
    prompt = ctx.prompt()
    current = prompt.question.id if prompt.question is not None else None
    for epoch in step.env.session.exec(
        select(DiceEpoch.epoch)
        .where(col(DiceEpoch.game_id) == ctx.id)
        .where(col(DiceEpoch.orders_hash) == orders_hash)
    ).all():
        payload = step.env.session.exec(
            select(Event.payload_json)
            .where(col(Event.game_id) == ctx.id)
            .where(col(Event.epoch) == epoch)
            .where(col(Event.kind) == "pbem.accepted")
        ).first()
        answered = json.loads(payload).get("question") if payload else None
        if current is None or answered is None or answered == current:
            return epoch
    return None
