"""How many replies the referee sends, to players and to strangers (design invariant 4).

Forged mail must not turn the referee into a mail cannon: 200 forged ``help``
mails once got 200 replies.

- :func:`reply_allowed`: replies that answer a mail (refusals, notes,
  ``help``) go to one address at most ``limits.replies_per_sender_per_hour``
  times an hour (10 by default); later mail from it is still processed, only
  not answered. Game mail (turns, reminders, the end) is never limited.
- :func:`reply_unknown`: mail from an address that is no player of the game it
  names (or of any game) gets a short generic note — what this address is and
  how to join — only if no such note went to that address within
  ``limits.unknown_sender_reply_interval`` (a day), and only while fewer than
  ``limits.stranger_replies_per_hour`` (4) such notes went out in the last
  hour to all strangers together. The note names no game, player or
  position. Automatic mail (``Auto-Submitted``, bulk) gets none.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import formataddr

from sqlmodel import Session, col, select

from pbem.clock import Clock
from pbem.config import Config
from pbem.outbox import make_message_id, queue_message
from pbem.store import RateLimit

__all__ = ["STRANGERS", "reply_allowed", "reply_unknown"]

log = logging.getLogger(__name__)

HELP = """This address is a play-by-email referee (pbem). It reads orders and commands
only from registered players.

If you were invited to a game, join it with a signed mail holding

    command join
    game <game id>
    token <invite token>
    side <your side, as the invitation names it>

signed with your Ed25519 key (ssh-keygen -Y sign -n pbem-orders). Otherwise ask
the operator of this referee to register your address and key.

This note is sent at most once a day to an address; other mail from it is
ignored.
"""


STRANGERS = "*strangers*"
"""The ``rate_limits`` row that counts the notes to every stranger together."""

_WINDOW = timedelta(hours=1)


def _row(session: Session, address: str, now: datetime) -> RateLimit:
    row = session.exec(select(RateLimit).where(col(RateLimit.sender) == address)).first()
    if row is None:
        row = RateLimit(sender=address, first_seen_at=now, last_seen_at=now, messages=0)
    return row


def _take(row: RateLimit, now: datetime, limit: int) -> bool:
    """Count one reply in the row's hour if fewer than ``limit`` went out; say whether."""
    if row.window_start is None or now - row.window_start >= _WINDOW:
        row.window_start = now
        row.window_replies = 0
    if row.window_replies >= limit:
        return False
    row.window_replies += 1
    return True


def reply_allowed(session: Session, config: Config, clock: Clock, address: str) -> bool:
    """Count a reply to ``address`` if its hourly allowance has room; say whether to send it."""
    now = clock.now()
    row = _row(session, address.strip().lower()[:320], now)
    row.last_seen_at = now
    allowed = _take(row, now, config.limits.replies_per_sender_per_hour)
    session.add(row)
    if not allowed:
        log.info("no reply to %s: over %d replies this hour", row.sender, row.window_replies)
    return allowed


def reply_unknown(
    session: Session,
    config: Config,
    clock: Clock,
    sender: str,
    *,
    auto: bool,
    inbox_id: int | None,
) -> bool:
    """Queue the stranger's note if allowed now; return whether one was queued."""
    now = clock.now()
    row = _row(session, sender, now)
    row.messages += 1
    row.last_seen_at = now
    send = not auto and (
        row.last_reply_at is None
        or now - row.last_reply_at >= config.limits.unknown_sender_reply_interval
    )
    if send:
        everyone = _row(session, STRANGERS, now)
        send = _take(everyone, now, config.limits.stranger_replies_per_hour)
        session.add(everyone)
    if send:
        row.last_reply_at = now
    session.add(row)
    if not send:
        return False
    msg = EmailMessage()
    msg["From"] = formataddr((config.mail.from_name, config.mail.address))
    msg["To"] = sender
    msg["Subject"] = "About this address (pbem referee)"
    msg["Auto-Submitted"] = "auto-replied"
    msg.set_content(HELP)
    queue_message(
        session,
        msg,
        recipient=sender,
        message_id=make_message_id(
            "unknown", "reply", f"{now:%Y%m%d%H%M%S}", sender, config.mail_domain
        ),
        clock=clock,
        kind="unknown-sender",
        inbox_id=inbox_id,
    )
    return True
