"""OpenSSH signatures: pbem and the real ssh-keygen accept each other's work."""

from __future__ import annotations

import base64
import shutil
import subprocess
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem import sshsig
from pbem.sshsig import (
    AllowedSigner,
    AllowedSigners,
    SshPublicKey,
    SshSigError,
    SshSignature,
)
from pbem.sshsig.wire import armor

SSH_KEYGEN = shutil.which("ssh-keygen") or "/usr/bin/ssh-keygen"
F = TypeVar("F", bound=Callable[..., object])


def needs_ssh(test: F) -> F:
    """Mark a test as needing the real ssh-keygen, and skip it if there is none."""
    skip = pytest.mark.skipif(not Path(SSH_KEYGEN).exists(), reason="ssh-keygen is not installed")
    return pytest.mark.ssh(skip(test))


ORDERS = b"game g1 turn 3\nmove C4 D5\n"
FIXED_KEY = sshsig.generate_private_key()
SOME_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHFuC4zXRceREmRGHf+FvfEdXOutIj8Swjse99BdT5sR"


def keygen(*args: str, stdin: bytes | None = None, cwd: Path | None = None) -> str:
    """Run ssh-keygen; return stdout+stderr; fail the test on a non-zero exit."""
    done = run_keygen(*args, stdin=stdin, cwd=cwd)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def run_keygen(
    *args: str, stdin: bytes | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [SSH_KEYGEN, *args],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        timeout=60,
        check=False,
    )
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


def ssh_keypair(directory: Path, name: str = "id_ed25519", kind: str = "ed25519") -> Path:
    """Make a key with ssh-keygen, no passphrase; return the private key path."""
    path = directory / name
    keygen("-q", "-t", kind, "-N", "", "-C", f"{name}@example.org", "-f", str(path))
    return path


def ssh_sign(key: Path, message: Path, namespace: str = "pbem-orders", *extra: str) -> str:
    keygen("-Y", "sign", "-f", str(key), "-n", namespace, *extra, str(message))
    return message.with_name(message.name + ".sig").read_text()


def ssh_verify(
    directory: Path, public: SshPublicKey, message: bytes, signature: str, namespace: str
) -> subprocess.CompletedProcess[str]:
    signers = directory / "allowed_signers"
    signers.write_text(f"alice@example.org {public.openssh()}\n")
    sig_file = directory / "check.sig"
    sig_file.write_text(signature)
    return run_keygen(
        "-Y", "verify", "-f", str(signers), "-I", "alice@example.org", "-n", namespace,
        "-s", str(sig_file), stdin=message,
    )  # fmt: skip


def flip_signature_byte(signature: str) -> str:
    """Flip one bit inside the 64-byte Ed25519 value (the blob's last bytes)."""
    blob = bytearray(SshSignature.from_armor(signature).blob())
    blob[-10] ^= 0x01
    return armor("SSH SIGNATURE", bytes(blob))


# --- interoperability with the real ssh-keygen ------------------------------------


@needs_ssh
@pytest.mark.parametrize("hashalg", ["sha512", "sha256"])
def test_what_ssh_keygen_signs_pbem_verifies(tmp_path: Path, hashalg: str) -> None:
    key = ssh_keypair(tmp_path)
    message = tmp_path / "orders.txt"
    message.write_bytes(ORDERS)
    signature = ssh_sign(key, message, "pbem-orders", "-O", f"hashalg={hashalg}")
    public = SshPublicKey.parse((tmp_path / "id_ed25519.pub").read_text())
    sig = sshsig.verify(ORDERS, signature, public)
    assert sig.hash_algorithm == hashalg
    assert sig.namespace == "pbem-orders"
    assert sig.public_key == public


@needs_ssh
@pytest.mark.parametrize("hashalg", ["sha512", "sha256"])
def test_what_pbem_signs_ssh_keygen_verifies(tmp_path: Path, hashalg: str) -> None:
    key = sshsig.generate_private_key()
    public = sshsig.public_key_of(key)
    signature = sshsig.sign(ORDERS, key, namespace="pbem-orders", hash_algorithm=hashalg)
    done = ssh_verify(tmp_path, public, ORDERS, signature, "pbem-orders")
    assert done.returncode == 0, done.stderr
    assert public.fingerprint() in done.stdout + done.stderr
    novalidate = run_keygen(
        "-Y", "check-novalidate", "-n", "pbem-orders", "-s", str(tmp_path / "check.sig"),
        stdin=ORDERS,
    )  # fmt: skip
    assert novalidate.returncode == 0, novalidate.stderr


