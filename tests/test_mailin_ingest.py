"""``pbem ingest``: one message on stdin, sysexits codes an MTA pipe understands."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sqlmodel import select

from pbem.store import InboxMessage, Store

MESSAGE = (
    b"From: ann@club.test\r\n"
    b"To: pbem@game.test\r\n"
    b"Subject: [g1] Turn 1\r\n"
    b"Date: Thu, 01 Jan 2026 12:00:00 +0000\r\n"
    b"Message-ID: <ingest-1@club.test>\r\n"
    b"\r\n"
    b"move C4 D5\r\n"
)


def _config(tmp_path: Path, db_url: str) -> Path:
    path = tmp_path / "pbem.toml"
    path.write_text(
        f'data_dir = "{tmp_path / "data"}"\n'
        f'[database]\nurl = "{db_url}"\nbusy_timeout_ms = 200\n'
        '[mail]\naddress = "pbem@game.test"\n'
        "[limits]\nmax_message_size = 4000\n"
    )
    return path


def _ingest(config: Path, data: bytes, *extra: str) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ)
    env.pop("PBEM_CONFIG", None)
    return subprocess.run(
        [sys.executable, "-m", "pbem", "ingest", "--config", str(config), *extra],
        input=data,
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )


def _rows(store: Store) -> list[InboxMessage]:
    with store.transaction() as session:
        return list(session.exec(select(InboxMessage)).all())


def test_ingest_stores_the_message_and_exits_0(tmp_path: Path, db_url: str, store: Store) -> None:
    result = _ingest(_config(tmp_path, db_url), MESSAGE, "--sender", "ann@club.test")
    assert result.returncode == 0, result.stderr
    rows = _rows(store)
    assert len(rows) == 1
    assert rows[0].raw == MESSAGE
    assert rows[0].source == "ingest"
    assert rows[0].envelope_from == "ann@club.test"
    assert rows[0].status == "pending"


def test_ingest_twice_stores_once(tmp_path: Path, db_url: str, store: Store) -> None:
    config = _config(tmp_path, db_url)
    assert _ingest(config, MESSAGE).returncode == 0
    again = _ingest(config, MESSAGE)
    assert again.returncode == 0
    assert b"already stored" in again.stdout
    assert len(_rows(store)) == 1


def test_unreadable_input_exits_65(tmp_path: Path, db_url: str, store: Store) -> None:
    config = _config(tmp_path, db_url)
    assert _ingest(config, b"").returncode == 65
    assert _ingest(config, b"just some words\nno headers\n").returncode == 65
    too_big = MESSAGE + b"x" * 5000 + b"\r\n"
    assert _ingest(config, too_big).returncode == 65
    assert _rows(store) == []


def test_unavailable_store_exits_75(tmp_path: Path) -> None:
    # An empty database that was never migrated: the MTA must keep the mail.
    unmigrated = _config(tmp_path, f"sqlite:///{tmp_path / 'empty.sqlite3'}")
    result = _ingest(unmigrated, MESSAGE)
    assert result.returncode == 75
    assert b"not migrated" in result.stderr
    # A database that cannot even be opened.
    (tmp_path / "file").write_text("not a directory")
    broken = _config(tmp_path, f"sqlite:///{tmp_path / 'file' / 'db.sqlite3'}")
    assert _ingest(broken, MESSAGE).returncode == 75
