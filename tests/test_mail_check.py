"""``command check`` by mail (docs/mail-commands.md): a dry run answered to that player only.

A real C&C Ancients game (Akragas) runs through the real pipeline. A check
gets one private reply with the odds (or the problems, as a refusal lists
them) and changes nothing in the game; a stranger gets only the usual note;
checks are rate-limited per turn; and the reply does not depend on the
opponent's hand or the deck order (design.md §2.3).
"""

from __future__ import annotations

import email
import email.policy
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from pipeline_kit import body_of as raw_body_of
from pipeline_kit import mail, start_akragas
from sqlmodel import col, func, select

from engine.systems import get_system
from pbem import sshsig
from pbem.check import OrdersFile, check_orders, format_problems, without_hidden
from pbem.clock import FakeClock
from pbem.config import Config
from pbem.mailin.accept import store_message
from pbem.pipeline import checkmail
from pbem.pipeline.games import NewSeat
from pbem.pipeline.joins import sign_joins
from pbem.pipeline.processor import Processor
from pbem.pipeline.timing import configure
from pbem.statements import CHECK_NAMESPACE
from pbem.store import (
    Deadline,
    DiceEpoch,
    Event,
    Game,
    InboxMessage,
    InboxSource,
    InboxStatus,
    OutboxMessage,
    Store,
)

SYS = get_system("cca")
GAME = "akragas-1"
NORTH = "ann@north.test"
SOUTH = "bob@south.test"

# South (to move first) orders its left flank: the bowmen walk up and shoot.
DRAFT = f"""game {GAME}
turn 1
side south
card 3L
order D2
order D3
move D2 to E3
move D3 to E5
fire E5 at C7
"""
SOUTH_HAND = ["3L", "2C", "2R", "3C", "4C"]
NORTH_HAND = ["2L", "2L", "2C", "LT", "MT"]


class Game1:
    """The started Akragas game, its keys, and a way to mail it."""

    def __init__(self, store: Store, config: Config, clock: FakeClock) -> None:
        configure(config, None)
        self.store, self.clock = store, clock
        self.keys = {"north": Ed25519PrivateKey.generate(), "south": Ed25519PrivateKey.generate()}
        seats = [
            NewSeat("north", "Ann", NORTH, sshsig.public_key_of(self.keys["north"]), "UTC"),
            NewSeat("south", "Bob", SOUTH, sshsig.public_key_of(self.keys["south"]), "UTC"),
        ]
        start_akragas(store, config, clock, GAME, seats=seats, joins=sign_joins(GAME, self.keys))
        self.processor = Processor(config, store, clock)
        self.deal(south=SOUTH_HAND, north=NORTH_HAND)

    def deal(self, **hands: list[str]) -> None:
        """Test set-up: give sides these cards from the deck and their hands (the pool stays)."""
        with self.store.transaction() as s:
            g = s.get(Game, GAME)
            assert g is not None
            data = json.loads(g.state_json)
            pool = list(data["deck"])
            for side in hands:
                pool += data["sides"][side]["hand"]
            for side, cards in hands.items():
                for c in cards:
                    pool.remove(c)
                data["sides"][side]["hand"] = list(cards)
            data["deck"] = pool
            g.state_json = SYS.to_json(SYS.from_json(json.dumps(data)))
            s.add(g)

    def reorder_deck(self) -> None:
        with self.store.transaction() as s:
            g = s.get(Game, GAME)
            assert g is not None
            data = json.loads(g.state_json)
            data["deck"] = data["deck"][::-1]
            g.state_json = SYS.to_json(SYS.from_json(json.dumps(data)))
            s.add(g)

    def snapshot(self) -> dict[str, Any]:
        """Everything a check must leave alone."""
        with self.store.transaction() as s:
            g = s.get(Game, GAME)
            assert g is not None
            return {
                "game": (g.state_json, g.state_version, g.epoch, g.status, g.options_json),
                "updated": g.updated_at,
                "events": s.exec(select(func.count()).select_from(Event)).one(),
                "epochs": s.exec(select(func.count()).select_from(DiceEpoch)).one(),
                "deadlines": [(d.kind, d.due_at, d.fired) for d in s.exec(select(Deadline)).all()],
            }

    def last_id(self) -> int:
        with self.store.transaction() as s:
            return int(s.exec(select(func.max(OutboxMessage.id))).one() or 0)

    def send(self, raw: bytes) -> tuple[InboxMessage, list[OutboxMessage]]:
        """Deliver one mail, process it; return its inbox row and the mails it queued."""
        before = self.last_id()
        acc = store_message(
            self.store,
            raw,
            source=InboxSource.SMTP,
            clock=self.clock,
            envelope_from="sender@client.test",
            envelope_to=[f"pbem+{GAME}@game.test"],
        )
        self.processor.process(acc.inbox_id)
        with self.store.transaction() as s:
            row = s.get(InboxMessage, acc.inbox_id)
            out = s.exec(
                select(OutboxMessage)
                .where(col(OutboxMessage.id) > before)
                .order_by(col(OutboxMessage.id))
            ).all()
            assert row is not None
            return row, list(out)


