"""The outbox sender's store traffic: plain reads, one write per batch, re-send after a crash."""

from __future__ import annotations

import asyncio
import mailbox
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlmodel import select

from pbem.clock import FakeClock
from pbem.config import Config, config_from_dict
from pbem.outbox import RECORD_BATCH, OutboxSender, make_message_id, queue_message
from pbem.store import OutboxMessage, OutboxStatus, Store


def _config(tmp_path: Path, db_url: str) -> Config:
    data: dict[str, Any] = {
        "data_dir": str(tmp_path / "data"),
        "database": {"url": db_url},
        "mail": {"address": "pbem@game.test", "operator": "op@club.test"},
    }
    return config_from_dict(data, base=tmp_path)  # no smarthost: the Maildir


def _queue(store: Store, clock: FakeClock, count: int) -> list[str]:
    ids = []
    with store.transaction() as session:
        for n in range(count):
            msg = EmailMessage()
            msg["From"] = "pbem@game.test"
            msg["To"] = "ann@club.test"
            msg["Subject"] = f"[g1] Turn {n}"
            msg.set_content("The board...\n")
            message_id = make_message_id("g1", "turn", n, "ann@club.test", "game.test")
            queue_message(
                session, msg, recipient="ann@club.test", message_id=message_id, clock=clock
            )
            ids.append(message_id)
    return ids


def _maildir_ids(config: Config) -> list[str]:
    box = mailbox.Maildir(config.maildir_path, create=True)
    return sorted(str(m["Message-ID"]) for m in box)


def _count_write_transactions(store: Store) -> list[str]:
    seen: list[str] = []

    @event.listens_for(store.engine, "before_cursor_execute")
    def _spy(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.startswith("BEGIN IMMEDIATE"):
            seen.append(statement)

    return seen


def test_a_batch_is_read_without_the_write_lock_and_recorded_in_one_transaction(
    tmp_path: Path, db_url: str, store: Store, clock: FakeClock
) -> None:
    config = _config(tmp_path, db_url)
    sender = OutboxSender(config, store, clock)
    queued = _queue(store, clock, 5)
    writes = _count_write_transactions(store)

    report = asyncio.run(sender.flush())

    assert report.sent == 5
    assert len(writes) == 1  # five rows sent, one recording transaction
    assert _maildir_ids(config) == sorted(queued)


def test_more_rows_than_a_batch_take_one_write_per_batch(
    tmp_path: Path, db_url: str, store: Store, clock: FakeClock
) -> None:
    config = _config(tmp_path, db_url)
    sender = OutboxSender(config, store, clock)
    _queue(store, clock, RECORD_BATCH + 3)
    writes = _count_write_transactions(store)

    assert asyncio.run(sender.flush()).sent == RECORD_BATCH + 3
    assert len(writes) == 2


def test_due_rows_are_read_while_another_writer_holds_the_lock(
    tmp_path: Path, db_url: str, clock: FakeClock
) -> None:
    impatient = Store(db_url, busy_timeout_ms=100)
    try:
        _queue(impatient, clock, 2)
        sender = OutboxSender(_config(tmp_path, db_url), impatient, clock)
        with impatient.transaction():  # the inbox worker, mid-turn
            assert len(sender.due_rows(10)) == 2
    finally:
        impatient.dispose()


def test_a_crash_between_sending_and_recording_sends_again_with_the_same_id(
    tmp_path: Path, db_url: str, store: Store, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _config(tmp_path, db_url)
    queued = _queue(store, clock, 2)
    crashing = OutboxSender(config, store, clock)

    def crash(outcomes: object, claim: Any = None) -> list[str]:
        if claim is not None:  # PostgreSQL: the dying process's transaction ends with it
            claim.session.close()
        raise RuntimeError("killed before recording")

    monkeypatch.setattr(crashing, "_record_batch", crash)
    with pytest.raises(RuntimeError):
        asyncio.run(crashing.flush())
    with store.transaction() as session:
        rows = session.exec(select(OutboxMessage)).all()
    assert all(r.status == OutboxStatus.QUEUED for r in rows)  # nothing recorded

    assert asyncio.run(OutboxSender(config, store, clock).flush()).sent == 2
    # Sent at least once; the copy carries the same Message-ID, shown once.
    assert _maildir_ids(config) == sorted(queued + queued)
