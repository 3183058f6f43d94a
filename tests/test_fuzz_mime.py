"""Fuzz the mail entry: MIME parsing, orders extraction and the whole pipeline step.

Inputs are real signed orders mails (inline, as attachments, with HTML
alternatives, nested) mutated at the byte level (flips, inserts, deletes,
duplicated ranges, truncation) and at the MIME level (random Content-Type,
charset, boundary, transfer encoding, header values with CR/LF and encoded
words), plus arbitrary bytes.

- Extraction (:func:`pbem.orders_text.parse_message`, ``extract_orders``,
  ``verify_orders``) raises only :class:`pbem.sshsig.SshSigError`, and
  accepts only the exact signed orders.
- The pipeline (``store_message`` then ``Processor.process``, one toy game,
  shared across examples): ``store_message`` raises only
  :class:`~pbem.mailin.accept.UnreadableMessage`; every row ends
  ``processed`` or ``refused``, never ``failed`` (an unhandled exception);
  a refused mail changes no game; replies go to players, the operator, or
  at most once to an unknown sender (rate limit).
"""

from __future__ import annotations

import email.policy
import os
from collections import Counter
from email.message import EmailMessage

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pipeline_kit import GAME, NORTH, SOUTH, make_kit, orders, sign_text
from sqlmodel import col, select

from pbem import sshsig
from pbem.mailin.accept import UnreadableMessage, store_message
from pbem.orders_text import extract_orders, parse_message, verify_orders
from pbem.sshsig import SshSigError
from pbem.store import InboxMessage

EXAMPLES = int(os.environ.get("PBEM_FUZZ_EXAMPLES", "150"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.function_scoped_fixture,
        HealthCheck.data_too_large,
    ],
    database=None,
)

KEY = sshsig.generate_private_key()
PUB = sshsig.public_key_of(KEY)
TEXT = f"game {GAME}\nturn 1\nside north\ncard 3\n"


def _base_mails(text: str, key: object) -> list[bytes]:
    canon, sig = sign_text(text, key)  # type: ignore[arg-type]
    out = []
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = NORTH, f"pbem+{GAME}@game.test", f"[{GAME}] orders"
    m["Message-ID"], m["Date"] = "<base1@client.test>", "Thu, 01 Jan 2026 12:00:00 +0000"
    m.set_content("Hi,\n\n" + canon + sig + "\n> old quote\n")
    out.append(m.as_bytes(policy=email.policy.SMTP))
    a = EmailMessage()
    for h in ("From", "To", "Subject", "Date"):
        a[h] = m[h]
    a["Message-ID"] = "<base2@client.test>"
    a.set_content("orders attached")
    a.add_attachment(canon.encode(), maintype="text", subtype="plain", filename="orders.txt")
    a.add_attachment(sig.encode(), maintype="text", subtype="plain", filename="orders.txt.sig")
    out.append(a.as_bytes(policy=email.policy.SMTP))
    h = EmailMessage()
    for name in ("From", "To", "Subject", "Date"):
        h[name] = m[name]
    h["Message-ID"] = "<base3@client.test>"
    h.set_content(canon + sig, charset="utf-8", cte="quoted-printable")
    h.add_alternative(f"<pre>{canon}{sig}</pre>", subtype="html")
    out.append(h.as_bytes(policy=email.policy.SMTP))
    return out


BASES = _base_mails(TEXT, KEY)

HEADER_VALUES = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        [
            "text/plain; charset=x-unknown",
            "text/plain; charset=utf-7",
            'multipart/mixed; boundary=""',
            "multipart/mixed",
            'multipart/alternative; boundary="=="',
            "message/rfc822",
            "text/plain; format=flowed; delsp=yes",
            "base64",
            "quoted-printable",
            "x-uuencode",
            "=?utf-8?q?a=0D=0ABcc:_x@evil.test?=",
            "=?x-bad?b?////?=",
            "a\r\nBcc: x@evil.test",
            '"' * 30,
            "<" * 50,
        ]
    ),
)
HEADER_NAMES = st.sampled_from(
    [
        "Content-Type",
        "Content-Transfer-Encoding",
        "Subject",
        "From",
        "To",
        "Message-ID",
        "In-Reply-To",
        "Content-Disposition",
        "MIME-Version",
        "Reply-To",
        "X-Junk",
    ]
)


