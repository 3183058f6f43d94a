"""Helpers for club tests: a toy club whose members hold keys, scripted results, mail."""

from __future__ import annotations

import email
import email.policy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlmodel import col, select

from engine.toy import SYSTEM
from pbem import sshsig
from pbem.clock import FakeClock
from pbem.clubs import clubs
from pbem.clubs.models import ClubGame
from pbem.config import Config
from pbem.mailin.accept import store_message
from pbem.orders_text import canonicalize
from pbem.pipeline.games import add_key, find_or_add_player, load_game
from pbem.pipeline.joins import SignedJoin, sign_joins
from pbem.pipeline.mails import Mailer
from pbem.pipeline.processor import Processor
from pbem.pipeline.systems import register_system
from pbem.pipeline.turns import Env, finish_game
from pbem.store import GameStatus, InboxMessage, OutboxMessage, Store

CLUB = "c1"
SCENARIO = """format = "pbem-position/1"
system = "toy"
first = "north"
[meta]
id = "toy-race"
name = "A dice race"
"""


@dataclass
class Member:
    id: int
    email: str
    name: str
    key: Ed25519PrivateKey


@dataclass
class ClubKit:
    store: Store
    config: Config
    clock: FakeClock
    scenario: str
    members: list[Member]
    processor: Processor
    by_id: dict[int, Member] = field(default_factory=dict)

    def env_run(self, body: Callable[[Env], object]) -> object:
        with self.store.transaction() as s:
            return body(Env(s, self.config, self.clock, Mailer(s, self.config, self.clock)))

    def signer(self) -> Callable[[str, Mapping[str, int]], Mapping[str, SignedJoin]]:
        """Sign each side's join with its player's key (what each would mail)."""

        def sign(game_id: str, players: Mapping[str, int]) -> Mapping[str, SignedJoin]:
            return sign_joins(game_id, {s: self.by_id[p].key for s, p in players.items()})

        return sign

    def running_games(self) -> list[str]:
        with self.store.transaction() as s:
            rows = s.exec(select(ClubGame).where(col(ClubGame.ended_at).is_(None))).all()
            return [r.game_id for r in rows]

    def finish(self, game_id: str, pick: Callable[[dict[str, int]], str]) -> None:
        """End a game with the side ``pick(side -> player id)`` names (or "draw")."""
        with self.store.transaction() as s:
            env = Env(s, self.config, self.clock, Mailer(s, self.config, self.clock))
            ctx = load_game(s, game_id)
            assert ctx is not None and ctx.game.status == GameStatus.ACTIVE, game_id
            seats = {side: seat.player.id or 0 for side, seat in ctx.seats.items()}
            finish_game(env, ctx, pick(seats), (), reason="scripted result")

    def deliver(self, raw: bytes, to: str) -> int:
        acc = store_message(
            self.store,
            raw,
            source="smtp",
            clock=self.clock,
            envelope_from="sender@client.test",
            envelope_to=[to],
        )
        self.processor.process(acc.inbox_id)
        return acc.inbox_id

    def inbox(self, inbox_id: int) -> InboxMessage:
        with self.store.transaction() as s:
            row = s.get(InboxMessage, inbox_id)
            assert row is not None
            return row

    def outbox(self, since: int = 0) -> list[OutboxMessage]:
        with self.store.transaction() as s:
            return list(
                s.exec(
                    select(OutboxMessage)
                    .where(col(OutboxMessage.id) > since)
                    .order_by(col(OutboxMessage.id))
                ).all()
            )


def make_club(
    store: Store, config: Config, clock: FakeClock, tmp_path: Path, n: int, *, system: str = "toy"
) -> ClubKit:
    """A club of ``n`` members (the first an admin), every member with a key."""
    register_system(SYSTEM)
    path = tmp_path / "toy-race.toml"
    path.write_text(SCENARIO, encoding="utf-8")
    members = []
    with store.transaction() as s:
        club = clubs.create_club(s, CLUB, "Test club", system, clock)
        for i in range(n):
            key = Ed25519PrivateKey.generate()
            address = f"p{i:02d}@club.test"
            player = find_or_add_player(s, address, f"Player {i:02d}", clock)
            add_key(s, player, sshsig.public_key_of(key), clock)
            s.flush()
            clubs.add_member(s, club, player, clock, admin=i == 0)
            assert player.id is not None
            members.append(Member(player.id, address, player.name, key))
    kit = ClubKit(store, config, clock, str(path), members, Processor(config, store, clock))
    kit.by_id = {m.id: m for m in members}
    return kit


_COUNT = [0]


def signed_mail(
    sender: str, text: str, key: Ed25519PrivateKey | None, to: str, subject: str = "club"
) -> bytes:
    """A raw mail; with ``key`` the text is signed inline (namespace pbem-orders)."""
    _COUNT[0] += 1
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Message-ID"] = f"<club{_COUNT[0]}@client.test>"
    body = text
    if key is not None:
        canon = canonicalize(text)
        body = canon + sshsig.sign(canon.encode("utf-8"), key)
    msg.set_content(body)
    return msg.as_bytes(policy=email.policy.SMTP)


def body_of(row: OutboxMessage) -> str:
    msg = email.message_from_bytes(row.raw, policy=email.policy.default)
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())
