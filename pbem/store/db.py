"""Open the store and run one transaction at a time.

``Store(url)`` opens SQLite (WAL, foreign keys ON, ``busy_timeout``; every
transaction starts with ``BEGIN IMMEDIATE`` so two writers queue instead of
failing on a lock upgrade) or PostgreSQL through the same code.

``with store.transaction() as session:`` is the unit of work: it commits when
the block ends and rolls back if it raises. Processing one inbox message is
exactly one such block (design invariant 1). Objects stay readable after the
block (``expire_on_commit=False``). Do not open a transaction inside another:
on SQLite the inner one waits for the outer one's write lock and fails after
``busy_timeout``; pass the session down instead.

The schema is owned by Alembic (``pbem/migrations``): call :func:`migrate`
before use; :func:`schema_revision` and :func:`head_revision` tell whether a
database is up to date.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config as AlembicConfig
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session, create_engine

from pbem.store.files import private_dir, private_file, sqlite_files

log = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"

DEFERRED_OPTION = "pbem_deferred_begin"
"""Execution option: on SQLite, begin with a deferred ``BEGIN`` instead of ``BEGIN IMMEDIATE``."""
AUTOCOMMIT_OPTION = "pbem_autocommit"
"""Execution option: on SQLite, send no ``BEGIN`` (each statement commits on its own)."""


def make_engine(url: str, *, busy_timeout_ms: int = 5000, echo: bool = False) -> Engine:
    """Create a SQLAlchemy engine for ``url`` with pbem's connection settings.

    Opening does not create directories (so a read-only command pointed at
    the wrong place fails instead of leaving an empty database behind);
    :func:`migrate` does.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url, echo=echo, pool_pre_ping=True)
    files = sqlite_files(url)
    if files and files[0].parent.is_dir():
        # SQLite would create a missing file with the umask's mode: make it private first.
        with contextlib.suppress(OSError):  # not writable: SQLite says so on connect
            private_file(files[0])
    engine = create_engine(
        url,
        echo=echo,
        connect_args={"check_same_thread": False, "timeout": busy_timeout_ms / 1000},
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take over transaction control from the sqlite3 module, so "begin"
        # below decides how a transaction starts.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            cursor.execute("PRAGMA foreign_keys = ON")
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = NORMAL")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        # IMMEDIATE takes the write lock up front: a second writer waits
        # (busy_timeout) instead of failing when it tries to upgrade. Readers
        # and optimistic writers ask for a deferred BEGIN through an execution
        # option (pbem.store.sessions.deferred_engine).
        options = connection.get_execution_options()
        if options.get(AUTOCOMMIT_OPTION):
            return  # one statement, atomic by itself (Store.autocommit)
        if options.get(DEFERRED_OPTION):
            connection.exec_driver_sql("BEGIN")
        else:
            connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


class Store:
    """The database: an engine plus the transaction helper."""

    def __init__(self, url: str, *, busy_timeout_ms: int = 5000, echo: bool = False) -> None:
        self.url = url
        self.engine = make_engine(url, busy_timeout_ms=busy_timeout_ms, echo=echo)
        # Made once, here: an option view made later from a worker thread could
        # race the pool's first connection (pbem.store.sessions._read_engine).
        self._autocommit = (
            self.engine.execution_options(**{AUTOCOMMIT_OPTION: True})
            if self.engine.dialect.name == "sqlite"
            else self.engine.execution_options(isolation_level="AUTOCOMMIT")
        )

    @property
    def autocommit_engine(self) -> Engine:
        """The engine as :meth:`autocommit` uses it: no ``BEGIN`` is sent (SQLite)."""
        return self._autocommit

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """Yield a session whose work commits at the end of the block (or rolls back)."""
        with Session(self.engine, expire_on_commit=False) as session:
            try:
                yield session
                session.commit()
            except BaseException:
                session.rollback()
                raise

    @contextmanager
    def autocommit(self) -> Iterator[Session]:
        """Yield a session whose statements each commit on their own (no ``BEGIN``).

        For a single read or a single atomic write (the inbox worker's listing
        and claim): it spares a transaction's ``BEGIN`` and ``COMMIT``. Never
        for two statements that must commit together.
        """
        with Session(self._autocommit, expire_on_commit=False) as session:
            yield session
            session.commit()

    def dispose(self) -> None:
        """Close every pooled connection (call at shutdown and in tests)."""
        self.engine.dispose()

    def __repr__(self) -> str:
        return f"Store({make_url(self.url).render_as_string(hide_password=True)!r})"


def _alembic_config(url: str) -> AlembicConfig:
    cfg = AlembicConfig()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    # Passed as an attribute, not a main option: ConfigParser would choke on "%".
    cfg.attributes["pbem_url"] = url
    return cfg


def migrate(url: str, revision: str = "head") -> None:
    """Upgrade the database at ``url`` to ``revision`` (default: the newest).

    For a SQLite file, the parent directory is created if missing (``0700``)
    and the database file is created ``0600`` (:mod:`pbem.store.files`).
    """
    files = sqlite_files(url)
    if files:
        # Private from the first byte: the database holds the secret seeds.
        private_dir(files[0].parent)
        private_file(files[0])
    cfg = _alembic_config(url)
    log.info("migrating %s to %s", make_url(url).render_as_string(hide_password=True), revision)
    command.upgrade(cfg, revision)


def head_revision() -> str:
    """Return the newest migration revision shipped with this pbem."""
    script = ScriptDirectory.from_config(_alembic_config("sqlite://"))
    head = script.get_current_head()
    if head is None:
        raise RuntimeError("no migrations found")
    return head


def schema_revision(engine: Engine) -> str | None:
    """Return the revision the database is at (``None``: never migrated)."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()
