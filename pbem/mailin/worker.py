"""Process pending inbox rows, oldest first, through a pluggable processor.

The pipeline implements :class:`InboxProcessor`. Its ``process(inbox_id)``
must, in ONE ``store.transaction()``, read the row, act on it (game state,
events, outbox rows) and set the row's ``status`` to ``processed`` or
``refused`` (or ``set-aside``) with an ``outcome`` (design invariant 1). If it raises, its
transaction is rolled back and the worker marks the row ``failed`` (so one bad
message never blocks the queue) — except for database errors
(:class:`sqlalchemy.exc.OperationalError`: locked, unreachable), which leave
the row pending to be retried at the next wake.

:class:`InboxWorker` runs in the daemon: at start it drains whatever a crash
left pending, then waits for :meth:`InboxWorker.notify` (called after each new
inbox commit, from any thread) or a periodic sweep (mail stored by
``pbem ingest`` from another process).

Before each row the worker counts an attempt in the row (``attempts``); a row
begun ``max_attempts`` times without finishing (the daemon died or was
stopped while reading it, every time) is set aside, so one poisoned mail
cannot stall every start. The rows are processed in a daemon thread that
shutdown does not wait for.

Several workers (PostgreSQL, docs/scaling.md): with :class:`Lanes` the worker
groups the pending rows by lane (``pbem.pipeline.lanes``: the game the
headers name, else the sender), claims each lane with a session advisory
lock before processing its rows oldest first, and skips lanes another
worker holds. A worker that dies releases its lanes with its session.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypeVar

from sqlalchemy import func, literal_column, update
from sqlalchemy import inspect as sa_inspect
from sqlalchemy.exc import OperationalError
from sqlmodel import col, select

from pbem.clock import Clock
from pbem.store import Deadline, InboxMessage, InboxStatus, Store
from pbem.store.locks import LaneClaims

log = logging.getLogger(__name__)


T = TypeVar("T")


async def in_daemon_thread(fn: Callable[[], T]) -> T:
    """Run ``fn`` in a daemon thread and await its result.

    Unlike ``asyncio.to_thread`` (whose executor the event loop joins when it
    closes), nothing waits for this thread at shutdown: SIGTERM while a mail
    is being read stops the daemon at once, and the row stays pending (its
    attempt counted) for the next start.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(value: T | None, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)  # type: ignore[arg-type]

    def run() -> None:
        value: T | None = None
        error: BaseException | None = None
        try:
            value = fn()
        except BaseException as exc:  # handed to the awaiting task
            error = exc
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(settle, value, error)

    threading.Thread(target=run, name="pbem-inbox", daemon=True).start()
    return await future


LANE_ROUND = 500
"""Pending rows a worker looks at per round (the rest wait for the next round)."""
LANE_HEAD_BYTES = 65536
"""Bytes of each pending mail read to find its lane (the header block)."""


@dataclass
class Lanes:
    """How several workers share the inbox: a row's lane, and this worker's claims."""

    lane_of: Callable[[bytes, str], str]
    """``(raw head, envelope_to) -> lane`` (``pbem.pipeline.lanes.lane_of`` with the config)."""
    claims: LaneClaims


class InboxProcessor(Protocol):
    """Turns one pending inbox row into its effects, in one transaction."""

    def process(self, inbox_id: int) -> bool | None:
        """Process the row ``inbox_id`` and mark it processed or refused.

        Return True to say the row is marked (the worker then does not read it
        again to check); None to have the worker check.
        """
        ...


class ClaimingProcessor(InboxProcessor, Protocol):
    """A processor that takes the row as the worker's claim returned it (no second read)."""

    def process_claimed(self, row: InboxMessage) -> bool:
        """Process ``row`` (just claimed, pending) like :meth:`InboxProcessor.process`."""
        ...


@dataclass(frozen=True)
class PendingRow:
    """A pending row as the worker's listing saw it."""

    id: int
    received_at: datetime | None = None
    late: bool = False
    """A deadline was due before the mail was received (judge it first)."""


def _set_aside_outcome(began: int) -> str:
    return (
        f"set aside: processing began {began} times and never finished "
        "(the daemon stopped or died while reading it); see docs/operating.md"
    )


