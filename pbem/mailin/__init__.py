"""Mail in: every way a message reaches the inbox table, and the worker after it.

- :mod:`pbem.mailin.accept` — :func:`store_message`, the one function that
  writes an inbox row (dedup by Message-ID and :func:`body_hash`).
- :mod:`pbem.mailin.smtp` — the loopback SMTP/LMTP listener (aiosmtpd).
- :mod:`pbem.mailin.imap` — IMAP polling (commit, then ``\\Seen``).
- ``pbem ingest`` (:mod:`pbem.commands.ingest`) — one message on stdin.
- :mod:`pbem.mailin.worker` — :class:`InboxProcessor`, the protocol the
  pipeline implements, and :class:`InboxWorker`, which feeds it pending rows
  in order (rows a crash left pending included).
"""

from pbem.mailin.accept import (
    Accepted,
    NewMailCallback,
    UnreadableMessage,
    body_hash,
    check_readable,
    message_id_of,
    store_message,
)
from pbem.mailin.worker import InboxProcessor, InboxWorker

__all__ = [
    "Accepted",
    "InboxProcessor",
    "InboxWorker",
    "NewMailCallback",
    "UnreadableMessage",
    "body_hash",
    "check_readable",
    "message_id_of",
    "store_message",
]
