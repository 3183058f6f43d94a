"""IMAP polling: fetch unseen mail, commit it, and only then mark it seen."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from imap_server import ImapTestServer
from sqlalchemy.exc import OperationalError
from sqlmodel import select

from pbem.clock import FakeClock
from pbem.config import ImapConfig, SecretSource
from pbem.mailin.imap import ImapError, poll_once
from pbem.store import InboxMessage, Store


def _mail(n: int) -> bytes:
    return (
        f"From: ann@club.test\r\nTo: pbem@game.test\r\nSubject: [g1] Turn {n}\r\n"
        f"Date: Thu, 01 Jan 2026 12:0{n}:00 +0000\r\nMessage-ID: <imap-{n}@club.test>\r\n"
        f"\r\norders {n}\r\n"
    ).encode()


def _cfg(port: int, secret_file: Path) -> ImapConfig:
    return ImapConfig(
        enabled=True,
        host="127.0.0.1",
        port=port,
        security="none",
        user="game",
        password=SecretSource(file=secret_file),
    )


@pytest.fixture
def secret_file(tmp_path: Path) -> Path:
    path = tmp_path / "imap-password"
    path.write_text("s3cret\n")
    return path


def _rows(store: Store) -> list[InboxMessage]:
    with store.transaction() as session:
        return list(session.exec(select(InboxMessage).order_by(InboxMessage.id)).all())


def test_unseen_mail_is_stored_then_marked_seen(
    store: Store, clock: FakeClock, secret_file: Path
) -> None:
    woken: list[int] = []
    with ImapTestServer() as server:
        old = server.add(_mail(1), seen=True)
        first = server.add(_mail(2))
        second = server.add(_mail(3))
        result = poll_once(
            _cfg(server.port, secret_file),
            store,
            clock,
            max_message_size=100_000,
            on_new_mail=woken.append,
        )
        assert server.is_seen(first) and server.is_seen(second) and server.is_seen(old)
        # BODY.PEEK[] leaves \Seen alone; each STORE comes after its fetch (and commit).
        uid_commands = [c.split(" ", 1)[1] for c in server.commands if " UID " in c]
        assert uid_commands == [
            "UID SEARCH UNSEEN",
            f"UID FETCH {first} (BODY.PEEK[])",
            f"UID STORE {first} +FLAGS (\\Seen)",
            f"UID FETCH {second} (BODY.PEEK[])",
            f"UID STORE {second} +FLAGS (\\Seen)",
        ]
    assert result.fetched == 2 and result.stored == 2
    rows = _rows(store)
    assert [r.raw for r in rows] == [_mail(2), _mail(3)]
    assert {r.source for r in rows} == {"imap"}
    assert woken == [r.id for r in rows]


def test_message_stays_unseen_when_the_commit_fails(
    store: Store, db_url: str, clock: FakeClock, secret_file: Path
) -> None:
    blocker = sqlite3.connect(db_url.removeprefix("sqlite:///"), isolation_level=None)
    try:
        with ImapTestServer() as server:
            uid = server.add(_mail(1))
            blocker.execute("BEGIN EXCLUSIVE")
            with pytest.raises(OperationalError):
                poll_once(_cfg(server.port, secret_file), store, clock, max_message_size=100_000)
            blocker.execute("ROLLBACK")
            assert not server.is_seen(uid)
            assert not any("STORE" in c for c in server.commands)
            # The next poll succeeds.
            result = poll_once(
                _cfg(server.port, secret_file), store, clock, max_message_size=100_000
            )
            assert result.stored == 1
            assert server.is_seen(uid)
    finally:
        blocker.close()
    assert len(_rows(store)) == 1


def test_message_already_in_inbox_is_just_marked_seen(
    store: Store, clock: FakeClock, secret_file: Path
) -> None:
    with ImapTestServer() as server:
        uid = server.add(_mail(1))
        poll_once(_cfg(server.port, secret_file), store, clock, max_message_size=100_000)
        # Someone marks it unseen again (or a crash happened after commit, before STORE).
        server.mails[0].flags.clear()
        copy = server.add(_mail(1))  # and the same message was delivered twice
        result = poll_once(_cfg(server.port, secret_file), store, clock, max_message_size=100_000)
        assert server.is_seen(uid) and server.is_seen(copy)
    assert result.duplicates == 2 and result.stored == 0
    assert len(_rows(store)) == 1


def test_oversized_message_is_marked_seen_and_not_stored(
    store: Store, clock: FakeClock, secret_file: Path
) -> None:
    with ImapTestServer() as server:
        uid = server.add(_mail(1) + b"x" * 3000)
        result = poll_once(_cfg(server.port, secret_file), store, clock, max_message_size=1000)
        assert server.is_seen(uid)
    assert result.skipped == 1
    assert _rows(store) == []


def test_wrong_password_raises_and_changes_nothing(
    store: Store, clock: FakeClock, tmp_path: Path
) -> None:
    bad = tmp_path / "bad"
    bad.write_text("nope\n")
    with ImapTestServer() as server:
        uid = server.add(_mail(1))
        with pytest.raises(ImapError):
            poll_once(_cfg(server.port, bad), store, clock, max_message_size=100_000)
        assert not server.is_seen(uid)
    assert _rows(store) == []
