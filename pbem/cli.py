"""The ``pbem`` command line: discovers sub-commands in :mod:`pbem.commands`."""

from __future__ import annotations

import argparse
import importlib
import logging
import pkgutil
import sys
from collections.abc import Callable, Sequence
from typing import cast

from pbem import __version__, commands

Handler = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    """Build the parser with every sub-command found in :mod:`pbem.commands`."""
    parser = argparse.ArgumentParser(
        prog="pbem",
        description="Play-by-email referee for hex-and-block wargames.",
    )
    parser.add_argument("--version", action="version", version=f"pbem {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug detail")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        register = getattr(module, "register", None)
        if callable(register):
            register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(levelname)s %(name)s: %(message)s",
    )
    if not args.verbose:
        # APScheduler logs every job run ("Running job ...", "... executed
        # successfully") at INFO: every few seconds, saying nothing.
        logging.getLogger("apscheduler").setLevel(logging.WARNING)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    return cast(Handler, func)(args)


if __name__ == "__main__":
    sys.exit(main())
