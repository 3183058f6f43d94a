"""Batched writes that cost one statement whatever the number of rows."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import event as sa_event
from sqlalchemy import func, literal_column
from sqlalchemy import select as sa_select
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, select

from pbem.store.locks import is_postgres

__all__ = ["defer_write", "insert_new", "send_deferred"]


def insert_new(
    session: Session,
    model: type[Any],
    rows: Sequence[dict[str, Any]],
    unique: Sequence[str],
    *,
    deferred: bool = False,
) -> int:
    """Insert ``rows`` into ``model``'s table in one statement, skipping any whose ``unique``
    columns match a stored row (``ON CONFLICT DO NOTHING``); return how many were added.

    Instead of reading which keys exist first: one statement, and a row
    another transaction added meanwhile is skipped too, not an error. With
    ``deferred`` the statement is queued with the transaction's other writes
    (:func:`defer_write`) and the count is not known: 0 is returned.
    """
    if not rows:
        return 0
    dialect: Any = postgresql if is_postgres(session) else sqlite
    stmt = dialect.insert(model).values(list(rows)).on_conflict_do_nothing(index_elements=unique)
    if deferred:
        defer_write(session, stmt)
        return 0
    result: Any = session.execute(stmt)
    return int(getattr(result, "rowcount", len(rows)))


DEFERRED = "pbem_deferred_writes"
"""``session.info`` key: the transaction's writes not sent yet (:func:`defer_write`)."""
_HOOKED = "pbem_deferred_hooked"


@dataclass(frozen=True)
class _Write:
    statement: Any
    expect: int | None
    error: Callable[[], Exception] | None


def defer_write(
    session: Session,
    statement: Any,
    *,
    expect: int | None = None,
    error: Callable[[], Exception] | None = None,
) -> None:
    """Queue a Core INSERT/UPDATE to be sent with the transaction's other queued writes.

    They are sent (:func:`send_deferred`) before the session's next read
    (any ``session.execute``/``exec``/``get`` that reaches the database) and
    at commit, after the ORM's own pending changes: every read sees them,
    and on PostgreSQL they go as ONE statement (data-modifying ``WITH``
    clauses, which all see the same snapshot: queue an UPDATE of rows
    before the INSERT of their successors, as SQLite runs them in order).
    ``expect``: the rows the statement must touch, else ``error()`` is
    raised (the transaction then rolls back).
    """
    pending: list[_Write] | None = session.info.get(DEFERRED)
    if pending is None:
        pending = session.info[DEFERRED] = []
    if not session.info.get(_HOOKED):
        session.info[_HOOKED] = True
        sa_event.listen(session, "do_orm_execute", _before_execute)
        sa_event.listen(session, "before_commit", send_deferred)
        sa_event.listen(session, "after_rollback", _forget)
    pending.append(_Write(statement, expect, error))


def send_deferred(session: Session) -> None:
    """Send the queued writes now (one statement on PostgreSQL; in order on SQLite)."""
    pending: list[_Write] | None = session.info.pop(DEFERRED, None)
    if not pending:
        return
    session.flush()  # the ORM's pending rows first: queued rows may refer to them
    if is_postgres(session) and len(pending) > 1:
        _send_together(session, pending)
        return
    for write in pending:
        result: Any = session.execute(write.statement)
        _check(write, int(getattr(result, "rowcount", -1)))


def _send_together(session: Session, pending: list[_Write]) -> None:
    ctes = []
    counted = []
    for n, write in enumerate(pending):
        stmt = write.statement
        if write.expect is not None:
            stmt = stmt.returning(literal_column("1"))
        cte = stmt.cte(f"pbem_w{n}")
        ctes.append(cte)
        if write.expect is not None:
            counted.append((write, select(func.count()).select_from(cte).scalar_subquery()))
    columns: list[Any] = [c for _, c in counted] or [literal_column("1")]
    query = sa_select(*columns).add_cte(*ctes)
    row = session.execute(query).one()
    for (write, _), touched in zip(counted, row, strict=False):
        _check(write, int(touched))


def _check(write: _Write, touched: int) -> None:
    if write.expect is not None and touched != write.expect and write.error is not None:
        raise write.error()


def _before_execute(state: Any) -> None:
    if state.session.info.get(DEFERRED):
        send_deferred(state.session)


def _forget(session: Session) -> None:
    session.info.pop(DEFERRED, None)
