"""``pbem game create|list|show|pause|resume``: the operator's view of games.

``create`` draws the two secret seeds with :mod:`secrets`, builds both hash
chains, stores the commitments and queues one invitation per seat: each
player joins by mail with a signed statement carrying a nonce (and, for a
seat created without a key, that seat's single-use invite token, printed
here and mailed to the invitee). The game deals and starts when every
player has joined. The running daemon sends what is queued.
"""

from __future__ import annotations

import argparse
import functools
import json
import secrets
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from sqlmodel import col, select

from engine.bot import parse_level
from pbem.clock import SystemClock
from pbem.commands._shared import add_config_argument
from pbem.config import Config, ConfigError, load_config, parse_duration
from pbem.orders_text import OrdersMailError, extract_from_body
from pbem.pipeline import load_server_key
from pbem.pipeline.admin import create_and_start, join_game, pause, resume
from pbem.pipeline.bots import bot_join, bot_seat
from pbem.pipeline.games import GameError, NewSeat, load_game
from pbem.pipeline.joins import JoinRefused, SignedJoin, joined_sides, parse_statement
from pbem.pipeline.settings import MISSED_TURN_POLICIES, GameSettings
from pbem.pipeline.systems import resolve_system
from pbem.scenarios import ScenarioError, find_scenario, load_file
from pbem.sshsig import SshPublicKey, SshSigError
from pbem.store import Deadline, DiceEpoch, Event, Game, Store, migrate, read_session
from pbem.store.files import private_dir
from pbem.tablefile import read_tables, tables_sha256

EX_USAGE = 64
EX_CONFIG = 78


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")


