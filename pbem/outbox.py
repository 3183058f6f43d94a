"""Queue outgoing mail in the store and send it, at least once.

Queuing (:func:`queue_message`) happens inside the transaction that decided
to send (design invariant 1); sending (:class:`OutboxSender`) happens later,
outside it, so a crash after the smarthost accepted but before the row was
marked sends the mail again — with the same deterministic Message-ID
(:func:`make_message_id`), so mail clients show it once (invariant 2).

Retries: a temporary failure (connection refused, timeout, 4xx, auth
trouble) sets ``next_attempt_at = now + min(retry_base * retry_factor**(n-1),
retry_max)`` after attempt ``n`` — no jitter, so the schedule is predictable
and testable with a fake clock. A row still unsent ``give_up_after`` its
queuing, or refused with a 5xx for the recipient or message, is marked
``failed`` and a notice is queued to the operator (never for a notice to the
operator itself, which would loop).

Sending costs the store two short transactions per batch of up to
:data:`RECORD_BATCH` rows: the due rows are read in a plain read
transaction (:func:`pbem.store.read_session`: on SQLite a deferred ``BEGIN``, which
never waits for the write lock the inbox worker holds), every row is sent,
and then every outcome of the batch is recorded in one write transaction.
A crash between sending and recording re-sends at most that batch, with
the same Message-IDs. On PostgreSQL several workers' senders share the
outbox: each batch is read ``FOR UPDATE SKIP LOCKED`` in a transaction kept
open until its outcomes are recorded, so no two senders send one row, and a
sender killed mid-batch frees its rows for the others.

In Maildir mode (``delivery = "maildir"``, or no smarthost configured) the
sender writes each mail into a local Maildir instead (``Config.maildir_path``,
made by :func:`ensure_maildir` with its ``cur``/``new``/``tmp`` folders), for
testing and for sites that let another program deliver from it.
"""

from __future__ import annotations

import asyncio
import email.utils
import hashlib
import logging
import mailbox
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.policy import SMTP as SMTP_POLICY
from pathlib import Path
from typing import Any

import aiosmtplib
from sqlmodel import Session, col, select

from pbem.clock import Clock
from pbem.config import Config, OutboxConfig
from pbem.mailviews.mime import OutgoingMail
from pbem.store import OutboxMessage, OutboxStatus, Store, read_session
from pbem.store.bulk import insert_new
from pbem.store.files import private_dir
from pbem.store.locks import is_postgres

log = logging.getLogger(__name__)

FLUSH_BATCH = 200
RECORD_BATCH = 20
"""Rows sent between two recording transactions (and re-sent at most after a crash)."""
_ID_PART = re.compile(r"[^A-Za-z0-9_.-]+")


MAILDIR_FOLDERS = ("tmp", "new", "cur")


def ensure_maildir(path: Path) -> mailbox.Maildir:
    """Return the Maildir at ``path``, creating it and any missing ``tmp``/``new``/``cur``.

    ``mailbox.Maildir(create=True)`` makes the folders only when ``path``
    itself is new; a directory made earlier (by hand, or by an older
    ``pbem doctor``) would then fail every delivery. Raises ``OSError``.
    """
    private_dir(path.parent)  # the data directory, when doctor makes it first
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    for name in MAILDIR_FOLDERS:
        (path / name).mkdir(mode=0o700, exist_ok=True)
    return mailbox.Maildir(path, create=False)


def make_message_id(
    game_id: str, kind: str, version: int | str, recipient: str, domain: str
) -> str:
    """Return the deterministic Message-ID of one mail, angle brackets included.

    The same arguments always give the same id, so a resent mail is
    recognised as the same one. The recipient appears only as a short hash:
    ids end up in every player's ``References`` header.

    >>> make_message_id("g7", "turn", 3, "Ann@example.org", "pbem.example.org")
    '<g7.turn.3.438c4c7afe60@pbem.example.org>'
    """
    who = hashlib.sha256(recipient.strip().lower().encode("utf-8")).hexdigest()[:12]
    parts = [_ID_PART.sub("-", str(p)) or "-" for p in (game_id, kind, version)]
    return f"<{'.'.join(parts)}.{who}@{domain}>"


