"""State files are private: the database holds the games' secret seeds.

``pbem serve`` and the CLI commands that write state create the data
directory ``0700`` (:func:`private_dir`); :func:`pbem.store.migrate` creates a
SQLite database file ``0600`` before SQLite opens it (SQLite gives the
``-wal`` and ``-shm`` files the database file's mode), and ``pbem serve``
runs with umask ``077`` so whatever else it creates (Maildir, server key) is
private too, under systemd or not. :func:`loose_files` lists what is not, for
``pbem doctor``.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from sqlalchemy.engine import make_url

__all__ = ["PRIVATE_UMASK", "loose_files", "private_dir", "private_file", "sqlite_files"]

PRIVATE_UMASK = 0o077


def private_dir(path: Path) -> None:
    """Create ``path`` (and missing parents) as ``0700``; an existing one is left as it is."""
    if path.is_dir():
        return
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    with contextlib.suppress(OSError):
        path.chmod(0o700)  # mkdir's mode passes through the umask


def private_file(path: Path) -> None:
    """Create an empty ``path`` as ``0600`` unless it exists."""
    with contextlib.suppress(FileExistsError):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.close(fd)


def sqlite_files(url: str) -> list[Path]:
    """The SQLite database file of ``url`` and its ``-wal``/``-shm`` files ([] for others)."""
    parsed = make_url(url)
    database = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or database in ("", ":memory:"):
        return []
    if database.startswith("file:"):
        return []
    db = Path(database)
    return [db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")]


def loose_files(paths: Iterable[Path]) -> list[tuple[Path, int]]:
    """Return the existing ``paths`` that group or others may read, write or enter."""
    loose = []
    for path in paths:
        try:
            mode = path.stat().st_mode
        except OSError:
            continue
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            loose.append((path, stat.S_IMODE(mode)))
    return loose
