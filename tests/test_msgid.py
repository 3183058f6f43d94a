"""Message-IDs from incoming mail are reused only in plain RFC 5322 form (issue 11).

Before, the check allowed ``=`` and ``?`` anywhere, so an RFC 2047 encoded word
inside ``<...>`` passed into a reply's In-Reply-To/References and decoded to a
raw CR/LF wherever that header was read.
"""

from __future__ import annotations

import email
import email.policy

import pytest
from pipeline_kit import NORTH, mail, make_kit

from pbem.mailin.msgid import clean_msg_id

ENCODED = "<=?utf-8?q?x=0D=0AInjected=3A_yes?=@evil.test>"


@pytest.mark.parametrize(
    "value",
    [
        "<m1.123@client.test>",
        "<CAH+x=Yq_7aB-Z9@mail.gmail.com>",  # '=' and '+' are atext
        "<a.b.c@[127.0.0.1]>",
        "  <x@y>  ",
    ],
)
def test_plain_message_ids_are_kept(value: str) -> None:
    assert clean_msg_id(value) == value.strip()


@pytest.mark.parametrize(
    "value",
    [
        ENCODED,
        "<a@b>\r\nBcc: victim@evil.test",
        "<a b@c>",
        "<a..b@c>",
        "<@c>",
        "<a@b> <c@d>",
        "a@b",
        "<a@b?=>",
        "<" + "a" * 300 + "@b>",
        "",
        None,
    ],
)
def test_anything_else_is_dropped(value: str | None) -> None:
    assert clean_msg_id(value) is None


def test_an_encoded_message_id_never_reaches_a_reply(store, config, clock) -> None:
    kit = make_kit(store, config, clock)
    before = kit.last_id()
    kit.deliver(mail(NORTH, "command help\n", msgid=ENCODED))
    kit.process_all()
    [reply] = [m for m in kit.new_mail(before) if m.recipient == NORTH]
    head = reply.raw.split(b"\r\n\r\n", 1)[0]
    assert b"=?utf-8?q?x" not in head and b"Injected" not in head
    out = email.message_from_bytes(reply.raw, policy=email.policy.default)
    for name in ("In-Reply-To", "References"):
        for value in out.get_all(name, []):
            assert "\r" not in str(value) and "\n" not in str(value)
    assert out.get("Injected") is None
