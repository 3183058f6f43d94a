"""The turn pipeline on the toy race: accepted orders, refusals, duplicates (design.md §2)."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from pipeline_kit import GAME, NORTH, SOUTH, answer, body_of, mail, make_kit, orders

from pbem.pipeline.processor import Processor
from pbem.store import InboxStatus


@pytest.fixture
def kit(store, config, clock):
    return make_kit(store, config, clock)


def _low_card(kit, side):
    hand = kit.state()["hands"][side]
    low = [c for c in hand if int(c) < 7]
    return low[0] if low else None


def test_game_start_mails_each_player_with_only_their_hand(kit):
    rows = kit.outbox()
    assert sorted(r.recipient for r in rows) == [NORTH, SOUTH]
    st = kit.state()
    for r in rows:
        side = "north" if r.recipient == NORTH else "south"
        other = "south" if side == "north" else "north"
        text = body_of(r)
        assert "Dice commitment" in text and kit.game().dice_commitment in text
        mine = [f"card {c}" for c in st["hands"][side]]
        assert all(m in text for m in mine)
        assert "CET" in text or side == "south"  # Ann's deadline in her zone
        # The other hand never appears as "card N" lines in a hand listing.
        assert (
            f"Your hand:\n  {st['hands'][other][0]}" not in text
            or st["hands"][other][0] in st["hands"][side]
        )


def test_signed_orders_resolve_one_epoch_and_queue_two_mails(kit):
    before = kit.last_id()
    card = _low_card(kit, "north") or kit.state()["hands"]["north"][0]
    inbox = kit.deliver(mail(NORTH, orders(kit, "north", card), key=kit.keys["north"]))
    kit.process_all()
    row = kit.inbox(inbox)
    assert row.status == InboxStatus.PROCESSED, row.outcome
    g = kit.game()
    assert g.epoch == 1 and g.state_version == 1
    new = kit.new_mail(before)
    if int(card) >= 7:
        # only the decider gets the question; the sender an acknowledgement
        got = sorted((m.recipient, m.kind) for m in new)
        assert got == [(NORTH, "accepted"), (SOUTH, "question")]
    else:
        assert sorted(m.recipient for m in new) == [NORTH, SOUTH]
        assert all("Dice key of epoch 1" in body_of(m) for m in new)


def test_redelivery_and_same_signed_text_change_nothing(kit):
    text = orders(kit, "north", _low_card(kit, "north"))
    raw = mail(NORTH, text, key=kit.keys["north"], msgid="<same@client.test>")
    kit.deliver(raw)
    kit.deliver(raw)  # same Message-ID: no second row
    kit.process_all()
    assert kit.game().epoch == 1
    again = kit.deliver(mail(NORTH, text, key=kit.keys["north"], subject=f"[{GAME}] again"))
    kit.process_all()
    assert kit.game().epoch == 1
    assert kit.inbox(again).status == InboxStatus.REFUSED


def test_forged_signature_refused_and_game_does_not_move(kit):
    before = kit.last_id()
    forger = Ed25519PrivateKey.generate()
    i = kit.deliver(mail(NORTH, orders(kit, "north"), key=forger))
    j = kit.deliver(mail(NORTH, orders(kit, "north"), key=kit.keys["south"]))  # opponent's key
    kit.process_all()
    assert kit.game().epoch == 0
    assert kit.inbox(i).status == InboxStatus.REFUSED and "wrong-key" in kit.inbox(i).outcome
    assert "another player's key" in kit.inbox(j).outcome or "wrong-key" in kit.inbox(j).outcome
    replies = kit.new_mail(before)
    assert {r.recipient for r in replies} == {NORTH}  # only ever to the player's own address


def test_stale_and_wrong_game_orders_refused_saying_what_is_expected(kit):
    kit.deliver(mail(NORTH, orders(kit, "north", _low_card(kit, "north")), key=kit.keys["north"]))
    kit.process_all()
    if kit.state()["pending"]:
        pytest.skip("a question is pending")
    before = kit.last_id()
    stale = kit.deliver(mail(SOUTH, orders(kit, "south", turn=1), key=kit.keys["south"]))
    wrong = kit.deliver(mail(SOUTH, orders(kit, "south", game="other-9"), key=kit.keys["south"]))
    kit.process_all()
    assert kit.game().epoch == 1
    assert "stale" in kit.inbox(stale).outcome
    texts = [body_of(r) for r in kit.new_mail(before)]
    assert any("expects orders for turn 2" in " ".join(t.split()) for t in texts)
    assert any(re.search(r"[Ll]ine 2:\s+\|? *turn 1", t) for t in texts)
    assert "wrong-game" in kit.inbox(wrong).outcome


def test_illegal_orders_quote_the_line_and_list_legal_choices(kit):
    st = kit.state()
    bad = next(str(c) for c in range(1, 10) if str(c) not in st["hands"]["north"])
    before = kit.last_id()
    i = kit.deliver(mail(NORTH, orders(kit, "north", bad), key=kit.keys["north"]))
    kit.process_all()
    assert kit.inbox(i).status == InboxStatus.REFUSED
    text = body_of(kit.new_mail(before)[0])
    assert re.search(rf"[Ll]ine 4:\s+\|? *card {bad}", text)
    assert ", ".join(f"card {c}" for c in st["hands"]["north"]) in text
    assert kit.game().epoch == 0


def test_not_your_turn(kit):
    i = kit.deliver(mail(SOUTH, orders(kit, "south"), key=kit.keys["south"]))
    kit.process_all()
    assert "not-your-turn" in kit.inbox(i).outcome
    assert kit.game().epoch == 0


def test_unknown_sender_gets_one_note_per_day(kit, clock):
    from datetime import timedelta

    before = kit.last_id()
    for _ in range(3):
        kit.deliver(mail("eve@evil.test", "hello"))
    kit.process_all()
    notes = kit.new_mail(before)
    assert [n.recipient for n in notes] == ["eve@evil.test"]
    assert GAME not in body_of(notes[0])  # names no game
    clock.advance(timedelta(days=1, minutes=1))
    kit.deliver(mail("eve@evil.test", "hello again"))
    kit.process_all()
    assert len(kit.new_mail(before)) == 2


def test_html_only_gets_a_helpful_reply(kit):
    before = kit.last_id()
    i = kit.deliver(mail(NORTH, orders(kit, "north"), key=kit.keys["north"], html_only=True))
    kit.process_all()
    assert "html-only" in kit.inbox(i).outcome
    assert "plain text" in body_of(kit.new_mail(before)[0])
    assert kit.game().epoch == 0


def test_oversized_and_malformed_mime_refused_with_reply(kit, config):
    small = replace(config, limits=replace(config.limits, max_message_size=20_000))
    kit.processor = Processor(small, kit.store, kit.clock)
    before = kit.last_id()
    big = (
        f"From: {NORTH}\r\nTo: pbem+{GAME}@game.test\r\nSubject: [{GAME}] big\r\n"
        "Message-ID: <big@client.test>\r\n\r\n" + "x" * 70 + "\r\n"
    ) * 1 + ("y" * 70 + "\r\n") * 400
    i = kit.deliver(big.encode())
    broken = (
        f"From: {NORTH}\r\nTo: pbem+{GAME}@game.test\r\nSubject: [{GAME}] x\r\n"
        "Message-ID: <broken@client.test>\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/mixed; boundary="zzz"\r\n\r\n'
        "no boundary here at all\r\n"
    ).encode()
    j = kit.deliver(broken)
    kit.process_all()
    assert "oversized" in kit.inbox(i).outcome
    assert "malformed" in kit.inbox(j).outcome
    assert {r.recipient for r in kit.new_mail(before)} == {NORTH}
    assert kit.game().epoch == 0


def test_header_injection_never_reaches_outgoing_headers(kit):
    before = kit.last_id()
    raw = mail(
        NORTH,
        orders(kit, "north"),
        key=Ed25519PrivateKey.generate(),
        subject=f"[{GAME}] hi PLACEHOLDER",
    )
    raw = raw.replace(b"hi PLACEHOLDER", b"hi\r\n =?utf-8?q?x=0D=0ABcc:_victim@else.test?=")
    raw = raw.replace(b"From: ann@north.test", b"From: ann@north.test\r\nCc: victim@else.test")
    kit.deliver(raw)
    kit.process_all()
    for r in kit.new_mail(before):
        head = r.raw.split(b"\r\n\r\n", 1)[0]
        assert b"victim@else.test" not in head
        assert b"\nBcc:" not in head
        assert r.recipient == NORTH


def test_question_answer_and_turn_mail_carries_whole_turn(kit):
    kit.set_hand("north", ["8", "2", "3"])
    high = ["8"]
    kit.deliver(mail(NORTH, orders(kit, "north", high[0]), key=kit.keys["north"]))
    kit.process_all()
    assert kit.state()["pending"]["side"] == "south"
    before = kit.last_id()
    kit.deliver(mail(SOUTH, answer(kit, "south", "block"), key=kit.keys["south"]))
    kit.process_all()
    assert kit.game().epoch == 2
    new = kit.new_mail(before)
    assert sorted(m.recipient for m in new) == [NORTH, SOUTH]
    assert all("plays" in body_of(m) and "blocks" in body_of(m) for m in new)


def test_each_mail_carries_only_its_recipients_hand(kit, monkeypatch):
    """Design.md §2.3: the mail model of a player holds that player's hand and no other."""
    import pbem.pipeline.mails as mails_module
    from pbem.mailviews.model import GameStart, QuestionMail, TurnMail

    seen = []
    real = mails_module.build

    def spy(view):
        seen.append(view)
        return real(view)

    monkeypatch.setattr(mails_module, "build", spy)
    kit.set_hand("north", ["8", "2", "3"])
    kit.set_hand("south", ["5", "6", "9"])
    kit.deliver(mail(NORTH, orders(kit, "north", "2"), key=kit.keys["north"]))
    kit.process_all()
    hands = kit.state()["hands"]
    views = [v for v in seen if isinstance(v, GameStart | QuestionMail | TurnMail)]
    assert len(views) == 2
    for v in views:
        side = v.env.recipient.side
        assert [c.code for c in v.hand] == hands[side]
        assert v.env.recipient.address == (NORTH if side == "north" else SOUTH)


