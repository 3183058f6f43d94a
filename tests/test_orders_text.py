"""Orders in mail: canonical text, finding orders and signature, verifying them (design §4)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path
from typing import TypeVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem import sshsig
from pbem.orders_text import (
    BadEncodingError,
    DuplicateAttachmentError,
    HtmlOnlyError,
    MissingAttachmentError,
    NoOrdersError,
    NoSignatureError,
    SignedOrders,
    TwoSignaturesError,
    canonicalize,
    extract_from_body,
    extract_orders,
    parse_message,
    verify_orders,
)
from pbem.sshsig import SshSigError

SSH_KEYGEN = shutil.which("ssh-keygen") or "/usr/bin/ssh-keygen"
F = TypeVar("F", bound=Callable[..., object])


def needs_ssh(test: F) -> F:
    """Mark a test as needing the real ssh-keygen, and skip it if there is none."""
    skip = pytest.mark.skipif(not Path(SSH_KEYGEN).exists(), reason="ssh-keygen is not installed")
    return pytest.mark.ssh(skip(test))


KEY = sshsig.generate_private_key()
PUBLIC = sshsig.public_key_of(KEY)
ORDERS = (
    "game cannae-7 turn 12\n"
    "card Order Two Units Left\n"
    "move C4 D5\n"
    "battle D5 E6  # the elephants, Général\n"
)


def sign(text: str, key: sshsig.Ed25519PrivateKey = KEY, namespace: str = "pbem-orders") -> str:
    return sshsig.sign(text.encode(), key, namespace=namespace)


def through_smtp(message: EmailMessage) -> EmailMessage:
    """Serialise and parse again, as the inbox will see it."""
    return parse_message(message.as_bytes())


def plain_mail(body: str, *, cte: str = "8bit", charset: str = "utf-8") -> EmailMessage:
    message = EmailMessage()
    message["From"] = "alice@example.org"
    message["To"] = "referee@example.org"
    message["Subject"] = "Re: [cannae-7] Turn 12: your move"
    message.set_content(body, charset=charset, cte=cte)
    return through_smtp(message)


def raw_mail(body: bytes, content_type: str = "text/plain; charset=utf-8") -> EmailMessage:
    head = (
        "From: alice@example.org\r\nTo: referee@example.org\r\nSubject: orders\r\n"
        f"MIME-Version: 1.0\r\nContent-Type: {content_type}\r\n\r\n"
    )
    return parse_message(head.encode() + body)


def accepted(message: EmailMessage) -> str:
    found = extract_orders(message)
    return verify_orders(found, PUBLIC).text


# --- canonical form ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("move C4 D5", "move C4 D5\n"),
        ("move C4 D5\r\nbattle D5 E6\r\n", "move C4 D5\nbattle D5 E6\n"),
        ("move C4 D5\rbattle D5 E6\r", "move C4 D5\nbattle D5 E6\n"),
        ("move C4 D5 \t\u00a0\nbattle\n", "move C4 D5\nbattle\n"),
        ("\n\n  \nmove\n\n\nbattle\n\n \n", "move\n\n\nbattle\n"),
        ("\ufeffmove\n", "move\n"),
        ("Ge\u0301ne\u0301ral\n", "Général\n"),
        ("  indented stays\n", "  indented stays\n"),
        ("", ""),
        (" \n\t\n", ""),
    ],
)
def test_canonical_form_examples(text: str, canonical: str) -> None:
    assert canonicalize(text) == canonical


@given(st.text())
def test_canonicalisation_is_idempotent(text: str) -> None:
    once = canonicalize(text)
    assert canonicalize(once) == once


# Characters that interact: combining marks, Hangul jamo, odd white space, BOM, line ends.
TRICKY = st.sampled_from(
    list("ae \t\r\n\u0301\u0308\ufeff\u2000\u2001\u1100\u1161\u11a8\u0345\u00a0\u0085\u2028")
)


@given(st.lists(TRICKY, max_size=30).map("".join))
def test_canonicalisation_is_idempotent_on_tricky_text(text: str) -> None:
    once = canonicalize(text)
    assert canonicalize(once) == once


@given(st.lists(st.text(alphabet=st.characters(exclude_characters="\r\n")), max_size=8))
def test_line_ends_and_trailing_spaces_do_not_matter(lines: list[str]) -> None:
    lf = "\n".join(lines)
    mangled = "\r\n".join(line + "  \t" for line in lines) + "\r\n\r\n"
    assert canonicalize(mangled) == canonicalize(lf)


@given(st.text(), st.integers(min_value=0, max_value=20))
def test_a_suffix_from_a_non_blank_line_is_canonical(text: str, skip: int) -> None:
    # verify_orders relies on this to try shorter texts without recomputing.
    lines = [line + "\n" for line in canonicalize(text).split("\n")[:-1]]
    if skip < len(lines) and lines[skip] != "\n":
        suffix = "".join(lines[skip:])
        assert canonicalize(suffix) == suffix


@given(st.text())
def test_canonical_text_shape(text: str) -> None:
    out = canonicalize(text)
    assert "\r" not in out
    assert out == "" or (out.endswith("\n") and not out.endswith("\n\n"))
    assert not out.startswith("\n")
    assert all(line == line.rstrip() for line in out.split("\n"))


# --- inline orders -----------------------------------------------------------------


def test_inline_orders_verify_and_sign_off_is_ignored() -> None:
    body = ORDERS + "\n" + sign(ORDERS) + "\n-- \nAlice, who likes elephants\n"
    found = extract_orders(plain_mail(body))
    assert found.source == "inline"
    assert found.raw is None
    assert found.signature_line == 6
    verified = verify_orders(found, PUBLIC)
    assert verified.text == ORDERS
    assert verified.form == "canonical"
    assert verified.signed_bytes == ORDERS.encode()


@pytest.mark.parametrize("cte", ["quoted-printable", "base64", "8bit"])
@pytest.mark.parametrize("charset", ["utf-8", "iso-8859-1"])
def test_transfer_encodings_and_charsets(cte: str, charset: str) -> None:
    body = ORDERS + sign(ORDERS)
    assert accepted(plain_mail(body, cte=cte, charset=charset)) == ORDERS


def test_crlf_mangled_body_with_trailing_spaces_still_verifies() -> None:
    mangled = "\r\n".join(line + "   " for line in ORDERS.splitlines())
    body = "\r\n\r\n" + mangled + "\r\n\r\n" + sign(ORDERS).replace("\n", "\r\n")
    assert accepted(raw_mail(body.encode())) == ORDERS


def test_a_changed_word_is_refused() -> None:
    body = ORDERS.replace("move C4 D5", "move C4 D6") + sign(ORDERS)
    with pytest.raises(sshsig.BadSignatureError) as err:
        accepted(plain_mail(body))
    assert err.value.code == "bad-signature"


def test_a_flowed_rewrap_is_undone() -> None:
    # A client wrapped the long line: a trailing space marks the soft break (RFC 3676).
    orders = "game cannae-7 turn 12\nmove C4 D5 then the light infantry from B2 to C3 at once\n"
    wrapped = orders.replace("light infantry ", "light infantry \r\n")
    body = (wrapped + sign(orders)).replace("\n", "\r\n").replace("\r\r\n", "\r\n")
    message = raw_mail(body.encode(), "text/plain; charset=utf-8; format=flowed")
    assert accepted(message) == orders


def test_the_same_rewrap_without_format_flowed_is_refused() -> None:
    orders = "game cannae-7 turn 12\nmove C4 D5 then the light infantry from B2 to C3 at once\n"
    body = orders.replace("light infantry ", "light infantry\n") + sign(orders)
    with pytest.raises(sshsig.BadSignatureError):
        accepted(plain_mail(body))


def test_quoted_lines_and_attribution_are_ignored() -> None:
    server_mail = "Turn 12: your move\n" + sign("Turn 12: your move\n", namespace="pbem-mail")
    quoted = "".join("> " + line + "\n" for line in server_mail.splitlines())
    body = (
        "On Sat, 21 Nov 2026 at 10:00, referee@example.org wrote:\n"
        + quoted
        + "\n"
        + ORDERS
        + "> an interleaved quote\n"
        + sign(ORDERS)
        + "\n"
        + quoted
    )
    assert accepted(plain_mail(body)) == ORDERS


def test_text_after_the_block_is_ignored_even_another_servers_block() -> None:
    # Clients that reply above an unquoted original paste the referee's signed mail back.
    server_mail = "Turn 12: your move\n" + sign("Turn 12: your move\n", namespace="pbem-mail")
    body = ORDERS + sign(ORDERS) + "\n-----Original Message-----\n" + server_mail
    assert accepted(plain_mail(body)) == ORDERS


def test_unsigned_lines_above_the_orders_are_dropped_and_counted() -> None:
    # A greeting, and an attribution line the client wrapped in two.
    body = (
        "Hello referee,\n\n"
        "On Sat, Nov 21, 2026 at 10:00 AM The Referee <\n"
        "referee@example.org> wrote:\n"
        "> Turn 12: your move\n\n" + ORDERS + sign(ORDERS)
    )
    verified = verify_orders(extract_orders(plain_mail(body)), PUBLIC)
    assert verified.text == ORDERS
    assert verified.unsigned_lines == 2  # the greeting and the first half of the attribution


def test_a_signed_prefix_with_an_unsigned_line_inside_is_refused() -> None:
    lines = ORDERS.splitlines(keepends=True)
    body = lines[0] + "move A1 B2\n" + "".join(lines[1:]) + sign(ORDERS)
    with pytest.raises(sshsig.BadSignatureError):
        accepted(plain_mail(body))


def test_orders_signed_without_final_newline_are_accepted(tmp_path: Path) -> None:
    signed_bytes = ORDERS.rstrip("\n").encode()
    body = ORDERS + sshsig.sign(signed_bytes, KEY)
    verified = verify_orders(extract_orders(plain_mail(body)), PUBLIC)
    assert verified.signed_bytes == signed_bytes
    assert verified.text == ORDERS


def test_wrong_key_and_namespace_pass_through() -> None:
    other = sshsig.public_key_of(sshsig.generate_private_key())
    with pytest.raises(sshsig.WrongKeyError):
        verify_orders(extract_from_body(ORDERS + sign(ORDERS)), other)
    with pytest.raises(sshsig.WrongNamespaceError):
        verify_orders(extract_from_body(ORDERS + sign(ORDERS, namespace="file")), PUBLIC)


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (ORDERS, NoSignatureError),
        (
            ORDERS + "".join("> " + line + "\n" for line in sign(ORDERS).splitlines()),
            NoSignatureError,
        ),
        (ORDERS + sign(ORDERS) + "\nmove A1 B2\n" + sign("move A1 B2\n"), TwoSignaturesError),
        (sign(ORDERS), NoOrdersError),
        (ORDERS + sign(ORDERS).split("-----END")[0], sshsig.BadArmorError),
    ],
)
def test_unreadable_bodies_say_why(body: str, error: type[SshSigError]) -> None:
    with pytest.raises(error) as err:
        extract_orders(plain_mail(body))
    assert isinstance(err.value, ValueError)
    assert err.value.code
    assert str(err.value)


def test_two_blocks_name_their_lines() -> None:
    body = ORDERS + sign(ORDERS) + "move A1 B2\n" + sign("move A1 B2\n")
    with pytest.raises(TwoSignaturesError) as err:
        extract_from_body(body)
    assert err.value.details["lines"] == "5, 12"


def test_html_only_mail_is_refused() -> None:
    message = EmailMessage()
    message["From"] = "alice@example.org"
    message.set_content(f"<pre>{ORDERS}{sign(ORDERS)}</pre>", subtype="html")
    with pytest.raises(HtmlOnlyError) as err:
        extract_orders(through_smtp(message))
    assert err.value.code == "html-only"


def test_multipart_alternative_reads_the_plain_part() -> None:
    message = EmailMessage()
    message["From"] = "alice@example.org"
    message.set_content(ORDERS + sign(ORDERS))
    message.add_alternative("<p>my orders, in HTML</p>", subtype="html")
    assert accepted(through_smtp(message)) == ORDERS


def test_undecodable_body_is_bad_encoding() -> None:
    with pytest.raises(BadEncodingError):
        extract_orders(raw_mail(b"move \xff\xfe\n", "text/plain; charset=x-no-such-charset"))


# --- attachments -------------------------------------------------------------------


def attachment_mail(
    files: dict[str, bytes], body: str = "My orders are attached.\n"
) -> EmailMessage:
    message = EmailMessage()
    message["From"] = "alice@example.org"
    message["Subject"] = "orders"
    message.set_content(body)
    for name, data in files.items():
        message.add_attachment(data, maintype="application", subtype="octet-stream", filename=name)
    return through_smtp(message)


def test_attachments_with_exact_bytes() -> None:
    raw = b"  \r\n" + ORDERS.replace("\n", "  \r\n").encode()  # signed exactly as is
    message = attachment_mail({"orders.txt": raw, "orders.txt.sig": sshsig.sign(raw, KEY).encode()})
    found = extract_orders(message)
    assert found.source == "attachments"
    assert found.raw == raw
    verified = verify_orders(found, PUBLIC)
    assert verified.form == "raw"
    assert verified.text == ORDERS


def test_attachments_signed_in_canonical_form() -> None:
    raw = ORDERS.replace("\n", "\r\n").encode()
    sig = sign(ORDERS).encode()
    verified = verify_orders(
        extract_orders(attachment_mail({"orders.txt": raw, "orders.txt.sig": sig})), PUBLIC
    )
    assert verified.form == "canonical"


def test_text_attachments_also_work() -> None:
    message = EmailMessage()
    message["From"] = "alice@example.org"
    message.set_content("see attached\n")
    message.add_attachment(ORDERS, filename="orders.txt")
    message.add_attachment(sign(ORDERS), filename="orders.txt.sig")
    assert accepted(through_smtp(message)) == ORDERS


def test_attachments_win_over_the_body() -> None:
    body = "move A1 B2\n" + sign("move A1 B2\n")
    files = {"orders.txt": ORDERS.encode(), "orders.txt.sig": sign(ORDERS).encode()}
    assert accepted(attachment_mail(files, body)) == ORDERS


@pytest.mark.parametrize("present", ["orders.txt", "orders.txt.sig"])
def test_a_missing_attachment_is_named(present: str) -> None:
    with pytest.raises(MissingAttachmentError) as err:
        extract_orders(attachment_mail({present: sign(ORDERS).encode()}))
    assert err.value.details["name"] != present
    assert err.value.code == "missing-attachment"


def test_a_duplicate_attachment_is_refused() -> None:
    message = EmailMessage()
    message.set_content("x\n")
    for name in ("orders.txt", "orders.txt", "orders.txt.sig"):
        message.add_attachment(ORDERS, filename=name)
    with pytest.raises(DuplicateAttachmentError):
        extract_orders(through_smtp(message))


def test_signed_orders_is_a_frozen_value() -> None:
    found = extract_from_body(ORDERS + sign(ORDERS))
    assert found == SignedOrders(ORDERS, sign(ORDERS), "inline", None, 5)
    with pytest.raises(AttributeError):
        found.text = "move A1 B2\n"  # type: ignore[misc]


# --- with the real ssh-keygen ------------------------------------------------------


def ssh_key(tmp_path: Path) -> tuple[Path, sshsig.SshPublicKey]:
    path = tmp_path / "id_ed25519"
    subprocess.run(
        [SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-C", "alice@example.org", "-f", str(path)],
        check=True,
        timeout=60,
    )
    return path, sshsig.SshPublicKey.parse((tmp_path / "id_ed25519.pub").read_text())


def ssh_sign_file(key: Path, file: Path) -> str:
    subprocess.run(
        [SSH_KEYGEN, "-Y", "sign", "-f", str(key), "-n", "pbem-orders", str(file)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return file.with_name(file.name + ".sig").read_text()


@needs_ssh
@pytest.mark.parametrize(
    "file_bytes",
    [
        ORDERS.encode(),
        ORDERS.rstrip("\n").encode(),  # editor left no final newline
        ORDERS.replace("\n", "\r\n").encode(),  # Windows editor
    ],
)
def test_player_signs_with_ssh_keygen_and_pastes_inline(tmp_path: Path, file_bytes: bytes) -> None:
    key, public = ssh_key(tmp_path)
    orders = tmp_path / "orders.txt"
    orders.write_bytes(file_bytes)
    signature = ssh_sign_file(key, orders)
    body = file_bytes.decode() + "\n" + signature + "\nthanks!\n"
    for cte in ("quoted-printable", "base64"):
        verified = verify_orders(extract_orders(plain_mail(body, cte=cte)), public)
        assert verified.text == ORDERS


@needs_ssh
def test_player_attaches_what_ssh_keygen_signed(tmp_path: Path) -> None:
    key, public = ssh_key(tmp_path)
    orders = tmp_path / "orders.txt"
    raw = b"\xef\xbb\xbf" + ORDERS.replace("\n", "  \r\n").encode()  # BOM, CRLF, trailing spaces
    orders.write_bytes(raw)
    signature = ssh_sign_file(key, orders)
    message = attachment_mail({"orders.txt": raw, "orders.txt.sig": signature.encode()})
    verified = verify_orders(extract_orders(message), public)
    assert (verified.form, verified.text, verified.signed_bytes) == ("raw", ORDERS, raw)
    tampered = raw.replace(b"D5", b"D6")
    message = attachment_mail({"orders.txt": tampered, "orders.txt.sig": signature.encode()})
    with pytest.raises(sshsig.BadSignatureError):
        verify_orders(extract_orders(message), public)
