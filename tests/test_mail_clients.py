"""Orders as real mail programs send them (issue 14): any X + X.sig pair, changed text explained.

A player signs a file with ``ssh-keygen -Y sign`` and mails it. Mail
programs attach it under its own name, convert line ends, keep or strip a
trailing space, send ``format=flowed``, wrap long lines or leave a
quoted-printable ``=`` behind. What canonicalises to the signed text is
accepted; what changed the text is refused with the line and the cause,
and how to attach the signed file instead.
"""

from __future__ import annotations

import email.policy
from email.message import EmailMessage

import pytest
from mail_lint import lint_raw_or_raise
from pipeline_kit import GAME, NORTH, body_of, make_kit, orders

from pbem import sshsig
from pbem.mailin.accept import store_message
from pbem.store import InboxSource, InboxStatus

LONG = "# " + "this comment is long enough that a mail program wraps it " * 2 + "here\n"


@pytest.fixture
def kit(store, config, clock):
    k = make_kit(store, config, clock)
    k.set_hand("north", ["2", "3", "4"])
    yield k
    for row in k.outbox():  # every mail these tests made passes the mail lint
        lint_raw_or_raise(row.raw, f"{row.kind} mail to {row.recipient}")


def _message(body: str = "Orders attached.\n") -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = NORTH
    msg["To"] = f"pbem+{GAME}@game.test"
    msg["Subject"] = "my orders"
    msg["Message-ID"] = f"<client-{abs(hash(body))}@client.test>"
    msg.set_content(body)
    return msg


def _send(kit, msg: EmailMessage) -> tuple[str, str]:
    before = kit.last_id()
    i = kit.deliver(msg.as_bytes(policy=email.policy.SMTP))
    kit.process_all()
    row = kit.inbox(i)
    replies = [body_of(m) for m in kit.new_mail(before) if m.recipient == NORTH]
    return row.status, (row.outcome + "\n" + "\n".join(replies))


def _sign(kit, data: bytes) -> str:
    return sshsig.sign(data, kit.keys["north"])


def test_any_attached_pair_x_and_x_sig_is_read(kit) -> None:
    data = orders(kit, "north", "3").encode()
    msg = _message()
    msg.add_attachment(data, maintype="text", subtype="plain", filename="turn-1 orders.txt")
    msg.add_attachment(
        _sign(kit, data).encode(), "application", "octet-stream", filename="turn-1 orders.txt.sig"
    )
    status, said = _send(kit, msg)
    assert status == InboxStatus.PROCESSED, said
    assert kit.game().epoch == 1


def test_a_sig_without_its_file_names_the_file(kit) -> None:
    data = orders(kit, "north", "3").encode()
    msg = _message()
    msg.add_attachment(
        _sign(kit, data).encode(), "application", "octet-stream", filename="mine.txt.sig"
    )
    status, said = _send(kit, msg)
    assert status == InboxStatus.REFUSED
    assert "mine.txt.sig is attached but mine.txt is not" in said


def test_an_attachment_whose_line_ends_became_crlf_is_accepted(kit) -> None:
    data = orders(kit, "north", "3").encode()
    msg = _message()
    msg.add_attachment(
        data.replace(b"\n", b"\r\n"), "application", "octet-stream", filename="orders.txt"
    )
    msg.add_attachment(
        _sign(kit, data).encode(), "application", "octet-stream", filename="orders.txt.sig"
    )
    status, said = _send(kit, msg)
    assert status == InboxStatus.PROCESSED, said


def test_pasted_text_with_trailing_spaces_as_signed_is_accepted(kit) -> None:
    signed = orders(kit, "north", "3").replace("card 3\n", "card 3   \n")
    msg = _message(signed + _sign(kit, signed.encode()))
    status, said = _send(kit, msg)
    assert status == InboxStatus.PROCESSED, said


def test_a_flowed_body_whose_signed_file_had_a_trailing_space_is_accepted(kit) -> None:
    signed = orders(kit, "north", "3").replace("side north\n", "side north \n")
    msg = _message(signed + _sign(kit, signed.encode()))
    msg.set_param("format", "flowed")  # "side north " now reads as a soft break
    status, said = _send(kit, msg)
    assert status == InboxStatus.PROCESSED, said


def test_a_wrapped_line_is_named_with_the_way_out(kit) -> None:
    signed = orders(kit, "north", "3") + LONG
    cut = LONG.rindex(" ", 0, 70)
    wrapped = orders(kit, "north", "3") + LONG[:cut] + "\n" + LONG[cut + 1 :]
    status, said = _send(kit, _message(wrapped + _sign(kit, signed.encode())))
    assert status == InboxStatus.REFUSED
    assert "wrapped a long line: line 6" in said and "is the end of line 5" in said
    assert "attach the file you signed" in said.replace("\n", " ")
    assert kit.game().epoch == 0