@needs_ssh
def test_pbem_signature_is_byte_identical_to_ssh_keygen_with_the_same_key(
    tmp_path: Path,
) -> None:
    # Ed25519 is deterministic, so the same key and text must give the same armor.
    key_path = ssh_keypair(tmp_path)
    message = tmp_path / "orders.txt"
    message.write_bytes(ORDERS)
    theirs = ssh_sign(key_path, message)
    ours = sshsig.sign(ORDERS, sshsig.load_private_key(key_path.read_bytes()))
    assert ours == theirs


@needs_ssh
def test_fingerprint_matches_ssh_keygen_l(tmp_path: Path) -> None:
    ssh_keypair(tmp_path)
    pub_path = tmp_path / "id_ed25519.pub"
    printed = keygen("-l", "-f", str(pub_path)).split()[1]
    assert SshPublicKey.parse(pub_path.read_text()).fingerprint() == printed


@needs_ssh
def test_key_files_pbem_writes_work_in_ssh_keygen(tmp_path: Path) -> None:
    path = tmp_path / "player_key"
    public = sshsig.write_private_key(path, sshsig.generate_private_key(), "bob@example.org")
    assert path.stat().st_mode & 0o777 == 0o600
    derived = keygen("-y", "-f", str(path)).strip()
    assert derived == public.openssh() == (tmp_path / "player_key.pub").read_text().strip()
    message = tmp_path / "orders.txt"
    message.write_bytes(ORDERS)
    signature = ssh_sign(path, message)
    assert sshsig.verify(ORDERS, signature, public).public_key == public


@needs_ssh
def test_ssh_keygen_refuses_what_pbem_refuses(tmp_path: Path) -> None:
    key = sshsig.generate_private_key()
    public = sshsig.public_key_of(key)
    signature = sshsig.sign(ORDERS, key)
    tampered = bytearray(ORDERS)
    tampered[5] ^= 0x01
    for message, sig, namespace, code in [
        (bytes(tampered), signature, "pbem-orders", "bad-signature"),
        (ORDERS, flip_signature_byte(signature), "pbem-orders", "bad-signature"),
        (ORDERS, signature, "pbem-mail", "wrong-namespace"),
    ]:
        assert ssh_verify(tmp_path, public, message, sig, namespace).returncode != 0
        with pytest.raises(SshSigError) as err:
            sshsig.verify(message, sig, public, namespace=namespace)
        assert err.value.code == code


@needs_ssh
def test_ecdsa_signature_is_refused_as_unsupported_key(tmp_path: Path) -> None:
    key = ssh_keypair(tmp_path, "id_ecdsa", "ecdsa")
    message = tmp_path / "orders.txt"
    message.write_bytes(ORDERS)
    signature = ssh_sign(key, message)
    public = SshPublicKey.parse((tmp_path / "id_ecdsa.pub").read_text())
    with pytest.raises(sshsig.UnsupportedKeyError):
        sshsig.verify(ORDERS, signature, public)
    with pytest.raises(sshsig.UnsupportedKeyError):
        sshsig.load_private_key(key.read_bytes())


@needs_ssh
def test_passphrase_key_is_refused_with_a_hint(tmp_path: Path) -> None:
    path = tmp_path / "locked"
    keygen("-q", "-t", "ed25519", "-N", "secret words", "-f", str(path))
    with pytest.raises(sshsig.EncryptedKeyError) as err:
        sshsig.load_private_key(path.read_bytes())
    assert err.value.code == "encrypted-key"
    assert "ssh-keygen -Y sign" in str(err.value)


@needs_ssh
def test_find_principals_agrees_with_ssh_keygen(tmp_path: Path) -> None:
    key = sshsig.generate_private_key()
    public = sshsig.public_key_of(key)
    other = sshsig.public_key_of(sshsig.generate_private_key())
    text = f"alice@example.org {public}\nbob@example.org {other}\n*@club.example {public}\n"
    (tmp_path / "allowed_signers").write_text(text)
    (tmp_path / "m.sig").write_text(sshsig.sign(ORDERS, key))
    out = keygen(
        "-Y", "find-principals", "-f", str(tmp_path / "allowed_signers"),
        "-s", str(tmp_path / "m.sig"),
    )  # fmt: skip
    found = AllowedSigners.parse(text).principals_for(public)
    assert found == ("alice@example.org", "*@club.example")
    # OpenSSH 9.2 prints the first matching line only; newer versions print all.
    assert out.split()[0] == found[0]
    assert set(out.split()) <= set(found)


# --- pbem on its own ---------------------------------------------------------------


