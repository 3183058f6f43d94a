"""``pbem keygen/sign/verify/server-key`` and the server key, checked against ssh-keygen."""

from __future__ import annotations

import logging
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from pbem import sshsig
from pbem.cli import main
from pbem.server_key import ServerKey
from pbem.sshsig import SshPublicKey

SSH_KEYGEN = shutil.which("ssh-keygen") or "/usr/bin/ssh-keygen"
F = TypeVar("F", bound=Callable[..., object])

ORDERS = b"game cannae-7 turn 12\nmove C4 D5\n"


def needs_ssh(test: F) -> F:
    """Mark a test as needing the real ssh-keygen, and skip it if there is none."""
    skip = pytest.mark.skipif(not Path(SSH_KEYGEN).exists(), reason="ssh-keygen is not installed")
    return pytest.mark.ssh(skip(test))


def ssh_keygen(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [SSH_KEYGEN, *args], input=stdin, capture_output=True, timeout=60, check=False
    )


def pbem(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def allowed_signers(path: Path, principal: str, public: SshPublicKey) -> Path:
    path.write_text(f"{principal} {public.openssh()}\n")
    return path


# --- keygen ------------------------------------------------------------------------


@needs_ssh
def test_keygen_makes_a_key_ssh_keygen_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "alice"
    code, out, _ = pbem(capsys, "keygen", "-f", str(key), "-C", "alice@example.org")
    assert code == 0
    assert key.stat().st_mode & 0o777 == 0o600
    public = (tmp_path / "alice.pub").read_text()
    assert public.startswith("ssh-ed25519 AAAA") and public.endswith(" alice@example.org\n")
    derived = ssh_keygen("-y", "-f", str(key))
    assert derived.returncode == 0, derived.stderr
    assert derived.stdout.decode() == public
    fingerprint = ssh_keygen("-l", "-f", str(key)).stdout.decode().split()[1]
    assert f"Fingerprint:      {fingerprint}" in out
    # ssh-keygen signs with it, pbem verifies.
    orders = tmp_path / "orders.txt"
    orders.write_bytes(ORDERS)
    signed = ssh_keygen("-Y", "sign", "-f", str(key), "-n", "pbem-orders", str(orders))
    assert signed.returncode == 0, signed.stderr
    code, out, err = pbem(capsys, "verify", str(orders), "--key", str(tmp_path / "alice.pub"))
    assert code == 0, err
    assert out.startswith('Good "pbem-orders" signature')


def test_keygen_defaults_to_ssh_dir_and_never_overwrites(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    code, _, _ = pbem(capsys, "keygen")
    key = tmp_path / ".ssh" / "id_ed25519"
    assert code == 0
    assert (tmp_path / ".ssh").stat().st_mode & 0o777 == 0o700
    before = key.read_bytes()
    code, _, err = pbem(capsys, "keygen")
    assert code == 1
    assert "already exists" in err
    assert key.read_bytes() == before


# --- sign ------------------------------------------------------------------------


@needs_ssh
def test_sign_matches_ssh_keygen_byte_for_byte(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "id"
    assert ssh_keygen("-q", "-t", "ed25519", "-N", "", "-f", str(key)).returncode == 0
    theirs, ours = tmp_path / "theirs.txt", tmp_path / "ours.txt"
    theirs.write_bytes(ORDERS)
    ours.write_bytes(ORDERS)
    assert (
        ssh_keygen("-Y", "sign", "-f", str(key), "-n", "pbem-orders", str(theirs)).returncode == 0
    )
    code, _, err = pbem(capsys, "sign", str(ours), "-f", str(key))
    assert code == 0
    assert err == ""  # already canonical: no note
    assert (tmp_path / "ours.txt.sig").read_text() == (tmp_path / "theirs.txt.sig").read_text()
    public = SshPublicKey.parse((tmp_path / "id.pub").read_text())
    signers = allowed_signers(tmp_path / "allowed_signers", "alice@example.org", public)
    check = ssh_keygen(
        "-Y", "verify", "-f", str(signers), "-I", "alice@example.org", "-n", "pbem-orders",
        "-s", str(tmp_path / "ours.txt.sig"), stdin=ORDERS,
    )  # fmt: skip
    assert check.returncode == 0, check.stderr
    novalidate = ssh_keygen(
        "-Y", "check-novalidate", "-n", "pbem-orders", "-s", str(tmp_path / "ours.txt.sig"),
        stdin=ORDERS,
    )  # fmt: skip
    assert novalidate.returncode == 0, novalidate.stderr


@needs_ssh
def test_sign_of_a_non_canonical_file_signs_its_canonical_form(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "id"
    pbem(capsys, "keygen", "-f", str(key))
    file = tmp_path / "orders.txt"
    raw = b"\r\n" + ORDERS.replace(b"\n", b"  \r\n")
    file.write_bytes(raw)
    code, _, err = pbem(capsys, "sign", str(file), "-f", str(key), "-n", "pbem-orders")
    assert code == 0
    assert "not in canonical form" in err
    public = SshPublicKey.parse((tmp_path / "id.pub").read_text())
    signers = allowed_signers(tmp_path / "allowed_signers", "a@x", public)
    args = ("-Y", "verify", "-f", str(signers), "-I", "a@x", "-n", "pbem-orders")
    sig = ("-s", str(tmp_path / "orders.txt.sig"))
    assert ssh_keygen(*args, *sig, stdin=raw).returncode != 0
    assert ssh_keygen(*args, *sig, stdin=ORDERS).returncode == 0
    code, out, _ = pbem(capsys, "verify", str(file), "--key", str(tmp_path / "id.pub"))
    assert code == 0
    assert "canonical form" in out


def test_sign_reports_unreadable_keys(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = tmp_path / "orders.txt"
    file.write_bytes(ORDERS)
    (tmp_path / "notakey").write_text("hello\n")
    code, _, err = pbem(capsys, "sign", str(file), "-f", str(tmp_path / "notakey"))
    assert code == 1
    assert "[bad-private-key]" in err
    code, _, err = pbem(capsys, "sign", str(file), "-f", str(tmp_path / "missing"))
    assert code == 1
    assert "cannot read" in err
    assert not (tmp_path / "orders.txt.sig").exists()


# --- verify ------------------------------------------------------------------------


@pytest.fixture
def signed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A key pair ``id``/``id.pub`` and ``orders.txt`` with its ``.sig``, made by pbem."""
    pbem(capsys, "keygen", "-f", str(tmp_path / "id"), "-C", "alice@example.org")
    (tmp_path / "orders.txt").write_bytes(ORDERS)
    assert pbem(capsys, "sign", str(tmp_path / "orders.txt"), "-f", str(tmp_path / "id"))[0] == 0
    return tmp_path


def test_verify_with_allowed_signers(signed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    public = SshPublicKey.parse((signed / "id.pub").read_text())
    signers = allowed_signers(signed / "allowed_signers", "alice@example.org", public)
    orders = str(signed / "orders.txt")
    code, out, _ = pbem(
        capsys, "verify", orders, "--allowed-signers", str(signers), "--identity",
        "alice@example.org",
    )  # fmt: skip
    assert code == 0
    assert "for alice@example.org" in out and public.fingerprint() in out
    code, _, err = pbem(
        capsys, "verify", orders, "--allowed-signers", str(signers), "--identity", "bob@x"
    )
    assert (code, "[wrong-key]" in err) == (1, True)
    code, _, err = pbem(capsys, "verify", orders, "--allowed-signers", str(signers))
    assert code == 2


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        ("text", "[bad-signature]"),
        ("signature", "[bad-signature]"),
        ("namespace", "[wrong-namespace]"),
        ("key", "[wrong-key]"),
        ("armor", "[bad-armor]"),
    ],
)
def test_verify_says_why_it_fails(
    signed: Path, capsys: pytest.CaptureFixture[str], damage: str, reason: str
) -> None:
    orders, sig, pub = signed / "orders.txt", signed / "orders.txt.sig", signed / "id.pub"
    args = ["verify", str(orders), "--key", str(pub)]
    if damage == "text":
        orders.write_bytes(ORDERS.replace(b"D5", b"D6"))
    elif damage == "signature":
        parsed = sshsig.SshSignature.from_armor(sig.read_text())
        value = bytearray(parsed.signature)
        value[0] ^= 0x80
        sig.write_text(
            sshsig.SshSignature(
                parsed.public_key, parsed.namespace, parsed.hash_algorithm,
                parsed.signature_type, bytes(value),
            ).armor()
        )  # fmt: skip
    elif damage == "namespace":
        args += ["-n", "pbem-mail"]
    elif damage == "key":
        other = sshsig.public_key_of(sshsig.generate_private_key())
        pub.write_text(other.openssh() + "\n")
    else:
        sig.write_text(sig.read_text().replace("-----END SSH SIGNATURE-----", ""))
    code, out, err = pbem(capsys, *args)
    assert code == 1
    assert out == ""
    assert err.startswith("Bad signature for") and reason in err


def test_verify_reads_a_separate_sig_file(signed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    moved = signed / "elsewhere.sig"
    (signed / "orders.txt.sig").rename(moved)
    args = ["verify", str(signed / "orders.txt"), "--key", str(signed / "id.pub")]
    assert pbem(capsys, *args)[0] == 1
    assert pbem(capsys, *args, "--sig", str(moved))[0] == 0


# --- server key ----------------------------------------------------------------------


@needs_ssh
def test_server_key_line_lets_players_verify_mail_with_ssh_keygen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "state" / "server_ed25519"
    args = ("server-key", "--key", str(path), "--principal", "pbem@club.example")
    code, line, _ = pbem(capsys, *args)
    assert code == 0
    assert line.startswith('pbem@club.example namespaces="pbem-mail" ssh-ed25519 AAAA')
    assert path.stat().st_mode & 0o777 == 0o600
    assert pbem(capsys, *args)[1] == line  # the key is kept, not replaced

    signed = ServerKey.load(path).sign_text("Turn 12: Carthage moves.  \r\nDice: 3 5\r\n")
    assert signed.text == "Turn 12: Carthage moves.\nDice: 3 5\n"
    (tmp_path / "allowed_signers").write_text(line)
    (tmp_path / "mail.sig").write_text(signed.signature)
    verify = (
        "-Y", "verify", "-f", str(tmp_path / "allowed_signers"), "-I", "pbem@club.example",
        "-s", str(tmp_path / "mail.sig"),
    )  # fmt: skip
    good = ssh_keygen(*verify, "-n", "pbem-mail", stdin=signed.text.encode())
    assert good.returncode == 0, good.stderr
    # The line limits the key to pbem-mail: it cannot vouch for orders.
    orders_sig = ServerKey.load(path).sign(ORDERS, namespace="pbem-orders")
    (tmp_path / "mail.sig").write_text(orders_sig)
    assert ssh_keygen(*verify, "-n", "pbem-orders", stdin=ORDERS).returncode != 0


def test_server_key_defaults_come_from_the_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "pbem.toml"
    config.write_text('data_dir = "state"\n[mail]\naddress = "referee@club.example"\n')
    code, out, _ = pbem(capsys, "server-key", "--config", str(config))
    assert code == 0
    assert out.startswith('referee@club.example namespaces="pbem-mail" ssh-ed25519 ')
    assert (tmp_path / "state" / "server_ed25519").stat().st_mode & 0o777 == 0o600
    config.write_text("no_such_key = 1\n")
    code, out, err = pbem(capsys, "server-key", "--config", str(config))
    assert (code, out) == (1, "")
    assert "no_such_key" in err


def test_server_key_refuses_a_broken_key_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "k").write_text("not a key\n")
    (tmp_path / "k").chmod(0o600)
    code, out, err = pbem(capsys, "server-key", "--key", str(tmp_path / "k"))
    assert (code, out) == (1, "")
    assert "OPENSSH PRIVATE KEY" in err


def test_server_key_load_or_create_is_stable(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "k"
    first = ServerKey.load_or_create(path)
    again = ServerKey.load_or_create(path)
    assert again.public_key == first.public_key
    assert again.fingerprint() == first.fingerprint()
    with pytest.raises(ValueError, match="principal"):
        first.allowed_signers_line("two words")
    path.chmod(0o644)
    with caplog.at_level(logging.WARNING, logger="pbem.server_key"):
        ServerKey.load(path)
    assert "readable by other users" in caplog.text


def test_server_signature_is_verified_by_pbem(tmp_path: Path) -> None:
    key = ServerKey.load_or_create(tmp_path / "k")
    signed = key.sign_text("Turn 3\n")
    sshsig.verify(signed.text.encode(), signed.signature, key.public_key, namespace="pbem-mail")
    line = key.allowed_signers_line("pbem@club.example")
    signers = sshsig.AllowedSigners.parse(line)
    sshsig.verify_allowed(
        signed.text.encode(), signed.signature, signers, "pbem@club.example",
        namespace="pbem-mail",
    )  # fmt: skip
