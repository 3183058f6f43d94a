"""Write one received message into the inbox table, once.

Every way mail arrives (SMTP/LMTP listener, ``pbem ingest``, IMAP poll) ends
in :func:`store_message`, which commits the raw bytes before the caller
acknowledges the message to whoever handed it over (design invariant 1).

A message is the same as one already stored when it has the same
``Message-ID`` header *and* the same content (:func:`body_hash`), i.e. the same
:func:`dedup_key`; then nothing is written and the existing row's id is
returned with ``duplicate=True`` — the caller still acknowledges, since the
message is safe. A copy without a Message-ID matches on content alone. Two
distinct mails with the same text sent in the same second (a second
``help``) have different Message-IDs and are both kept; re-delivered
signed orders under a new Message-ID are the pipeline's replay check's to refuse.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from email.parser import BytesHeaderParser
from email.policy import compat32

from sqlalchemy import ColumnElement
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, or_, select

from pbem.clock import Clock
from pbem.store import InboxMessage, InboxStatus, Store
from pbem.store.notify import announce_inbox

log = logging.getLogger(__name__)

NewMailCallback = Callable[[int], None]
"""Called with the inbox id after a *new* row is committed (wakes the worker)."""

# Headers that identify a message's content as its author sent it; trace
# headers (Received, Delivered-To, Return-Path) differ between deliveries of
# the same message and are left out.
_IDENTITY_HEADERS = ("from", "sender", "to", "cc", "date", "subject", "in-reply-to")
_HEADER_LINE = re.compile(rb"^[\x21-\x39\x3b-\x7e]+:")


class UnreadableMessage(ValueError):
    """The bytes are not an email message (empty, or no header block)."""


@dataclass(frozen=True)
class Accepted:
    """Where a message went: its inbox row, and whether it was already there."""

    inbox_id: int
    duplicate: bool


def check_readable(raw: bytes) -> None:
    """Raise :class:`UnreadableMessage` unless ``raw`` starts with a header block."""
    if not raw.strip():
        raise UnreadableMessage("empty message")
    first = raw.lstrip(b"\r\n").split(b"\n", 1)[0]
    # An mbox "From " line may precede the headers when a local MTA pipes.
    if first.startswith(b"From "):
        rest = raw.lstrip(b"\r\n").split(b"\n", 1)
        first = rest[1].split(b"\n", 1)[0] if len(rest) > 1 else b""
    if not _HEADER_LINE.match(first):
        raise UnreadableMessage("no mail header at the start of the message")


def _split(raw: bytes) -> tuple[bytes, bytes]:
    normal = raw.replace(b"\r\n", b"\n")
    head, sep, body = normal.partition(b"\n\n")
    return (head, body) if sep else (normal, b"")


def message_id_of(raw: bytes) -> str | None:
    """Return the ``Message-ID`` header (stripped), or ``None`` if absent."""
    head, _ = _split(raw)
    headers = BytesHeaderParser(policy=compat32).parsebytes(head + b"\n\n")
    value = headers.get("Message-ID")
    if value is None:
        return None
    text = " ".join(str(value).split())
    return text[:998] or None


def body_hash(raw: bytes) -> str:
    """Return the hex SHA-256 identifying a message's content.

    It covers the author's headers (From, Sender, To, Cc, Date, Subject,
    In-Reply-To, unfolded) and the body with line ends normalised, so the same
    message delivered twice, by any route, hashes the same, while two mails
    with equal text sent at different times do not.
    """
    head, body = _split(raw)
    headers = BytesHeaderParser(policy=compat32).parsebytes(head + b"\n\n")
    digest = hashlib.sha256()
    for name in _IDENTITY_HEADERS:
        for value in headers.get_all(name, []):
            digest.update(name.encode() + b":" + " ".join(str(value).split()).encode() + b"\n")
    digest.update(b"\n")
    digest.update(body.rstrip())
    return digest.hexdigest()


def dedup_key(message_id: str | None, digest: str) -> str:
    """Return the key two deliveries of one message share: its Message-ID and content hash."""
    return hashlib.sha256(f"{message_id or ''}\n{digest}".encode()).hexdigest()


def _find(session: Session, message_id: str | None, digest: str) -> int | None:
    """Return the id of a stored row that is this message, if any.

    Same Message-ID and content; a copy without a Message-ID (or a stored row
    without one) matches on content alone, since it cannot say it differs.
    """
    keys = [dedup_key(message_id, digest)]
    if message_id is not None:
        keys.append(dedup_key(None, digest))
    cond: ColumnElement[bool] = col(InboxMessage.dedup_key).in_(keys)
    if message_id is None:
        cond = or_(cond, col(InboxMessage.body_hash) == digest)
    return session.exec(select(InboxMessage.id).where(cond).limit(1)).first()


def store_message(
    store: Store,
    raw: bytes,
    *,
    source: str,
    clock: Clock,
    envelope_from: str = "",
    envelope_to: Iterable[str] = (),
) -> Accepted:
    """Commit ``raw`` to the inbox as a pending row (or find it already there).

    Returns only after the commit; any database error propagates, and the
    caller must then answer "try again later" (SMTP 451, sysexits 75, leave
    the IMAP message unseen).
    """
    message_id = message_id_of(raw)
    digest = body_hash(raw)
    key = dedup_key(message_id, digest)
    row = InboxMessage(
        message_id=message_id,
        body_hash=digest,
        dedup_key=key,
        raw=raw,
        source=source,
        envelope_from=envelope_from[:320],
        envelope_to=",".join(envelope_to),
        received_at=clock.now(),
        status=InboxStatus.PENDING,
    )
    try:
        with store.transaction() as session:
            found = _find(session, message_id, digest)
            if found is None:
                session.add(row)
                session.flush()
                announce_inbox(session)  # PostgreSQL wakes every idle worker at commit
    except IntegrityError:
        # Another writer stored the same message between our check and insert.
        with store.transaction() as session:
            again = _find(session, message_id, digest)
        if again is None:
            raise
        found = again
    if found is not None:
        log.info("inbox: %s message %s is already stored as #%d", source, message_id, found)
        return Accepted(inbox_id=found, duplicate=True)
    assert row.id is not None
    log.info("inbox: stored %s message %s as #%d", source, message_id, row.id)
    return Accepted(inbox_id=row.id, duplicate=False)
