"""Batched writes that cost one statement whatever the number of rows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session

from pbem.store.locks import is_postgres

__all__ = ["insert_new"]


def insert_new(
    session: Session, model: type[Any], rows: Sequence[dict[str, Any]], unique: Sequence[str]
) -> int:
    """Insert ``rows`` into ``model``'s table in one statement, skipping any whose ``unique``
    columns match a stored row (``ON CONFLICT DO NOTHING``); return how many were added.

    Instead of reading which keys exist first: one statement, and a row
    another transaction added meanwhile is skipped too, not an error.
    """
    if not rows:
        return 0
    dialect: Any = postgresql if is_postgres(session) else sqlite
    stmt = dialect.insert(model).values(list(rows)).on_conflict_do_nothing(index_elements=unique)
    result: Any = session.execute(stmt)
    return int(getattr(result, "rowcount", len(rows)))
