"""Helpers for fault tests and end-to-end benchmarks: a real ``pbem serve``, a sink, players.

- :class:`Sink` — the players' mail server (and the smarthost the referee
  sends to): an SMTP server on a loopback port in a thread of its own that
  records every delivery. ``mode`` switches it between accepting, refusing
  (``421`` at connect) and dropping connections.
- :func:`write_config` / :class:`Serve` — a temp config and ``pbem serve`` as
  a subprocess (so it can be SIGKILLed) with its log in a file.
- :func:`create_games` — C&C Ancients games between scripted players with
  their own Ed25519 keys, created straight in the store.
- :func:`orders_mail` — the signed orders mail for the epoch a game is at:
  the engine's random legal play (``engine.cca.autoplay``), seeded by game and
  epoch, so the same epoch always gives the same bytes and Message-ID (a
  re-sent mail is a re-delivery, as from a real MTA).
- :func:`send_until_accepted` — deliver like an MTA: retry until ``250``.
- :func:`summary` — what the store says happened (for the invariant checks).

``bench/e2e_bench.py`` imports this module too (``sys.path`` on ``tests/``).
"""

from __future__ import annotations

import contextlib
import email
import email.policy
import email.utils
import os
import signal
import smtplib
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP as SMTPServer
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlmodel import Session, col, create_engine, select

from pbem import sshsig
from pbem.clock import SystemClock
from pbem.config import load_config
from pbem.orders_text import canonicalize
from pbem.pipeline import load_server_key
from pbem.pipeline.admin import create_and_start
from pbem.pipeline.games import NewSeat, load_game
from pbem.pipeline.joins import sign_joins
from pbem.pipeline.settings import GameSettings
from pbem.scenarios import find_scenario, load_file
from pbem.store import Game, GameStatus, InboxMessage, OutboxMessage, Store

DOMAIN = "pbem.test"
REFEREE = f"referee@{DOMAIN}"
OPERATOR = f"operator@{DOMAIN}"
PLAYER_DOMAIN = "players.test"
REPO = Path(__file__).resolve().parent.parent