def test_error_codes_are_stable() -> None:
    # Mail templates switch on these strings: changing one is a protocol change.
    codes = {
        cls.__name__: cls.code
        for cls in (
            sshsig.BadArmorError,
            sshsig.MalformedSignatureError,
            sshsig.UnsupportedKeyError,
            sshsig.UnsupportedHashError,
            sshsig.WrongNamespaceError,
            sshsig.WrongKeyError,
            sshsig.BadSignatureError,
            sshsig.KeyNotValidError,
            sshsig.BadPublicKeyError,
            sshsig.BadPrivateKeyError,
            sshsig.EncryptedKeyError,
            sshsig.AllowedSignersError,
        )
    }
    assert codes == {
        "BadArmorError": "bad-armor",
        "MalformedSignatureError": "bad-format",
        "UnsupportedKeyError": "unsupported-key",
        "UnsupportedHashError": "unsupported-hash",
        "WrongNamespaceError": "wrong-namespace",
        "WrongKeyError": "wrong-key",
        "BadSignatureError": "bad-signature",
        "KeyNotValidError": "key-not-valid",
        "BadPublicKeyError": "bad-key",
        "BadPrivateKeyError": "bad-private-key",
        "EncryptedKeyError": "encrypted-key",
        "AllowedSignersError": "bad-allowed-signers",
    }
    assert issubclass(sshsig.SshSigError, ValueError)


def test_wrong_key_names_both_fingerprints() -> None:
    signature = sshsig.sign(ORDERS, FIXED_KEY)
    other = sshsig.public_key_of(sshsig.generate_private_key())
    with pytest.raises(sshsig.WrongKeyError) as err:
        sshsig.verify(ORDERS, signature, other)
    assert err.value.details["found"] == sshsig.public_key_of(FIXED_KEY).fingerprint()
    assert err.value.details["expected"] == other.fingerprint()


def test_wrong_namespace_says_which() -> None:
    signature = sshsig.sign(ORDERS, FIXED_KEY, namespace="git")
    with pytest.raises(sshsig.WrongNamespaceError) as err:
        sshsig.verify(ORDERS, signature, sshsig.public_key_of(FIXED_KEY))
    assert err.value.details == {"expected": "pbem-orders", "found": "git"}


def test_any_of_several_keys_may_sign() -> None:
    others = [sshsig.public_key_of(sshsig.generate_private_key()) for _ in range(2)]
    mine = sshsig.public_key_of(FIXED_KEY)
    sig = sshsig.verify(ORDERS, sshsig.sign(ORDERS, FIXED_KEY), [*others, mine])
    assert sig.public_key == mine


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("no block here", sshsig.BadArmorError),
        ("-----BEGIN SSH SIGNATURE-----\nU1NI\n", sshsig.BadArmorError),
        ("-----BEGIN SSH SIGNATURE-----\n-----END SSH SIGNATURE-----\n", sshsig.BadArmorError),
        (
            "-----BEGIN SSH SIGNATURE-----\n!!!!\n-----END SSH SIGNATURE-----\n",
            sshsig.BadArmorError,
        ),
        (armor("SSH SIGNATURE", b"NOTSIG\x00\x00\x00\x01"), sshsig.MalformedSignatureError),
        (armor("SSH SIGNATURE", b"SSHSIG\x00\x00\x00\x02"), sshsig.MalformedSignatureError),
        (armor("SSH SIGNATURE", b"SSHSIG\x00\x00\x00\x01\x00\x00"), sshsig.MalformedSignatureError),
    ],
)
def test_broken_armor_is_named(text: str, error: type[SshSigError]) -> None:
    with pytest.raises(error):
        SshSignature.from_armor(text)


def test_truncated_or_padded_signature_is_bad_format() -> None:
    blob = SshSignature.from_armor(sshsig.sign(ORDERS, FIXED_KEY)).blob()
    for broken in (blob[:-1], blob + b"\x00"):
        with pytest.raises(sshsig.MalformedSignatureError):
            SshSignature.from_blob(broken)


def test_unknown_hash_is_refused() -> None:
    with pytest.raises(sshsig.UnsupportedHashError):
        sshsig.sign(ORDERS, FIXED_KEY, hash_algorithm="md5")


def test_rewrapped_armor_still_reads() -> None:
    signature = sshsig.sign(ORDERS, FIXED_KEY)
    lines = signature.splitlines()
    body = "".join(lines[1:-1])
    rewrapped = "\r\n".join([lines[0], body[:30], "  " + body[30:], lines[-1]])
    sshsig.verify(ORDERS, rewrapped, sshsig.public_key_of(FIXED_KEY))


