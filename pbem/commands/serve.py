"""``pbem serve``: run the referee daemon in the foreground (systemd runs this)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys

from pbem.commands._shared import add_config_argument
from pbem.config import ConfigError, load_config
from pbem.daemon import Daemon, StartError
from pbem.store import migrate
from pbem.store.files import PRIVATE_UMASK, private_dir

log = logging.getLogger(__name__)

EX_CONFIG = 78
EX_UNAVAILABLE = 69


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``serve`` command."""
    parser = sub.add_parser(
        "serve",
        help="run the referee daemon (mail in, turns, outbox, deadlines)",
        description="Migrate the database, then run the daemon until SIGTERM.",
    )
    add_config_argument(parser)
    parser.add_argument(
        "--no-migrate", action="store_true", help="do not upgrade the database schema at start"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Load the config, migrate, serve until stopped; return the exit code."""
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        sys.stderr.write(f"pbem serve: {exc}\n")
        return EX_CONFIG
    # Everything the daemon creates (database, Maildir, keys) is private, with
    # or without systemd's UMask=0077: the database holds the secret seeds.
    os.umask(PRIVATE_UMASK)
    private_dir(config.data_dir)
    if not args.no_migrate:
        migrate(config.database_url)
    try:
        asyncio.run(Daemon(config).serve_forever())
    except StartError as exc:
        sys.stderr.write(f"pbem serve: {exc}\n")
        return EX_UNAVAILABLE
    return 0
