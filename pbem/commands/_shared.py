"""Pieces the sub-command modules share: the ``--config`` option and output lines.

Not a command group itself (no ``register``), so :mod:`pbem.cli` skips it.
"""

from __future__ import annotations

import argparse
import sys

CONFIG_HELP = "TOML config file (default: $PBEM_CONFIG or /etc/pbem/pbem.toml)"


def add_config_argument(parser: argparse.ArgumentParser, help: str = CONFIG_HELP) -> None:
    """Add ``--config FILE`` (read later with :func:`pbem.config.load_config`)."""
    parser.add_argument("--config", help=help)


def out(text: str) -> None:
    """Write ``text`` to stdout as whole lines (one final newline)."""
    sys.stdout.write(text.rstrip("\n") + "\n")


def err(text: str) -> None:
    """Write ``text`` to stderr as whole lines (one final newline)."""
    sys.stderr.write(text.rstrip("\n") + "\n")
