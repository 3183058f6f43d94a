"""Club statements in the one replay cache (:class:`~pbem.store.SignedStatement`).

A signed club command (``club: <id>``, ``nonce:``, ``command ...``) and a
replacement's ``command replace`` are acted on once: the cache keeps who
signed (the key's fingerprint) and what (SHA-256 of the canonical text),
and the nonce per signer and scope (the game id, or ``club:<id>``).
"""

from __future__ import annotations

import hashlib
from datetime import datetime

from sqlmodel import Session, col, select

from pbem.store import SignedStatement

__all__ = ["Replayed", "remember_once"]


class Replayed(ValueError):
    """The statement (``code`` duplicate) or its nonce (``nonce-used``) was used before."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def remember_once(
    session: Session,
    *,
    signer: str,
    text: str,
    scope: str,
    nonce: str,
    now: datetime,
    inbox_id: int | None = None,
) -> None:
    """Record the statement, or raise :class:`Replayed` if it or its nonce was used."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    same = session.exec(
        select(SignedStatement.id)
        .where(col(SignedStatement.signer) == signer)
        .where(col(SignedStatement.digest) == digest)
    ).first()
    if same is not None:
        raise Replayed("duplicate", "this exact signed statement was already acted on")
    used = session.exec(
        select(SignedStatement.id)
        .where(col(SignedStatement.signer) == signer)
        .where(col(SignedStatement.game_id) == scope)
        .where(col(SignedStatement.nonce) == nonce)
    ).first()
    if used is not None:
        raise Replayed("nonce-used", f"you used the nonce {nonce!r} before: choose a new word")
    session.add(
        SignedStatement(
            signer=signer,
            digest=digest,
            game_id=scope[:64],
            kind="command",
            nonce=nonce,
            inbox_id=inbox_id,
            created_at=now,
        )
    )
    session.flush()
