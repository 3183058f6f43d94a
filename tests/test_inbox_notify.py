"""PostgreSQL wakes idle workers when mail arrives (LISTEN/NOTIFY), instead of their sweep.

Against a real PostgreSQL (``PBEM_TEST_PG_URL``; CI starts one). A mail
stored by another process (``pbem ingest``, another worker's listener) is
announced in its transaction; a daemon whose sweep would look only once an
hour processes it at once. On SQLite nothing is sent (one worker, woken in
process).
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import test_store_migrations
from fault_kit import REFEREE, write_config
from sqlalchemy import event
from sqlmodel import select

from pbem.clock import SystemClock
from pbem.config import load_config
from pbem.daemon import Daemon
from pbem.mailin.accept import store_message
from pbem.store import InboxMessage, InboxStatus, Store, migrate
from pbem.store.notify import InboxListener

pg_url = test_store_migrations.pg_url  # the PostgreSQL fixture (skips without PBEM_TEST_PG_URL)

STRANGER = (
    b"From: Someone <someone@elsewhere.test>\r\nTo: "
    + REFEREE.encode()
    + b"\r\nSubject: hello\r\nMessage-ID: <notify-1@elsewhere.test>\r\n\r\nhello\r\n"
)
WAIT = 30.0
"""Generous for a loaded machine; the wake itself takes milliseconds."""


def test_a_listener_is_woken_by_a_mail_stored_on_another_connection(pg_url: str) -> None:
    migrate(pg_url)
    mine, theirs = Store(pg_url), Store(pg_url)
    woken = threading.Event()
    listener = InboxListener(mine.engine, woken.set)
    try:
        listener.start()
        assert listener.listening.wait(WAIT)
        woken.clear()  # the listener looks once when it connects
        assert not woken.wait(0.3)  # nothing stored: nothing wakes it
        store_message(theirs, STRANGER, source="ingest", clock=SystemClock())
        assert woken.wait(WAIT)
    finally:
        listener.stop()
        mine.dispose()
        theirs.dispose()


def test_an_idle_daemon_processes_mail_another_process_stored_without_waiting_for_its_sweep(
    tmp_path: Path, pg_url: str
) -> None:
    cfg = write_config(tmp_path, sink_port=0, db_url=pg_url, listener=False, sweep_interval="1h")
    config = load_config(str(cfg))
    migrate(config.database_url)
    ingest = Store(config.database_url)
    # The daemon's store is closed here, after asyncio.run has joined the threads
    # that used it (a thread still holding a connection would leak it).
    store = Store(config.database_url)

    async def scenario() -> str:
        daemon = Daemon(config, store=store, extensions=("pbem.pipeline",))
        await daemon.start()
        try:
            assert daemon.inbox_listener is not None
            listening = daemon.inbox_listener.listening
            assert await asyncio.to_thread(listening.wait, WAIT)
            await asyncio.sleep(0.5)  # let the start-up round end: the hourly sweep is next
            accepted = store_message(ingest, STRANGER, source="ingest", clock=SystemClock())
            deadline = time.monotonic() + WAIT
            while time.monotonic() < deadline:
                with ingest.transaction() as session:
                    row = session.exec(
                        select(InboxMessage).where(InboxMessage.id == accepted.inbox_id)
                    ).one()
                if row.status != InboxStatus.PENDING:
                    break
                await asyncio.sleep(0.05)
            # Stop once the worker's rounds are over: a round still running when the
            # store is disposed would return its connection to a pool already closed.
            while time.monotonic() < deadline and _rounds_running():
                await asyncio.sleep(0.05)
            return row.status
        finally:
            await daemon.stop()

    try:
        assert asyncio.run(scenario()) == InboxStatus.REFUSED  # a stranger's mail, handled
    finally:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline and _rounds_running():
            time.sleep(0.05)
        store.dispose()
        ingest.dispose()


def _rounds_running() -> bool:
    """Is an inbox worker round (its daemon thread) still running?"""
    return any(t.name == "pbem-inbox" and t.is_alive() for t in threading.enumerate())


def test_sqlite_stores_mail_without_any_notification(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'pbem.sqlite3'}"
    migrate(url)
    store = Store(url)
    seen: list[str] = []
    event.listen(store.engine, "before_cursor_execute", lambda *a: seen.append(a[2]))
    try:
        store_message(store, STRANGER, source="ingest", clock=SystemClock())
    finally:
        store.dispose()
    assert not [s for s in seen if "NOTIFY" in s.upper()]
