"""``pbem archive build DIR``: the public archive as a static site (docs/archive.md).

Writes every finished game's replay and audit pages, the indexes by club,
system, scenario, player and date, and the dice-fairness pages into ``DIR``.
Run it again after games end: only the changed games' pages and the indexes
are written. ``--running-delay N`` also publishes running games outside
clubs, ``N`` epochs behind their play and showing only what both players
know; a club's running games follow its ``archive_running_delay`` rule (``N``
is then a floor).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pbem.commands._shared import add_config_argument
from pbem.commands.game import EX_CONFIG, with_store
from pbem.config import Config
from pbem.pipeline import load_server_key
from pbem.store import Store


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``pbem archive build``."""
    parser = sub.add_parser(
        "archive",
        help="publish finished games as a static web site (replays, audits, dice fairness)",
        description=(
            "Build the public archive: a folder of static pages any web server (or a plain "
            "file:// browser) can show. See docs/archive.md."
        ),
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    build = actions.add_parser(
        "build",
        help="write (or bring up to date) the archive in DIR",
        description=(
            "Write every finished game's replay and audit pages, the indexes and the dice "
            "fairness pages into DIR. Only games that changed since the last build are drawn "
            "again."
        ),
    )
    build.add_argument("dir", type=Path, help="the folder to write the site into")
    build.add_argument(
        "--running-delay",
        type=int,
        metavar="N",
        default=None,
        help=(
            "also publish running games outside clubs, N epochs behind their play (default:"
            " finished only); club games follow their club's archive_running_delay, N a floor"
        ),
    )
    build.add_argument("--force", action="store_true", help="rebuild every game's pages")
    add_config_argument(build, "TOML config file (the store and the server key)")
    build.set_defaults(func=with_store(_build))


def _build(args: argparse.Namespace, config: Config, store: Store) -> int:
    from pbem.archive.site import build_site  # noqa: PLC0415 - matplotlib is slow to import

    delay = args.running_delay
    if delay is not None and delay < 0:
        sys.stderr.write("pbem archive: --running-delay must be 0 or more epochs\n")
        return EX_CONFIG
    out: Path = args.dir
    if out.exists() and not out.is_dir():
        sys.stderr.write(f"pbem archive: {out} exists and is not a folder\n")
        return EX_CONFIG
    key = load_server_key(config.server_key_path)
    report = build_site(store, out, server_key=key, running_delay=delay, force=args.force)
    sys.stdout.write(f"archive {out}: {report.describe()}\n")
    sys.stdout.write(f"open {out / 'index.html'}\n")
    return 0
