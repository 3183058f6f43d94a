"""``pbem rules``: short rules help from a game system (its ``rules-help`` capability)."""

from __future__ import annotations

import argparse

from engine.core.capabilities import RULES_HELP, find
from engine.systems import get_system
from pbem.commands._shared import err, out


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``pbem rules``."""
    cmd = sub.add_parser(
        "rules",
        help="short rules help by topic (e.g. a card code)",
        description="Print a game system's rules help on TOPIC, or list its topics.",
    )
    cmd.add_argument("topic", nargs="?", help="a topic (for cca: a card code or name)")
    cmd.add_argument("--system", default="cca", help="game system (default cca)")
    cmd.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the help; exit 1 for an unknown topic, 2 for an unknown system or no help."""
    try:
        system = get_system(args.system)
    except KeyError as exc:
        err(f"pbem rules: {exc.args[0]}")
        return 2
    helper = find(system, RULES_HELP)
    if helper is None:
        err(f"pbem rules: system {system.name!r} offers no rules help")
        return 2
    if args.topic is None:
        out(f"{system.title}: help on {', '.join(helper.topics())}")
        return 0
    try:
        out(helper.help(args.topic))
    except KeyError:
        err(f"pbem rules: no help on {args.topic!r}; topics: {', '.join(helper.topics())}")
        return 1
    return 0
