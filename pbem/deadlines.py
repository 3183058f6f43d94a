"""Deadlines: time per turn, grace, reminders, absences, and the missed-turn policy.

The ``deadlines`` table is the truth; the scheduler only decides when to look.

- When a side must act, :func:`set_prompt_deadlines` (called by the pipeline
  in the transaction that moved the game) writes one ``turn`` (or
  ``question``) row due at *deadline + grace* and one ``reminder`` row per
  configured reminder still in the future, and marks every older unfired row
  of the game as done. The *deadline* players see is the row's time minus
  the grace; it is pushed back by every announced absence of that player
  overlapping the period (:func:`extend_for_absences`).
- :func:`sweep` fires every unfired row due by the clock's now, oldest first,
  each in its own transaction: a row set for an older ``state_version`` (the
  game moved on) or a game not active only gets marked fired. A reminder
  mails the late side once. A question deadline applies the question's
  documented default answer as a new epoch. A turn deadline applies the
  game's missed-turn policy: ``wait`` tells everyone and gives the side
  another period; ``forfeit`` does the same until the side has missed
  ``forfeit_after`` deadlines in a row, then the side loses and everyone is told.
- Deadlines are judged by the time a mail was **received** (stored), not
  processed: no deadline is judged while a mail received by its time is
  still pending (:func:`mail_waiting`; it may hold the orders that beat it),
  and before the inbox worker processes a mail it judges every deadline due
  before that mail was received (:meth:`DeadlineScheduler.judge_before_mail`).
  So orders that arrived while the daemon was down or busy count, the
  start-up sweep included, and orders received late stay late.
- :class:`DeadlineScheduler` runs the sweep from APScheduler: once at start
  (deadlines missed while the daemon was down fire then), at the earliest
  pending row's time (ONE date job, re-armed after every sweep and whenever
  this process commits a new or moved deadline), after the worker processed
  mail a deadline waited for, and every ``interval`` to pick up rows written
  by other processes. A game created by another process (``pbem game
  create``) is armed within a second: :meth:`DeadlineScheduler.watch` reads
  the earliest deadline (one indexed query) every second. Start-up costs one
  indexed query, whatever the number of games. Tests call :func:`sweep`
  directly with a ``FakeClock``.
- What a due row does is the caller's ``fire`` handler (the pipeline's
  :func:`pbem.pipeline.timing.fire_deadline`, which the daemon passes in):
  this module never imports the pipeline, which imports it.
- Work too slow for a transaction (the bot's search, seconds at its higher
  levels) is a :class:`Deferred`: the handler returns it instead of acting,
  the sweep commits (the row stays unfired), calls ``think()`` with **no
  transaction open**, so other games' mail goes on meanwhile, then calls its
  ``apply`` in a new short transaction with the row and game locked and
  checked again like the first time. ``apply`` acts on what was thought only
  if the game has not moved meanwhile; if it moved, the row is stale (marked
  fired; the game's new deadline row gets its own turn) or ``apply`` returns
  a new :class:`Deferred` to think again (at most :data:`RETHINKS` times,
  then the row is left for a later sweep).
- A player's mail never waits for a bot's search: the scheduler holds its
  sweep lock only while it fires a row, never while a :class:`Deferred`
  thinks, and the judgement before a mail (``slow=False``) leaves a bot's
  or the autopilot's due row to the regular sweep (``SweepReport.left``),
  which it arms at once. Orders received after such a row was due stay late
  all the same: the pipeline refuses a player's orders while a turn deadline
  of his, due before the mail was received, waits for the autopilot
  (:mod:`pbem.pipeline.orders`); any other mail of the game is processed
  first, and the bot's ``apply`` finds the game moved if it changed it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from sqlalchemy import event, insert, update
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from pbem.clock import Clock
from pbem.config import Config
from pbem.store import (
    Absence,
    Deadline,
    DeadlineKind,
    Game,
    GameStatus,
    InboxMessage,
    InboxStatus,
    Store,
    read_session,
)
from pbem.store.bulk import defer_write
from pbem.store.locks import lock_row

log = logging.getLogger(__name__)

__all__ = [
    "DeadlineScheduler",
    "SweepReport",
    "cancel_deadlines",
    "current_deadline",
    "extend_for_absences",
    "merge_intervals",
    "prompt_deadline",
    "set_prompt_deadlines",
    "sweep",
]


_WATCHERS: weakref.WeakSet[DeadlineScheduler] = weakref.WeakSet()
_WATCHERS_LOCK = threading.Lock()


def _announce_after_commit(session: Session, due: datetime) -> None:
    """Tell this process's schedulers about ``due`` once the session commits.

    Not before: a scheduler woken early would read the store without the row.
    """
    existing: list[datetime] | None = session.info.get("pbem_deadlines_due")
    if existing is not None:
        existing.append(due)
        return
    pending = [due]
    session.info["pbem_deadlines_due"] = pending
    bind = session.get_bind()

    def after_commit(_session: Session) -> None:
        if _session.info.get("pbem_deadlines_due") is not pending:
            return  # rolled back since; a later transaction announces its own
        del _session.info["pbem_deadlines_due"]
        with _WATCHERS_LOCK:
            watchers = list(_WATCHERS)
        for watcher in watchers:
            watcher.deadline_written(bind, min(pending))

    def after_rollback(_session: Session) -> None:
        if _session.info.get("pbem_deadlines_due") is pending:
            del _session.info["pbem_deadlines_due"]

    event.listen(session, "after_commit", after_commit, once=True)
    event.listen(session, "after_rollback", after_rollback, once=True)


def merge_intervals(
    spans: Sequence[tuple[datetime, datetime]],
) -> list[tuple[datetime, datetime]]:
    """Return the union of ``spans`` as sorted, disjoint ``(start, end)`` pairs."""
    out: list[tuple[datetime, datetime]] = []
    for a, b in sorted(s for s in spans if s[1] > s[0]):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def extend_for_absences(
    absences: Sequence[tuple[datetime, datetime]], start: datetime, period: timedelta
) -> datetime:
    """Return ``start + period`` pushed back by each absence that falls in the period.

    An absence overlapping the (stretched) period adds its length from
    ``max(its start, start)`` to its end: the side gets the whole time it
    announced, and an absence beginning inside an extension counts too. Each
    absence counts once.
    """
    absences = merge_intervals(absences)  # overlapping absences count once
    end = start + period
    counted: set[int] = set()
    changed = True
    while changed:
        changed = False
        for i, (a, b) in enumerate(absences):
            if i in counted or b <= start or a >= end:
                continue
            counted.add(i)
            end += b - max(a, start)
            changed = True
    return end


ABSENCES_READ = "pbem_absences_read"
"""``session.info`` key: absences read in this transaction, by (player id, moment)."""


ABSENCES_KNOWN = "pbem_absences_known"
"""``session.info`` key: (moment, {player id: absences ending after it}) read with a game."""


def know_absences(
    session: Session, after: datetime, spans: dict[int, list[tuple[datetime, datetime]]]
) -> None:
    """Tell this transaction the absences of these players that end after ``after``.

    Read with the game (:func:`pbem.pipeline.games.load_game`): a deadline set
    at ``after`` or later for one of them then reads nothing more.
    """
    session.info[ABSENCES_KNOWN] = (after, spans)


def _absences(session: Session, player_id: int, after: datetime) -> list[tuple[datetime, datetime]]:
    known = session.info.get(ABSENCES_KNOWN)
    if known is not None and known[0] <= after and player_id in known[1]:
        return [(a, b) for a, b in known[1][player_id] if b > after]
    # Read once per transaction and moment (a turn asks when composing its mails
    # and again when writing its deadlines); forget_absences after a write.
    read: dict[tuple[int, datetime], list[tuple[datetime, datetime]]]
    read = session.info.setdefault(ABSENCES_READ, {})
    key = (player_id, after)
    if key not in read:
        rows = session.exec(
            select(Absence)
            .where(col(Absence.player_id) == player_id)
            .where(col(Absence.ends_at) > after)
            .order_by(col(Absence.starts_at))
        ).all()
        read[key] = [(r.starts_at, r.ends_at) for r in rows]
    return list(read[key])


def forget_absences(session: Session) -> None:
    """Forget the absences read in this transaction (call after adding or changing one)."""
    session.info.pop(ABSENCES_READ, None)
    session.info.pop(ABSENCES_KNOWN, None)


def cancel_deadlines(
    session: Session, game_id: str, now: datetime, *, replaced: bool = False
) -> None:
    """Mark every unfired deadline of the game done (the game moved, paused or ended).

    ``replaced``: a new turn or question deadline is about to be inserted, and
    the database marks the game's earlier deadlines done itself when it is
    (the ``deadlines_replace`` trigger, migration r0007): nothing is sent
    unless rows of the game are loaded in the session, which are kept in step.
    """
    # "fired IS NOT 1" rather than "fired IS 0" (or "= 0") in the per-game
    # queries: with an equality SQLite picks the (fired, due_at) index and scans
    # every pending deadline of every game (2 s a turn with 100,000 games,
    # bench/scale_bench.py); this way it searches the game's own rows.
    # One UPDATE; rows of the game already loaded in the session are updated too
    # (else it is sent with the transaction's other writes: defer_write).
    cancel = (
        update(Deadline)
        .where(col(Deadline.game_id) == game_id)
        .where(col(Deadline.fired).is_not(True))
        .values(fired=True, fired_at=now)
    )
    if any(isinstance(o, Deadline) and o.game_id == game_id for o in session.identity_map.values()):
        session.execute(cancel.execution_options(synchronize_session="fetch"))
    elif not replaced:
        defer_write(session, cancel)


def prompt_deadline(
    session: Session, player_id: int | None, period: timedelta, now: datetime
) -> datetime:
    """Return the deadline a new prompt at ``now`` would show (reads only; absences count)."""
    absences = _absences(session, player_id, now) if player_id is not None else []
    return extend_for_absences(absences, now, period)


def set_prompt_deadlines(
    session: Session,
    game: Game,
    *,
    kind: str,
    side: str,
    player_id: int | None,
    period: timedelta,
    grace: timedelta,
    reminders: Sequence[timedelta],
    now: datetime,
) -> datetime:
    """Replace the game's deadlines with those of a new prompt; return the shown deadline."""
    cancel_deadlines(session, game.id, now, replaced=True)
    deadline = prompt_deadline(session, player_id, period, now)
    rows = [(kind, deadline + grace)]
    for before in sorted(set(reminders), reverse=True):
        when = deadline - before
        if when > now:
            rows.append((DeadlineKind.REMINDER, when))
    # One multi-row INSERT for the deadline and its reminders, sent with the
    # transaction's other writes (pbem.store.bulk.defer_write).
    defer_write(
        session,
        insert(Deadline).values(
            [
                {
                    "game_id": game.id,
                    "side": side,
                    "kind": row_kind,
                    "due_at": due,
                    "state_version": game.state_version,
                    "fired": False,
                    "created_at": now,
                }
                for row_kind, due in rows
            ]
        ),
    )
    _announce_after_commit(session, min(due for _, due in rows))
    return deadline


