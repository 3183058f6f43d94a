"""Sessions that read without queueing behind the writer, and optimistic writes.

:meth:`Store.transaction` begins every transaction with ``BEGIN IMMEDIATE`` on
SQLite, so two writers queue instead of failing. Readers (the outbox sender,
the deadline sweep) and the inbox worker's optimistic first attempt want the
opposite: a deferred ``BEGIN`` that never waits for the write lock. These
helpers give that on SQLite, through the store's own pool, and fall back to
the ordinary transaction elsewhere (PostgreSQL's MVCC needs no such care).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.engine import Engine
from sqlmodel import Session

from pbem.store.db import DEFERRED_OPTION, Store

__all__ = ["optimistic_transaction", "read_session"]


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


@contextmanager
def optimistic_transaction(store: Store) -> Iterator[Session]:
    """Yield a session whose work commits at the end, taking the write lock only to write.

    On SQLite the transaction begins deferred: reads see one snapshot and
    wait for nobody; the first write takes the write lock, and SQLite refuses
    it at once (``OperationalError``, database locked/busy) when another
    connection is writing or has committed since the snapshot. The caller
    then redoes its work in ``store.transaction()``. Elsewhere this is the
    store's ordinary transaction. Commits or rolls back like it.
    """
    engine = _read_engine(store)
    if engine is store.engine:
        with store.transaction() as session:
            yield session
        return
    with Session(engine, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
