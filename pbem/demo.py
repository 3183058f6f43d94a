"""``pbem demo``: a whole game between two scripted players, over real SMTP on loopback.

:func:`run_demo` starts, in one asyncio loop and a directory of its own:

- a local SMTP sink on a loopback port (aiosmtpd) that plays the players'
  mail server: every mail the referee sends lands there and is saved as an
  ``.eml`` file under ``<dir>/mails``;
- the referee daemon (:class:`pbem.daemon.Daemon`) on embedded defaults: a
  SQLite store in ``<dir>/data``, its SMTP listener on another loopback port,
  its outbox pointed at the sink;
- two scripted players with fresh Ed25519 keys. Each reads its own mail from
  the sink; when the invitation comes (after the referee committed to its
  dice and deck) it signs a join statement with a fresh random nonce and
  mails it; when a mail holds an orders template for its side (or says its
  orders were not accepted) it picks legal orders — the game system's
  ``autoplay`` capability, random but seeded — signs them with pbem's
  SSHSIG code (namespace ``pbem-orders``) and sends them with aiosmtplib to
  the daemon's listener, replying in the game's thread.

The players read the game's state from the store to choose their orders (a
demo shortcut for "looking at the board in the mail"); everything else goes
through mail. The game runs until it ends or ``max_epochs`` epochs pass.
"""

from __future__ import annotations

import asyncio
import contextlib
import email
import email.policy
import hashlib
import logging
import re
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import aiosmtplib
from aiosmtpd.smtp import SMTP as SMTPServer
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine.core.capabilities import AUTOPLAY, find
from pbem import sshsig
from pbem.clock import SystemClock
from pbem.config import Config, config_from_dict
from pbem.daemon import Daemon
from pbem.orders_text import canonicalize
from pbem.pipeline.admin import audit_record, create_and_start
from pbem.pipeline.games import NewSeat, load_game
from pbem.pipeline.joins import join_statement
from pbem.pipeline.settings import GameSettings
from pbem.pipeline.systems import resolve_system
from pbem.scenarios import find_scenario, scenario_entry
from pbem.server_key import ServerKey
from pbem.statements import bind_answer, fresh_nonce
from pbem.store import Game, GameStatus, Store, migrate, read_session
from pbem.tablefile import read_tables

log = logging.getLogger(__name__)

__all__ = ["DemoResult", "Policy", "run_demo"]

Policy = Callable[[Any, Any, str, int], str]
"""``(system, state, side, attempt) -> orders text`` for the side that must act."""

DOMAIN = "pbem.demo"
REFEREE = f"referee@{DOMAIN}"
NAMES = ("Hamilcar", "Dionysius", "Xanthippus", "Mago")
"""The scripted players' names, by seat (the system's sides in order)."""


def demo_players(sides: Sequence[str]) -> dict[str, tuple[str, str]]:
    """Side -> (name, address) for the scripted players."""
    if len(sides) > len(NAMES):
        raise ValueError(f"the demo seats at most {len(NAMES)} players")
    return {
        side: (name, f"{name.lower()}@{DOMAIN}") for side, name in zip(sides, NAMES, strict=False)
    }


_TEMPLATE_TURN = re.compile(r"^turn (\d+)\s*$", re.MULTILINE)
_TEMPLATE_SIDE = re.compile(r"^side (\w+)\s*$", re.MULTILINE)


@dataclass
class DemoResult:
    """What a demo run did."""

    game_id: str
    finished: bool
    winner: str | None
    turns: int
    epochs: int
    mails_to_players: int
    mails_from_players: int
    refused: int
    mails_dir: Path
    audit: str
    message: str = ""


