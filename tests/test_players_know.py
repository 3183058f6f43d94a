"""What a player needs to know, by mail (issue 14): rules, cards, First Strike, the end, dice.

A C&C Ancients game (Akragas) played by mail: ``command cards`` explains
each card of the sender's own hand; ``command rules`` the battle's special
rules and unit types, ``command rules MI`` one topic; the start mail states
the First Strike standing order and how to change it; after ``resign`` the
end mail says who resigned and the final score; a roll is one line.
"""

from __future__ import annotations

import email
import email.policy

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from mail_lint import lint_raw_or_raise
from pipeline_kit import mail, start_akragas
from sqlmodel import col, select

from engine.cca.cards import CARDS
from engine.cca.rules_text import CARD_TEXT, UNIT_TEXT
from engine.systems import get_system
from pbem import sshsig
from pbem.mailin.accept import store_message
from pbem.pipeline.games import NewSeat
from pbem.pipeline.joins import sign_joins
from pbem.pipeline.processor import Processor
from pbem.store import Game, InboxSource, OutboxMessage

GAME = "ak-1"
ADDR = {"north": "hamilcar@x.test", "south": "dionysius@y.test"}


class Table:
    def __init__(self, store, config, clock) -> None:
        self.store, self.config, self.clock = store, config, clock
        self.keys = {s: Ed25519PrivateKey.generate() for s in ADDR}
        seats = [
            NewSeat(s, s.title(), a, sshsig.public_key_of(self.keys[s]), "UTC")
            for s, a in ADDR.items()
        ]
        # both players joined (their nonces)
        start_akragas(store, config, clock, GAME, seats=seats, joins=sign_joins(GAME, self.keys))
        self.processor = Processor(config, store, clock)
        self.seen = 0

    def rows(self) -> list[OutboxMessage]:
        with self.store.transaction() as s:
            rows = s.exec(
                select(OutboxMessage)
                .where(col(OutboxMessage.id) > self.seen)
                .order_by(col(OutboxMessage.id))
            ).all()
        if rows:
            self.seen = rows[-1].id or self.seen
        for row in rows:
            lint_raw_or_raise(row.raw, f"{row.kind} to {row.recipient}")
        return list(rows)

    def send(self, side: str, text: str, *, signed: bool = False) -> list[OutboxMessage]:
        self.rows()
        raw = mail(ADDR[side], text, key=self.keys[side] if signed else None, subject=f"[{GAME}] x")
        acc = store_message(
            self.store,
            raw,
            source=InboxSource.SMTP,
            clock=self.clock,
            envelope_to=[f"pbem+{GAME}@game.test"],
        )
        self.processor.process(acc.inbox_id)
        return self.rows()

    def state(self):
        with self.store.transaction() as s:
            g = s.get(Game, GAME)
            assert g is not None
            return get_system("cca").from_json(g.state_json)


def text(row: OutboxMessage) -> str:
    msg = email.message_from_bytes(row.raw, policy=email.policy.default)
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return " ".join(str(part.get_content()).split())


@pytest.fixture
def table(store, config, clock) -> Table:
    return Table(store, config, clock)


def test_cards_explains_each_card_of_the_senders_hand_only(table: Table) -> None:
    (reply,) = table.send("north", f"game {GAME}\ncommand cards\n")
    assert reply.recipient == ADDR["north"]
    said = text(reply)
    st = table.state()
    for code in st.sides["north"].hand:
        assert " ".join(CARD_TEXT[code].split()) in said, code
    for code in set(st.sides["south"].hand) - set(st.sides["north"].hand):
        assert f"{code}: {CARDS[code].name}" not in said


def test_rules_gives_special_rules_unit_types_and_first_strike(table: Table) -> None:
    (reply,) = table.send("south", f"game {GAME}\ncommand rules\n")
    said = text(reply)
    assert "This battle's special rules:" in said
    assert "The unit types on the board:" in said and UNIT_TEXT["MI"] in said
    assert "first-strike:" in said and "default: never" in said
    (one,) = table.send("south", f"game {GAME}\ncommand rules HI\n")
    assert UNIT_TEXT["HI"] in text(one)
    (bad,) = table.send("south", f"game {GAME}\ncommand rules unicorns\n")
    assert "no rules help on 'unicorns'" in text(bad)


def test_a_scenario_special_rule_is_told_in_plain_words() -> None:
    from engine.cca.rules_text import special_text

    said = special_text("exit-banner", {"side": "south", "hexes": ["E9", "F9"], "banners": 1})
    assert said == (
        "A unit of south that moves off the board beyond E9, F9 leaves the battle "
        "and scores 1 banner(s)."
    )


def test_the_start_mail_states_first_strike_and_how_to_change_it(store, config, clock) -> None:
    t = Table(store, config, clock)
    starts = [r for r in t.rows() if r.kind == "start"]
    assert len(starts) == 2
    for row in starts:
        said = text(row)
        assert "first-strike: never" in said
        assert "for example 'standing evade: ask'" in said  # (its own first line)
        assert "Standing order 'first-strike' (default: never)" in said


def test_after_resign_the_end_mail_says_who_resigned_and_the_score(table: Table) -> None:
    rows = table.send(
        "south", f"game {GAME}\nnonce: resign-{GAME}-1\ncommand resign\n", signed=True
    )
    ends = [r for r in rows if r.kind == "end"]
    assert sorted(r.recipient for r in ends) == sorted(ADDR.values())
    for row in ends:
        said = text(row)
        assert "is over after turn 1: Syracusan (south) resigned; Carthaginian (north) wins" in (
            said
        )
        assert "Final score: Carthaginian (north) 0 banners, Syracusan (south) 0 banners" in said
        subject = email.message_from_bytes(row.raw, policy=email.policy.default)["Subject"]
        won = row.recipient == ADDR["north"]
        assert subject == f"[{GAME}] Turn 1: game over, you {'won' if won else 'lost'} " + (
            "(south resigned)"
        )


def test_a_roll_is_one_line_of_faces_and_hits() -> None:
    from pbem.mailviews.format import roll_line
    from pbem.pipeline.mails import narrative

    (fire,) = narrative(
        [
            {
                "kind": "fire",
                "text": "north LI I7 fires at south MC J5 with 3 dice: B H F",
                "data": {"hits": 1, "flags": 1},
                "dice": ["B", "H", "F"],
            }
        ]
    )
    assert roll_line(fire) == "B H F (blue triangle, helmet, flag): 1 hit, 1 flag"