_TRY = [0]


def check_mail(text: str, sender: str = SOUTH, key: Ed25519PrivateKey | None = None) -> bytes:
    """A check mail; each one differs (a comment line), as the inbox keeps one of a body."""
    _TRY[0] += 1
    return mail(
        sender,
        text + f"command check\n# try {_TRY[0]}\n",
        key=key,
        subject=f"[{GAME}] check",
        to=f"pbem+{GAME}@game.test",
        namespace=CHECK_NAMESPACE,
    )


def body_of(row: OutboxMessage) -> str:
    return raw_body_of(row).replace("\r\n", "\n")


def png_of(row: OutboxMessage) -> bytes | None:
    msg = email.message_from_bytes(row.raw, policy=email.policy.default)
    for part in msg.walk():
        if part.get_content_type() == "image/png":
            data = part.get_payload(decode=True)
            assert isinstance(data, bytes)
            return data
    return None


@pytest.fixture
def game(store: Store, config: Config, clock: FakeClock) -> Game1:
    return Game1(store, config, clock)


def test_the_start_mail_tells_the_mover_about_check(game: Game1) -> None:
    with game.store.transaction() as s:
        start = s.exec(select(OutboxMessage).where(col(OutboxMessage.recipient) == SOUTH)).first()
    assert start is not None and start.kind == "start"
    assert 'a line "command check"' in " ".join(body_of(start).split())


def test_a_check_gets_one_private_reply_with_the_odds_and_changes_nothing(game: Game1) -> None:
    before = game.snapshot()
    row, out = game.send(check_mail(DRAFT))
    assert row.status == InboxStatus.PROCESSED
    assert row.outcome.startswith("check south turn 1:") and "accepted, 1 battle" in row.outcome
    assert row.game_id == GAME
    assert [m.recipient for m in out] == [SOUTH]
    assert out[0].kind == "check"
    body = body_of(out[0])
    assert "OK: the referee would accept these orders" in body
    assert "not signed yet" in body
    assert "line   8  south LB D3: D3 > D4 > E5" in body
    fire = next(line for line in body.splitlines() if line.strip().startswith("9 "))
    assert "LB" in fire and "%" in fire  # the odds table row of line 9 (the fire order)
    assert "The board after the moves" in body
    assert "Checks left this turn: 19 of 20" in body
    png = png_of(out[0])
    assert png is not None and png.startswith(b"\x89PNG")
    assert game.snapshot() == before
    # The draft, signed and mailed without the check line, is then accepted for real.
    row, out = game.send(mail(SOUTH, DRAFT, key=game.keys["south"], subject=f"[{GAME}] orders"))
    assert row.status == InboxStatus.PROCESSED, row.outcome
    assert game.snapshot()["game"][2] == 1  # epoch 1 used by the orders, not by the check


def test_a_signed_check_has_its_signature_checked(game: Game1) -> None:
    row, out = game.send(check_mail(DRAFT, key=game.keys["south"]))
    assert row.status == InboxStatus.PROCESSED, row.outcome
    assert "signature good" in body_of(out[0])
    row, out = game.send(check_mail(DRAFT, key=game.keys["north"]))
    assert row.status == InboxStatus.PROCESSED
    assert "[wrong-key]" in body_of(out[0]) and "NOT ACCEPTED" in body_of(out[0])


