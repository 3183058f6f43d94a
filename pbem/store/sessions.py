"""Sessions that read without queueing behind the writer, and optimistic writes.

:meth:`Store.transaction` begins every transaction with ``BEGIN IMMEDIATE`` on
SQLite, so two writers queue instead of failing. Readers (the outbox sender,
the deadline sweep) want the opposite: a deferred ``BEGIN`` that never waits
for the write lock; the inbox worker wants to work a turn out without the
lock and take it only to write what it computed. These helpers give that on
SQLite, through the store's own pool, and fall back to the ordinary
transaction elsewhere (PostgreSQL's MVCC needs no such care).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import TextClause
from sqlalchemy import event as sa_event
from sqlalchemy import select as sa_select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import ORMExecuteState
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import Session

from pbem.store.db import DEFERRED_OPTION, Store
from pbem.store.models import Game

__all__ = ["GameMoved", "optimistic_transaction", "read_session", "take_write_lock"]


def _read_engine(store: Store) -> Engine:
    """The store's engine with a deferred ``BEGIN`` (SQLite); the engine itself elsewhere.

    An option view of the store's engine (``Engine.execution_options``), not a
    second engine on its pool: creating an engine adds the dialect's
    ``connect`` listeners to the pool, and doing that while another thread
    opens the pool's first connection (which iterates those listeners) failed
    the inbox worker with "deque mutated during iteration" at start-up.
    """
    if store.engine.dialect.name != "sqlite":
        return store.engine
    return store.engine.execution_options(**{DEFERRED_OPTION: True})


@contextmanager
def read_session(store: Store) -> Iterator[Session]:
    """Yield a session for reading only: one snapshot that never waits for writers.

    On SQLite the transaction is a deferred ``BEGIN`` (WAL readers do not
    block or wait for the writer); elsewhere it is the store's ordinary
    transaction. Writes made through it are not committed: use
    ``store.transaction()`` to write. Objects stay readable after the block.
    """
    engine = _read_engine(store)
    with Session(engine, expire_on_commit=False) as session:
        try:
            yield session
        except BaseException:
            session.rollback()
            raise
        # Nothing to keep: end the read (a commit, so loaded objects stay loaded).
        session.expunge_all()
        session.rollback()


class GameMoved(Exception):
    """A game read without the write lock changed before this transaction took the lock."""


WRITE_LOCKED = "pbem_write_locked"
"""``session.info`` key: the optimistic transaction holds the write lock (it has written)."""
GAMES_READ = "pbem_games_read"
"""``session.info`` key: ``{game id: row_version}`` of the games read before the write lock."""


@contextmanager
def optimistic_transaction(store: Store) -> Iterator[Session]:
    """Yield a session whose reads take no lock; its first write takes the write lock.

    On SQLite the reads are sent without a transaction (each sees the last
    commit, like PostgreSQL's READ COMMITTED) and wait for nobody. The first
    write (an ORM flush or a Core INSERT/UPDATE/DELETE through the session)
    first sends ``BEGIN IMMEDIATE``, which waits for the write lock like any
    writer (``busy_timeout``), so a commit made meanwhile by someone else (a
    new inbox row, the outbox recording what it sent) costs nothing. What the
    transaction computed is still written only if the games it read are
    unchanged: the ORM's ``UPDATE games`` holds the row version read
    (``Game.row_version``, StaleDataError otherwise), and a game read but
    not changed by then is checked in one read under the lock
    (:class:`GameMoved` otherwise). The caller then redoes its work in
    ``store.transaction()``. Elsewhere this is the store's ordinary
    transaction (PostgreSQL's workers lock the game's row before reading it).
    Commits or rolls back like it.
    """
    if store.engine.dialect.name != "sqlite":
        with store.transaction() as session:
            yield session
        return
    with Session(store.autocommit_engine, expire_on_commit=False) as session:
        sa_event.listen(session, "before_flush", _lock_before_flush)
        sa_event.listen(session, "do_orm_execute", _lock_before_write)
        sa_event.listen(session, "loaded_as_persistent", _note_game_read)
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


def _note_game_read(session: OrmSession, obj: Any) -> None:
    if isinstance(obj, Game) and not session.info.get(WRITE_LOCKED):
        session.info.setdefault(GAMES_READ, {}).setdefault(obj.id, obj.row_version)


def _lock_before_flush(session: OrmSession, _context: Any, _instances: Any) -> None:
    take_write_lock(session)


def _lock_before_write(state: ORMExecuteState) -> None:
    statement = state.statement
    if isinstance(statement, TextClause):
        writes = not statement.text.lstrip().upper().startswith(("SELECT", "WITH", "PRAGMA"))
    else:
        writes = bool(getattr(statement, "is_dml", False))
    if writes:
        take_write_lock(state.session)


def take_write_lock(session: OrmSession) -> None:
    """Begin the write transaction of an optimistic session (once); check the games it read."""
    if session.info.get(WRITE_LOCKED):
        return
    session.info[WRITE_LOCKED] = True
    connection = session.connection()
    connection.exec_driver_sql("BEGIN IMMEDIATE")
    changing = {
        obj.id
        for obj in list(session.identity_map.values())
        if isinstance(obj, Game) and session.is_modified(obj)
    }
    loaded: dict[str, int] = session.info.get(GAMES_READ, {})
    read = {game: version for game, version in loaded.items() if game not in changing}
    if not read:
        return  # a game the transaction changes is checked by its own UPDATE
    now = dict(
        connection.execute(
            sa_select(Game.__table__.c.id, Game.__table__.c.row_version).where(  # type: ignore[attr-defined]
                Game.__table__.c.id.in_(sorted(read))  # type: ignore[attr-defined]
            )
        ).all()
    )
    if now != read:
        raise GameMoved(", ".join(sorted(g for g in read if now.get(g) != read[g])))
