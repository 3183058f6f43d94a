"""Starting the daemon: the inbox worker and the start-up sweep open the store at once.

Before the fix, more than half of real starts (and about one in seven of these
in-process ones) failed the inbox worker with ``RuntimeError: deque mutated
during iteration``: the first reader created a second engine on the store's
pool while the worker's first connection ran the pool's connect listeners.
Mail stored while the daemon was down then waited for the next inbox sweep.
"""

from __future__ import annotations

import asyncio
import logging
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem.clock import FakeClock
from pbem.config import Config, config_from_dict
from pbem.daemon import Daemon
from pbem.mailin.accept import store_message
from pbem.store import InboxMessage, InboxStatus, Store, migrate

STARTS = 25


def _stranger_mail(n: int) -> bytes:
    msg = EmailMessage()
    msg["From"] = f"someone{n}@elsewhere.test"
    msg["To"] = "pbem@game.test"
    msg["Subject"] = "hello"
    msg["Message-ID"] = f"<start-{n}@elsewhere.test>"
    msg.set_content("command help\n")
    return msg.as_bytes()


def _config(tmp: Path) -> Config:
    url = f"sqlite:///{tmp / 'pbem.sqlite3'}"
    migrate(url)
    return config_from_dict(
        {
            "data_dir": str(tmp / "data"),
            "database": {"url": url},
            "listener": {"enabled": False},
            "mail": {"address": "pbem@game.test", "operator": "op@club.test"},
        },
        base=tmp,
    )


def test_every_start_processes_mail_left_pending_without_a_worker_failure(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    failures: list[str] = []
    for n in range(STARTS):
        tmp = tmp_path / f"start{n}"
        tmp.mkdir()
        config = _config(tmp)
        clock = FakeClock()
        seed = Store(config.database_url)
        inbox_id = store_message(seed, _stranger_mail(n), source="ingest", clock=clock).inbox_id
        # The daemon gets a fresh store with no connection yet, as `pbem serve`
        # has; the test watches through its own (``seed``).
        daemon = Daemon(config, clock=clock)

        async def main(
            daemon: Daemon = daemon, seed: Store = seed, inbox_id: int = inbox_id
        ) -> tuple[str, list[str]]:
            await daemon.start()
            try:
                status = InboxStatus.PENDING
                for _ in range(1000):
                    with seed.transaction() as s:
                        row = s.get(InboxMessage, inbox_id)
                        assert row is not None
                        status = row.status
                    if status != InboxStatus.PENDING:
                        break
                    await asyncio.sleep(0.005)
                # What went wrong while starting and processing (not while stopping).
                errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
                return status, errors
            finally:
                await daemon.stop()

        caplog.clear()
        status, errors = asyncio.run(main())
        seed.dispose()
        if status == InboxStatus.PENDING or errors:
            failures.append(f"start {n}: {status} {errors}")
    assert failures == []
