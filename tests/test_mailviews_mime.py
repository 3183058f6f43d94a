"""Mails written straight to bytes are the bytes the standard library writes (players'
mail programs see the same mail as before: same headers, same parts, same encodings)."""

from __future__ import annotations

import random
from email.message import EmailMessage, MIMEPart
from email.policy import SMTP
from typing import cast

import pytest

from pbem.mailviews.mime import Mime, bytes_part, header_line, multipart, text_part

NAMES = ["Ann Example", "Žofie Nováková", 'Ann "The Hammer", Jr.', "Bob", "Ölaf " * 12]
ADDRESS = "ann@example.org"
PNG = "board-turn-4.png"


def stdlib_header(name: str, value: str) -> bytes:
    msg = EmailMessage()
    msg[name] = value
    return msg.as_bytes(policy=SMTP).split(b"\r\n\r\n", 1)[0] + b"\r\n"


HEADERS = [
    ("Subject", "[g7] Turn 4: your orders due"),
    ("Subject", "[g7] Turn 4: north to move, nothing due from you " + "x" * 60),
    ("Subject", "[g7] Turn 4: Überläufer"),
    ("Subject", "=?utf-8?q?looks_encoded?="),
    ("From", "pbem <pbem+g7@club.example>"),
    ("From", "Référée Club <pbem+g7@club.example>"),
    ("To", "south@example.org"),
    *(("To", f"{n} <{ADDRESS}>") for n in NAMES),
    ("Message-ID", "<g7.turn.4.438c4c7afe60@club.example>"),
    ("Message-ID", "<" + "x" * 90 + "@club.example>"),
    ("In-Reply-To", "<g7.turn.3.x@club.example>"),
    ("References", "<g7.start.0.aaaa@club.example> <g7.turn.3.x@club.example>"),
    ("References", "<g7.start.0.aaaa@club.example> <" + "y" * 70 + "@club.example>"),
    ("Auto-Submitted", "auto-generated"),
    ("X-Pbem-Game", "g7"),
    ("X-Pbem-Turn", "12"),
    ("MIME-Version", "1.0"),
    ("Date", "Thu, 26 Nov 2026 09:00:00 +0000"),
    ("Content-Transfer-Encoding", "base64"),
    ("Content-ID", "<board.c134122f52324ff9@pbem>"),
]


@pytest.mark.parametrize(("name", "value"), HEADERS)
def test_a_header_is_written_as_the_standard_library_writes_it(name: str, value: str) -> None:
    assert header_line(name, value) == stdlib_header(name, value)


TEXTS = [
    "Hello,\n\nyour move.\n",
    "Hélène joue.\n",
    "",
    "no newline at the end",
    "a line far longer than seventy-eight characters, " * 3 + "\nand a short one\n",
    ("é" * 100 + "\n") * 3,
    '<p class="x">' + "word " * 40 + "</p>\n" * 30,
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n",
]


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("subtype", ["plain", "html"])
def test_a_text_part_is_encoded_as_set_content_encodes_it(text: str, subtype: str) -> None:
    part = MIMEPart()
    part.set_content(text, subtype=subtype, charset="utf-8")
    assert text_part(text, subtype).as_bytes() == part.as_bytes(policy=SMTP)


def test_random_texts_choose_the_same_transfer_encoding() -> None:
    rng = random.Random(20)
    alphabet = "abc xyz=\t.é€\n" + "q" * 10
    for _ in range(200):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 600)))
        part = MIMEPart()
        part.set_content(text, subtype="plain", charset="utf-8")
        assert text_part(text, "plain").as_bytes() == part.as_bytes(policy=SMTP), text