def current_deadline(session: Session, game_id: str, grace: timedelta) -> datetime | None:
    """Return the shown deadline of the game's pending turn or question, if any."""
    row = session.exec(
        select(Deadline)
        .where(col(Deadline.game_id) == game_id)
        .where(col(Deadline.fired).is_not(True))
        .where(col(Deadline.kind).in_([DeadlineKind.TURN, DeadlineKind.QUESTION]))
        .order_by(col(Deadline.due_at))
    ).first()
    if row is None:
        return None
    return row.due_at - (grace if row.kind == DeadlineKind.TURN else timedelta(0))


def push_back(
    session: Session, game_id: str, side: str, *, start: datetime, end: datetime, now: datetime
) -> int:
    """Push the side's pending deadlines back by the overlap of an absence; return how many."""
    moved = 0
    for row in session.exec(
        select(Deadline)
        .where(col(Deadline.game_id) == game_id)
        .where(col(Deadline.side) == side)
        .where(col(Deadline.fired).is_not(True))
    ).all():
        if end <= now or start >= row.due_at:
            continue
        row.due_at += end - max(start, now)
        session.add(row)
        moved += 1
        _announce_after_commit(session, row.due_at)
    return moved


@dataclass(frozen=True)
class SweepReport:
    """What one sweep did (``deferred``: due, but mail received in time is still pending)."""

    reminders: int = 0
    missed: int = 0
    defaults: int = 0
    stale: int = 0
    deferred: int = 0
    bots: int = 0  # turns a bot's seat played (pbem.pipeline.bots)
    left: int = 0  # a bot's work due, left to the regular sweep (judged before a mail)

    @property
    def fired(self) -> int:
        """How many deadlines were acted on or marked stale."""
        return self.reminders + self.missed + self.defaults + self.stale + self.bots


