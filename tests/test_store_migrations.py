"""The Alembic migrations build exactly the schema the models describe."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, text
from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from pbem.store import (
    AppendOnlyError,
    Event,
    Game,
    InboxMessage,
    Store,
    head_revision,
    metadata,
    migrate,
    schema_revision,
)

PG_URL = os.environ.get("PBEM_TEST_PG_URL")


def _sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'm.sqlite3'}"


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh PostgreSQL schema per test (skipped unless PBEM_TEST_PG_URL is set)."""
    if not PG_URL:
        pytest.skip("set PBEM_TEST_PG_URL to run the PostgreSQL variant")
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(PG_URL)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    sep = "&" if "?" in PG_URL else "?"
    try:
        yield f"{PG_URL}{sep}options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


def _assert_schema_matches(url: str) -> None:
    migrate(url)
    store = Store(url)
    try:
        assert schema_revision(store.engine) == head_revision()
        with store.engine.connect() as conn:
            diff = compare_metadata(
                MigrationContext.configure(conn, opts={"compare_type": True}), metadata
            )
        assert diff == [], f"models and migrations differ; add a revision: {diff}"
    finally:
        store.dispose()


def _assert_roundtrip(url: str) -> None:
    migrate(url)
    store = Store(url)
    try:
        paris = timezone(timedelta(hours=1))
        when = datetime(2026, 3, 1, 13, 0, tzinfo=paris)
        with store.transaction() as session:
            session.add(
                Game(id="g1", system="cca", scenario_id="s1", created_at=when, updated_at=when)
            )
        with store.transaction() as session:
            game = session.get(Game, "g1")
            assert game is not None
            assert game.created_at == datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
            assert game.created_at.tzinfo is not None
            session.add(
                Event(game_id="g1", epoch=1, seq=1, kind="k", payload_json="{}", created_at=when)
            )
        with pytest.raises(AppendOnlyError), store.transaction() as session:
            ev = session.exec(select(Event)).one()
            ev.kind = "changed"
        with pytest.raises(IntegrityError), store.transaction() as session:
            # foreign keys are enforced: no event for a missing game
            session.add(
                Event(game_id="nope", epoch=1, seq=1, kind="k", payload_json="{}", created_at=when)
            )
        with pytest.raises(IntegrityError), store.transaction() as session:
            for n in range(2):
                session.add(
                    InboxMessage(
                        message_id=f"<m{n}@x>",
                        body_hash=f"h{n}",
                        dedup_key="same",
                        raw=b"x",
                        source="smtp",
                        received_at=when,
                    )
                )
    finally:
        store.dispose()


def test_sqlite_migrated_schema_matches_models(tmp_path: Path) -> None:
    _assert_schema_matches(_sqlite_url(tmp_path))


def test_sqlite_store_roundtrip_and_constraints(tmp_path: Path) -> None:
    _assert_roundtrip(_sqlite_url(tmp_path))


def test_sqlite_uses_wal_and_foreign_keys(tmp_path: Path) -> None:
    url = _sqlite_url(tmp_path)
    migrate(url)
    store = Store(url)
    try:
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    finally:
        store.dispose()


def test_migrate_twice_is_harmless(tmp_path: Path) -> None:
    url = _sqlite_url(tmp_path)
    migrate(url)
    migrate(url)
    store = Store(url)
    try:
        assert schema_revision(store.engine) == head_revision()
    finally:
        store.dispose()


def test_postgres_migrated_schema_matches_models(pg_url: str) -> None:
    _assert_schema_matches(pg_url)


def test_postgres_store_roundtrip_and_constraints(pg_url: str) -> None:
    _assert_roundtrip(pg_url)


def _assert_inbox_and_outbox(url: str) -> None:
    from email.message import EmailMessage

    from pbem.clock import FakeClock
    from pbem.mailin.accept import store_message
    from pbem.outbox import make_message_id, queue_message

    migrate(url)
    store = Store(url)
    clock = FakeClock()
    raw = b"From: a@b.test\r\nMessage-ID: <pg@b.test>\r\n\r\nhi \xff bytes\r\n"
    try:
        first = store_message(store, raw, source="smtp", clock=clock)
        again = store_message(store, raw, source="imap", clock=clock)
        assert not first.duplicate and again.duplicate and first.inbox_id == again.inbox_id
        with store.transaction() as session:
            row = session.get(InboxMessage, first.inbox_id)
            assert row is not None and row.raw == raw and row.received_at == clock.now()
            msg = EmailMessage()
            msg.set_content("x")
            mid = make_message_id("g", "t", 1, "a@b.test", "game.test")
            queue_message(session, msg, recipient="a@b.test", message_id=mid, clock=clock)
    finally:
        store.dispose()


def test_sqlite_inbox_and_outbox(tmp_path: Path) -> None:
    _assert_inbox_and_outbox(_sqlite_url(tmp_path))


def test_postgres_inbox_and_outbox(pg_url: str) -> None:
    _assert_inbox_and_outbox(pg_url)


def test_upgrade_keys_stored_mail_on_message_id_and_content(tmp_path: Path) -> None:
    from pbem.mailin.accept import dedup_key

    url = _sqlite_url(tmp_path)
    migrate(url, "r0001_initial")
    store = Store(url)
    try:
        with store.engine.begin() as conn:
            conn.exec_driver_sql(
                "INSERT INTO inbox (message_id, body_hash, raw, source, envelope_from, "
                "envelope_to, received_at, status, outcome) VALUES "
                "('<a@x>', 'h1', x'00', 'smtp', '', '', '2026-01-01 12:00:00', 'pending', ''),"
                "(NULL, 'h2', x'00', 'smtp', '', '', '2026-01-01 12:00:00', 'pending', '')"
            )
    finally:
        store.dispose()
    migrate(url)
    store = Store(url)
    try:
        with store.transaction() as session:
            rows = session.exec(select(InboxMessage).order_by(InboxMessage.id)).all()  # type: ignore[arg-type]
            assert [(r.dedup_key, r.attempts) for r in rows] == [
                (dedup_key("<a@x>", "h1"), 0),
                (dedup_key(None, "h2"), 0),
            ]
    finally:
        store.dispose()