def queue_message(
    session: Session,
    message: OutgoingMail,
    *,
    recipient: str,
    message_id: str,
    clock: Clock,
    game_id: str | None = None,
    kind: str = "",
    inbox_id: int | None = None,
) -> OutboxMessage:
    """Add ``message`` for ``recipient`` to the outbox in the caller's transaction.

    Sets the ``Message-ID`` header (and ``Date`` if missing). Queuing the
    same ``message_id`` twice returns the existing row and adds nothing.

    Raises:
        ValueError: the message already carries a different Message-ID.
    """
    existing = _existing(session, message_id)
    if existing is not None:
        return existing
    raw = message_bytes(message, message_id=message_id, clock=clock)
    return _add(session, RawMail(raw, recipient, message_id, kind, game_id), clock, inbox_id)


def message_bytes(message: OutgoingMail, *, message_id: str, clock: Clock) -> bytes:
    """Set ``Message-ID`` (and ``Date``, ``MIME-Version`` if missing); return the bytes as sent.

    Needs no transaction: the pipeline serialises mails before it takes the
    store's write lock, then queues them with :func:`queue_raw`.

    Raises:
        ValueError: the message already carries a different Message-ID.
    """
    current = message.get("Message-ID")
    if current is not None and str(current).strip() != message_id:
        raise ValueError(f"message has Message-ID {current}, not {message_id}")
    if current is None:
        message["Message-ID"] = message_id
    if message.get("Date") is None:
        message["Date"] = email.utils.format_datetime(clock.now())
    if message.get("MIME-Version") is None:
        # A mail client reads the parts of a mail only under a top-level MIME-Version.
        message["MIME-Version"] = "1.0"
    return message.as_bytes(policy=SMTP_POLICY)


def queue_raw(
    session: Session,
    raw: bytes,
    *,
    recipient: str,
    message_id: str,
    clock: Clock,
    game_id: str | None = None,
    kind: str = "",
    inbox_id: int | None = None,
) -> OutboxMessage:
    """Add a mail already made by :func:`message_bytes` to the outbox (caller's transaction).

    Queuing the same ``message_id`` twice returns the existing row and adds nothing.
    """
    existing = _existing(session, message_id)
    if existing is not None:
        return existing
    return _add(session, RawMail(raw, recipient, message_id, kind, game_id), clock, inbox_id)


def _add(session: Session, mail: RawMail, clock: Clock, inbox_id: int | None) -> OutboxMessage:
    """Add one outbox row (its Message-ID checked absent by the caller) and flush it."""
    row = OutboxMessage(**_row_values(mail, clock.now(), inbox_id))
    session.add(row)
    session.flush()
    return row


def _row_values(mail: RawMail, now: datetime, inbox_id: int | None) -> dict[str, Any]:
    return {
        "game_id": mail.game_id,
        "inbox_id": inbox_id,
        "kind": mail.kind,
        "recipient": mail.recipient,
        "message_id": mail.message_id,
        "raw": mail.raw,
        "status": OutboxStatus.QUEUED,
        "attempts": 0,
        "last_error": "",
        "queued_at": now,
        "next_attempt_at": now,
    }


@dataclass(frozen=True)
class RawMail:
    """A mail made by :func:`message_bytes`, to be queued by :func:`queue_raws`."""

    raw: bytes
    recipient: str
    message_id: str
    kind: str = ""
    game_id: str | None = None


def queue_raws(
    session: Session, mails: Sequence[RawMail], *, clock: Clock, inbox_id: int | None = None
) -> None:
    """Queue several mails in the caller's transaction, in one statement.

    Like :func:`queue_raw` for each (a Message-ID already queued, or twice in
    ``mails``, is queued once). The ``INSERT`` is sent with the transaction's
    other queued writes (:func:`pbem.store.bulk.defer_write`: on PostgreSQL
    in the same statement as them), before its next read or at commit.
    """
    now = clock.now()
    values = []
    seen: set[str] = set()
    for mail in mails:
        if mail.message_id in seen:
            continue
        seen.add(mail.message_id)
        values.append(_row_values(mail, now, inbox_id))
    insert_new(session, OutboxMessage, values, unique=("message_id",), deferred=True)