def mail_waiting(session: Session, due: datetime) -> bool:
    """Is a mail received by ``due`` still waiting to be processed?

    Deadlines are judged by the time a mail was received (stored), so none is
    judged while such a mail waits: it may hold the orders that beat it. The
    inbox does not know a mail's game before the pipeline reads it, so any
    waiting mail holds back every deadline it could beat; the worker reads
    pending mail within moments (the per-message budget).
    """
    return (
        session.exec(
            select(InboxMessage.id)
            .where(col(InboxMessage.status) == InboxStatus.PENDING)
            .where(col(InboxMessage.received_at) <= due)
            .limit(1)
        ).first()
        is not None
    )


class Deferred(Protocol):
    """A due deadline's slow work, done outside any transaction (see the module docstring)."""

    def think(self) -> None:
        """The slow part (no transaction is open; touches no database)."""

    def apply(self, session: Session, row: Deadline, now: datetime) -> str | Deferred:
        """Act on what was thought, in the row's transaction, as a :data:`FireHandler` does."""
        ...


FireHandler = Callable[[Session, Deadline, datetime], "str | Deferred"]
"""Acts on one due deadline inside its transaction; returns "reminder", "missed",
"default", "bot" or "stale" (the pipeline's :func:`pbem.pipeline.timing.fire_deadline`),
or a :class:`Deferred` to think outside the transaction first."""