def test_bounces_and_auto_replies_get_no_reply(kit):
    from pbem.mailin.accept import store_message
    from pbem.store import InboxSource

    before = kit.last_id()
    store_message(
        kit.store,
        mail("mailer-daemon@else.test", "undeliverable"),
        source=InboxSource.SMTP,
        clock=kit.clock,
        envelope_from="",
    )
    auto = mail("eve@evil.test", "I am on holiday").replace(
        b"Subject:", b"Auto-Submitted: auto-replied\r\nSubject:"
    )
    kit.deliver(auto)
    kit.process_all()
    assert kit.new_mail(before) == []


def test_orders_as_orders_txt_and_sig_attachments(kit):
    import email.policy
    from email.message import EmailMessage

    from pbem import sshsig

    kit.set_hand("north", ["2", "3", "4"])
    text = orders(kit, "north", "3").encode()
    msg = EmailMessage()
    msg["From"] = NORTH
    msg["To"] = f"pbem+{GAME}@game.test"
    msg["Subject"] = "my orders"
    msg["Message-ID"] = "<attach-1@client.test>"
    msg.set_content("Orders attached.\n")
    msg.add_attachment(text, maintype="text", subtype="plain", filename="orders.txt")
    msg.add_attachment(
        sshsig.sign(text, kit.keys["north"]).encode(),
        maintype="application",
        subtype="octet-stream",
        filename="orders.txt.sig",
    )
    i = kit.deliver(msg.as_bytes(policy=email.policy.SMTP))
    kit.process_all()
    assert kit.inbox(i).status == InboxStatus.PROCESSED, kit.inbox(i).outcome
    assert kit.game().epoch == 1
