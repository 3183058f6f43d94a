"""Wake idle workers when mail arrives: PostgreSQL ``LISTEN``/``NOTIFY`` on the inbox.

Whoever stores an inbox row on PostgreSQL (the SMTP listener of any worker,
``pbem ingest``, the IMAP poller) sends ``NOTIFY pbem_inbox`` in the same
transaction (:func:`announce_inbox`): PostgreSQL delivers it at commit, to
every session listening, on every host. Each worker of ``pbem serve``
listens on a connection of its own (:class:`InboxListener`) and wakes its
inbox worker at once, instead of finding the row at its next sweep.

The sweep (``limits.inbox_sweep_interval``) stays: it is the fallback when
the listening connection is down (it is opened again after
:data:`RETRY_SECONDS`) and SQLite's only way (one worker, woken in-process).
A notification carries nothing to trust: it only says "look at the inbox".
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import Session

from pbem.store.locks import is_postgres

log = logging.getLogger(__name__)

__all__ = ["CHANNEL", "InboxListener", "announce_inbox"]

CHANNEL = "pbem_inbox"
"""The notification channel of new inbox rows."""
WAIT_SECONDS = 1.0
"""How long the listener waits for a notification before checking whether to stop."""
RETRY_SECONDS = 5.0
"""Wait before opening a lost listening connection again."""


def announce_inbox(session: Session) -> None:
    """Notify every listening worker once this transaction commits (PostgreSQL; else nothing)."""
    if is_postgres(session):
        session.execute(text(f"NOTIFY {CHANNEL}"))


class InboxListener:
    """A thread listening on :data:`CHANNEL` that calls ``wake()`` for each notification.

    It holds one connection of its own (not from the pool), in autocommit.
    ``wake`` is called from the listener's thread: it must be thread-safe
    (:meth:`pbem.mailin.worker.InboxWorker.notify` is).
    """

    def __init__(self, engine: Engine, wake: Callable[[], None]) -> None:
        if not is_postgres(engine):
            raise ValueError("LISTEN/NOTIFY needs PostgreSQL")
        self.engine = engine
        self.wake = wake
        self.listening = threading.Event()
        """Set while the connection listens (tests wait for it)."""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start listening in a daemon thread."""
        self._thread = threading.Thread(target=self._run, name="pbem-inbox-listen", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop listening; return once the thread has closed its connection.

        The thread looks at the stop request at least every :data:`WAIT_SECONDS`.
        """
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _connect(self) -> Any:
        cargs, cparams = self.engine.dialect.create_connect_args(self.engine.url)
        conn = self.engine.dialect.loaded_dbapi.connect(*cargs, **cparams)
        try:
            conn.autocommit = True
            conn.execute(f"LISTEN {CHANNEL}")
        except BaseException:
            conn.close()
            raise
        return conn

    def _run(self) -> None:
        while not self._stop.is_set():
            conn = None
            try:
                conn = self._connect()
                self.listening.set()
                # A row may have come while the connection was down: look once.
                self.wake()
                while not self._stop.is_set():
                    # Returns after WAIT_SECONDS at the latest (to see a stop request).
                    for _note in conn.notifies(timeout=WAIT_SECONDS):
                        self.wake()
            except Exception:
                log.warning(
                    "inbox: listening for new mail failed; the sweep finds it meanwhile",
                    exc_info=True,
                )
                self._stop.wait(RETRY_SECONDS)
            finally:
                self.listening.clear()
                if conn is not None:
                    try:
                        conn.close()
                    except Exception:  # already broken
                        log.debug("inbox: closing the listening connection failed", exc_info=True)
