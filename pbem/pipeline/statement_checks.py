"""Match a signed statement against the game's current state, and the one replay cache.

:func:`read_statement` parses the step's signed text (:mod:`pbem.statements`)
or refuses it whole. :func:`answer_problem` binds orders and answers to the
state: an answer names the pending question's id and the state version it
was written for; orders name no question (an answer sent after its question
was settled is stale). :func:`command_problem` checks that a command names
the game and a one-time nonce.

The replay cache (:class:`~pbem.store.SignedStatement`) holds every signed
statement acted on, keyed by the signer's key and the SHA-256 of the
canonical signed text: :func:`replayed` finds an earlier one,
:func:`remember` records one in the same transaction as its effect.
"""

from __future__ import annotations

import hashlib
from typing import Any

from sqlalchemy import insert
from sqlmodel import col, select

from engine.core.api import Prompt
from pbem.mailviews.model import OrderError
from pbem.pipeline.steps import Outcome, Step
from pbem.statements import Statement, StatementError, fresh_nonce, parse_statement
from pbem.store import SignedStatement
from pbem.store.bulk import defer_write

__all__ = [
    "answer_problem",
    "command_problem",
    "digest_of",
    "read_statement",
    "remember",
    "replayed",
]


def digest_of(signed: bytes) -> str:
    """The replay cache's digest of a statement: hex SHA-256 of its canonical bytes."""
    return hashlib.sha256(signed).hexdigest()


def read_statement(step: Step, signed: bytes) -> Statement | Outcome:
    """Parse the step's signed text as a statement, or refuse it whole with the reason."""
    namespace = step.verified.namespace if step.verified is not None else ""
    try:
        return parse_statement(signed.decode("utf-8"), namespace)
    except StatementError as exc:
        return step.refuse(exc.code, str(exc), line=exc.line, quote=exc.quote, legal=exc.legal)


def answer_problem(st: Statement, prompt: Prompt, version: int) -> OrderError | None:
    """Bind orders and answers to the current state (see the module docstring)."""
    question = st.get("question")
    state = st.get("state")
    if prompt.kind == "question" and prompt.question is not None:
        q = prompt.question
        expect = (f"question: {q.id}", f"state: {version}")
        if not question or not state:
            missing = " and ".join(
                k for k, v in (("question", question), ("state", state)) if not v
            )
            return OrderError(
                "unbound-answer",
                f"an answer must name the question and the state it answers ({missing} "
                f"missing): copy the lines {expect[0]!r} and {expect[1]!r} from the "
                "question mail's template",
                None,
                None,
                expect,
            )
        if question != q.id:
            return OrderError(
                "wrong-question",
                f"this answer is for question {question!r}, but the question waiting for "
                f"an answer is {q.id!r}",
                st.lines.get("question"),
                f"question: {question}",
                (expect[0],),
            )
        if int(state) != version:
            return OrderError(
                "stale" if int(state) < version else "wrong-state",
                f"this answer was written for state {state}, but the game is at state "
                f"{version}: answer the question from the latest mail",
                st.lines.get("state"),
                f"state: {state}",
                (expect[1],),
            )
        return None
    if question:
        return OrderError(
            "stale",
            f"this is an answer to question {question!r}, but no question is waiting "
            f"for an answer now ({prompt.text})",
            st.lines.get("question"),
            f"question: {question}",
        )
    if state and int(state) != version:
        return OrderError(
            "stale" if int(state) < version else "wrong-state",
            f"these orders were written for state {state}, but the game is at state {version}",
            st.lines.get("state"),
            f"state: {state}",
            (f"state: {version}",),
        )
    return None


def command_problem(step: Step, st: Statement, signer: str) -> Outcome | None:
    """A command names its game and a nonce this signer never used in this game."""
    ctx = step.ctx
    game = st.get("game").lower()
    if game != ctx.id:
        return step.refuse(
            "wrong-game" if game else "no-game",
            f"a signed command must name its game: add the line 'game: {ctx.id}'",
            line=st.lines.get("game"),
            legal=(f"game: {ctx.id}",),
        )
    nonce = st.get("nonce")
    suggestion = f"nonce: {fresh_nonce(f'{ctx.id}|{step.inbox_id}|{step.side}')}"
    if not nonce:
        return step.refuse(
            "no-nonce",
            "a signed command carries a one-time word, so it can be carried out only "
            f"once: add a line like '{suggestion}' (any 8 to 64 letters or digits you "
            "never used before in this game) and sign again",
            legal=(suggestion,),
        )
    used = step.env.session.exec(
        select(SignedStatement.id)
        .where(col(SignedStatement.signer) == signer)
        .where(col(SignedStatement.game_id) == ctx.id)
        .where(col(SignedStatement.nonce) == nonce)
    ).first()
    if used is not None:
        return step.refuse(
            "nonce-used",
            f"you already used the nonce {nonce!r} in this game; every command needs a "
            f"new one, e.g. '{suggestion}'",
            line=st.lines.get("nonce"),
            legal=(suggestion,),
        )
    return None


def replay_probe(signer: str, digest: str) -> Any:
    """The scalar subquery: the kind of an acted-on statement with this signer and digest.

    The processor asks it with the game (:func:`pbem.pipeline.games.load_game`,
    probe ``replayed``); :func:`replayed` then reads nothing.
    """
    return (
        select(SignedStatement.kind)
        .where(col(SignedStatement.signer) == signer)
        .where(col(SignedStatement.digest) == digest)
        .limit(1)
        .scalar_subquery()
    )


def replayed(step: Step, signer: str, digest: str) -> str | None:
    """The kind of the earlier statement with this signer and digest the referee acted on."""
    asked = step.ctx.probes.get(REPLAY_PROBE)
    if asked is not None and asked[0] == (signer, digest):
        return str(asked[1]) if asked[1] is not None else None
    kind = step.env.session.exec(
        select(SignedStatement.kind)
        .where(col(SignedStatement.signer) == signer)
        .where(col(SignedStatement.digest) == digest)
    ).first()
    return None if kind is None else str(kind)


REPLAY_PROBE = "replayed"
"""The name of :func:`replay_probe`'s answer in ``GameContext.probes``: ((signer, digest), kind)."""


def remember(step: Step, st: Statement, signer: str, digest: str) -> None:
    """Record an acted-on statement in the replay cache (same transaction as its effect)."""
    defer_write(
        step.env.session,
        insert(SignedStatement).values(
            signer=signer,
            digest=digest,
            game_id=step.ctx.id,
            kind=st.kind,
            nonce=st.get("nonce") or None,
            inbox_id=step.inbox_id,
            created_at=step.env.clock.now(),
        ),
    )