def _err(text: str) -> None:
    sys.stderr.write(f"pbem game: {text}\n")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``pbem game``."""
    parser = sub.add_parser("game", help="create, list, show, pause and resume games")
    add_config_argument(parser)
    games = parser.add_subparsers(dest="game_command", required=True)
    create = games.add_parser("create", help="create a game and mail its players")
    create.add_argument("scenario", help="scenario id, number, slug or .toml file")
    create.add_argument(
        "--seat",
        action="append",
        default=[],
        metavar="SIDE=NAME:EMAIL[:PUBKEYFILE]",
        help="a player and the side they play (one per side of the game's system; "
        "no key file: they join by mail)",
    )
    for side in ("north", "south"):
        create.add_argument(
            f"--{side}",
            metavar="NAME:EMAIL[:PUBKEYFILE]",
            help=f"the {side} player: short for --seat {side}=... (C&C games)",
        )
    create.add_argument(
        "--vs",
        default=None,
        metavar="bot[:LEVEL]",
        help="the bot plays the side no --seat names (levels 1-4, default 2): its orders "
        "are signed with the server's key and audited like a player's",
    )
    create.add_argument("--id", dest="game_id", help="game id (default: <scenario>-<random>)")
    create.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="K=V",
        help="engine rule option (repeatable; V is JSON or text)",
    )
    create.add_argument("--deadline", default="72h", help="time per turn (default 72h)")
    create.add_argument("--question-deadline", default="24h", help="time per question")
    create.add_argument("--grace", default="0", help="grace after the deadline (default 0)")
    create.add_argument(
        "--reminder",
        action="append",
        default=None,
        help="remind this long before the deadline (repeatable; default 12h)",
    )
    create.add_argument(
        "--missed-turn",
        choices=MISSED_TURN_POLICIES,
        default="wait",
        help="what a missed turn deadline does (autopilot: the bot plays the turn; "
        "a player may turn that off for himself by mail)",
    )
    create.add_argument(
        "--autopilot-level", type=int, default=2, help="the bot level of the autopilot (1-4)"
    )
    create.add_argument(
        "--forfeit-after",
        type=int,
        default=3,
        help="missed deadlines in a row that forfeit (policy forfeit)",
    )
    create.add_argument(
        "--tz",
        action="append",
        default=[],
        metavar="SIDE=ZONE",
        help="a player's time zone, e.g. north=Europe/Paris",
    )
    create.add_argument(
        "--tables",
        type=Path,
        metavar="FILE",
        help="the club's own rules tables (checked against the system's schema; docs/tables.md)",
    )
    create.set_defaults(func=_create)
    lst = games.add_parser("list", help="list games")
    lst.set_defaults(func=_list)
    show = games.add_parser("show", help="show one game")
    show.add_argument("game")
    show.set_defaults(func=_show)
    join = games.add_parser(
        "join",
        help="record a player's signed join statement received another way than by mail",
    )
    join.add_argument("game")
    join.add_argument("file", type=Path, help="the statement followed by its signature block")
    join.set_defaults(func=_join)
    for name, helptext in (
        ("pause", "pause a game (deadlines stop)"),
        ("resume", "resume a paused game"),
    ):
        p = games.add_parser(name, help=helptext)
        p.add_argument("game")
        p.set_defaults(func=_pause if name == "pause" else _resume)


def open_store(args: argparse.Namespace) -> tuple[Config, Store] | None:
    """Load the config and open (and migrate) the store; print why not and return None."""
    try:
        config = load_config(getattr(args, "config", None))
    except ConfigError as exc:
        _err(str(exc))
        return None
    private_dir(config.data_dir)
    migrate(config.database_url)
    return config, Store(config.database_url, busy_timeout_ms=config.database.busy_timeout_ms)


def with_store(
    body: Callable[[argparse.Namespace, Config, Store], int],
) -> Callable[[argparse.Namespace], int]:
    """Run a command ``body(args, config, store)`` on an opened store, disposed afterwards."""

    @functools.wraps(body)
    def run(args: argparse.Namespace) -> int:
        opened = open_store(args)
        if opened is None:
            return EX_CONFIG
        config, store = opened
        try:
            return body(args, config, store)
        finally:
            store.dispose()

    return run


def _seats(
    args: argparse.Namespace, sides: tuple[str, ...], zones: dict[str, str], bot: NewSeat | None
) -> list[NewSeat]:
    """One seat per side of the system, from ``--seat SIDE=...`` and ``--north``/``--south``;
    ``bot`` (``--vs bot``) takes the one side nobody was given."""
    given: dict[str, str] = {}
    specs = list(args.seat)
    specs += [f"{side}={getattr(args, side)}" for side in ("north", "south") if getattr(args, side)]
    for spec in specs:
        side, eq, player = spec.partition("=")
        if not eq or side not in sides:
            raise GameError(
                f"--seat {spec!r}: write SIDE=NAME:EMAIL, SIDE one of {', '.join(sides)}"
            )
        if side in given:
            raise GameError(f"two players for the side {side}")
        given[side] = player
    missing = [s for s in sides if s not in given]
    if bot is not None:
        if len(missing) != 1:
            raise GameError(
                f"--vs bot plays the one side no --seat names; {len(missing)} sides have none"
            )
        return [replace(bot, side=s) if s in missing else _seat(s, given[s], zones) for s in sides]
    if missing:
        raise GameError(f"no player for {', '.join(missing)}: add --seat SIDE=NAME:EMAIL")
    return [_seat(side, given[side], zones) for side in sides]


def _seat(side: str, spec: str, zones: dict[str, str]) -> NewSeat:
    parts = spec.split(":", 2)
    if len(parts) < 2 or "@" not in parts[1]:
        raise GameError(f"--{side} {spec!r}: write NAME:EMAIL[:PUBKEYFILE]")
    key = None
    if len(parts) == 3 and parts[2]:
        try:
            key = SshPublicKey.parse(Path(parts[2]).expanduser().read_text(encoding="utf-8"))
        except (OSError, SshSigError) as exc:
            raise GameError(f"--{side}: cannot read the public key {parts[2]}: {exc}") from exc
        if not key.is_ed25519:
            raise GameError(f"--{side}: only Ed25519 keys are accepted")
    return NewSeat(side, parts[0], parts[1].strip().lower(), key, zones.get(side, "UTC"))


def _options(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        k, sep, v = item.partition("=")
        if not sep:
            raise GameError(f"--option {item!r}: write K=V")
        try:
            out[k.strip()] = json.loads(v)
        except json.JSONDecodeError:
            out[k.strip()] = v
    return out


def _create(args: argparse.Namespace) -> int:
    opened = open_store(args)
    if opened is None:
        return EX_CONFIG
    config, store = opened
    try:
        path = find_scenario(args.scenario)
        scenario = load_file(path)
        zones = dict(z.split("=", 1) for z in args.tz if "=" in z)
        system = resolve_system(scenario.system)
        server_key = load_server_key(config.server_key_path)
        bot = None
        if args.vs:
            if server_key is None:
                raise GameError("--vs bot needs the server's key (it signs the bot's orders)")
            bot = bot_seat("", parse_level(args.vs), server_key)
        seats = _seats(args, system.sides, zones, bot)
        bot_sides = {s.side: parse_level(s.name) for s in seats if bot and s.name == bot.name}
        tables = read_tables(system, args.tables) if args.tables else None
        reminders = tuple(parse_duration(r) for r in (args.reminder or ["12h"]))
        settings = GameSettings(
            turn_time=parse_duration(args.deadline),
            question_time=parse_duration(args.question_deadline),
            grace=parse_duration(args.grace),
            reminders=reminders,
            missed_turn=args.missed_turn,
            forfeit_after=args.forfeit_after,
            bots=tuple(sorted(bot_sides.items())),
            autopilot_level=args.autopilot_level,
        )
        slug = scenario.id.split("-", 2)[-1]
        game_id = args.game_id or f"{slug}-{secrets.token_hex(2)}"
        joins = {side: bot_join(game_id, side, server_key) for side in bot_sides if server_key}
        ctx = create_and_start(
            store,
            config,
            SystemClock(),
            game_id=game_id,
            system_name=scenario.system,
            scenario_id=scenario.id,
            scenario_text=path.read_text(encoding="utf-8"),
            seats=seats,
            settings=settings,
            engine_options=_options(args.option),
            server_key=server_key,
            tables=tables,
            joins=joins,
        )
    except (GameError, ScenarioError, FileNotFoundError, ConfigError, ValueError) as exc:
        _err(str(exc))
        return EX_USAGE
    finally:
        store.dispose()
    _out(f"created {ctx.id} ({scenario.name}): status {ctx.game.status}")
    _out(f"dice commitment {ctx.game.dice_commitment}")
    _out(f"deck commitment {ctx.game.deck_commitment}")
    sha = tables_sha256(ctx.system, ctx.state)
    if sha:
        _out(f"rules tables {sha}" + (f" ({args.tables})" if args.tables else " (bundled)"))
    for side, token in sorted(ctx.invite_tokens.items()):
        _out(
            f"invite token for {side}: {token} (mailed to {ctx.seats[side].player.email}; "
            "it works once, see docs/mail-commands.md)"
        )
    for side, lvl in bot_sides.items():
        _out(f"the bot (level {lvl}) plays {side}: its join and orders are signed by the server")
    if ctx.game.status == "setup":
        _out("waiting for every player's signed join (each player was mailed how to join)")
    return 0


@with_store
def _list(args: argparse.Namespace, config: Config, store: Store) -> int:
    with read_session(store) as session:  # never the write lock the daemon needs
        games = session.exec(select(Game).order_by(col(Game.created_at))).all()
        if not games:
            _out("no games")
        for g in games:
            ctx = load_game(session, g.id)
            assert ctx is not None
            players = ", ".join(f"{s}={seat.player.email}" for s, seat in ctx.seats.items())
            try:
                what = ctx.prompt().text
            except Exception as exc:  # an engine without rules yet must not hide games
                what = f"(engine: {exc})"
            _out(
                f"{g.id:<20} {g.scenario_id:<24} {g.status:<9} epoch {g.epoch:<4} {players}  {what}"
            )
    return 0


@with_store
def _show(args: argparse.Namespace, config: Config, store: Store) -> int:
    with read_session(store) as session:  # never the write lock the daemon needs
        ctx = load_game(session, args.game)
        if ctx is None:
            _err(f"no game called {args.game}")
            return EX_USAGE
        g = ctx.game
        _out(f"game       {g.id} ({g.system}, {g.scenario_id})")
        _out(f"status     {g.status}; state version {g.state_version}; epoch {g.epoch}")
        _out(f"prompt     {ctx.prompt().text}")
        _out(f"summary    {ctx.system.summary(ctx.state)}")
        for side, seat in ctx.seats.items():
            fp = seat.key.fingerprint() if seat.key else "(no key yet)"
            _out(
                f"{side:<10} {seat.player.name} <{seat.player.email}> "
                f"tz {seat.player.time_zone} key {fp}"
            )
        _out(f"dice       commitment {g.dice_commitment}")
        _out(f"deck       commitment {g.deck_commitment}")
        st = ctx.options.settings
        _out(
            f"timing     turn {st.turn_time}, question {st.question_time}, grace "
            f"{st.grace}, reminders {', '.join(str(r) for r in st.reminders) or 'none'}, "
            f"missed turn {st.missed_turn}"
            + (f" after {st.forfeit_after}" if st.missed_turn == "forfeit" else "")
        )
        for side, row in sorted(joined_sides(session, g.id).items()):
            state = (
                f"joined with key {row.key_fingerprint}"
                if row.nonce
                else ("invited, token unused" if row.token_hash else "waiting for its join")
            )
            _out(f"join       {side:<6} {state}")
        if ctx.options.runtime.misses:
            _out(f"missed     {ctx.options.runtime.misses}")
        for d in session.exec(
            select(Deadline)
            .where(col(Deadline.game_id) == g.id)
            .where(col(Deadline.fired).is_(False))
            .order_by(col(Deadline.due_at))
        ).all():
            _out(f"deadline   {d.kind:<9} {d.side or '-':<6} {d.due_at.isoformat()}")
        epochs = session.exec(
            select(DiceEpoch)
            .where(col(DiceEpoch.game_id) == g.id)
            .order_by(col(DiceEpoch.epoch).desc())
            .limit(3)
        ).all()
        for e in epochs:
            _out(
                f"epoch      {e.epoch}: orders {e.orders_hash[:16]}… key "
                f"{(e.revealed_key or '')[:16]}…"
            )
        events = session.exec(
            select(Event).where(col(Event.game_id) == g.id).order_by(col(Event.seq).desc()).limit(8)
        ).all()
        for ev in reversed(events):
            text = json.loads(ev.payload_json).get("text", "")
            _out(f"event      #{ev.seq} e{ev.epoch} {ev.kind} {text}"[:160])
    return 0


def _join(args: argparse.Namespace) -> int:
    opened = open_store(args)
    if opened is None:
        return EX_CONFIG
    config, store = opened
    try:
        found = extract_from_body(Path(args.file).read_text(encoding="utf-8"))
        side = parse_statement(found.text).get("side", "")
        ctx = join_game(
            store,
            config,
            SystemClock(),
            args.game,
            side=side,
            signed=SignedJoin(found.text, found.signature),
            server_key=load_server_key(config.server_key_path),
        )
    except (OSError, UnicodeDecodeError, OrdersMailError, SshSigError) as exc:
        _err(f"{args.file}: {exc}")
        return EX_USAGE
    except (GameError, JoinRefused) as exc:
        _err(str(exc))
        return EX_USAGE
    finally:
        store.dispose()
    _out(f"{args.game}: {side} joined; game {ctx.game.status}")
    return 0


def _pause(args: argparse.Namespace) -> int:
    return _pause_resume(args, pause_it=True)


def _resume(args: argparse.Namespace) -> int:
    return _pause_resume(args, pause_it=False)


def _pause_resume(args: argparse.Namespace, *, pause_it: bool) -> int:
    opened = open_store(args)
    if opened is None:
        return EX_CONFIG
    config, store = opened
    try:
        (pause if pause_it else resume)(
            store, config, SystemClock(), args.game, load_server_key(config.server_key_path)
        )
    except GameError as exc:
        _err(str(exc))
        return EX_USAGE
    finally:
        store.dispose()
    _out(f"{args.game} {'paused' if pause_it else 'resumed'}")
    return 0
