"""State files are private outside systemd too; pbem doctor warns when they are not (issue 11).

Before, ``pbem serve`` run by hand (umask 022) created the database — which holds
every game's secret seeds — and its data directory readable by every local user.
"""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import aiosmtplib
import pytest
from test_doctor import _doctor, _write_config
from test_mailin_daemon import _mail

from pbem.store import migrate


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_pbem_serve_outside_systemd_creates_private_state(
    tmp_path: Path, free_port: Callable[[], int]
) -> None:
    port = free_port()
    config = tmp_path / "pbem.toml"
    data = tmp_path / "state"
    config.write_text(
        f'data_dir = "{data}"\n[listener]\nport = {port}\n[mail]\naddress = "pbem@game.test"\n'
    )
    env = {k: v for k, v in os.environ.items() if k != "PBEM_CONFIG"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "pbem", "serve", "--config", str(config)],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        umask=0o022,  # a shell's usual umask, not systemd's UMask=0077
    )
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            if "pbem daemon started" in line:
                break
        asyncio.run(
            aiosmtplib.send(_mail(), hostname="127.0.0.1", port=port, sender="ann@club.test")
        )
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    db = data / "pbem.sqlite3"
    state = [data, db, data / "server_ed25519"]
    maybe = [db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")]
    state += [p for p in [*maybe, data / "outbox-maildir"] if p.exists()]
    assert db.exists()
    loose = {str(p): oct(_mode(p)) for p in state if _mode(p) & 0o077}
    assert loose == {}


def test_migrate_creates_the_database_0600_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        migrate(f"sqlite:///{tmp_path / 'new' / 'pbem.sqlite3'}")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "new" / "pbem.sqlite3") == 0o600
    assert _mode(tmp_path / "new") == 0o700


def test_doctor_warns_on_a_world_readable_database(
    tmp_path: Path, db_url: str, free_port: Callable[[], int], capsys: pytest.CaptureFixture[str]
) -> None:
    config = _write_config(tmp_path, db_url, free_port())
    code, out = _doctor(config, capsys)
    assert code == 0 and "ok   permissions" in out, out
    db = Path(db_url.removeprefix("sqlite:///"))
    db.chmod(0o644)
    code, out = _doctor(config, capsys)
    assert code == 1
    assert "FAIL permissions" in out and str(db) in out and f"chmod 600 {db}" in out