def _existing(session: Session, message_id: str) -> OutboxMessage | None:
    return session.exec(
        select(OutboxMessage).where(col(OutboxMessage.message_id) == message_id)
    ).first()


def retry_delay(cfg: OutboxConfig, attempts: int) -> timedelta:
    """Return the wait after ``attempts`` failed attempts (1-based)."""
    seconds = cfg.retry_base.total_seconds() * cfg.retry_factor ** max(attempts - 1, 0)
    return min(timedelta(seconds=seconds), cfg.retry_max)


class DeliveryError(Exception):
    """A delivery attempt failed; ``permanent`` says whether retrying can help."""

    def __init__(self, message: str, *, permanent: bool) -> None:
        super().__init__(message)
        self.permanent = permanent


@dataclass(frozen=True)
class _Claim:
    """A batch of outbox rows locked by this sender, and the open transaction holding them."""

    session: Session
    rows: list[OutboxMessage]


@dataclass(frozen=True)
class FlushReport:
    """What one flush did."""

    sent: int = 0
    deferred: int = 0
    failed: int = 0


def _classify(exc: Exception) -> DeliveryError:
    if isinstance(exc, aiosmtplib.SMTPRecipientsRefused):
        codes = [r.code for r in exc.recipients]
        text = "; ".join(f"{r.code} {r.message}" for r in exc.recipients)
        return DeliveryError(f"recipient refused: {text}", permanent=all(c >= 500 for c in codes))
    if isinstance(exc, aiosmtplib.SMTPAuthenticationError):
        # Our credentials are wrong: the operator can fix that, so keep the mail.
        return DeliveryError(f"smarthost authentication failed: {exc.code}", permanent=False)
    if isinstance(exc, aiosmtplib.SMTPResponseException):
        return DeliveryError(f"{exc.code} {exc.message}", permanent=exc.code >= 500)
    return DeliveryError(f"{type(exc).__name__}: {exc}", permanent=False)