def test_an_illegal_draft_gets_the_problems_as_a_refusal_lists_them(game: Game1) -> None:
    bad = DRAFT.replace("move D2 to E3", "move D2 to E9").replace("fire E5 at C7", "fire E5 at K7")
    before = game.snapshot()
    row, out = game.send(check_mail(bad))
    assert row.status == InboxStatus.PROCESSED and row.outcome.startswith("check south turn 1:")
    assert "problems" in row.outcome
    body = body_of(out[0])
    assert "NOT ACCEPTED" in body
    assert "Line 7:\n    | move D2 to E9" in body
    # The very block the refusal mail's text part prints for these problems.
    with game.store.transaction() as s:
        g = s.get(Game, GAME)
        assert g is not None
        state = SYS.from_json(g.state_json)
    report = check_orders(SYS, state, GAME, OrdersFile(Path("o"), bad), side="south")
    assert report.problems and format_problems(report.problems) in body
    # A stale header is refused as the pipeline refuses it.
    row, out = game.send(check_mail(DRAFT.replace("turn 1", "turn 0")))
    assert "[stale]" in body_of(out[0])
    assert game.snapshot() == before


def test_not_your_turn_is_said(game: Game1) -> None:
    row, out = game.send(check_mail(DRAFT.replace("side south", "side north"), sender=NORTH))
    assert row.status == InboxStatus.PROCESSED
    assert [m.recipient for m in out] == [NORTH]
    assert "[not-your-turn]" in body_of(out[0])


def test_a_check_from_an_unknown_sender_gets_only_the_usual_note(game: Game1) -> None:
    before = game.snapshot()
    row, out = game.send(check_mail(DRAFT, sender="eve@evil.test"))
    assert row.status == InboxStatus.REFUSED and "unknown sender" in row.outcome
    assert [m.recipient for m in out] == ["eve@evil.test"]
    assert GAME not in body_of(out[0]) and "%" not in body_of(out[0])
    row, out = game.send(check_mail(DRAFT, sender="eve@evil.test"))
    assert out == []  # rate-limited like any stranger's mail
    assert game.snapshot() == before


def test_checks_are_limited_per_player_and_turn(
    game: Game1, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkmail, "CHECKS_PER_TURN", 3)
    draft = DRAFT.replace("fire E5 at C7\n", "")  # no battle: quicker, same counting
    for left in (2, 1, 0):
        row, out = game.send(check_mail(draft))
        assert row.status == InboxStatus.PROCESSED, row.outcome
        assert out, row.outcome
        assert f"Checks left this turn: {left} of 3" in body_of(out[0])
    # The other player's checks are counted apart.
    row, out = game.send(check_mail(draft.replace("side south", "side north"), sender=NORTH))
    assert row.status == InboxStatus.PROCESSED and len(out) == 1
    row, out = game.send(check_mail(draft))
    assert row.status == InboxStatus.REFUSED and "limit" in row.outcome
    assert [m.recipient for m in out] == [SOUTH] and "limit" in body_of(out[0]).lower()
    for _ in range(2):
        row, out = game.send(check_mail(draft))
        assert row.status == InboxStatus.REFUSED and "no reply" in row.outcome
        assert out == []


def game_state(game: Game1) -> Any:
    with game.store.transaction() as s:
        g = s.get(Game, GAME)
        assert g is not None
        return SYS.from_json(g.state_json)


def _reply(game: Game1) -> tuple[str, str, bytes | None]:
    row, out = game.send(check_mail(DRAFT))
    assert row.status == InboxStatus.PROCESSED and len(out) == 1
    body = "\n".join(
        line for line in body_of(out[0]).splitlines() if not line.startswith("Checks left")
    )
    msg = email.message_from_bytes(out[0].raw, policy=email.policy.default)
    return str(msg["Subject"]), body, png_of(out[0])


def test_the_reply_is_the_same_whatever_the_opponent_holds(game: Game1) -> None:
    with game.store.transaction() as s:
        g = s.get(Game, GAME)
        assert g is not None
        data = json.loads(g.state_json)
    pool = sorted(data["deck"] + data["sides"]["north"]["hand"])
    size = len(data["sides"]["north"]["hand"])
    replies = [_reply(game)]
    states = [game_state(game)]
    # First Strike and a big hand; then the other end of the pool; then the deck reversed.
    hands = [["FS", *[c for c in pool if c != "FS"][: size - 1]], pool[-size:]]
    for hand in hands:
        game.deal(north=hand)
        replies.append(_reply(game))
        states.append(game_state(game))
    game.reorder_deck()
    replies.append(_reply(game))
    states.append(game_state(game))
    # What the check runs on is the same state whatever north holds.
    assert len({SYS.to_json(st) for st in states}) == len(states)
    seen = {SYS.to_json(without_hidden(SYS, st, "south")) for st in states}
    assert len(seen) == 1
    assert "%" in replies[0][1] and "16.7%" in replies[0][1]
    assert all(r == replies[0] for r in replies[1:])
    for _, body, _ in replies:
        for card in ("First Strike",):
            assert card not in body
