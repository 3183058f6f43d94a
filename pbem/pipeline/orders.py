"""Signed orders (or a signed answer) from a player: check, resolve, or refuse saying why.

Checks, in order, each refusal mailed to the player with what is expected:
the game is active; the signature is the player's current key (a
non-player's key with a player's From: is refused) in namespace
``pbem-orders``; the signed text is one statement, taken whole
(:mod:`pbem.statements`: a header key twice or a malformed value refuses
it); the ``game`` line names this game; the replay cache holds no statement
with this signer and digest (duplicate); the game waits for this side; the
``turn`` line is the turn the game is at (replayed and stale orders are
refused, naming the turn expected); an answer names the waiting question
and the state version it was written for, orders name no question; the
engine accepts the whole submission (each bad line quoted with its number,
why, and what is legal). Then the submission is resolved as the next epoch
and the statement enters the replay cache.

Orders resolve on receipt: there is never anything pending to replace. A
second mail for the same turn is refused as stale (the turn has moved on)
or as a duplicate (same text). An answer, once applied, cannot be changed.
"""

from __future__ import annotations

from sqlmodel import col, select

from engine.core.api import OrdersError
from engine.dice import hash_orders
from pbem.audit import SignedText
from pbem.mailviews import model as mv
from pbem.pipeline.headers import game_problem, turn_problem
from pbem.pipeline.mails import format_deadline
from pbem.pipeline.statement_checks import (
    answer_problem,
    digest_of,
    read_statement,
    remember,
    replayed,
)
from pbem.pipeline.steps import Outcome, Step, check_signature
from pbem.pipeline.turns import apply_submission, shown_deadline
from pbem.store import Deadline, DeadlineKind, GameStatus

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
    st = read_statement(step, signed)
    if isinstance(st, Outcome):
        return st
    if st.kind not in ("orders", "answer"):
        return step.refuse(
            "not-orders", f"this signed text is a {st.kind}, not orders or an answer"
        )
    text = st.body  # the referee's own header lines blanked: line numbers stay
    prompt = ctx.prompt()
    bad = game_problem(ctx.id, prompt, step.side, text)
    if bad is not None:
        return step.refuse(bad.code, bad.message, errors=(bad,))
    orders_hash = hash_orders(signed)
    assert step.verified is not None  # check_signature refused otherwise
    signer = step.verified.signer.fingerprint()
    digest = digest_of(signed)
    earlier = replayed(step, signer, digest)
    if earlier is not None:
        return step.refuse(
            "duplicate",
            f"this exact signed {earlier} was already accepted; nothing changed. {prompt.text}",
        )
    bad = turn_problem(ctx.id, prompt, step.side, text) or answer_problem(
        st, prompt, ctx.game.state_version
    )
    if bad is not None:
        return step.refuse(bad.code, bad.message, errors=(bad,))
    if prompt.kind == "orders" and _left_to_the_autopilot(step):
        return step.refuse(
            "deadline-passed",
            f"these orders were received after your deadline for turn {prompt.turn}: "
            "the autopilot plays that turn for you (to stop it, mail a signed "
            "'command autopilot off')",
        )
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
        signed=signed_text(step),
    )
    # After the epoch: an insert autoflushed earlier would take the write lock before
    # the engine and the board ran (Processor.process, the optimistic attempt).
    remember(step, st, signer, digest)
    what = "answer" if prompt.kind == "question" else "orders"
    _acknowledge(step, what, prompt.turn, epoch)  # quotes ignored lines, if it goes out
    step.tell_ignored(f"Your signed {st.kind} for turn {prompt.turn} was accepted (epoch {epoch}).")
    return Outcome.done(
        f"{what} of {step.side} for turn {prompt.turn} resolved as epoch {epoch}", ctx.id
    )


def _left_to_the_autopilot(step: Step) -> bool:
    """Is a turn deadline of the step's side, due before the mail was received, still to be
    played by the autopilot? The judgement before a mail leaves the autopilot's search to
    the regular sweep (:func:`pbem.deadlines.sweep`, ``slow=False``), so orders received
    late stay late without the mail waiting for the search. One read, only in a game
    whose missed-turn policy is ``autopilot``."""
    ctx = step.ctx
    if ctx.options.settings.missed_turn != "autopilot":
        return False
    if step.side in ctx.options.runtime.autopilot_off:
        return False
    due = (
        select(Deadline.id)
        .where(col(Deadline.game_id) == ctx.id)
        .where(col(Deadline.side) == step.side)
        .where(col(Deadline.kind) == DeadlineKind.TURN)
        .where(col(Deadline.fired).is_not(True))  # not "IS 0": SQLite would pick (fired, due_at)
        .where(col(Deadline.state_version) == ctx.game.state_version)
        .where(col(Deadline.due_at) < step.row.received_at)
        .limit(1)
    )
    return step.env.session.exec(due).first() is not None


def signed_text(step: Step) -> SignedText | None:
    """What the player signed, for the audit record: the canonical text, the signature,
    and the exact bytes the signature covers when they are not the canonical text."""
    verified = step.verified
    if verified is None or step.found is None:
        return None
    exact: str | None = None
    if verified.signed_bytes != verified.text.encode("utf-8"):
        exact = verified.signed_bytes.decode("utf-8", "replace")
    return SignedText(verified.text, step.found.signature, exact)


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
