"""``pbem check ORDERS``: would the referee accept these orders, and what are the odds?

``pbem check orders.txt --game GAME [--db URL | --config CFG]`` checks against
a game's current state in the store (read only: nothing is written, no die
is rolled); ``pbem check orders.txt --position P.toml`` against a position
file. It prints every problem exactly as the refusal mail would, or the
moves, a table of each battle's dice and odds, and the board after the
moves (``--png FILE`` draws it as PNG too; ``--json`` prints a JSON report
instead). Exit code 0: accepted; 1: refused; 2: the files, game or store
cannot be read. See docs/check.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from pathlib import Path
from typing import Any

from engine.core.api import GameSystem, PositionError
from pbem.check import (
    CheckReport,
    OrdersFile,
    check_orders,
    read_orders,
    report_json,
    report_text,
)
from pbem.commands._shared import add_config_argument
from pbem.sshsig import SshPublicKey, SshSigError


class _Fail(Exception):
    """A file, game or store that cannot be read (exit code 2)."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``pbem check``."""
    cmd = sub.add_parser(
        "check",
        help="check orders before mailing them: problems, or moves and battle odds",
        description="Check an orders file against a game in the store (--game) or a "
        "position file (--position) exactly as the referee would, without rolling a die "
        "or storing anything; show the moves, each battle's dice and odds, and the board "
        "after the moves (docs/check.md).",
    )
    cmd.add_argument("orders", type=Path, metavar="ORDERS", help="the orders file (orders.txt)")
    where = cmd.add_mutually_exclusive_group(required=True)
    where.add_argument("--game", help="a game id in the store")
    where.add_argument("--position", type=Path, metavar="P.toml", help="a position file")
    cmd.add_argument("--db", metavar="URL", help="database URL (default: from the config)")
    add_config_argument(cmd)
    cmd.add_argument(
        "--side",
        help="the side giving the orders (default: the file's 'side' line)",
    )
    cmd.add_argument("--png", type=Path, metavar="FILE", help="also draw the preview as PNG")
    cmd.add_argument("--json", action="store_true", help="print a JSON report instead")
    cmd.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Check the orders; return 0 (accepted), 1 (refused) or 2 (cannot read)."""
    try:
        orders = read_orders(args.orders)
    except (OSError, UnicodeDecodeError, SshSigError) as exc:
        sys.stderr.write(f"pbem check: {args.orders}: {exc}\n")
        return 2
    try:
        if args.game:
            report, system = _from_store(args, orders)
        else:
            report, system = _from_position(args.position, orders, args.side)
    except _Fail as exc:
        sys.stderr.write(f"pbem check: {exc}\n")
        return 2
    text, view = report_text(system, report, str(args.orders))
    if args.png is not None and view is not None:
        from pbem.render.png import render_png  # noqa: PLC0415

        args.png.write_bytes(render_png(view))
    if args.json:
        data = report_json(report)
        if view is not None:
            from pbem.render.ascii import render_ascii  # noqa: PLC0415

            data["board"] = render_ascii(view)
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(text)
        if args.png is not None and view is not None:
            sys.stdout.write(f"\nwrote {args.png}\n")
    return 0 if report.ok else 1


def _from_store(args: argparse.Namespace, orders: OrdersFile) -> tuple[CheckReport, GameSystem]:
    from pbem.config import ConfigError, load_config  # noqa: PLC0415
    from pbem.pipeline.games import load_game  # noqa: PLC0415
    from pbem.store import Store  # noqa: PLC0415

    url = args.db
    timeout = 5000
    if url is None:
        try:
            config = load_config(args.config)
        except ConfigError as exc:
            raise _Fail(str(exc)) from exc
        url, timeout = config.database_url, config.database.busy_timeout_ms
    if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).is_file():
        raise _Fail(f"no database at {url}")  # opening it would create an empty file
    store = Store(url, busy_timeout_ms=timeout)
    try:
        with store.engine.connect() as conn, conn.begin() as tx:
            from sqlmodel import Session  # noqa: PLC0415

            with Session(bind=conn) as session:
                ctx = load_game(session, args.game)
                if ctx is None:
                    raise _Fail(f"no game {args.game!r} in the store")
                side = args.side
                said = _said_side(orders.text, ctx.system.sides)
                who = side or said or ctx.prompt().side
                seat = ctx.seats.get(who or "")
                key: SshPublicKey | None = seat.key if seat is not None else None
                report = check_orders(ctx.system, ctx.state, ctx.id, orders, side=side, key=key)
            tx.rollback()  # read only, whatever happened
    except _Fail:
        raise
    except Exception as exc:  # an unmigrated or unreachable database
        raise _Fail(f"cannot read the store: {type(exc).__name__}: {exc}") from exc
    finally:
        store.dispose()
    return report, ctx.system


def _said_side(text: str, sides: tuple[str, ...]) -> str | None:
    from pbem.pipeline.inbound import header_lines  # noqa: PLC0415

    said = header_lines(text).get("side", "").lower()
    return said if said in sides else None


def _from_position(
    path: Path, orders: OrdersFile, side: str | None
) -> tuple[CheckReport, GameSystem]:
    from engine.systems import get_system  # noqa: PLC0415

    try:
        text = path.read_text(encoding="utf-8")
        name = str(tomllib.loads(text).get("system", "cca"))
        system: Any = get_system(name)
        if side is not None and side not in system.sides:
            raise _Fail(f"--side: {side!r} is not a side of {name} ({', '.join(system.sides)})")
        state = system.new_game(system.load_position(text))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise _Fail(f"{path}: {exc}") from exc
    except (PositionError, KeyError, ValueError) as exc:
        raise _Fail(f"{path}: {exc}") from exc
    game_id = str(system.public_view(state).get("game_id", "") or "")
    return check_orders(system, state, game_id, orders, side=side), system
