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
- :class:`DeadlineScheduler` runs the sweep from APScheduler: once at start
  (deadlines missed while the daemon was down fire then), at each pending
  row's time (date jobs rebuilt at start), and every ``interval`` to pick up
  rows written since. Tests call :func:`sweep` directly with a ``FakeClock``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session, col, select

from pbem.clock import Clock
from pbem.config import Config
from pbem.store import Absence, Deadline, DeadlineKind, Game, GameStatus, Store

log = logging.getLogger(__name__)

__all__ = [
    "DeadlineScheduler",
    "SweepReport",
    "cancel_deadlines",
    "current_deadline",
    "extend_for_absences",
    "set_prompt_deadlines",
    "sweep",
]


def extend_for_absences(
    absences: Sequence[tuple[datetime, datetime]], start: datetime, period: timedelta
) -> datetime:
    """Return ``start + period`` pushed back by each absence that falls in the period.

    An absence overlapping the (stretched) period adds its length from
    ``max(its start, start)`` to its end: the side gets the whole time it
    announced, and an absence beginning inside an extension counts too. Each
    absence counts once.
    """
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


def _absences(session: Session, player_id: int, after: datetime) -> list[tuple[datetime, datetime]]:
    rows = session.exec(
        select(Absence)
        .where(col(Absence.player_id) == player_id)
        .where(col(Absence.ends_at) > after)
        .order_by(col(Absence.starts_at))
    ).all()
    return [(r.starts_at, r.ends_at) for r in rows]


def cancel_deadlines(session: Session, game_id: str, now: datetime) -> None:
    """Mark every unfired deadline of the game done (the game moved, paused or ended)."""
    # "fired IS NOT 1" rather than "fired IS 0" (or "= 0") in the per-game
    # queries: with an equality SQLite picks the (fired, due_at) index and scans
    # every pending deadline of every game (2 s a turn with 100,000 games,
    # bench/scale_bench.py); this way it searches the game's own rows.
    for row in session.exec(
        select(Deadline)
        .where(col(Deadline.game_id) == game_id)
        .where(col(Deadline.fired).is_not(True))
    ).all():
        row.fired = True
        row.fired_at = now
        session.add(row)


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
    cancel_deadlines(session, game.id, now)
    absences = _absences(session, player_id, now) if player_id is not None else []
    deadline = extend_for_absences(absences, now, period)
    session.add(
        Deadline(
            game_id=game.id,
            side=side,
            kind=kind,
            due_at=deadline + grace,
            state_version=game.state_version,
            created_at=now,
        )
    )
    for before in sorted(set(reminders), reverse=True):
        when = deadline - before
        if when > now:
            session.add(
                Deadline(
                    game_id=game.id,
                    side=side,
                    kind=DeadlineKind.REMINDER,
                    due_at=when,
                    state_version=game.state_version,
                    created_at=now,
                )
            )
    session.flush()
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
    return moved


@dataclass(frozen=True)
class SweepReport:
    """What one sweep did."""

    reminders: int = 0
    missed: int = 0
    defaults: int = 0
    stale: int = 0


FireHandler = Callable[[Session, Deadline, datetime], str]
"""Acts on one due deadline inside its transaction; returns "reminder", "missed",
"default" or "stale" (the pipeline's :func:`pbem.pipeline.timing.fire_deadline`)."""


def due_ids(store: Store, now: datetime) -> list[int]:
    """Return the ids of unfired deadlines due by ``now``, oldest first."""
    with store.transaction() as session:
        ids = session.exec(
            select(Deadline.id)
            .where(col(Deadline.fired).is_(False))
            .where(col(Deadline.due_at) <= now)
            .order_by(col(Deadline.due_at), col(Deadline.id))
        ).all()
    return [i for i in ids if i is not None]


def sweep(store: Store, clock: Clock, fire: FireHandler | None = None) -> SweepReport:
    """Fire every due deadline once (see the module docstring); return the counts."""
    if fire is None:
        from pbem.pipeline.timing import fire_deadline  # noqa: PLC0415 - avoid an import cycle

        fire = fire_deadline
    now = clock.now()
    counts = {"reminder": 0, "missed": 0, "default": 0, "stale": 0}
    for deadline_id in due_ids(store, now):
        with store.transaction() as session:
            row = session.get(Deadline, deadline_id)
            if row is None or row.fired:
                continue
            game = session.get(Game, row.game_id)
            if (
                game is None
                or game.status != GameStatus.ACTIVE
                or game.state_version != row.state_version
            ):
                what = "stale"
            else:
                what = fire(session, row, now)
            row.fired = True
            row.fired_at = now
            session.add(row)
        counts[what] = counts.get(what, 0) + 1
    report = SweepReport(counts["reminder"], counts["missed"], counts["default"], counts["stale"])
    if report != SweepReport():
        log.info("deadlines: %s", report)
    return report


class DeadlineScheduler:
    """Drive :func:`sweep` from the daemon's APScheduler (see the module docstring)."""

    def __init__(
        self,
        config: Config,
        store: Store,
        clock: Clock,
        scheduler: Any,
        *,
        interval: timedelta = timedelta(seconds=30),
        fire: FireHandler | None = None,
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

    async def run_sweep(self) -> SweepReport:
        """Sweep once in a worker thread (one sweep at a time); log, never raise."""
        async with self._lock:
            try:
                report = await asyncio.to_thread(sweep, self.store, self.clock, self.fire)
            except Exception:
                log.exception("deadlines: sweep failed; will try again")
                return SweepReport()
        if report != SweepReport() and self.on_fired is not None:
            self.on_fired()
        return report

    def pending(self) -> list[tuple[int, datetime]]:
        """Return ``(id, due_at)`` of every unfired deadline."""
        with self.store.transaction() as session:
            rows = session.exec(select(Deadline).where(col(Deadline.fired).is_(False))).all()
        return [(r.id, r.due_at) for r in rows if r.id is not None]

    def install(self) -> None:
        """Add the start-up sweep, one date job per pending deadline, and the periodic sweep."""
        self.scheduler.add_job(self.run_sweep, id="deadline-startup-sweep")
        for deadline_id, due in self.pending():
            self.scheduler.add_job(
                self.run_sweep,
                "date",
                run_date=due,
                id=f"deadline-{deadline_id}",
                misfire_grace_time=None,
                coalesce=True,
                replace_existing=True,
            )
        self.scheduler.add_job(
            self.run_sweep,
            "interval",
            seconds=self.interval.total_seconds(),
            id="deadline-sweep",
            max_instances=1,
            coalesce=True,
        )
