"""Generate a new Alembic revision from the models (a developer tool).

Usage: ``python -m pbem.migrations.revision "message" [--rev-id r0002_x]``.
It migrates a scratch SQLite database to head, then autogenerates the
difference between it and :mod:`pbem.store.models`. Always read and fix the
generated file (types, server defaults, data moves) before committing.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from alembic import command

from pbem.store.db import _alembic_config, migrate


def main(argv: list[str] | None = None) -> int:
    """Write a new revision file into ``pbem/migrations/versions``."""
    parser = argparse.ArgumentParser(prog="python -m pbem.migrations.revision")
    parser.add_argument("message")
    parser.add_argument("--rev-id", default=None)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'scratch.sqlite3'}"
        migrate(url)
        cfg = _alembic_config(url)
        command.revision(cfg, message=args.message, autogenerate=True, rev_id=args.rev_id)
    return 0


if __name__ == "__main__":
    sys.exit(main())