def free_port() -> int:
    """Return a loopback TCP port that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Delivery:
    """One mail the sink accepted for one recipient."""

    rcpt: str
    message_id: str
    subject: str
    raw: bytes
    at: float


class _SinkHandler:
    def __init__(self, sink: Sink) -> None:
        self.sink = sink

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.sink.mode == "tempfail":
            return "451 4.3.0 sink: try again later"
        raw = envelope.original_content or envelope.content
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        now = time.time()
        with self.sink.lock:
            for rcpt in envelope.rcpt_tos:
                self.sink.deliveries.append(
                    Delivery(
                        rcpt.lower(),
                        str(msg.get("Message-ID", "")).strip(),
                        str(msg.get("Subject", "")),
                        bytes(raw),
                        now,
                    )
                )
        return "250 2.0.0 OK"


class _SinkSMTP(SMTPServer):  # type: ignore[misc]
    """Refuse or drop a connection at once when the sink says so."""

    def connection_made(self, transport: Any) -> None:
        mode = self._sink.mode
        if mode == "drop":
            transport.abort()
            return
        if mode == "refuse":
            transport.write(b"421 4.3.2 sink: try again later\r\n")
            transport.close()
            return
        super().connection_made(transport)


class _SinkController(Controller):  # type: ignore[misc]
    def __init__(self, sink: Sink, port: int) -> None:
        self._sink = sink
        super().__init__(_SinkHandler(sink), hostname="127.0.0.1", port=port)

    def factory(self) -> SMTPServer:
        server = _SinkSMTP(self.handler, hostname="sink.test", ident="pbem test sink")
        server._sink = self._sink
        return server


class Sink:
    """A loopback SMTP server that records deliveries.

    ``mode``: ``accept``; ``refuse`` (``421`` greeting, then close);
    ``drop`` (reset the connection at once); ``tempfail`` (``451`` after
    DATA). :meth:`down` closes the port (connection refused), :meth:`up`
    opens it again.
    """

    def __init__(self) -> None:
        self.port = free_port()
        self.mode = "accept"
        self.lock = threading.Lock()
        self.deliveries: list[Delivery] = []
        self._controller: _SinkController | None = None

    def start(self) -> Sink:
        self.up()
        return self

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None

    def down(self) -> None:
        self.stop()

    def up(self) -> None:
        if self._controller is None:
            self._controller = _SinkController(self, self.port)
            self._controller.start()

    def message_ids(self) -> list[str]:
        with self.lock:
            return [d.message_id for d in self.deliveries]

    def __enter__(self) -> Sink:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def write_config(
    directory: Path,
    *,
    sink_port: int,
    db_url: str = "",
    listener_port: int | None = None,
    flush_interval: str = "1s",
    listener: bool = True,
    sweep_interval: str = "1s",
) -> Path:
    """Write a pbem.toml for a test daemon under ``directory``; return its path.

    ``sink_port`` 0 means no smarthost: the outbox goes to a Maildir.
    """
    directory.mkdir(parents=True, exist_ok=True)
    port = listener_port or free_port()
    lines = [
        f'data_dir = "{directory / "data"}"',
        "[database]",
        f'url = "{db_url}"',
        "[listener]",
        f"enabled = {'true' if listener else 'false'}",
        'host = "127.0.0.1"',
        f"port = {port}",
        "[mail]",
        f'address = "{REFEREE}"',
        f'operator = "{OPERATOR}"',
        "[smarthost]",
        f'host = "{"127.0.0.1" if sink_port else ""}"',
        f"port = {sink_port or 25}",
        'security = "none"',
        'timeout = "10s"',
        "[outbox]",
        f'flush_interval = "{flush_interval}"',
        'retry_base = "1s"',
        'retry_max = "2s"',
        "[limits]",
        f'inbox_sweep_interval = "{sweep_interval}"',
    ]
    path = directory / "pbem.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


class Serve:
    """``pbem serve --config PATH`` as a subprocess, restartable, killable."""

    def __init__(self, config_path: Path, log_path: Path, *, workers: int = 1) -> None:
        self.config_path = config_path
        self.log_path = log_path
        self.workers = workers
        self.config = load_config(str(config_path))
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def listener(self) -> tuple[str, int]:
        return (self.config.listener.host, self.config.listener.port)

    def start(self, timeout: float = 30.0) -> None:
        """Start the daemon and wait until its listener answers."""
        env = dict(os.environ)
        env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pbem",
                "serve",
                "--config",
                str(self.config_path),
                *(["--workers", str(self.workers)] if self.workers > 1 else []),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
        log.close()
        self.starts += 1
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"pbem serve exited ({self.proc.returncode}); see {self.log_path}"
                )
            with contextlib.suppress(OSError), socket.create_connection(self.listener, timeout=1):
                return
            time.sleep(0.02)
        raise RuntimeError(f"pbem serve did not listen within {timeout} s")

    def kill(self) -> None:
        """SIGKILL the daemon and its workers (no clean-up of any kind) and reap it."""
        if self.proc is not None and self.proc.poll() is None:
            # Its own session (start_new_session): the group is the daemon and its workers.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def stop(self, timeout: float = 20.0) -> int | None:
        """SIGTERM the daemon and wait; return its exit code."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        return self.proc.returncode

    def rss_kib(self, field: str = "VmRSS") -> int:
        """Return the daemon's resident set size in KiB, workers included (0 if not running).

        ``field="VmHWM"``: the peak resident set size of each process so far.
        """
        if self.proc is None or self.proc.poll() is not None:
            return 0
        total = 0
        for pid in self.pids():
            with contextlib.suppress(OSError):
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith(f"{field}:"):
                        total += int(line.split()[1])
        return total

    def pids(self) -> list[int]:
        """The daemon's process and its workers (its process group: it has a session of its own)."""
        if self.proc is None:
            return []
        out = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            with contextlib.suppress(OSError, ValueError, IndexError):
                fields = stat.read_text().rsplit(")", 1)[1].split()
                if int(fields[2]) == self.proc.pid:  # the process group id
                    out.append(int(stat.parent.name))
        return out


@dataclass
class Player:
    side: str
    address: str
    key: Ed25519PrivateKey


@dataclass
class LoadGame:
    """A game and its two scripted players."""

    game_id: str
    players: dict[str, Player] = field(default_factory=dict)


def create_games(
    store: Store, config_path: Path, count: int, *, prefix: str = "g", scenario: str = "001"
) -> list[LoadGame]:
    """Create and start ``count`` games between fresh keyed players; return them."""
    config = load_config(str(config_path))
    config.data_dir.mkdir(parents=True, exist_ok=True)
    key = load_server_key(config.server_key_path)
    path = find_scenario(scenario)
    meta = load_file(path)
    text = path.read_text(encoding="utf-8")
    games = []
    for i in range(count):
        game = LoadGame(f"{prefix}{i:05d}")
        for n, side in enumerate(("north", "south")):
            game.players[side] = Player(
                side, f"p{n}.{game.game_id}@{PLAYER_DOMAIN}", sshsig.generate_private_key()
            )
        create_and_start(
            store,
            config,
            SystemClock(),
            game_id=game.game_id,
            system_name=meta.system,
            scenario_id=meta.id,
            scenario_text=text,
            seats=[
                NewSeat(p.side, f"Player {p.side}", p.address, sshsig.public_key_of(p.key))
                for p in game.players.values()
            ],
            settings=GameSettings(turn_time=timedelta(days=30)),
            server_key=key,
            joins=sign_joins(game.game_id, {p.side: p.key for p in game.players.values()}),
        )
        games.append(game)
    return games


@dataclass
class OrdersMail:
    """A signed orders mail ready to deliver."""

    epoch: int
    message_id: str
    sender: str
    raw: bytes


