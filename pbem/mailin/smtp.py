"""Receive game mail over SMTP or LMTP on a loopback port (aiosmtpd).

The MTA (Postfix, see ``deploy/``) relays the game address here. The reply
to DATA is given only after the message is committed to the inbox:

- ``250`` stored (or already stored: a re-delivery);
- ``451`` the database failed, so the MTA keeps the message and retries;
- ``552`` over ``limits.max_message_size``;
- ``550`` at RCPT for an address outside the game domain.

In LMTP mode each accepted recipient needs its own reply after DATA; this
listener accepts one recipient per transaction (``452`` to the next one, which
tells the MTA to send it again in a new transaction), so one reply is right.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP

from pbem.clock import Clock
from pbem.mailin.accept import NewMailCallback, store_message
from pbem.store import InboxSource, Store

log = logging.getLogger(__name__)

OK = "250 2.0.0 OK"
TEMP_FAILURE = "451 4.3.0 Cannot store the message just now; try again later"
TOO_BIG = "552 5.3.4 Message too big"
NOT_OURS = "550 5.1.1 Not a game address here"
ONE_RECIPIENT = "452 4.5.3 One recipient per transaction; send the rest again"


class InboxHandler:
    """aiosmtpd handler that commits each message to the inbox before replying."""

    def __init__(
        self,
        store: Store,
        clock: Clock,
        *,
        domain: str,
        max_message_size: int,
        lmtp: bool = False,
        on_new_mail: NewMailCallback | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.domain = domain.lower()
        self.max_message_size = max_message_size
        self.lmtp = lmtp
        self.on_new_mail = on_new_mail

    def accepts(self, address: str) -> bool:
        """Say whether ``address`` is in the game domain."""
        local, at, domain = address.rpartition("@")
        return bool(at and local) and domain.lower() == self.domain

    async def handle_RCPT(
        self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: list[str]
    ) -> str:
        """Accept recipients in the game domain (one per transaction in LMTP)."""
        if not self.accepts(address):
            return NOT_OURS
        if self.lmtp and envelope.rcpt_tos:
            return ONE_RECIPIENT
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        """Commit the message, then answer 250; answer 451 if the commit failed."""
        raw = envelope.original_content or envelope.content
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        if len(raw) > self.max_message_size:
            return TOO_BIG
        source = InboxSource.LMTP if self.lmtp else InboxSource.SMTP
        try:
            accepted = await asyncio.to_thread(
                store_message,
                self.store,
                raw,
                source=source,
                clock=self.clock,
                envelope_from=envelope.mail_from or "",
                envelope_to=list(envelope.rcpt_tos),
            )
        except Exception:
            log.exception("listener: could not store a message from %s", envelope.mail_from)
            return TEMP_FAILURE
        if not accepted.duplicate and self.on_new_mail is not None:
            try:
                self.on_new_mail(accepted.inbox_id)
            except Exception:
                # The message is safe in the inbox; the sweep will find it.
                log.exception("listener: new-mail callback failed")
        return f"{OK} (inbox #{accepted.inbox_id})"


async def start_listener(
    handler: InboxHandler, host: str, port: int, *, hostname: str, reuse_port: bool = False
) -> asyncio.Server:
    """Start serving SMTP (or LMTP if ``handler.lmtp``) on ``host:port`` in this loop.

    Close with ``server.close(); await server.wait_closed()``. With ``reuse_port``
    (``pbem serve --workers N``) several processes listen on the same port.
    """
    loop = asyncio.get_running_loop()
    protocol = LMTP if handler.lmtp else SMTP

    def factory() -> Any:
        return protocol(
            handler,
            data_size_limit=handler.max_message_size,
            enable_SMTPUTF8=True,
            hostname=hostname,
            ident="pbem",
            loop=loop,
        )

    # reuse_port: several worker processes of one host share the port (the kernel
    # spreads the connections); a worker's death leaves the others listening.
    server = await loop.create_server(factory, host, port, reuse_port=reuse_port or None)
    log.debug("listening for %s on %s:%d", "LMTP" if handler.lmtp else "SMTP", host, port)
    return server