RETHINKS = 3
"""How many times a sweep thinks again for one row whose game moved while it thought."""


def due_ids(store: Store, now: datetime) -> list[int]:
    """Return the ids of unfired deadlines due by ``now``, oldest first (a plain read)."""
    with read_session(store) as session:
        ids = session.exec(
            select(Deadline.id)
            .where(col(Deadline.fired).is_(False))
            .where(col(Deadline.due_at) <= now)
            .order_by(col(Deadline.due_at), col(Deadline.id))
        ).all()
    return [i for i in ids if i is not None]


def next_due(store: Store) -> datetime | None:
    """Return the earliest unfired deadline's due time (one indexed read), if any."""
    with read_session(store) as session:
        return session.exec(
            select(Deadline.due_at)
            .where(col(Deadline.fired).is_(False))
            .order_by(col(Deadline.due_at))
            .limit(1)
        ).first()


def sweep(
    store: Store,
    clock: Clock,
    fire: FireHandler,
    *,
    before: datetime | None = None,
    slow: bool = True,
    lock: contextlib.AbstractContextManager[Any] | None = None,
) -> SweepReport:
    """Fire every due deadline once with ``fire`` (see the module docstring); return the counts.

    With ``before``, only deadlines due strictly before it (the inbox worker
    judges those before it processes a mail received at ``before``). A
    deadline that mail received by its time is still waiting for is left for
    a later sweep (:func:`mail_waiting`). With ``slow=False``, a row whose
    handler would think first (a :class:`Deferred`: the bot's search) is left
    unfired for a sweep that may think (counted as ``left``). ``lock`` is held
    while each row is fired, never while a :class:`Deferred` thinks.
    """
    now = clock.now()
    guard = lock if lock is not None else contextlib.nullcontext()
    counts = {"reminder": 0, "missed": 0, "default": 0, "stale": 0, "deferred": 0, "bot": 0}
    counts["left"] = 0
    for deadline_id in due_ids(store, now):
        with guard:
            what = _fire_one(store, deadline_id, now, before, fire)
        for _ in range(RETHINKS):
            if what is None or isinstance(what, str):
                break
            if not slow:
                what = "left"
                break
            what.think()  # no transaction open: the other games' mail goes on meanwhile
            with guard:
                what = _fire_one(store, deadline_id, now, before, what.apply)
        if what is not None:
            key = what if isinstance(what, str) else "deferred"
            counts[key] = counts.get(key, 0) + 1
    report = SweepReport(
        counts["reminder"],
        counts["missed"],
        counts["default"],
        counts["stale"],
        counts["deferred"],
        counts["bot"],
        counts["left"],
    )
    if report != SweepReport():
        log.info("deadlines: %s", report)
    return report


