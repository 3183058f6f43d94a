"""Mails players receive: structure, threading, widths, time zones, size, signatures."""

from __future__ import annotations

import email
import email.policy
import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from email.message import EmailMessage
from functools import cache

import jinja2
import pytest

from pbem.mailviews.compose import MAX_MAIL_BYTES, compose, fit_template, turn_mail
from pbem.mailviews.format import deadline_text
from pbem.mailviews.model import (
    Card,
    DiceReveal,
    Envelope,
    GameEnd,
    GameStart,
    MissedTurn,
    NarrativeEvent,
    OrderError,
    OrdersRejected,
    Player,
    Question,
    QuestionMail,
    Recipient,
    Reminder,
    TurnMail,
)
from pbem.render.bundle import RenderedBoard, render_board
from pbem.render.sample import sample_picture as sample_view
from pbem.render.templating import environment

DEADLINE = datetime(2026, 11, 23, 17, 0, tzinfo=UTC)
ROOT = "<g7.start.0.aaaa@club.example>"
SIG = "-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n"
HAND = (
    Card("3C", "Order Three Units Center", "Issue an order to 3 units in the center."),
    Card("LT", "Leadership Any Section", "Order 1 leader and the units he commands."),
)
NARRATIVE = (
    NarrativeEvent("card", "North played Order Three Units Center (3C)."),
    NarrativeEvent.from_dict(
        {
            "kind": "battle",
            "text": "north HI D6 rolls 3 dice at south MI D5: R F S",
            "data": {"unit": "n1"},
            "dice": ["R", "F", "S"],
        }
    ),
)
DICE = DiceReveal(12, "a" * 64, "c" * 64, "d" * 64)
NOSIG = OrderError("no-signature", "no signature block")
TEMPLATE = "game g7\nturn 4\nside south\n# play one card (code or full name):\ncard\norder\n"


@cache
def board() -> RenderedBoard:
    return render_board(sample_view())


def env(side: str = "south", tz: str = "Europe/Prague", signer: bool = True) -> Envelope:
    return Envelope(
        game_id="g7",
        scenario="Cannae",
        turn=4,
        recipient=Recipient("Ann Example", f"{side}@example.org", tz, side),
        sender="pbem@club.example",
        message_id=f"<g7.turn.4.{side}@club.example>",
        thread_root=ROOT,
        in_reply_to="<g7.turn.3.x@club.example>",
        signer=(lambda text: SIG) if signer else None,
    )


def every_kind(e: Envelope) -> list[object]:
    q = Question("Evade with the LI in E5, or stand?", ("evade", "stand"), "stand", DEADLINE)
    bad = OrderError("bad-hex", "N5 is off the board", 3, "order N5 " + "x" * 120, ("C4", "D4"))
    return [
        GameStart(
            e,
            (Player("Ann", "south", "Roman", "SHA256:" + "A" * 43),),
            "south",
            "c" * 64,
            "d" * 64,
            "SHA256:" + "S" * 43,
            'pbem@club.example namespaces="pbem-mail" ssh-ed25519 AAAAC3Nza' + "x" * 60,
            board(),
            HAND,
            DEADLINE,
            TEMPLATE,
        ),
        TurnMail(e, "south", NARRATIVE, board(), HAND, DICE, DEADLINE, TEMPLATE),
        TurnMail(e, "north", NARRATIVE, board(), HAND, DICE, DEADLINE, TEMPLATE),
        QuestionMail(e, q, NARRATIVE, board(), HAND),
        OrdersRejected(e, (bad, NOSIG), "Re: turn 4", DEADLINE),
        Reminder(e, DEADLINE, TEMPLATE, HAND),
        MissedTurn(e, "north", "the turn was passed", DEADLINE + timedelta(days=2)),
        GameEnd(
            e,
            "Roman (south) wins 7 banners to 4",
            "south",
            NARRATIVE,
            board(),
            "1" * 64,
            "2" * 64,
            "c" * 64,
            "d" * 64,
            ("48 epochs",),
        ),
    ]


def text_of(m: EmailMessage) -> str:
    part = m.get_body(("plain",))
    assert part is not None
    return str(part.get_content())


