"""What keeps several workers on one PostgreSQL from doing the same work twice.

SQLite is one worker (``pbem serve`` refuses ``--workers`` above 1 on it): its
``BEGIN IMMEDIATE`` already runs one writer at a time, and everything here is
a no-op there. On PostgreSQL (docs/scaling.md):

- :func:`lock_row` reads a row ``FOR UPDATE`` (optionally ``SKIP LOCKED``) and
  refreshes it: the game a transaction changes (``pbem.pipeline.games.load_game``),
  the deadline a sweep fires, the outbox rows a sender sends. A second
  transaction waits for (or skips) it until the first commits or rolls back.
- :class:`LaneClaims` holds session-level advisory locks on its own
  connection: a worker claims a *lane* (the mails of one game, or of one
  sender) before it processes the lane's rows, so one lane's mails are
  applied in order by one worker at a time. PostgreSQL releases the locks
  when the worker's session ends — a clean stop, or kill -9 (the server sees
  the socket close) — so another worker takes the lane on with no lease and
  no clock.
- :func:`try_job_lock` lets one worker at a time run a periodic job that
  every worker schedules (the clubs' sweep).
"""

from __future__ import annotations

import hashlib
import logging
import threading
from typing import Any, TypeVar

from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session

log = logging.getLogger(__name__)

__all__ = [
    "JOB_LOCK_CLASS",
    "LANE_LOCK_CLASS",
    "LaneClaims",
    "is_postgres",
    "lane_key",
    "lock_row",
    "try_job_lock",
]

T = TypeVar("T")

LANE_LOCK_CLASS = 0x7062_656D & 0x7FFF_FFFF
"""The first key of pbem's lane advisory locks (``pg_try_advisory_lock(class, key)``): "pbem"."""
JOB_LOCK_CLASS = LANE_LOCK_CLASS - 1
"""The first key of the periodic jobs' advisory locks (:func:`try_job_lock`)."""


def is_postgres(bind: Session | Engine | Connection) -> bool:
    """Say whether ``bind`` talks to PostgreSQL (the several-workers case)."""
    engine = bind.get_bind() if isinstance(bind, Session) else bind
    return engine.dialect.name == "postgresql"


def lock_row(session: Session, model: type[T], key: Any, *, skip_locked: bool = False) -> T | None:
    """Return ``model`` row ``key``, locked for this transaction on PostgreSQL.

    The row is read again (``populate_existing``) once the lock is held, so a
    copy read earlier in the transaction cannot hide a commit made meanwhile.
    With ``skip_locked`` a row another transaction holds gives None at once.
    On SQLite (one writer at a time) this is ``session.get``.
    """
    if not is_postgres(session):
        return session.get(model, key)
    lock: Any = {"skip_locked": True} if skip_locked else True
    return session.get(model, key, with_for_update=lock, populate_existing=True)


def try_job_lock(session: Session, job: str) -> bool:
    """Take the cluster-wide lock of periodic ``job`` for this transaction; False if held.

    On PostgreSQL a transaction-level advisory lock (released at commit,
    rollback or the worker's death): every worker schedules the job, one at
    a time runs it. Always True on SQLite (one worker).
    """
    if not is_postgres(session):
        return True
    got = session.execute(
        text("SELECT pg_try_advisory_xact_lock(:c, :k)"), {"c": JOB_LOCK_CLASS, "k": lane_key(job)}
    ).scalar()
    return bool(got)


def lane_key(lane: str) -> int:
    """Return the 31-bit advisory-lock key of ``lane`` (a stable hash)."""
    digest = hashlib.sha256(lane.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFF_FFFF


class LaneClaims:
    """Session-level advisory locks on one dedicated PostgreSQL connection (one worker's).

    :meth:`try_claim` never waits: a lane another worker holds is skipped and
    looked at again at the next round. A collision of two lanes' hashes only
    makes them share a lock (one waits for the other), never lets two workers
    into one lane. If the connection breaks, its locks are gone with it:
    claims are forgotten and taken again on a new connection.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._conn: Connection | None = None
        self._held: dict[str, int] = {}
        self._mutex = threading.Lock()

    def _connection(self) -> Connection:
        if self._conn is None or self._conn.closed or self._conn.invalidated:
            self._held.clear()
            self._conn = self.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
        return self._conn

    def try_claim(self, lane: str) -> bool:
        """Claim ``lane`` for this worker if nobody holds it; True if now held."""
        with self._mutex:
            if lane in self._held:
                return True
            key = lane_key(lane)
            try:
                got = (
                    self._connection()
                    .execute(
                        text("SELECT pg_try_advisory_lock(:c, :k)"),
                        {"c": LANE_LOCK_CLASS, "k": key},
                    )
                    .scalar()
                )
            except DBAPIError:
                self._drop()
                raise
            if got:
                self._held[lane] = key
            return bool(got)

    def release(self, lane: str) -> None:
        """Give ``lane`` up (best effort: a broken connection released it already)."""
        with self._mutex:
            key = self._held.pop(lane, None)
            if key is None or self._conn is None:
                return
            try:
                self._conn.execute(
                    text("SELECT pg_advisory_unlock(:c, :k)"), {"c": LANE_LOCK_CLASS, "k": key}
                )
            except DBAPIError:
                log.warning("lanes: releasing %s failed; dropping the connection", lane)
                self._drop()

    def close(self) -> None:
        """Release every claim by closing the connection."""
        with self._mutex:
            self._drop()

    def _drop(self) -> None:
        self._held.clear()
        if self._conn is not None:
            try:
                self._conn.invalidate()
                self._conn.close()
            except DBAPIError:
                pass
            self._conn = None