def _fire_one(
    store: Store, deadline_id: int, now: datetime, before: datetime | None, fire: FireHandler
) -> str | Deferred | None:
    """One transaction for one due row: what ``fire`` did, or None if nothing was due."""
    with store.transaction() as session:
        row = session.get(Deadline, deadline_id)
        if row is None or row.fired:
            return None
        # Several workers sweep (PostgreSQL): lock the game, then the row, in the
        # order the inbox worker locks them (game, then its deadlines); whoever
        # comes second finds the row fired and leaves it.
        game = lock_row(session, Game, row.game_id)
        row = lock_row(session, Deadline, deadline_id)
        if row is None or row.fired:
            return None
        if before is not None and row.due_at >= before:
            return None
        if mail_waiting(session, row.due_at):
            return "deferred"
        if (
            game is None
            or game.status != GameStatus.ACTIVE
            or game.state_version != row.state_version
        ):
            what: str | Deferred = "stale"
        else:
            what = fire(session, row, now)
            if not isinstance(what, str):
                return what  # the row stays unfired while the work is thought out
        row.fired = True
        row.fired_at = now
        session.add(row)
    return what


class DeadlineScheduler:
    """Drive :func:`sweep` from the daemon's APScheduler (see the module docstring)."""

    JOB_ID = "deadline-next"
    RETRY_AFTER_FAILURE = timedelta(seconds=30)
    WATCH_INTERVAL = timedelta(seconds=1)

    def __init__(
        self,
        config: Config,
        store: Store,
        clock: Clock,
        scheduler: Any,
        *,
        fire: FireHandler,
        interval: timedelta = timedelta(seconds=30),
        on_fired: Callable[[], None] | None = None,
    ) -> None:
        self.config = config
        self.store = store
        self.clock = clock
        self.scheduler = scheduler
        self.interval = interval
        self.fire = fire
        self.on_fired = on_fired
        self._lock = asyncio.Lock()
        self._sweeping = threading.Lock()  # one row fired at a time, loop or inbox worker
        self._deferred = False
        self._armed: datetime | None = None
        self._arm_lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def armed_at(self) -> datetime | None:
        """Return when the one date job will sweep next (None: no pending deadline)."""
        return self._armed

    async def run_sweep(self) -> SweepReport:
        """Sweep once in a worker thread (one sweep at a time); log, never raise.

        Afterwards the date job is re-armed at the earliest pending deadline.
        """
        async with self._lock:
            failed = False
            try:
                report = await asyncio.to_thread(self.sweep_now)
            except Exception:
                log.exception("deadlines: sweep failed; will try again")
                report, failed = SweepReport(), True
            try:
                due = await asyncio.to_thread(next_due, self.store)
            except Exception:
                log.exception("deadlines: cannot read the next deadline; the interval sweep will")
            else:
                if (failed or report.deferred) and due is not None:
                    # A row that keeps failing must not spin: wait like the interval sweep.
                    # A deferred one is judged once its mail is processed (after_mail).
                    due = max(due, self.clock.now() + self.RETRY_AFTER_FAILURE)
                self.rearm(due)
        if report.fired and self.on_fired is not None:
            self.on_fired()
        return report

    def sweep_now(self, before: datetime | None = None, *, slow: bool = True) -> SweepReport:
        """Sweep in this thread (one row fired at a time: a sweep thinking for a bot holds
        nothing meanwhile); remember whether it deferred or left any (``slow``: see
        :func:`sweep`)."""
        report = sweep(
            self.store, self.clock, self.fire, before=before, slow=slow, lock=self._sweeping
        )
        if report.deferred or report.left:
            self._deferred = True
        return report

    def judge_before_mail(self, inbox_id: int) -> None:
        """Before the worker processes a mail, judge every deadline due before it was received.

        A mail received after a deadline is late for it, whenever it is
        processed: the deadline is judged first (inbox worker thread).
        """
        # One read: the mail's receipt time, and whether any deadline is due before it.
        earlier = (
            select(Deadline.id)
            .where(col(Deadline.fired).is_(False))
            .where(col(Deadline.due_at) < col(InboxMessage.received_at))
            .exists()
        )
        with read_session(self.store) as session:
            found = session.exec(
                select(InboxMessage.received_at, earlier).where(col(InboxMessage.id) == inbox_id)
            ).first()
        if found is None or not found[1]:
            return
        self.judge_received(found[0])

    def judge_received(self, received: datetime) -> None:
        """Judge every deadline due before ``received`` (a mail's receipt time; worker thread).

        The inbox worker's listing says which mails had a deadline due
        before them (:class:`pbem.mailin.worker.InboxWorker`), so a mail
        with none costs no read here. A bot's search is never done here: its
        row is left to the regular sweep, armed once the mail is processed
        (:meth:`after_mail`), so the mail does not wait for it.
        """
        report = self.sweep_now(before=received, slow=False)
        if report.fired and self.on_fired is not None:
            self.on_fired()

    def after_mail(self) -> None:
        """After the worker processed mail: judge the deadlines that waited for it (any thread)."""
        if not self._deferred:
            return
        self._deferred = False
        self._call_in_loop(self.arm_no_later_than, self.clock.now())

    def watch(self) -> None:
        """Arm the date job for a deadline another process wrote (a game created by the CLI).

        One indexed read (:func:`next_due`), on SQLite and PostgreSQL alike; the
        daemon runs it every second, so a new game's deadlines are armed within
        a second instead of at the next interval sweep. Past-due rows are the
        sweeps' business.
        """
        due = next_due(self.store)
        if due is None or due <= self.clock.now():
            return
        armed = self._armed
        if armed is None or due < armed:
            self.arm_no_later_than(due)

    async def watch_logged(self) -> None:
        """Run :meth:`watch` in a thread, logging (not raising) failures."""
        try:
            await asyncio.to_thread(self.watch)
        except Exception:
            log.exception("deadlines: cannot read the next deadline; the interval sweep will")

    def _call_in_loop(self, fn: Callable[..., None], *args: Any) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            fn(*args)
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(fn, *args)

    def rearm(self, due: datetime | None) -> None:
        """Point the one date job at ``due`` (None: remove it)."""
        with self._arm_lock:
            self._armed = due
            if due is None:
                if self.scheduler.get_job(self.JOB_ID) is not None:
                    self.scheduler.remove_job(self.JOB_ID)
                return
            self._add_job(due)

    def arm_no_later_than(self, due: datetime) -> None:
        """Make the date job fire by ``due`` (a new or moved deadline); never postpone it."""
        with self._arm_lock:
            current = self._armed
            job = self.scheduler.get_job(self.JOB_ID)
            if current is not None and current <= due and job is not None:
                return
            self._armed = due
            self._add_job(due)

    def _add_job(self, due: datetime) -> None:
        # APScheduler waits on the wall clock, the deadlines are in the injected
        # clock's time: schedule the same delay (a no-op with the real clock).
        wait = max(due - self.clock.now(), timedelta(0))
        self.scheduler.add_job(
            self.run_sweep,
            "date",
            run_date=datetime.now(UTC) + wait,
            # The sweep that re-arms the job is still this job's instance.
            max_instances=2,
            id=self.JOB_ID,
            misfire_grace_time=None,
            coalesce=True,
            replace_existing=True,
        )

    def deadline_written(self, bind: object, due: datetime) -> None:
        """Re-arm for a deadline committed in this process (any thread); ignore other stores."""
        # The pipeline writes through a second engine on the store's own pool
        # (pbem.store.optimistic_transaction): same pool, same database.
        if not isinstance(bind, Engine) or bind.pool is not self.store.engine.pool:
            return
        self._call_in_loop(self.arm_no_later_than, due)

    def install(self) -> None:
        """Add the start-up sweep, the one date job, and the periodic sweep.

        The start-up sweep fires what came due while the daemon was down and
        arms the date job at the earliest pending deadline.
        """
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:
            self._loop = None
        with _WATCHERS_LOCK:
            _WATCHERS.add(self)
        self.scheduler.add_job(self.run_sweep, id="deadline-startup-sweep")
        self.scheduler.add_job(
            self.run_sweep,
            "interval",
            seconds=self.interval.total_seconds(),
            id="deadline-sweep",
            max_instances=1,
            coalesce=True,
        )
        self.scheduler.add_job(
            self.watch_logged,
            "interval",
            seconds=self.WATCH_INTERVAL.total_seconds(),
            id="deadline-watch",
            max_instances=1,
            coalesce=True,
        )