@dataclass
class _Sink:
    """The players' mail server: stores each mail, saves it as .eml, wakes the addressee."""

    directory: Path
    queues: dict[str, asyncio.Queue[EmailMessage]]
    count: int = 0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        raw = envelope.original_content or envelope.content
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        for rcpt in envelope.rcpt_tos:
            self.count += 1
            who = rcpt.split("@")[0]
            (self.directory / f"{self.count:04d}-to-{who}.eml").write_bytes(raw)
            message = email.message_from_bytes(raw, policy=email.policy.default)
            assert isinstance(message, EmailMessage)
            queue = self.queues.get(rcpt.lower())
            if queue is not None:
                queue.put_nowait(message)
        return "250 2.0.0 OK"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def demo_config(directory: Path, sink_port: int) -> Config:
    """The embedded configuration: store and keys under ``directory``, mail on loopback."""
    return config_from_dict(
        {
            "data_dir": str(directory / "data"),
            "listener": {"host": "127.0.0.1", "port": _free_port()},
            "mail": {
                "address": REFEREE,
                "operator": f"operator@{DOMAIN}",
                "from_name": "pbem demo referee",
            },
            "smarthost": {
                "host": "127.0.0.1",
                "port": sink_port,
                "security": "none",
                "timeout": "10s",
            },
            "outbox": {"flush_interval": "1s", "retry_base": "1s", "retry_max": "2s"},
            "limits": {"inbox_sweep_interval": "1s"},
        },
        base=directory,
    )


def autoplay_policy(seed: int) -> Policy:
    """Random legal orders from the system's autoplayer, seeded per turn, side and attempt."""

    def policy(system: Any, state: Any, side: str, attempt: int) -> str:
        player = find(system, AUTOPLAY)
        if player is None:
            raise ValueError(f"system {system.name!r} has no autoplayer")
        turn = system.prompt(state).turn
        return player.orders(state, f"{seed}|{side}|{turn}|{attempt}".encode(), f"demo-{side}")

    return policy