@pytest.mark.parametrize(
    "line",
    [
        "ssh-ed25519",
        "ssh-ed25519 not*base64",
        "ssh-rsa " + base64.b64encode(b"\x00\x00\x00\x0bssh-ed25519").decode(),
        "ssh-ed25519 " + base64.b64encode(b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x01x").decode(),
    ],
)
def test_bad_public_key_lines(line: str) -> None:
    with pytest.raises(sshsig.BadPublicKeyError):
        SshPublicKey.parse(line)


def test_public_key_round_trips_with_comment() -> None:
    public = sshsig.public_key_of(FIXED_KEY, "alice@example.org laptop")
    parsed = SshPublicKey.parse(public.openssh() + "\n")
    assert parsed == public
    assert parsed.comment == "alice@example.org laptop"
    assert parsed.fingerprint().startswith("SHA256:")
    assert not parsed.fingerprint().endswith("=")


def test_private_key_round_trips() -> None:
    text = sshsig.private_key_to_openssh(FIXED_KEY, "c")
    again = sshsig.load_private_key(text.encode())
    assert sshsig.public_key_of(again) == sshsig.public_key_of(FIXED_KEY)
    with pytest.raises(sshsig.BadPrivateKeyError):
        sshsig.load_private_key(b"-----BEGIN RSA PRIVATE KEY-----\nAAAA\n")


def test_write_private_key_never_replaces_a_key(tmp_path: Path) -> None:
    path = tmp_path / "k"
    sshsig.write_private_key(path, FIXED_KEY)
    before = path.read_bytes()
    with pytest.raises(FileExistsError):
        sshsig.write_private_key(path, sshsig.generate_private_key())
    assert path.read_bytes() == before


@settings(max_examples=30, deadline=None)
@given(
    st.binary(max_size=300), st.text(min_size=1, max_size=20), st.sampled_from(["sha256", "sha512"])
)
def test_sign_verify_round_trip(message: bytes, namespace: str, hashalg: str) -> None:
    signature = sshsig.sign(message, FIXED_KEY, namespace=namespace, hash_algorithm=hashalg)
    sig = sshsig.check_novalidate(message, signature, namespace=namespace)
    assert SshSignature.from_armor(sig.armor()) == sig
    assert sig.armor() == signature


# --- allowed_signers ---------------------------------------------------------------


def _signers(text: str) -> AllowedSigners:
    return AllowedSigners.parse(text)


def test_allowed_signers_identity_and_namespaces() -> None:
    public = sshsig.public_key_of(FIXED_KEY)
    signers = _signers(
        "# club keys\n\n"
        "alice@example.org,*@club.example,!mallory@club.example"
        f' namespaces="pbem-orders" {public}\n'
    )
    signature = sshsig.sign(ORDERS, FIXED_KEY)
    entry = sshsig.verify_allowed(ORDERS, signature, signers, "alice@example.org")
    assert entry.line_number == 3
    sshsig.verify_allowed(ORDERS, signature, signers, "bob@club.example")
    with pytest.raises(sshsig.WrongKeyError):
        sshsig.verify_allowed(ORDERS, signature, signers, "mallory@club.example")
    mail = sshsig.sign(ORDERS, FIXED_KEY, namespace="pbem-mail")
    with pytest.raises(sshsig.WrongNamespaceError):
        sshsig.verify_allowed(ORDERS, mail, signers, "alice@example.org", namespace="pbem-mail")


def test_allowed_signers_validity_window() -> None:
    public = sshsig.public_key_of(FIXED_KEY)
    signers = _signers(f"a@x valid-after=20260101Z,valid-before=20261231235959Z {public}\n")
    signature = sshsig.sign(ORDERS, FIXED_KEY)
    inside = datetime(2026, 6, 1, tzinfo=UTC)
    sshsig.verify_allowed(ORDERS, signature, signers, "a@x", now=inside)
    for outside in (datetime(2025, 12, 31, tzinfo=UTC), datetime(2027, 1, 1, tzinfo=UTC)):
        with pytest.raises(sshsig.KeyNotValidError):
            sshsig.verify_allowed(ORDERS, signature, signers, "a@x", now=outside)


def test_cert_authority_lines_never_vouch_for_a_plain_key() -> None:
    public = sshsig.public_key_of(FIXED_KEY)
    signers = _signers(f"a@x cert-authority {public}\n")
    with pytest.raises(sshsig.WrongKeyError):
        sshsig.verify_allowed(ORDERS, sshsig.sign(ORDERS, FIXED_KEY), signers, "a@x")


@pytest.mark.parametrize(
    "line",
    [
        "a@x",
        "a@x ssh-ed25519",
        f"a@x bogus-option {SOME_KEY}",
        'a@x namespaces="unclosed ssh-ed25519 AAAA',
        f"a@x valid-after=2026 {SOME_KEY}",
    ],
)
def test_malformed_allowed_signers_line_is_reported_with_its_number(line: str) -> None:
    with pytest.raises(sshsig.AllowedSignersError) as err:
        _signers("# header\n" + line + "\n")
    assert err.value.details["line"] == "2"
    assert "line 2" in str(err.value)


def test_allowed_signer_line_round_trips() -> None:
    public = sshsig.public_key_of(FIXED_KEY)
    entry = AllowedSigner(
        principals="a@x,b@y",
        key=public,
        namespaces="pbem-orders,pbem-mail",
        valid_before=datetime(2027, 1, 1, tzinfo=UTC),
    )
    assert AllowedSigner.parse(entry.line()) == entry
