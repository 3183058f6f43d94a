"""The one reply a stranger may get, at most once per address per interval.

Mail from an address that is no player of the game it names (or of any game)
gets a short generic note — what this address is and how to join — and only
if no such note went to that address within
``limits.unknown_sender_reply_interval`` (a day by default). The note names no
game, player or position. Automatic mail (``Auto-Submitted``, bulk) gets none.
"""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import formataddr

from sqlmodel import Session, col, select

from pbem.clock import Clock
from pbem.config import Config
from pbem.outbox import make_message_id, queue_message
from pbem.store import RateLimit

__all__ = ["reply_unknown"]

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
    row = session.exec(select(RateLimit).where(col(RateLimit.sender) == sender)).first()
    if row is None:
        row = RateLimit(sender=sender, first_seen_at=now, last_seen_at=now, messages=0)
    row.messages += 1
    row.last_seen_at = now
    send = not auto and (
        row.last_reply_at is None
        or now - row.last_reply_at >= config.limits.unknown_sender_reply_interval
    )
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