def test_a_whole_mail_is_the_bytes_emailmessage_writes() -> None:
    """The structure of a turn mail: mixed(related(alternative(text, html), png), svg, sig)."""
    text, html, tag = "Hello\n", "<p>" + "é" * 90 + "</p>\n", "t" * 24
    png, svg = bytes(range(256)) * 9, b"<svg/>"
    ref = EmailMessage()
    ref["MIME-Version"] = "1.0"
    ref["Subject"] = "[g7] Turn 4: your orders due"
    ref["From"] = "pbem <pbem+g7@club.example>"
    body = MIMEPart()
    body.set_content(text, subtype="plain", charset="utf-8")
    body.make_alternative(boundary=f"alt-{tag}")
    body.add_alternative(html, subtype="html", charset="utf-8")
    related = MIMEPart()
    related.make_related(boundary=f"rel-{tag}")
    related.set_param("type", "multipart/alternative")
    related.attach(body)
    image = MIMEPart()
    image.set_content(
        png, maintype="image", subtype="png", cid="<b@pbem>", disposition="inline", filename=PNG
    )
    related.attach(image)
    ref.make_mixed(boundary=f"mix-{tag}")
    ref.attach(cast(EmailMessage, related))
    ref.add_attachment(svg, maintype="image", subtype="svg+xml", filename="board-turn-4.svg")
    ref.add_attachment("BEGIN:VCALENDAR\r\n", subtype="calendar", filename="deadline.ics")
    ref["To"] = ADDRESS
    ref["Date"] = "Thu, 26 Nov 2026 09:00:00 +0000"

    parts = [text_part(text, "plain"), text_part(html, "html")]
    alt = multipart("alternative", f"alt-{tag}", parts)
    img = bytes_part(png, "image", "png", disposition="inline", filename=PNG, cid="<b@pbem>")
    kind = (("type", "multipart/alternative"),)
    rel = multipart("related", f"rel-{tag}", [alt, img], params=kind)
    headers: list[tuple[str, str | bytes]] = [
        ("MIME-Version", "1.0"),
        ("Subject", "[g7] Turn 4: your orders due"),
        ("From", "pbem <pbem+g7@club.example>"),
    ]
    mail = multipart("mixed", f"mix-{tag}", [rel], headers=headers)
    mail.add_attachment(svg, maintype="image", subtype="svg+xml", filename="board-turn-4.svg")
    mail.add_attachment("BEGIN:VCALENDAR\r\n", subtype="calendar", filename="deadline.ics")
    mail["To"] = ADDRESS
    mail["Date"] = "Thu, 26 Nov 2026 09:00:00 +0000"
    assert mail.as_bytes() == ref.as_bytes(policy=SMTP)
    assert mail.message()["To"] == ADDRESS


def test_headers_are_read_set_and_deleted_like_emailmessage_headers() -> None:
    mail = Mime([("Message-ID", "<a@b>"), ("To", "x@example.org")])
    assert mail.get("message-id") == "<a@b>" and "To" in mail
    del mail["to"]
    mail["To"] = ADDRESS
    assert mail["To"] == ADDRESS and mail.get("Date") is None
    with pytest.raises(ValueError, match="SMTP"):
        mail.as_bytes(policy=SMTP.clone(linesep="\n"))


def test_a_notes_signature_comes_out_of_the_mail_as_it_was_signed() -> None:
    """A plain note's pbem.txt.sig, saved from the mail, is the armored signature exactly:
    no CRLF line ends (``ssh-keygen -Y verify`` refuses those: "missing header")."""
    import email
    from datetime import UTC, datetime

    from pbem import sshsig
    from pbem.outbox import message_bytes
    from pbem.pipeline.mails import Mailer
    from pbem.server_key import ServerKey

    class Clock:
        def now(self) -> datetime:
            return datetime(2026, 11, 26, 9, 0, tzinfo=UTC)

    key = ServerKey.from_private_key(sshsig.generate_private_key())
    mailer = Mailer(None, None, Clock(), key)  # type: ignore[arg-type]
    note = mailer.text_mail("pbem <pbem@club.example>", "a note", "Your orders were stored.\n")
    raw = message_bytes(note, message_id="<n.1@club.example>", clock=Clock())  # type: ignore[arg-type]
    parsed = email.message_from_bytes(raw, policy=SMTP)
    assert isinstance(parsed, EmailMessage)
    sig = next(a for a in parsed.iter_attachments() if a.get_filename() == "pbem.txt.sig")
    saved = sig.get_payload(decode=True)
    assert isinstance(saved, bytes) and b"\r" not in saved
    assert saved == key.sign_text("Your orders were stored.\n").signature.encode("ascii")