def _text_of(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    return str(part.get_content()) if isinstance(part, EmailMessage) else ""


@dataclass
class _Player:
    side: str
    name: str
    address: str
    key: Ed25519PrivateKey
    inbox: asyncio.Queue[EmailMessage] = field(default_factory=asyncio.Queue)
    sent: int = 0
    refused: int = 0
    attempts: dict[int, int] = field(default_factory=dict)


async def _play(
    player: _Player,
    *,
    store: Store,
    game_id: str,
    listener: tuple[str, int],
    policy: Policy,
    done: asyncio.Event,
    max_epochs: int,
    resign_at: int | None = None,
) -> None:
    """Read mail, act when asked, until the game ends (or ``done`` is set).

    ``resign_at``: from that epoch on, the side to move resigns (a signed
    ``command resign``) instead of giving orders, so a short game ends.
    """
    while not done.is_set():
        message = await player.inbox.get()
        subject = str(message.get("Subject", ""))
        text = _text_of(message)
        if "over" in subject.lower() and "game" in subject.lower():
            continue
        if f"Join game {game_id} as {player.side}" in subject:
            # The referee committed to its dice and deck; now the player's own share.
            statement = join_statement(game_id, player.side)
            await _send(
                player,
                game_id=game_id,
                listener=listener,
                answering=message,
                text=statement,
                what="join",
            )
            continue
        asked = _TEMPLATE_SIDE.search(text)
        refused = "not accepted" in subject or "Refused" in subject
        if refused:
            player.refused += 1
        if not refused and (asked is None or asked.group(1) != player.side):
            continue
        with read_session(store) as session:
            ctx = load_game(session, game_id)
            assert ctx is not None
            status, epoch = ctx.game.status, ctx.game.epoch
            version = ctx.game.state_version
            prompt = ctx.prompt()
            state = ctx.state
            system = ctx.system
        if status != GameStatus.ACTIVE or prompt.side != player.side or epoch >= max_epochs:
            continue
        turn_match = _TEMPLATE_TURN.search(text)
        if not refused and turn_match and int(turn_match.group(1)) != prompt.turn:
            continue  # an old mail: the game has moved on
        if resign_at is not None and epoch >= resign_at and prompt.kind == "orders":
            resign = f"game {game_id}\nnonce: {fresh_nonce()}\ncommand resign\n"
            await _send(
                player,
                game_id=game_id,
                listener=listener,
                answering=message,
                text=resign,
                what="resign",
            )
            return
        attempt = player.attempts.get(epoch, 0)
        player.attempts[epoch] = attempt + 1
        if attempt >= 5:
            log.error("demo: %s could not find orders the referee accepts", player.side)
            done.set()
            return
        orders = policy(system, state, player.side, attempt)
        if prompt.question is not None:  # an answer names its question and state
            orders = bind_answer(orders, prompt.question.id, version)
        await _send(
            player,
            game_id=game_id,
            listener=listener,
            answering=message,
            text=orders,
            what=f"orders for turn {prompt.turn}",
        )


async def _send(
    player: _Player,
    *,
    game_id: str,
    listener: tuple[str, int],
    answering: EmailMessage,
    text: str,
    what: str,
) -> None:
    """Sign ``text`` with the player's key and mail it to the referee, in the game's thread."""
    text = canonicalize(text)
    signature = sshsig.sign(text.encode("utf-8"), player.key)
    reply = EmailMessage()
    reply["From"] = f"{player.name} <{player.address}>"
    reply["To"] = f"referee+{game_id}@{DOMAIN}"
    reply["Subject"] = f"Re: [{game_id}] {what}"
    reply["Message-ID"] = (
        f"<{game_id}.{player.side}.{player.sent}."
        f"{hashlib.sha256(text.encode()).hexdigest()[:8]}@{DOMAIN}>"
    )
    previous = str(answering.get("Message-ID", "")).strip()
    if previous:
        reply["In-Reply-To"] = previous
    reply.set_content(text + signature)
    await aiosmtplib.send(reply, hostname=listener[0], port=listener[1], timeout=10)
    player.sent += 1


async def run_demo(
    directory: Path,
    *,
    seed: int = 7,
    scenario: str = "001",
    max_epochs: int = 400,
    timeout: float = 120.0,
    policy: Policy | None = None,
    game_id: str | None = None,
    progress: Callable[[str], None] | None = None,
    resign_at: int | None = None,
    tables: Path | None = None,
) -> DemoResult:
    """Play one scripted game end to end (see the module docstring); return the summary.

    ``resign_at``: the side to move resigns once that many epochs are played
    (a short game that still ends, so its deck is revealed and audited).
    ``tables``: a club's rules tables file the game is played on (docs/tables.md);
    raises :class:`pbem.tablefile.TablesFileError` if it does not fit the system.
    """
    directory.mkdir(parents=True, exist_ok=True)
    mails_dir = directory / "mails"
    mails_dir.mkdir(exist_ok=True)
    path = find_scenario(scenario)
    text = path.read_text(encoding="utf-8")
    meta = scenario_entry(text, path)
    club = read_tables(resolve_system(meta.system), tables) if tables is not None else None
    players = {
        side: _Player(side, name, address, sshsig.generate_private_key())
        for side, (name, address) in demo_players(resolve_system(meta.system).sides).items()
    }
    sink = _Sink(mails_dir, {p.address: p.inbox for p in players.values()})
    loop = asyncio.get_running_loop()
    sink_server = await loop.create_server(
        lambda: SMTPServer(sink, hostname="sink.pbem.demo", ident="demo sink"), "127.0.0.1", 0
    )
    sink_port = int(sink_server.sockets[0].getsockname()[1])
    config = demo_config(directory, sink_port)
    config.data_dir.mkdir(parents=True, exist_ok=True)
    migrate(config.database_url)
    store = Store(config.database_url)
    if policy is None:
        policy = autoplay_policy(seed)
    if game_id is None:  # cca-001-akragas -> akragas-demo
        game_id = f"{meta.id.split('-', 2)[-1]}-demo"
    clock = SystemClock()
    daemon = Daemon(config, clock=clock, store=store)
    done = asyncio.Event()
    tasks: list[asyncio.Task[None]] = []
    message = ""
    server_key: ServerKey | None = None
    try:
        await daemon.start()
        server_key = getattr(daemon.processor, "server_key", None)
        create_and_start(
            store,
            config,
            clock,
            game_id=game_id,
            system_name=meta.system,
            scenario_id=meta.id,
            scenario_text=text,
            seats=[
                NewSeat(side, p.name, p.address, sshsig.public_key_of(p.key))
                for side, p in players.items()
            ],
            settings=GameSettings(turn_time=timedelta(hours=72)),
            server_key=server_key,
            tables=club,
        )
        daemon.outbox.request_flush()
        if progress:
            progress(f"game {game_id} created ({meta.name}); players are playing...")
        listener = (config.listener.host, config.listener.port)
        tasks = [
            asyncio.create_task(
                _play(
                    p,
                    store=store,
                    game_id=game_id,
                    listener=listener,
                    policy=policy,
                    done=done,
                    max_epochs=max_epochs,
                    resign_at=resign_at,
                )
            )
            for p in players.values()
        ]
        message = await _watch(
            store, game_id, done, timeout=timeout, max_epochs=max_epochs, progress=progress
        )
        # Let the last mails (game over) reach the sink.
        for _ in range(50):
            await daemon.outbox.flush()
            if sink.count >= 2 and _all_sent(store):
                break
            await asyncio.sleep(0.1)
    finally:
        done.set()
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        await daemon.stop()
        sink_server.close()
        await sink_server.wait_closed()
    return _summary(
        store,
        game_id,
        players,
        sink=sink,
        mails_dir=mails_dir,
        message=message,
        server_key=server_key,
    )


def _all_sent(store: Store) -> bool:
    from sqlmodel import col, select  # noqa: PLC0415

    from pbem.store import OutboxMessage, OutboxStatus  # noqa: PLC0415

    with read_session(store) as session:
        left = session.exec(
            select(OutboxMessage.id).where(col(OutboxMessage.status) == OutboxStatus.QUEUED)
        ).first()
    return left is None


async def _watch(
    store: Store,
    game_id: str,
    done: asyncio.Event,
    *,
    timeout: float,
    max_epochs: int,
    progress: Callable[[str], None] | None,
) -> str:
    """Wait until the game ends, stalls, hits the cap, or the time is up; say which."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    last_epoch, last_change = -1, start
    while True:
        await asyncio.sleep(0.05)
        with read_session(store) as session:
            game = session.get(Game, game_id)
            assert game is not None
            status, epoch = game.status, game.epoch
        now = loop.time()
        if epoch != last_epoch:
            last_epoch, last_change = epoch, now
            if progress and epoch and epoch % 10 == 0:
                progress(f"  epoch {epoch}...")
        if status == GameStatus.FINISHED:
            return "the game is over"
        if done.is_set():
            return "a scripted player gave up (see the log)"
        if epoch >= max_epochs:
            return f"stopped at the cap of {max_epochs} epochs; the game did not end"
        if now - start > timeout:
            return f"stopped after {timeout:.0f} s; the game did not end"
        if now - last_change > 20:
            return "no progress for 20 s; stopped (see the daemon log)"


def _summary(
    store: Store,
    game_id: str,
    players: dict[str, _Player],
    *,
    sink: _Sink,
    mails_dir: Path,
    message: str,
    server_key: ServerKey | None,
) -> DemoResult:
    from pbem.audit import check_record, parse_record  # noqa: PLC0415

    with store.transaction() as session:
        ctx = load_game(session, game_id)
        assert ctx is not None
        finished = ctx.game.status == GameStatus.FINISHED
        prompt = ctx.prompt()
        epochs = ctx.game.epoch
    try:
        if server_key is None:
            raise ValueError("the referee has no key to sign the audit record with")
        audit = check_record(parse_record(audit_record(store, game_id, server_key))).describe()
    except Exception as exc:
        audit = f"FAIL {exc}"
    store.dispose()
    return DemoResult(
        game_id=game_id,
        finished=finished,
        winner=prompt.result if prompt.kind == "over" else None,
        turns=prompt.turn,
        epochs=epochs,
        mails_to_players=sink.count,
        mails_from_players=sum(p.sent for p in players.values()),
        refused=sum(p.refused for p in players.values()),
        mails_dir=mails_dir,
        audit=audit,
        message=message,
    )


def check_system(name: str = "cca") -> str | None:
    """Return why system ``name`` cannot play a demo game, or None if it can."""
    try:
        system = resolve_system(name)
        if find(system, AUTOPLAY) is None:
            return f"system {name!r} has no autoplayer: the scripted players cannot play it"
    except (ImportError, KeyError, TypeError) as exc:
        return f"the engine is not ready: {exc}"
    return None
