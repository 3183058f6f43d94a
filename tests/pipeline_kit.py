"""Helpers for pipeline tests: a toy game with two keyed players, signed mails, the outbox."""

from __future__ import annotations

import email
import email.policy
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import EmailMessage
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlmodel import col, select

from engine.toy import SYSTEM
from pbem import sshsig
from pbem.clock import FakeClock
from pbem.config import Config
from pbem.mailin.accept import store_message
from pbem.orders_text import canonicalize
from pbem.pipeline.admin import create_and_start
from pbem.pipeline.games import NewSeat
from pbem.pipeline.joins import sign_joins
from pbem.pipeline.processor import Processor
from pbem.pipeline.settings import GameSettings
from pbem.pipeline.systems import register_system
from pbem.scenarios import find_scenario
from pbem.sshsig import SshPublicKey
from pbem.store import Deadline, Game, InboxMessage, InboxSource, OutboxMessage, Store

GAME = "race-1"
NORTH = "ann@north.test"
SOUTH = "bob@south.test"


@dataclass
class Kit:
    """A started toy game and everything needed to mail it."""

    store: Store
    config: Config
    clock: FakeClock
    keys: dict[str, Ed25519PrivateKey]
    processor: Processor
    tokens: dict[str, str] = field(default_factory=dict)  # invite tokens (keyless seats)

    def pub(self, side: str) -> SshPublicKey:
        return sshsig.public_key_of(self.keys[side])

    def game(self) -> Game:
        with self.store.transaction() as s:
            g = s.get(Game, GAME)
            assert g is not None
            return g

    def state(self) -> dict:
        return SYSTEM.from_json(self.game().state_json)

    def set_hand(self, side: str, cards: list[str]) -> None:
        """Test set-up: give ``side`` these cards (before any orders)."""
        with self.store.transaction() as s:
            g = s.get(Game, GAME)
            assert g is not None
            st = SYSTEM.from_json(g.state_json)
            st["hands"][side] = cards
            g.state_json = SYSTEM.to_json(st)
            s.add(g)

    def template(self, side: str) -> str:
        return SYSTEM.orders_template(self.state(), side)

    def deliver(self, raw: bytes, source: str = InboxSource.SMTP) -> int:
        acc = store_message(
            self.store,
            raw,
            source=source,
            clock=self.clock,
            envelope_from="sender@client.test",
            envelope_to=[f"pbem+{GAME}@game.test"],
        )
        return acc.inbox_id

    def process_all(self) -> None:
        with self.store.transaction() as s:
            ids = s.exec(
                select(InboxMessage.id)
                .where(col(InboxMessage.status) == "pending")
                .order_by(col(InboxMessage.id))
            ).all()
        for i in ids:
            assert i is not None
            self.processor.process(i)

    def inbox(self, inbox_id: int) -> InboxMessage:
        with self.store.transaction() as s:
            row = s.get(InboxMessage, inbox_id)
            assert row is not None
            return row

    def outbox(self) -> list[OutboxMessage]:
        with self.store.transaction() as s:
            return list(s.exec(select(OutboxMessage).order_by(col(OutboxMessage.id))).all())

    def new_mail(self, since: int) -> list[OutboxMessage]:
        return [m for m in self.outbox() if (m.id or 0) > since]

    def send(self, raw: bytes) -> tuple[str, str, list[OutboxMessage]]:
        """Deliver and process ``raw``; return its inbox status, outcome and the mail it caused."""
        before = self.last_id()
        i = self.deliver(raw)
        self.process_all()
        row = self.inbox(i)
        assert row.status != "failed", row.outcome
        return row.status, row.outcome, self.new_mail(before)

    def turn_due(self) -> datetime:
        """The due time of the pending (unfired) turn deadline."""
        with self.store.transaction() as s:
            return s.exec(
                select(Deadline.due_at)
                .where(col(Deadline.kind) == "turn")
                .where(col(Deadline.fired).is_(False))
            ).one()

    def last_id(self) -> int:
        rows = self.outbox()
        return rows[-1].id or 0 if rows else 0


def sign_text(
    text: str, key: Ed25519PrivateKey, namespace: str = sshsig.DEFAULT_NAMESPACE
) -> tuple[str, str]:
    canon = canonicalize(text)
    return canon, sshsig.sign(canon.encode("utf-8"), key, namespace=namespace)


_COUNTER = [0]