def orders_mail(store: Store | ReadStore, game: LoadGame) -> OrdersMail | None:
    """Return the signed orders mail for the game's next epoch (None: the game is over)."""
    from engine.cca.autoplay import choice_stream, random_submission
    from pbem.statements import bind_answer

    with store.transaction() as session:
        ctx = load_game(session, game.game_id)
        assert ctx is not None
        if ctx.game.status != GameStatus.ACTIVE:
            return None
        epoch = ctx.game.epoch
        rng = choice_stream(f"{game.game_id}|{epoch}".encode(), "fault-kit")
        side, text = random_submission(ctx.system, ctx.state, rng)
        prompt = ctx.prompt()
        if prompt.question is not None:  # an answer names its question and state
            text = bind_answer(str(text), prompt.question.id, ctx.game.state_version)
    player = game.players[side]
    canon = canonicalize(str(text))
    signature = sshsig.sign(canon.encode("utf-8"), player.key)
    msg = EmailMessage()
    msg["From"] = player.address
    msg["To"] = f"referee+{game.game_id}@{DOMAIN}"
    msg["Subject"] = f"Re: [{game.game_id}] orders"
    message_id = f"<{game.game_id}.e{epoch}.{side}@{PLAYER_DOMAIN}>"
    msg["Message-ID"] = message_id
    # A client's Date and In-Reply-To make two equal texts (the same answer
    # twice) different mails; without them the inbox's body-hash check would
    # take the second for a re-delivery of the first.
    msg["Date"] = email.utils.formatdate()
    msg["In-Reply-To"] = f"<{game.game_id}.epoch{epoch}@{DOMAIN}>"
    msg.set_content(canon + signature)
    return OrdersMail(epoch, message_id, player.address, msg.as_bytes(policy=email.policy.SMTP))


def send_once(listener: tuple[str, int], sender: str, to: str, raw: bytes) -> bool:
    """Try one SMTP delivery; True only on ``250`` after DATA."""
    try:
        with smtplib.SMTP(listener[0], listener[1], timeout=10) as client:
            client.sendmail(sender, [to], raw)
        return True
    except (OSError, smtplib.SMTPException):
        return False


def send_until_accepted(
    listener: tuple[str, int], sender: str, to: str, raw: bytes, *, timeout: float = 60.0
) -> None:
    """Retry like an MTA (every 20 ms here) until the listener answers ``250``."""
    deadline = time.monotonic() + timeout
    while not send_once(listener, sender, to, raw):
        if time.monotonic() > deadline:
            raise TimeoutError("the listener did not accept the mail")
        time.sleep(0.02)


class ReadStore:
    """Read-only store access for the load side, in plain (deferred) transactions.

    ``Store.transaction`` starts with ``BEGIN IMMEDIATE``, i.e. takes SQLite's
    write lock even to read; a load generator polling that way would queue
    behind, and slow down, the daemon it measures. WAL readers never block
    the writer, so the load reads through this instead.
    """

    def __init__(self, url: str) -> None:
        args = {"check_same_thread": False} if url.startswith("sqlite") else {}
        self.engine = create_engine(url, connect_args=args)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Session]:
        # Ending with a commit (nothing written) keeps the objects loaded; a
        # rollback would expire them.
        with Session(self.engine, expire_on_commit=False) as session:
            yield session
            session.commit()

    def dispose(self) -> None:
        self.engine.dispose()


def game_epochs(store: Store | ReadStore) -> dict[str, tuple[int, str]]:
    """Return ``{game id: (epoch, status)}`` in one query."""
    with store.transaction() as session:
        rows = session.exec(select(Game.id, Game.epoch, Game.status)).all()
    return {gid: (epoch, status) for gid, epoch, status in rows}


@dataclass
class StoreSummary:
    inbox: list[InboxMessage]
    outbox: list[OutboxMessage]
    games: dict[str, tuple[int, str]]


def summary(store: Store | ReadStore) -> StoreSummary:
    """Read the inbox, the outbox (raw left out) and every game's epoch."""
    with store.transaction() as session:
        inbox = list(session.exec(select(InboxMessage).order_by(col(InboxMessage.id))).all())
        outbox = list(session.exec(select(OutboxMessage).order_by(col(OutboxMessage.id))).all())
    return StoreSummary(inbox, outbox, game_epochs(store))


def settled(store: Store | ReadStore, sink: Sink | None) -> bool:
    """Say whether every inbox row is done and every outbox row reached the sink."""
    s = summary(store)
    if any(r.status == "pending" for r in s.inbox):
        return False
    if any(r.status == "queued" for r in s.outbox):
        return False
    return sink is None or {r.message_id for r in s.outbox} <= set(sink.message_ids())


def wait_settled(store: Store | ReadStore, sink: Sink | None, timeout: float = 60.0) -> None:
    """Wait (polling the store) until :func:`settled`; raise on timeout."""
    deadline = time.monotonic() + timeout
    while not settled(store, sink):
        if time.monotonic() > deadline:
            raise TimeoutError("the daemon did not settle")
        time.sleep(0.1)