class OutboxSender:
    """Send due outbox rows to the smarthost (or the Maildir), recording each attempt."""

    def __init__(self, config: Config, store: Store, clock: Clock) -> None:
        self.config = config
        self.store = store
        self.clock = clock
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._claiming = is_postgres(store.engine)
        """Several senders may share the store: each batch is claimed (:meth:`_claim`)."""

    @property
    def maildir_mode(self) -> bool:
        """Say whether mail goes to the local Maildir instead of a smarthost."""
        return self.config.maildir_mode

    def due_ids(self) -> list[int]:
        """Return queued rows whose next attempt is due, oldest first."""
        return [r.id for r in self.due_rows(FLUSH_BATCH) if r.id is not None]

    def due_rows(self, limit: int, after: int = 0, upto: int | None = None) -> list[OutboxMessage]:
        """Return up to ``limit`` due queued rows with ``after < id <= upto``, oldest first.

        A plain read: it does not wait for (or take) the store's write lock.
        """
        with read_session(self.store) as session:
            rows = session.exec(self._due_query(after, upto).limit(limit)).all()
        return list(rows)

    def last_id(self) -> int:
        """Return the newest outbox row's id (0 when empty); a plain read."""
        with read_session(self.store) as session:
            newest = session.exec(
                select(OutboxMessage.id).order_by(col(OutboxMessage.id).desc()).limit(1)
            ).first()
        return newest or 0

    async def flush(self) -> FlushReport:
        """Attempt every due row once; return the counts. One flush runs at a time.

        Rows go in batches of :data:`RECORD_BATCH`: read (no write lock),
        send each, record the batch's outcomes in one write transaction.
        """
        self._loop = asyncio.get_running_loop()
        async with self._lock:
            sent = deferred = failed = 0
            # Rows queued during this flush (operator notices it writes, new
            # turns' mails) wait for the next flush, as one attempt per flush.
            upto = await asyncio.to_thread(self.last_id)
            last = 0
            done = 0
            while done < FLUSH_BATCH:
                limit = min(RECORD_BATCH, FLUSH_BATCH - done)
                if self._claiming:
                    claim = await asyncio.to_thread(self._claim, limit, last, upto)
                    rows = claim.rows if claim is not None else []
                else:
                    claim = None
                    rows = await asyncio.to_thread(self.due_rows, limit, last, upto)
                if not rows:
                    break
                outcomes: list[tuple[int, DeliveryError | None]] = []
                try:
                    for row in rows:
                        assert row.id is not None  # rows read from the store have ids
                        try:
                            await self._deliver(row)
                        except DeliveryError as exc:
                            outcomes.append((row.id, exc))
                        else:
                            outcomes.append((row.id, None))
                finally:
                    # Also on cancellation: what was sent is recorded, not re-sent.
                    statuses = await asyncio.shield(
                        asyncio.to_thread(self._record_batch, outcomes, claim)
                    )
                for status in statuses:
                    if status == OutboxStatus.SENT:
                        sent += 1
                    elif status == OutboxStatus.FAILED:
                        failed += 1
                    else:
                        deferred += 1
                done += len(rows)
                last = rows[-1].id or last
            report = FlushReport(sent=sent, deferred=deferred, failed=failed)
            if sent or deferred or failed:
                log.info("outbox: %s", report)
            return report

    def bind_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """Tell the sender which loop :meth:`request_flush` schedules on (the daemon's)."""
        self._loop = loop

    async def flush_logged(self) -> None:
        """Flush, logging instead of raising (for the scheduler and wake-ups)."""
        try:
            await self.flush()
        except asyncio.CancelledError:
            # Shutdown cancels a flush in flight; rows stay queued and are sent
            # at the next start, so this is not an error worth a traceback.
            log.debug("outbox: flush cancelled by shutdown")
        except Exception:
            log.exception("outbox: flush failed; will retry at the next flush")

    def request_flush(self) -> None:
        """Start a flush soon (safe from any thread; a no-op before a loop is known)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return

        def start() -> None:
            task = loop.create_task(self.flush_logged())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        loop.call_soon_threadsafe(start)

    def flushes_in_hand(self) -> list[asyncio.Task[None]]:
        """The flushes :meth:`request_flush` started that have not ended yet."""
        return [t for t in self._tasks if not t.done()]

    async def _deliver(self, row: OutboxMessage) -> None:
        if "@" not in row.recipient:
            raise DeliveryError(f"not an address: {row.recipient!r}", permanent=True)
        if self.maildir_mode:
            try:
                await asyncio.to_thread(self._deliver_maildir, row)
            except OSError as exc:
                raise DeliveryError(f"Maildir: {exc}", permanent=False) from exc
            return
        await self._deliver_smtp(row)

    def _deliver_maildir(self, row: OutboxMessage) -> None:
        box = ensure_maildir(self.config.maildir_path)
        # The envelope recipient is not in the headers when one mail has many copies.
        header = f"X-Pbem-Envelope-To: {row.recipient}\r\n".encode()
        box.add(header + row.raw)

    async def _deliver_smtp(self, row: OutboxMessage) -> None:
        host = self.config.smarthost
        try:
            secret = host.password.read()
        except ValueError as exc:
            raise DeliveryError(str(exc), permanent=False) from exc
        client = aiosmtplib.SMTP(
            hostname=host.host,
            port=host.port,
            username=host.username or None,
            password=secret.reveal() if secret is not None else None,
            use_tls=host.security == "tls",
            start_tls=host.security == "starttls",
            timeout=host.timeout.total_seconds(),
            local_hostname=self.config.mail_domain,
            cert_bundle=str(host.ca_file) if host.ca_file is not None else None,
        )
        try:
            async with client:
                await client.sendmail(self.config.mail.address, [row.recipient], row.raw)
        except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
            raise _classify(exc) from exc

    def _due_query(self, after: int, upto: int | None) -> Any:
        now = self.clock.now()
        query = (
            select(OutboxMessage)
            .where(col(OutboxMessage.status) == OutboxStatus.QUEUED)
            .where(col(OutboxMessage.next_attempt_at) <= now)
            .where(col(OutboxMessage.id) > after)
        )
        if upto is not None:
            query = query.where(col(OutboxMessage.id) <= upto)
        return query.order_by(col(OutboxMessage.id))

    def _claim(self, limit: int, after: int, upto: int | None) -> _Claim | None:
        """Lock up to ``limit`` due rows no other worker holds (PostgreSQL); None if none.

        The transaction stays open while the rows are sent and records their
        outcomes (:meth:`_record_batch`): another worker's sender skips them
        meanwhile, and if this worker dies, PostgreSQL releases them and they
        are sent again (same Message-IDs), at most this batch.
        """
        session = Session(self.store.engine, expire_on_commit=False)
        try:
            query = self._due_query(after, upto).limit(limit).with_for_update(skip_locked=True)
            rows = list(session.exec(query).all())
        except BaseException:
            session.close()
            raise
        if not rows:
            session.close()
            return None
        return _Claim(session, rows)

    def _record_batch(
        self, outcomes: list[tuple[int, DeliveryError | None]], claim: _Claim | None = None
    ) -> list[str]:
        """Record every outcome in one write transaction; return each row's new status."""
        if claim is not None:
            with claim.session as session:
                try:
                    statuses = [self._record(session, row_id, exc) for row_id, exc in outcomes]
                    session.commit()
                except BaseException:
                    session.rollback()
                    raise
            return statuses
        if not outcomes:
            return []
        with self.store.transaction() as session:
            return [self._record(session, row_id, exc) for row_id, exc in outcomes]

    def _record(self, session: Session, row_id: int, exc: DeliveryError | None) -> str:
        now = self.clock.now()
        row = session.get(OutboxMessage, row_id)
        if row is None:
            return OutboxStatus.FAILED
        row.attempts += 1
        if exc is None:
            row.status = OutboxStatus.SENT
            row.sent_at = now
            row.last_error = ""
            session.add(row)
            log.info("outbox: sent %s to %s", row.message_id, row.recipient)
            return row.status
        row.last_error = str(exc)[:2000]
        gave_up = now - row.queued_at >= self.config.outbox.give_up_after
        if exc.permanent or gave_up:
            row.status = OutboxStatus.FAILED
            reason = "refused permanently" if exc.permanent else "gave up after retries"
            log.error("outbox: %s to %s %s: %s", row.message_id, row.recipient, reason, exc)
            self._queue_operator_notice(session, row, reason)
        else:
            row.next_attempt_at = now + retry_delay(self.config.outbox, row.attempts)
            log.warning(
                "outbox: %s to %s failed (attempt %d), retry at %s: %s",
                row.message_id,
                row.recipient,
                row.attempts,
                row.next_attempt_at.isoformat(),
                exc,
            )
        session.add(row)
        return row.status

    def _queue_operator_notice(self, session: Session, row: OutboxMessage, reason: str) -> None:
        operator = self.config.mail.operator
        if row.recipient.strip().lower() == operator.strip().lower() or row.kind == "operator":
            return
        notice = EmailMessage()
        notice["From"] = self.config.mail.address
        notice["To"] = operator
        notice["Subject"] = f"[pbem] Undelivered mail to {row.recipient}"
        notice.set_content(
            f"The referee could not deliver a mail and has stopped trying ({reason}).\n\n"
            f"Recipient:   {row.recipient}\n"
            f"Message-ID:  {row.message_id}\n"
            f"Game:        {row.game_id or '-'}\n"
            f"Kind:        {row.kind or '-'}\n"
            f"Queued at:   {row.queued_at.isoformat()}\n"
            f"Attempts:    {row.attempts}\n"
            f"Last error:  {row.last_error}\n\n"
            "The mail stays in the outbox table (status 'failed') with its raw bytes.\n"
        )
        queue_message(
            session,
            notice,
            recipient=operator,
            message_id=make_message_id(
                "operator", "undelivered", row.id or 0, operator, self.config.mail_domain
            ),
            clock=self.clock,
            game_id=None,
            kind="operator",
        )