def html_of(m: EmailMessage) -> str:
    part = m.get_body(("html",))
    assert part is not None
    return str(part.get_content())


def test_turn_mail_structure_and_threading() -> None:
    m = turn_mail(every_kind(env())[1])  # type: ignore[arg-type]
    assert m["Subject"] == "[g7] Turn 4: your orders due"
    assert m["Message-ID"] == "<g7.turn.4.south@club.example>"
    assert m["In-Reply-To"] == "<g7.turn.3.x@club.example>"
    assert m["References"] == f"{ROOT} <g7.turn.3.x@club.example>"
    assert m.get_content_type() == "multipart/mixed"
    related, *attachments = m.iter_parts()
    assert related.get_content_type() == "multipart/related"
    alt, png = related.iter_parts()
    assert alt.get_content_type() == "multipart/alternative"
    assert [p.get_content_type() for p in alt.iter_parts()] == ["text/plain", "text/html"]
    assert png.get_content_type() == "image/png"
    cid = str(png["Content-ID"]).strip("<>")
    assert f'src="cid:{cid}"' in html_of(m)
    assert png.get_content() == board().png
    names = [a.get_filename() for a in attachments]
    assert names == ["board-turn-4.svg", "pbem.txt.sig"]


def test_waiting_player_is_told_who_moves_and_gets_no_orders_template() -> None:
    m = compose(every_kind(env("south"))[2])  # type: ignore[arg-type]
    assert m["Subject"] == "[g7] Turn 4: north to move, nothing due from you"
    assert "orders.txt" not in text_of(m).split("--- Dice")[1]


def test_turn_mail_says_everything_the_design_promises() -> None:
    text = text_of(compose(every_kind(env())[1]))  # type: ignore[arg-type]
    assert "North played Order Three Units Center" in text
    # one line per roll: the faces, named (every die's rules event is in the audit record)
    assert "dice R F S (red square, flag, crossed swords)" in text
    assert "die 1 of 3" not in text
    assert "hi3" in text and "LC1" in text  # the ASCII board
    assert "Leadership Any Section" in text  # the hand
    assert "a" * 64 in text  # the revealed dice key
    assert "Monday 23 November 2026, 18:00 CET (UTC+01:00)" in text
    assert "ssh-keygen -Y sign -f ~/.ssh/id_ed25519 -n pbem-orders orders.txt" in text
    assert "game g7\nturn 4\n" in text


def test_the_signature_covers_the_text_part_exactly() -> None:
    seen: list[str] = []

    def signer(text: str) -> str:
        seen.append(text)
        return SIG

    m = compose(every_kind(replace(env(), signer=signer))[1])  # type: ignore[arg-type]
    sig = next(a for a in m.iter_attachments() if a.get_filename() == "pbem.txt.sig")
    assert sig.get_content() == SIG.encode()
    assert seen == [text_of(m)]
    assert seen[0].endswith("\n") and not seen[0].endswith("\n\n")


def test_no_signer_no_signature() -> None:
    m = compose(every_kind(env(signer=False))[1])  # type: ignore[arg-type]
    assert "pbem.txt.sig" not in [a.get_filename() for a in m.iter_attachments()]


@pytest.mark.parametrize("i", range(8))
def test_every_text_part_fits_78_columns(i: int) -> None:
    m = compose(every_kind(env())[i])  # type: ignore[arg-type]
    for line in text_of(m).splitlines():
        assert len(line) <= 78, line
        assert not line.startswith("From "), line


@pytest.mark.parametrize("i", range(8))
def test_every_mail_is_under_the_size_budget_and_parses_back(i: int) -> None:
    m = compose(every_kind(env())[i])  # type: ignore[arg-type]
    raw = m.as_bytes(policy=email.policy.SMTP)
    assert len(raw) < MAX_MAIL_BYTES
    back = email.message_from_bytes(raw, policy=email.policy.default)
    assert back["Subject"].startswith("[g7] Turn 4: ")
    assert back.get_body(("plain",)) is not None and back.get_body(("html",)) is not None


def test_same_input_same_bytes() -> None:
    a = compose(every_kind(env())[1]).as_bytes()  # type: ignore[arg-type]
    b = compose(every_kind(env())[1]).as_bytes()  # type: ignore[arg-type]
    assert a == b


