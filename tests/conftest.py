"""Shared pytest fixtures: a fake clock, a migrated store, a small config.

Keep fixtures here generic and small; feature-specific ones belong in the
test module that needs them.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from pbem.clock import FakeClock
from pbem.config import Config, config_from_dict
from pbem.store import Store, migrate

# Hypothesis' per-example deadline measures wall time, which a shared CI machine
# does not give reliably; speed is measured by the benchmarks in bench/.
settings.register_profile("pbem", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("pbem")


@pytest.fixture
def clock() -> FakeClock:
    """A clock that starts at 2026-01-01 12:00 UTC and moves only when advanced."""
    return FakeClock()


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    """The URL of a fresh, migrated SQLite store in the test's tmp dir."""
    url = f"sqlite:///{tmp_path / 'pbem.sqlite3'}"
    migrate(url)
    return url


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    """A :class:`Store` on a fresh migrated SQLite database."""
    s = Store(db_url, busy_timeout_ms=200)
    try:
        yield s
    finally:
        s.dispose()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def free_port() -> Callable[[], int]:
    """A function returning a loopback TCP port that was free a moment ago."""
    return _free_port


@pytest.fixture
def config(tmp_path: Path, db_url: str) -> Config:
    """A config in Maildir mode using the test's store, listener on a free port."""
    return config_from_dict(
        {
            "data_dir": str(tmp_path / "data"),
            "database": {"url": db_url, "busy_timeout_ms": 200},
            "listener": {"port": _free_port()},
            "mail": {"address": "pbem@game.test", "operator": "op@club.test"},
        },
        base=tmp_path,
    )