class InboxWorker:
    """Feed pending inbox rows to the processor, in id order, one at a time."""

    def __init__(
        self,
        store: Store,
        processor: InboxProcessor,
        clock: Clock,
        *,
        on_processed: Callable[[], None] | None = None,
        max_attempts: int = 3,
        before_row: Callable[[int], None] | None = None,
        lanes: Lanes | None = None,
        judge: Callable[[datetime], None] | None = None,
    ) -> None:
        self.store = store
        self.processor = processor
        self.clock = clock
        self.on_processed = on_processed
        self.max_attempts = max_attempts
        self.before_row = before_row
        """Called with each row's id before it is processed (the deadlines judge first)."""
        self.lanes = lanes
        """Set when several workers share the store (PostgreSQL): rows are claimed by lane."""
        self.judge = judge
        """Called with a row's receipt time when a deadline was due before it (the deadlines
        judge it first); the listing tells, so a row with none costs no read."""
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping = threading.Event()

    def stop(self) -> None:
        """Finish the row in hand and take no more (safe from any thread); :meth:`run`
        then returns once the round in hand has ended."""
        self._stopping.set()
        with contextlib.suppress(RuntimeError):  # the loop closed already: nothing to wake
            self.notify()

    def pending_ids(self) -> list[int]:
        """Return the ids of pending rows, oldest first."""
        return [r.id for r in self.pending_rows()]

    def _listed(self) -> list[Any]:
        """The listing's columns: the id, and with a judge the receipt time and lateness."""
        if self.judge is None:
            return [InboxMessage.id]
        late = (
            select(Deadline.id)
            .where(col(Deadline.fired).is_(False))
            .where(col(Deadline.due_at) < col(InboxMessage.received_at))
            .exists()
        )
        return [InboxMessage.id, InboxMessage.received_at, late]

    @staticmethod
    def _pending_row(values: Any) -> PendingRow:
        if len(values) == 1:
            return PendingRow(values[0])
        return PendingRow(values[0], values[1], bool(values[2]))

    def pending_rows(self) -> list[PendingRow]:
        """Return the pending rows, oldest first, in one statement (no transaction).

        With a judge, each row says whether a deadline not yet fired was due
        before it was received. Deadlines written after this listing are due
        after it (a new prompt's period starts now), so none is missed.
        """
        with self.store.autocommit() as session:
            rows = session.execute(
                select(*self._listed())
                .where(col(InboxMessage.status) == InboxStatus.PENDING)
                .order_by(col(InboxMessage.id))
            ).all()
        return [self._pending_row(r) for r in rows if r[0] is not None]

    def _claim(self, inbox_id: int) -> InboxMessage | None:
        """Count an attempt at a pending row with attempts left and return it, in one statement.

        None when the row is not such a row (:meth:`_begin` then decides).
        The row read back is the one the processor acts on; it writes the
        row's outcome only where it is still pending, so a row taken by
        someone else meanwhile is never acted on twice.
        """
        table: Any = sa_inspect(InboxMessage).local_table
        with self.store.autocommit() as session:
            found = session.execute(
                update(InboxMessage)
                .where(col(InboxMessage.id) == inbox_id)
                .where(col(InboxMessage.status) == InboxStatus.PENDING)
                .where(col(InboxMessage.attempts) < self.max_attempts)
                .values(attempts=col(InboxMessage.attempts) + 1)
                .returning(*table.columns)
                .execution_options(synchronize_session=False)
            ).first()
        if found is None:
            return None
        return InboxMessage(**dict(found._mapping))

    def _begin(self, inbox_id: int) -> bool:
        """Count an attempt at the row; set it aside instead if it had too many (False)."""
        with self.store.transaction() as session:
            row = session.get(InboxMessage, inbox_id)
            if row is None or row.status != InboxStatus.PENDING:
                return False
            if row.attempts >= self.max_attempts:
                row.status = InboxStatus.SET_ASIDE
                row.outcome = _set_aside_outcome(row.attempts)
                row.processed_at = self.clock.now()
                session.add(row)
                log.error("inbox #%d: %s", inbox_id, row.outcome)
                return False
            row.attempts += 1
            session.add(row)
        return True

    def _undo_attempt(self, inbox_id: int) -> None:
        """A database error is not the mail's fault: do not count it (best effort)."""
        try:
            with self.store.transaction() as session:
                row = session.get(InboxMessage, inbox_id)
                if row is not None and row.status == InboxStatus.PENDING and row.attempts > 0:
                    row.attempts -= 1
                    session.add(row)
        except OperationalError:
            pass

    def process_pending(self) -> int:
        """Process every pending row now (blocking); return how many were handled.

        With lanes (several workers on PostgreSQL) the rows are taken lane by
        lane, each lane claimed first (:meth:`_process_lanes`).
        """
        if self.lanes is not None:
            handled = self._process_lanes(self.lanes)
        elif getattr(self.processor, "process_claimed", None) is not None:
            handled = self._process_in_order()
        else:
            handled = 0
            for pending in self.pending_rows():
                step = self._one(pending)
                if step is None:
                    break
                handled += step
        if handled and self.on_processed is not None:
            self.on_processed()
        return handled

    def _claim_next(self, after: int) -> tuple[InboxMessage, PendingRow, int] | None:
        """Claim the oldest pending row after ``after`` in one statement (no listing first).

        Counts the attempt and returns the row, what the listing would have
        said of it (whether a deadline was due before it), and how many
        pending rows follow it. None when no pending row is left.
        """
        table: Any = sa_inspect(InboxMessage).local_table
        # Written out: a RETURNING clause names its columns without their table,
        # which would make these subqueries compare a column with itself.
        more: Any = literal_column(
            f"(SELECT count(*) FROM inbox AS later WHERE later.status = '{InboxStatus.PENDING}' "
            "AND later.id > inbox.id)"
        )
        late: Any = literal_column(
            "EXISTS (SELECT 1 FROM deadlines WHERE deadlines.fired = false "
            "AND deadlines.due_at < inbox.received_at)"
        )
        oldest = (
            select(func.min(InboxMessage.id))
            .where(col(InboxMessage.status) == InboxStatus.PENDING)
            .where(col(InboxMessage.id) > after)
            .scalar_subquery()
        )
        listed: list[Any] = [InboxMessage.received_at, late] if self.judge is not None else []
        with self.store.autocommit() as session:
            found = session.execute(
                update(InboxMessage)
                .where(col(InboxMessage.id) == oldest)
                .where(col(InboxMessage.status) == InboxStatus.PENDING)
                .values(attempts=col(InboxMessage.attempts) + 1)
                .returning(*table.columns, more, *listed)
                .execution_options(synchronize_session=False)
            ).first()
        if found is None:
            return None
        values = tuple(found)
        width = len(table.columns)
        row = InboxMessage(**dict(zip(table.columns.keys(), values[:width], strict=True)))
        assert row.id is not None
        pending = self._pending_row((row.id, *values[width + 1 :]))
        return row, pending, int(values[width])

    def _process_in_order(self) -> int:
        """Claim and process pending rows oldest first, one statement to find and claim each.

        The round takes the rows pending when it began (the first claim says
        how many follow), like a listing would, then ends (``on_processed``:
        the outbox sends what the round queued); a row stored meanwhile wakes
        the worker again (:meth:`notify`, or the periodic sweep for another
        process's rows).
        """
        handled = 0
        after = 0
        left: int | None = None
        while not self._stopping.is_set():
            try:
                claimed = self._claim_next(after)
            except OperationalError:
                log.exception("inbox: database unavailable; will retry")
                break
            if claimed is None:
                break
            row, pending, more = claimed
            after = pending.id
            if row.attempts > self.max_attempts:
                self._set_aside(pending.id, row.attempts - 1)
                handled += 1
            else:
                step = self._one(pending, claimed=row)
                if step is None:
                    break
                handled += step
            left = more if left is None else min(left - 1, more)
            if left <= 0:
                break
        return handled

    def _set_aside(self, inbox_id: int, began: int) -> None:
        """Set aside a row whose processing began ``began`` times and never finished."""
        with self.store.transaction() as session:
            row = session.get(InboxMessage, inbox_id)
            if row is None or row.status != InboxStatus.PENDING:
                return
            row.status = InboxStatus.SET_ASIDE
            row.attempts = began
            row.outcome = _set_aside_outcome(began)
            row.processed_at = self.clock.now()
            session.add(row)
            log.error("inbox #%d: %s", inbox_id, row.outcome)

    def _judged(
        self, inbox_id: int, claimed: InboxMessage | None, judge: Callable[[], None]
    ) -> bool:
        """Judge the deadlines before a row; False if the database is unavailable (the row's
        attempt undone, it stays pending). Any other failure is logged and the row goes on:
        the mail is not to blame, and the sweep retries the deadlines."""
        try:
            judge()
        except OperationalError:
            log.exception("inbox #%d: database unavailable; will retry", inbox_id)
            if claimed is not None:
                self._undo_attempt(inbox_id)
            return False
        except Exception:
            log.exception("inbox #%d: judging the deadlines before it failed", inbox_id)
        return True

    def _one(self, pending: PendingRow, claimed: InboxMessage | None = None) -> int | None:
        """Judge the deadlines before the row, then process it.

        Returns 1 (handled) or None (stop this round: stopping, or the
        database is unavailable and the row stays pending for the next wake).
        """
        if self._stopping.is_set():
            return None
        inbox_id = pending.id
        judge = self.judge
        if judge is not None and pending.late and pending.received_at is not None:
            received = pending.received_at
            if not self._judged(inbox_id, claimed, lambda: judge(received)):
                return None
        before_row = self.before_row
        if before_row is not None and not self._judged(
            inbox_id, claimed, lambda: before_row(inbox_id)
        ):
            return None
        try:
            claiming: Callable[[InboxMessage], bool] | None = getattr(
                self.processor, "process_claimed", None
            )
            if claimed is None and claiming is not None:
                claimed = self._claim(inbox_id)
            marked: bool | None
            if claiming is not None and claimed is not None:
                marked = claiming(claimed)
            elif not self._begin(inbox_id):
                return 1
            else:
                marked = self.processor.process(inbox_id)
        except OperationalError:
            log.exception("inbox #%d: database unavailable; will retry", inbox_id)
            self._undo_attempt(inbox_id)
            return None
        except Exception as exc:
            log.exception("inbox #%d: processing failed", inbox_id)
            self._mark_failed(inbox_id, f"processing failed: {type(exc).__name__}: {exc}")
        else:
            if marked is not True:
                self._check_marked(inbox_id)
        return 1

    def pending_lanes(self, lanes: Lanes) -> dict[str, list[PendingRow]]:
        """Return the pending rows by lane, lanes in the order of their oldest row."""
        with self.store.autocommit() as session:
            rows = session.execute(
                select(
                    InboxMessage.envelope_to,
                    func.substr(col(InboxMessage.raw), 1, LANE_HEAD_BYTES),
                    *self._listed(),
                )
                .where(col(InboxMessage.status) == InboxStatus.PENDING)
                .order_by(col(InboxMessage.id))
                .limit(LANE_ROUND)
            ).all()
        out: dict[str, list[PendingRow]] = {}
        for envelope_to, head, *listed in rows:
            if listed[0] is None:
                continue
            pending = self._pending_row(listed)
            lane = lanes.lane_of(bytes(head or b""), envelope_to or "") or f"row:{pending.id}"
            out.setdefault(lane, []).append(pending)
        return out

    def _process_lanes(self, lanes: Lanes) -> int:
        """Process the pending rows of every lane this worker can claim, each lane in order."""
        handled = 0
        for lane, rows in self.pending_lanes(lanes).items():
            if self._stopping.is_set():
                break
            if not lanes.claims.try_claim(lane):
                continue  # another worker holds it; its rows stay in order with it
            try:
                for pending in rows:
                    step = self._one(pending)
                    if step is None:
                        return handled
                    handled += step
            finally:
                lanes.claims.release(lane)
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
        """Drain pending rows (crash leftovers first), then wait for wakes until
        :meth:`stop`: return once no round is in hand (its thread has let go of the store)."""
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._wake.set()
        while not self._stopping.is_set():
            await self._wake.wait()
            self._wake.clear()
            if self._stopping.is_set():
                break
            try:
                handled = await in_daemon_thread(self.process_pending)
                if handled and self.lanes is not None:
                    # A lane held by another worker at this round's start may have
                    # been freed with rows still in it: look again at once.
                    self._wake.set()
            except Exception:
                # Never let the worker die: the rows stay pending for the next wake.
                log.exception("inbox: processing round failed; will retry at the next wake")
