"""Poll an IMAP mailbox for game mail (for hosts where the MTA cannot relay to us).

Each poll fetches the UNSEEN messages with ``BODY.PEEK[]`` (which does not set
``\\Seen``), commits each to the inbox, and only THEN sets ``\\Seen``: a crash or
database failure between the two leaves the message unseen, so the next poll
fetches it again and the inbox's duplicate check makes that harmless.

:func:`poll_once` blocks (imaplib); the daemon runs it with
``asyncio.to_thread``.
"""

from __future__ import annotations

import imaplib
import logging
import re
import ssl
from collections.abc import Sequence
from dataclasses import dataclass

from pbem.clock import Clock
from pbem.config import ImapConfig
from pbem.mailin.accept import NewMailCallback, store_message
from pbem.store import InboxSource, Store

log = logging.getLogger(__name__)

_LITERAL_HEAD = re.compile(rb"UID (\d+)")


class ImapError(RuntimeError):
    """The IMAP server refused a command or answered something unexpected."""


@dataclass(frozen=True)
class PollResult:
    """What one poll did."""

    fetched: int = 0
    stored: int = 0
    duplicates: int = 0
    skipped: int = 0  # too big: marked seen and left in the mailbox for the operator


def _connect(cfg: ImapConfig) -> imaplib.IMAP4:
    timeout = cfg.timeout.total_seconds()
    if cfg.security == "tls":
        return imaplib.IMAP4_SSL(
            cfg.host, cfg.port, ssl_context=ssl.create_default_context(), timeout=timeout
        )
    conn = imaplib.IMAP4(cfg.host, cfg.port, timeout=timeout)
    if cfg.security == "starttls":
        conn.starttls(ssl.create_default_context())
    return conn


def _ok(result: tuple[str, Sequence[object]], what: str) -> Sequence[object]:
    typ, data = result
    if typ != "OK":
        raise ImapError(f"IMAP {what} failed: {typ} {data!r}")
    return data


def _message_bytes(data: Sequence[object]) -> bytes | None:
    for item in data:
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], bytes):
            return item[1]
    return None


def poll_once(
    cfg: ImapConfig,
    store: Store,
    clock: Clock,
    *,
    max_message_size: int,
    on_new_mail: NewMailCallback | None = None,
) -> PollResult:
    """Fetch every unseen message into the inbox, marking each seen after its commit.

    Raises:
        ImapError, OSError: the server is unreachable or refused; nothing was lost.
        sqlalchemy.exc.SQLAlchemyError: the store failed; the message stays unseen.
    """
    password = cfg.password.read()
    conn = _connect(cfg)
    fetched = stored = duplicates = skipped = 0
    try:
        _ok(conn.login(cfg.user, password.reveal() if password else ""), "LOGIN")
        _ok(conn.select(cfg.mailbox), "SELECT")
        data = _ok(conn.uid("SEARCH", "UNSEEN"), "SEARCH")
        uids = data[0].split() if data and isinstance(data[0], bytes) else []
        for uid in uids:
            uid_text = uid.decode("ascii")
            raw = _message_bytes(_ok(conn.uid("FETCH", uid_text, "(BODY.PEEK[])"), "FETCH"))
            if raw is None:
                log.warning("imap: message UID %s vanished before it was fetched", uid_text)
                continue
            fetched += 1
            if len(raw) > max_message_size:
                log.error(
                    "imap: message UID %s is %d bytes, over the limit; marked seen and left "
                    "in %s for the operator",
                    uid_text,
                    len(raw),
                    cfg.mailbox,
                )
                skipped += 1
            else:
                accepted = store_message(
                    store, raw, source=InboxSource.IMAP, clock=clock, envelope_to=[cfg.user]
                )
                if accepted.duplicate:
                    duplicates += 1
                else:
                    stored += 1
                    if on_new_mail is not None:
                        on_new_mail(accepted.inbox_id)
            # Only now, with the message committed, may the server forget it is new.
            _ok(conn.uid("STORE", uid_text, "+FLAGS", "(\\Seen)"), "STORE")
    except imaplib.IMAP4.error as exc:
        raise ImapError(f"IMAP server refused: {exc}") from exc
    finally:
        try:
            conn.logout()
        except (imaplib.IMAP4.error, OSError):
            log.debug("imap: logout failed", exc_info=True)
    result = PollResult(fetched=fetched, stored=stored, duplicates=duplicates, skipped=skipped)
    if fetched:
        log.info("imap: %s", result)
    return result