def mail(
    sender: str,
    text: str,
    *,
    key: Ed25519PrivateKey | None = None,
    subject: str = f"[{GAME}] orders",
    to: str = f"pbem+{GAME}@game.test",
    msgid: str | None = None,
    html_only: bool = False,
    namespace: str = sshsig.DEFAULT_NAMESPACE,
) -> bytes:
    """Build a raw mail; with ``key`` the text is signed inline (in ``namespace``)."""
    _COUNTER[0] += 1
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Message-ID"] = msgid or f"<m{_COUNTER[0]}.{id(text)}@client.test>"
    msg["Date"] = "Thu, 01 Jan 2026 12:00:00 +0000"
    body = text
    if key is not None:
        canon, sig = sign_text(text, key, namespace)
        body = canon + sig
    if html_only:
        msg.set_content(f"<html><body><pre>{body}</pre></body></html>", subtype="html")
    else:
        msg.set_content(body)
    return msg.as_bytes(policy=email.policy.SMTP)


def make_kit(
    store: Store,
    config: Config,
    clock: FakeClock,
    settings: GameSettings | None = None,
    *,
    keyed: bool = True,
) -> Kit:
    register_system(SYSTEM)
    keys = {"north": Ed25519PrivateKey.generate(), "south": Ed25519PrivateKey.generate()}
    seats = [
        NewSeat(
            "north",
            "Ann",
            NORTH,
            sshsig.public_key_of(keys["north"]) if keyed else None,
            "Europe/Paris",
        ),
        NewSeat("south", "Bob", SOUTH, sshsig.public_key_of(keys["south"]) if keyed else None),
    ]
    ctx = create_and_start(
        store,
        config,
        clock,
        game_id=GAME,
        system_name="toy",
        scenario_id="toy-race",
        scenario_text='first = "north"\n',
        seats=seats,
        settings=settings
        or GameSettings(turn_time=timedelta(hours=48), reminders=(timedelta(hours=12),)),
        joins=sign_joins(GAME, keys) if keyed else None,
    )
    return Kit(store, config, clock, keys, Processor(config, store, clock), ctx.invite_tokens)


def second_game(
    kit: Kit, game_id: str, north: str, south: str = "dee@south.test"
) -> dict[str, Ed25519PrivateKey]:
    """Another toy race between two keyed players (both joined) in the kit's database."""
    keys = {"north": Ed25519PrivateKey.generate(), "south": Ed25519PrivateKey.generate()}
    create_and_start(
        kit.store,
        kit.config,
        kit.clock,
        game_id=game_id,
        system_name="toy",
        scenario_id="toy-race",
        scenario_text='first = "north"\n',
        seats=[
            NewSeat(
                "north",
                north.split("@", maxsplit=1)[0].title(),
                north,
                sshsig.public_key_of(keys["north"]),
            ),
            NewSeat(
                "south",
                south.split("@", maxsplit=1)[0].title(),
                south,
                sshsig.public_key_of(keys["south"]),
            ),
        ],
        settings=GameSettings(turn_time=timedelta(hours=48)),
        joins=sign_joins(game_id, keys),  # both players joined (their nonces)
    )
    return keys


def orders(
    kit: Kit, side: str, card: str | None = None, *, turn: int | None = None, game: str = GAME
) -> str:
    st = kit.state()
    card = card or st["hands"][side][0]
    return (
        f"game {game}\nturn {turn if turn is not None else st['turn']}\nside {side}\ncard {card}\n"
    )


_NONCES = [0]


def command(args: str, *, game: str = GAME, nonce: str | None = None) -> str:
    """A command statement (docs/signing.md): game, a fresh one-time nonce, the command."""
    _NONCES[0] += 1
    word = nonce or f"test-nonce-{_NONCES[0]:06d}"
    return f"game: {game}\nnonce: {word}\ncommand {args}\n"


def answer(kit: Kit, side: str, choice: str, *, command_line: bool = False) -> str:
    """An answer statement to the pending question: game, turn, question id, state version."""
    st, game = kit.state(), kit.game()
    head = f"game {GAME}\nturn {st['turn']}\nside {side}\n"
    bind = f"question: {st['pending']['id']}\nstate: {game.state_version}\n"
    return head + bind + ("command answer\n" if command_line else "") + f"answer {choice}\n"


def body_of(row: OutboxMessage) -> str:
    msg = email.message_from_bytes(row.raw, policy=email.policy.default)
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


def start_akragas(
    store: Store,
    config: Config,
    clock: FakeClock,
    game_id: str,
    *,
    seats: list[NewSeat],
    joins: dict[str, Any],
    **more: Any,
) -> Any:
    """An Ancients game of Akragas (cca 001) started between ``seats`` with 48-hour turns,
    the players' ``joins`` signed (``more``: other :func:`create_and_start` arguments)."""
    return create_and_start(
        store,
        config,
        clock,
        game_id=game_id,
        system_name="cca",
        scenario_id="cca-001-akragas",
        scenario_text=find_scenario("001").read_text(encoding="utf-8"),
        seats=seats,
        settings=GameSettings(turn_time=timedelta(hours=48)),
        joins=joins,
        **more,
    )