@st.composite
def mails(draw: st.DrawFn, bases: list[bytes]) -> bytes:
    """A base mail, mutated; or arbitrary bytes."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=600))
    raw = bytearray(draw(st.sampled_from(bases)))
    for _ in range(draw(st.integers(0, 3))):  # MIME-level: header replacement or insertion
        name = draw(HEADER_NAMES).encode()
        value = draw(HEADER_VALUES).encode("utf-8", "surrogateescape")
        at = raw.find(b"\r\n" + name + b":")
        line = b"\r\n" + name + b": " + value
        if at >= 0 and draw(st.booleans()):
            end = raw.find(b"\r\n", at + 2)
            raw[at:end] = line
        else:
            raw[0:0] = line[2:] + b"\r\n"
    for _ in range(draw(st.integers(0, 4))):  # byte-level
        kind = draw(st.sampled_from(["flip", "insert", "delete", "dup", "truncate"]))
        i = draw(st.integers(0, max(len(raw) - 1, 0)))
        if kind == "flip" and raw:
            raw[i] = draw(st.integers(0, 255))
        elif kind == "insert":
            raw[i:i] = draw(st.binary(max_size=16))
        elif kind == "delete":
            del raw[i : i + draw(st.integers(1, 64))]
        elif kind == "dup":
            raw[i:i] = raw[i : i + draw(st.integers(1, 200))]
        else:
            del raw[i:]
    return bytes(raw)


@FUZZ
@given(mails(BASES))
def test_extraction_raises_only_documented_errors(raw: bytes) -> None:
    message = parse_message(raw)
    try:
        verified = verify_orders(extract_orders(message), [PUB])
    except SshSigError as exc:
        assert exc.code
        return
    assert verified.text == sign_text(TEXT, KEY)[0]


@pytest.fixture
def kit(store, config, clock):  # type: ignore[no-untyped-def]
    k = make_kit(store, config, clock)
    k.set_hand("north", ["3", "4", "5"])
    return k


@settings(FUZZ, max_examples=max(EXAMPLES // 2, 1))  # each example is a store transaction
@given(data=st.data())
def test_pipeline_never_fails_and_refusals_change_nothing(kit, data) -> None:  # type: ignore[no-untyped-def]
    bases = _base_mails(orders(kit, "north", "3"), kit.keys["north"]) + _base_mails(
        orders(kit, "south", "4"), kit.keys["south"]
    )
    raw = data.draw(mails(bases))
    before = (kit.game().state_json, kit.game().epoch, kit.last_id())
    try:
        acc = store_message(
            kit.store, raw, source="smtp", clock=kit.clock, envelope_to=[f"pbem+{GAME}@game.test"]
        )
    except UnreadableMessage:
        return
    kit.process_all()
    row = kit.inbox(acc.inbox_id)
    assert row.status in ("processed", "refused"), (row.status, row.outcome)
    if row.status == "refused" or acc.duplicate:
        assert (kit.game().state_json, kit.game().epoch) == before[:2]
    with kit.store.transaction() as s:
        assert not s.exec(
            select(InboxMessage.id).where(col(InboxMessage.status).in_(["failed", "pending"]))
        ).first()
    strangers = Counter(
        m.recipient for m in kit.outbox() if m.recipient not in {NORTH, SOUTH, "op@club.test"}
    )
    assert all(n == 1 for n in strangers.values()), strangers


FUZZ_TARGETS = [test_extraction_raises_only_documented_errors]
