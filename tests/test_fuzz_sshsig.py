"""Fuzz signature extraction and SSHSIG parsing: only the documented errors, no false accept.

Inputs are mutations of a real signed orders mail body (bytes flipped,
inserted, deleted, armor lines shuffled, base64 re-wrapped) and arbitrary
text. Each goes through :func:`pbem.orders_text.extract_from_body`,
:func:`pbem.orders_text.verify_orders` and :func:`pbem.sshsig.verify`, plus
the key and allowed-signers parsers. The only errors allowed are
:class:`pbem.sshsig.SshSigError` (``OrdersMailError`` is one); a mutated
signature or text is never accepted unless the signed bytes are unchanged.
"""

from __future__ import annotations

import base64
import contextlib
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem import sshsig
from pbem.orders_text import canonicalize, extract_from_body, verify_orders
from pbem.sshsig import SshSigError, SshSignature
from pbem.sshsig.keys import SshPublicKey
from pbem.sshsig.signers import AllowedSigners

EXAMPLES = int(os.environ.get("PBEM_FUZZ_EXAMPLES", "150"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)

KEY = sshsig.generate_private_key()
PUB = sshsig.public_key_of(KEY, "ann@north.test")
ORDERS = canonicalize("game g1\nturn 3\nside north\ncard 3C\norder E5, F5, G5\nmove E5 to E6\n")
SIGNATURE = sshsig.sign(ORDERS.encode(), KEY)
BODY = "Hello,\n\n" + ORDERS + SIGNATURE + "\n> quoted\n-- \nAnn\n"


@st.composite
def mutated(draw: st.DrawFn, base: str) -> str:
    """Apply a few random edits to ``base``: replace, insert, delete, duplicate, swap lines."""
    text = base
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["replace", "insert", "delete", "dup", "swap", "wrap"]))
        i = draw(st.integers(0, max(len(text) - 1, 0)))
        if kind == "replace" and text:
            text = text[:i] + draw(st.characters()) + text[i + 1 :]
        elif kind == "insert":
            text = text[:i] + draw(st.text(max_size=8)) + text[i:]
        elif kind == "delete":
            j = i + draw(st.integers(1, 40))
            text = text[:i] + text[j:]
        elif kind == "dup":
            text = text[:i] + text[i : i + 60] + text[i:]
        elif kind == "swap":
            lines = text.split("\n")
            a = draw(st.integers(0, len(lines) - 1))
            b = draw(st.integers(0, len(lines) - 1))
            lines[a], lines[b] = lines[b], lines[a]
            text = "\n".join(lines)
        else:
            width = draw(st.integers(1, 90))
            lines = text.split("\n")
            out = []
            for line in lines:
                if len(line) > width and "SSH" not in line:
                    out += [line[k : k + width] for k in range(0, len(line), width)]
                else:
                    out.append(line)
            text = "\n".join(out)
    return text


BODIES = st.one_of(mutated(BODY), st.text(max_size=400), mutated(SIGNATURE))


@FUZZ
@given(BODIES)
def test_extract_and_verify_raise_only_sshsig_errors(body: str) -> None:
    try:
        found = extract_from_body(body)
        verified = verify_orders(found, [PUB])
    except SshSigError as exc:
        assert exc.code
        return
    # Accepted: then exactly the signed orders were found, nothing else.
    assert verified.text == ORDERS, "a mutated mail verified as different orders"


@FUZZ
@given(st.one_of(mutated(SIGNATURE), st.text(max_size=300)), st.binary(max_size=40))
def test_verify_rejects_any_changed_signature_or_message(signature: str, tail: bytes) -> None:
    message = ORDERS.encode() + tail
    try:
        sshsig.verify(message, signature, [PUB])
    except SshSigError:
        return
    assert not tail, "a signature verified for other bytes"
    assert (
        SshSignature.from_armor(signature).signature == SshSignature.from_armor(SIGNATURE).signature
    )


@FUZZ
@given(st.binary(max_size=200))
def test_wire_blobs_raise_only_sshsig_errors(blob: bytes) -> None:
    armored = (
        "-----BEGIN SSH SIGNATURE-----\n"
        + base64.b64encode(b"SSHSIG" + blob).decode()
        + "\n-----END SSH SIGNATURE-----\n"
    )
    try:
        sshsig.verify(ORDERS.encode(), armored, [PUB])
    except SshSigError:
        return
    raise AssertionError("random bytes verified")


@FUZZ
@given(st.one_of(mutated(str(PUB)), st.text(max_size=200)))
def test_key_and_signer_lines_raise_only_sshsig_errors(line: str) -> None:
    with contextlib.suppress(SshSigError):
        SshPublicKey.parse(line)
    with contextlib.suppress(SshSigError):
        AllowedSigners.parse(f"ann@north.test {line}\n{line}\n")


FUZZ_TARGETS = [
    test_extract_and_verify_raise_only_sshsig_errors,
    test_verify_rejects_any_changed_signature_or_message,
    test_wire_blobs_raise_only_sshsig_errors,
    test_key_and_signer_lines_raise_only_sshsig_errors,
]