def test_refusal_quotes_the_line_with_its_number_and_lists_what_is_legal() -> None:
    text = text_of(compose(every_kind(env())[4]))  # type: ignore[arg-type]
    assert "Line 3:\n    | order N5 xxx" in text
    assert "N5 is off the board [bad-hex]" in text
    assert "C4, D4" in text
    assert "The submission as a whole:\n  no signature block [no-signature]" in text


def test_game_end_reveals_keys_and_says_how_to_verify() -> None:
    text = text_of(compose(every_kind(env())[7]))  # type: ignore[arg-type]
    assert "1" * 64 in text and "2" * 64 in text
    assert "python verify_dice.py GAME_AUDIT.json" in text
    assert "You won" in text


def test_game_start_attaches_the_servers_allowed_signers_line_exactly() -> None:
    m = compose(every_kind(env())[0])  # type: ignore[arg-type]
    att = next(a for a in m.iter_attachments() if a.get_filename() == "allowed_signers")
    line = att.get_content()
    line = line.decode() if isinstance(line, bytes) else line
    assert line.strip().endswith("x" * 60) and "\n" not in line.strip()
    text = text_of(m)
    assert "-n pbem-orders" in text and "c" * 64 in text and "d" * 64 in text


@pytest.mark.parametrize(
    ("tz", "expected"),
    [
        ("Europe/Prague", "Monday 23 November 2026, 18:00 CET (UTC+01:00)"),
        ("America/New_York", "Monday 23 November 2026, 12:00 EST (UTC-05:00)"),
        ("Asia/Kolkata", "Monday 23 November 2026, 22:30 IST (UTC+05:30)"),
        (
            "Mars/Olympus",
            "Monday 23 November 2026, 17:00 UTC (UTC+00:00) (time zone 'Mars/Olympus' unknown)",
        ),
    ],
)
def test_deadline_is_shown_in_the_players_zone(tz: str, expected: str) -> None:
    assert deadline_text(DEADLINE, tz) == expected
    other = DEADLINE.astimezone(timezone(timedelta(hours=3)))
    assert deadline_text(other, tz) == expected


def test_naive_deadlines_are_refused() -> None:
    with pytest.raises(ValueError, match="aware"):
        deadline_text(datetime(2026, 1, 1, 12, 0), "UTC")


def test_strict_undefined_catches_a_missing_field() -> None:
    tmpl = environment().get_template("mail/turn.txt.j2")
    with pytest.raises(jinja2.UndefinedError):
        tmpl.render(name="x", turn=1, game_id="g", scenario="s")


def test_player_text_is_escaped_in_html_and_kept_in_text() -> None:
    e = replace(env(), recipient=Recipient("<b>Eve</b> & co", "eve@example.org", "UTC", "south"))
    m = compose(every_kind(e)[1])  # type: ignore[arg-type]
    assert "&lt;b&gt;Eve&lt;/b&gt; &amp; co" in html_of(m)
    assert "<b>Eve</b>" not in html_of(m)
    assert "Hello <b>Eve</b> & co," in text_of(m)


def test_engine_problems_become_order_errors() -> None:
    class Problem:
        line, quote, code, message, legal = 2, "move Z9", "bad-hex", "no such hex", ("C4",)

    e = OrderError.from_problem(Problem())
    assert (e.line_no, e.line, e.code, e.legal) == (2, "move Z9", "bad-hex", ("C4",))
    Problem.line = 0
    assert OrderError.from_problem(Problem()).line_no is None


def test_long_template_comments_are_wrapped_but_orders_are_not() -> None:
    long_order = "order " + " ".join(["C4"] * 40)
    text = fit_template("# " + "word " * 30 + "\n" + long_order + "\n")
    lines = text.splitlines()
    assert all(line.startswith("#") for line in lines[:-1])
    assert all(len(line) <= 76 for line in lines[:-1])
    assert lines[-1] == long_order


def test_html_has_no_external_resources() -> None:
    html = html_of(compose(every_kind(env())[1]))  # type: ignore[arg-type]
    assert not re.search(r"(src|href)=\"https?:", html)
