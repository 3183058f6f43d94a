"""``pbem demo``: play a complete scripted game over loopback SMTP and show the result."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
import time
from pathlib import Path


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``pbem demo``."""
    parser = sub.add_parser(
        "demo",
        help="play a whole game between two scripted players, by mail",
        description=(
            "Start the referee daemon on embedded defaults with a local SMTP sink, create "
            "a game (default: C&C Ancients, Akragas) between two scripted players with "
            "their own keys, and let them play it to the end by signed mail over loopback SMTP."
        ),
    )
    parser.add_argument("--dir", type=Path, help="keep everything here (default: a temp dir)")
    parser.add_argument("--seed", type=int, default=7, help="the scripted players' seed")
    parser.add_argument(
        "--system", default="cca", help="game system (default cca; see 'pbem systems')"
    )
    parser.add_argument(
        "--scenario",
        default=None,
        help="scenario (default: the system's first bundled one; 001, Akragas, for cca)",
    )
    parser.add_argument(
        "--tables",
        type=Path,
        default=None,
        metavar="FILE",
        help="play on a club's rules tables file (docs/tables.md)",
    )
    parser.add_argument("--max-epochs", type=int, default=400, help="stop after this many")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds before giving up")
    parser.add_argument("-v", "--verbose", action="store_true", help="show the daemon's log")
    parser.set_defaults(func=run)


def _say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def run(args: argparse.Namespace) -> int:
    """Run the demo; exit 0 when the game ended and its audit record verified."""
    from pbem.demo import check_system, run_demo  # noqa: PLC0415
    from pbem.tablefile import TablesFileError  # noqa: PLC0415

    if not args.verbose:
        # The daemon, the SMTP servers and the scheduler log every step; the demo
        # prints its own summary.
        logging.getLogger().setLevel(logging.WARNING)
    problem = check_system(args.system)
    scenario = args.scenario
    if problem is None and scenario is None:
        scenario, problem = _first_scenario(args.system)
    if problem is not None or scenario is None:
        sys.stderr.write(f"pbem demo: {problem}\n")
        return 1
    directory = args.dir or Path(tempfile.mkdtemp(prefix="pbem-demo-"))
    _say(f"pbem demo in {directory}")
    started = time.monotonic()
    try:
        result = asyncio.run(
            run_demo(
                directory,
                seed=args.seed,
                scenario=scenario,
                max_epochs=args.max_epochs,
                timeout=args.timeout,
                progress=_say,
                tables=args.tables,
            )
        )
    except TablesFileError as exc:
        sys.stderr.write(f"pbem demo: --tables: {exc}\n")
        return 1
    took = time.monotonic() - started
    winner = result.winner or ("draw" if result.finished else "none")
    _say("")
    _say(f"game       {result.game_id}: {result.message}")
    _say(f"winner     {winner}")
    _say(f"turns      {result.turns} ({result.epochs} epochs resolved)")
    _say(
        f"mails      {result.mails_to_players} from the referee, {result.mails_from_players} "
        f"signed orders from the players ({result.refused} refused and resent)"
    )
    _say(f"saved in   {result.mails_dir} (.eml files)")
    _say(f"audit      {result.audit}")
    _say(f"time       {took:.1f} s")
    return 0 if result.finished and result.audit.startswith("OK") else 1


def _first_scenario(system: str) -> tuple[str | None, str | None]:
    """The first bundled scenario of ``system`` (its path), or why there is none."""
    from pbem.scenarios import list_scenarios  # noqa: PLC0415

    found = [s for s in list_scenarios() if s.system == system and s.path is not None]
    if not found:
        return None, f"no bundled scenario of system {system!r}"
    return str(found[0].path), None