def test_a_quoted_printable_soft_break_left_in_is_named(kit) -> None:
    signed = orders(kit, "north", "3") + LONG
    cut = 60
    broken = orders(kit, "north", "3") + LONG[:cut] + "=\n" + LONG[cut:]
    status, said = _send(kit, _message(broken + _sign(kit, signed.encode())))
    assert status == InboxStatus.REFUSED
    assert "line 5 ends in '='" in said and "soft line break" in said


def test_an_unknown_change_lists_the_likely_causes(kit) -> None:
    signed = orders(kit, "north", "3") + LONG
    changed = signed.replace("side north", "side  north")
    status, said = _send(kit, _message(changed + _sign(kit, signed.encode())))
    assert status == InboxStatus.REFUSED
    flat = " ".join(said.split())
    assert "changed after signing" in flat and "line 5 is longer than 72 characters" in flat
    assert "a space at the end of a line" in flat and "attach the file you signed" in flat


def _second_game(kit) -> None:
    from datetime import timedelta

    from pipeline_kit import SOUTH

    from pbem.pipeline.admin import create_and_start
    from pbem.pipeline.games import NewSeat
    from pbem.pipeline.settings import GameSettings

    create_and_start(
        kit.store,
        kit.config,
        kit.clock,
        game_id="race-2",
        system_name="toy",
        scenario_id="toy-race",
        scenario_text='first = "south"\n',
        seats=[
            NewSeat("north", "Ann", NORTH, kit.pub("north"), "Europe/Paris"),
            NewSeat("south", "Bob", SOUTH, kit.pub("south")),
        ],
        settings=GameSettings(turn_time=timedelta(hours=48)),
    )


def test_help_to_the_plain_address_from_a_player_of_two_games_is_answered(kit) -> None:
    from pipeline_kit import mail

    _second_game(kit)
    before = kit.last_id()
    raw = mail(NORTH, "Hello, how does this work?\n", subject="help", to="pbem@game.test")
    i = store_message(
        kit.store,
        raw,
        source=InboxSource.SMTP,
        clock=kit.clock,
        envelope_from=NORTH,
        envelope_to=["pbem@game.test"],
    ).inbox_id
    kit.process_all()
    assert kit.inbox(i).status == InboxStatus.PROCESSED, kit.inbox(i).outcome
    (reply,) = kit.new_mail(before)
    assert reply.recipient == NORTH and reply.game_id is None
    text = body_of(reply)
    assert "command help" in text and "race-1" in text and "race-2" in text
    assert "put [game-id] in the subject" in text


def test_orders_that_wait_on_the_opponents_answer_are_acknowledged(kit) -> None:
    from pipeline_kit import mail

    kit.set_hand("north", ["8", "2", "3"])
    before = kit.last_id()
    kit.deliver(mail(NORTH, orders(kit, "north", "8"), key=kit.keys["north"]))
    kit.process_all()
    ack = [m for m in kit.new_mail(before) if m.recipient == NORTH]
    assert [m.kind for m in ack] == ["accepted"]
    raw = ack[0].raw.decode()
    assert "Turn 1: your orders accepted, nothing due from you" in raw
    text = body_of(ack[0])
    assert "were accepted and stored" in text and "waits for south's answer" in text
    assert "due by" in text


def test_a_refusal_to_the_player_who_is_not_due_asks_for_nothing(kit) -> None:
    from pipeline_kit import SOUTH, mail

    before = kit.last_id()
    kit.deliver(mail(SOUTH, orders(kit, "south"), key=kit.keys["south"]))  # north moves
    kit.process_all()
    (refusal,) = kit.new_mail(before)
    text = " ".join(body_of(refusal).split())
    assert "nothing you sent before needs resending" in text
    assert "Nothing is due from you now: the game waits for orders from north, due by" in text
    assert "resend" not in text.replace("needs resending", "")
    assert "refused, nothing due from you" in refusal.raw.decode()


def test_a_refusal_to_the_player_who_is_due_says_what_and_by_when(kit) -> None:
    from pipeline_kit import mail

    before = kit.last_id()
    kit.deliver(mail(NORTH, orders(kit, "north", "9", turn=1).replace("card 9", "card 99")))
    kit.process_all()
    (refusal,) = kit.new_mail(before)
    text = " ".join(body_of(refusal).split())
    assert "Still due from you: your orders for turn 1, by" in text
    assert "refused, your orders still due" in refusal.raw.decode()
