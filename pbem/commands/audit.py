"""``pbem audit``: check a game's dice and shuffles from its audit record.

``pbem audit GAME [--out FILE]`` exports a game's record from the store
(``FILE`` if given) and checks it the same way.

``pbem audit stats [FILE.json | GAME ...]`` prints the dice-fairness report
(face counts, chi-squared, luck; docs/archive.md) of audit record files, of
games in the store, or of every game in the store when none is named.

``pbem audit FILE.json`` runs the checks of ``verify_dice.py`` with the
referee's own code (:mod:`pbem.audit`, :mod:`engine.dice`). The exit code is 0
when everything verifies, 1 at the first discrepancy (a malformed record
included), 2 when the file cannot be read as JSON.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from pbem.audit import (
    AuditFormatError,
    AuditMismatch,
    AuditUnreadable,
    check_record,
    load_record,
    parse_record,
)
from pbem.commands._shared import add_config_argument


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
    parser.add_argument(
        "target",
        help="an audit record (JSON file), a game id in the store, or 'stats' for the dice report",
    )
    parser.add_argument(
        "more",
        nargs="*",
        metavar="FILE_OR_GAME",
        help="with 'stats': audit record files or game ids (default: every game in the store)",
    )
    parser.add_argument("--out", type=Path, help="with a game id: write its record to this file")
    add_config_argument(parser, "TOML config file (to find the store for a game id)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Verify the record named by ``args.target``; return the exit code."""
    target = str(args.target)
    more = list(getattr(args, "more", []) or [])
    if target == "stats" and not Path(target).is_file():
        return _stats(more, getattr(args, "config", None))
    if more:
        sys.stderr.write(
            f"pbem audit: one record or game at a time (got {target} {' '.join(more)})\n"
        )
        return 2
    path = Path(target)
    if not path.is_file():
        return _audit_game(target, getattr(args, "out", None), getattr(args, "config", None))
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


def _audit_game(game_id: str, out: Path | None = None, config_path: str | None = None) -> int:
    """Export the game's record from the store (to ``out`` if given) and check it."""
    import json  # noqa: PLC0415

    from pbem.config import ConfigError, load_config  # noqa: PLC0415
    from pbem.pipeline import load_server_key  # noqa: PLC0415
    from pbem.pipeline.admin import audit_record  # noqa: PLC0415
    from pbem.pipeline.games import GameError  # noqa: PLC0415
    from pbem.store import Store  # noqa: PLC0415

    try:
        config = load_config(config_path)
    except ConfigError as err:
        sys.stderr.write(f"pbem audit: {err}\n")
        return 2
    url = make_url(config.database_url)
    if url.get_backend_name() == "sqlite" and not Path(url.database or "").is_file():
        sys.stderr.write(
            f"pbem audit: {game_id} is not a file, and no store is configured to look up a "
            f"game by id (no database at {url.database}; pass --config)\n"
        )
        return 2
    server_key = load_server_key(config.server_key_path)
    if server_key is None:
        sys.stderr.write(f"pbem audit: no server key at {config.server_key_path} to sign with\n")
        return 2
    store = Store(config.database_url, busy_timeout_ms=config.database.busy_timeout_ms)
    try:
        record = audit_record(store, game_id, server_key)
    except GameError as err:
        why = "is neither a file nor a game in the store" if "no game" in str(err) else str(err)
        sys.stderr.write(f"pbem audit: {game_id} {why}\n")
        return 2
    except Exception as err:  # an unmigrated or missing database
        sys.stderr.write(f"pbem audit: cannot read the store: {type(err).__name__}: {err}\n")
        return 2
    finally:
        store.dispose()
    text = json.dumps(record, indent=2, ensure_ascii=False) + "\n"
    if out is not None:
        out.write_text(text, encoding="utf-8")
        sys.stdout.write(f"wrote {out}\n")
    try:
        summary = check_record(parse_record(record))
    except (AuditFormatError, AuditMismatch) as err:
        sys.stdout.write(f"FAIL {err}\n")
        return 1
    sys.stdout.write(summary.describe() + "\n")
    return 0


def _stats(targets: list[str], config_path: str | None) -> int:
    """Print the dice-fairness report of record files or store games; 1 if any is flagged."""
    from pbem.archive.reports import StatsError, record_reports, store_reports  # noqa: PLC0415
    from pbem.archive.stats import report_lines  # noqa: PLC0415

    files = [Path(t) for t in targets if Path(t).is_file()]
    games = [t for t in targets if not Path(t).is_file()]
    try:
        reports = record_reports(files) if files else []
        if games or not files:
            reports += _store_stats(games, config_path, store_reports)
    except StatsError as err:
        sys.stderr.write(f"pbem audit stats: {err}\n")
        return 2
    for rep in reports:
        sys.stdout.write("\n".join(report_lines(rep)) + "\n")
    if not reports:
        sys.stdout.write("no games with dice\n")
    flagged = [r.title for r in reports if r.flagged]
    if flagged:
        sys.stdout.write(f"FLAGGED: {', '.join(flagged)} (see docs/archive.md)\n")
        return 1
    return 0


def _store_stats(games: list[str], config_path: str | None, run: Any) -> Any:
    from pbem.archive.reports import StatsError  # noqa: PLC0415
    from pbem.config import ConfigError, load_config  # noqa: PLC0415
    from pbem.store import Store, read_session  # noqa: PLC0415

    try:
        config = load_config(config_path)
    except ConfigError as err:
        raise StatsError(str(err)) from err
    url = make_url(config.database_url)
    if url.get_backend_name() == "sqlite" and not Path(url.database or "").is_file():
        what = f"{', '.join(games)} is not a file, and n" if games else "N"
        raise StatsError(
            f"{what}o store is configured (no database at {url.database}; pass --config)"
        )
    store = Store(config.database_url, busy_timeout_ms=config.database.busy_timeout_ms)
    try:
        with read_session(store) as session:
            return run(session, games)
    finally:
        store.dispose()
