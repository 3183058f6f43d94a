"""Process pending inbox rows, oldest first, through a pluggable processor.

The pipeline implements :class:`InboxProcessor`. Its ``process(inbox_id)``
must, in ONE ``store.transaction()``, read the row, act on it (game state,
events, outbox rows) and set the row's ``status`` to ``processed`` or
``refused`` with an ``outcome`` (design invariant 1). If it raises, its
transaction is rolled back and the worker marks the row ``failed`` (so one bad
message never blocks the queue) — except for database errors
(:class:`sqlalchemy.exc.OperationalError`: locked, unreachable), which leave
the row pending to be retried at the next wake.

:class:`InboxWorker` runs in the daemon: at start it drains whatever a crash
left pending, then waits for :meth:`InboxWorker.notify` (called after each new
inbox commit, from any thread) or a periodic sweep (mail stored by
``pbem ingest`` from another process).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import Protocol

from sqlalchemy.exc import OperationalError
from sqlmodel import col, select

from pbem.clock import Clock
from pbem.store import InboxMessage, InboxStatus, Store

log = logging.getLogger(__name__)


class InboxProcessor(Protocol):
    """Turns one pending inbox row into its effects, in one transaction."""

    def process(self, inbox_id: int) -> None:
        """Process the row ``inbox_id`` and mark it processed or refused."""
        ...


class InboxWorker:
    """Feed pending inbox rows to the processor, in id order, one at a time."""

    def __init__(
        self,
        store: Store,
        processor: InboxProcessor,
        clock: Clock,
        *,
        on_processed: Callable[[], None] | None = None,
    ) -> None:
        self.store = store
        self.processor = processor
        self.clock = clock
        self.on_processed = on_processed
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping = threading.Event()

    def stop(self) -> None:
        """Finish the row in hand and take no more (safe from any thread)."""
        self._stopping.set()

    def pending_ids(self) -> list[int]:
        """Return the ids of pending rows, oldest first."""
        with self.store.transaction() as session:
            rows = session.exec(
                select(InboxMessage.id)
                .where(col(InboxMessage.status) == InboxStatus.PENDING)
                .order_by(col(InboxMessage.id))
            ).all()
        return [r for r in rows if r is not None]

    def process_pending(self) -> int:
        """Process every pending row now (blocking); return how many were handled."""
        handled = 0
        for inbox_id in self.pending_ids():
            if self._stopping.is_set():
                break
            try:
                self.processor.process(inbox_id)
            except OperationalError:
                log.exception("inbox #%d: database unavailable; will retry", inbox_id)
                break
            except Exception as exc:
                log.exception("inbox #%d: processing failed", inbox_id)
                self._mark_failed(inbox_id, f"processing failed: {type(exc).__name__}: {exc}")
            else:
                self._check_marked(inbox_id)
            handled += 1
        if handled and self.on_processed is not None:
            self.on_processed()
        return handled

    def _mark_failed(self, inbox_id: int, outcome: str) -> None:
        with self.store.transaction() as session:
            row = session.get(InboxMessage, inbox_id)
            if row is not None and row.status == InboxStatus.PENDING:
                row.status = InboxStatus.FAILED
                row.outcome = outcome
                row.processed_at = self.clock.now()
                session.add(row)

    def _check_marked(self, inbox_id: int) -> None:
        with self.store.transaction() as session:
            row = session.get(InboxMessage, inbox_id)
            still_pending = row is not None and row.status == InboxStatus.PENDING
        if still_pending:
            # A processor that forgets to mark its row would loop forever.
            log.error("inbox #%d: processor left the row pending; marking failed", inbox_id)
            self._mark_failed(inbox_id, "processor did not mark the message")

    def notify(self, inbox_id: int | None = None) -> None:
        """Wake the worker (safe from any thread; a no-op before :meth:`run`)."""
        loop, wake = self._loop, self._wake
        if loop is None or wake is None:
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            wake.set()
        else:
            loop.call_soon_threadsafe(wake.set)

    async def run(self) -> None:
        """Drain pending rows (crash leftovers first), then wait for wakes forever."""
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._wake.set()
        while True:
            await self._wake.wait()
            self._wake.clear()
            try:
                await asyncio.to_thread(self.process_pending)
            except Exception:
                # Never let the worker die: the rows stay pending for the next wake.
                log.exception("inbox: processing round failed; will retry at the next wake")
