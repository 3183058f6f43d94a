"""``pbem audit``: check a game's dice and shuffles from its audit record.

``pbem audit FILE.json`` runs the checks of ``verify_dice.py`` with the
referee's own code (:mod:`pbem.audit`, :mod:`engine.dice`). The exit code is 0
when everything verifies, 1 at the first discrepancy (a malformed record
included), 2 when the file cannot be read as JSON.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pbem.audit import (
    AuditFormatError,
    AuditMismatch,
    AuditUnreadable,
    check_record,
    load_record,
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``pbem audit``."""
    parser = sub.add_parser(
        "audit",
        help="verify every die and shuffle of a game from its audit record",
        description=(
            "Check the dice chain against its commitment, recompute every roll and, "
            "once the game is over, every shuffle. The standalone verify_dice.py does "
            "the same with the standard library only."
        ),
    )
    parser.add_argument("target", help="an audit record (JSON file); later also a game id")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Verify the record named by ``args.target``; return the exit code."""
    target = str(args.target)
    path = Path(target)
    if not path.is_file():
        return _audit_game(target)
    try:
        summary = check_record(load_record(path))
    except AuditUnreadable as err:
        sys.stderr.write(f"pbem audit: {err}\n")
        return 2
    except (AuditFormatError, AuditMismatch) as err:
        sys.stdout.write(f"FAIL {err}\n")
        return 1
    sys.stdout.write(summary.describe() + "\n")
    return 0


def _audit_game(game_id: str) -> int:
    # Hook for the store: export the game's record (pbem.audit.build_record over
    # its stored epoch logs) and check it. Until a store exists there is none.
    sys.stderr.write(
        f"pbem audit: {game_id} is not a file, and no store is configured to look up a game by id\n"
    )
    return 2
