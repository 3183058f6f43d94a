"""Alembic environment: run migrations on the URL pbem passed in the config.

Loaded by Alembic, never imported by pbem. The URL comes from
``config.attributes["pbem_url"]`` (set by :func:`pbem.store.db.migrate`), or
an open connection from ``config.attributes["connection"]``.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from pbem.store import models
from pbem.store.db import make_engine


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=models.metadata,
        compare_type=True,
        # SQLite cannot ALTER most things; batch mode rebuilds tables instead.
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Run the migrations on the configured database."""
    config = context.config
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = config.attributes.get("pbem_url") or config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("no database URL given to the migrations")
    engine = make_engine(str(url))
    try:
        with engine.connect() as conn:
            _run(conn)
            conn.commit()
    finally:
        engine.dispose()


if context.is_offline_mode():
    raise RuntimeError("pbem migrations run online only (use pbem.store.migrate)")
run_migrations_online()
