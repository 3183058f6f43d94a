"""OpenSSH public and private keys, as far as Ed25519 signing needs them.

Public keys are read in the one-line form ``ssh-ed25519 AAAA... comment``
(any key type parses, so an ``allowed_signers`` file with RSA lines still
loads; only Ed25519 keys verify). Private keys are the unencrypted
``-----BEGIN OPENSSH PRIVATE KEY-----`` files ``ssh-keygen -t ed25519 -N ''``
writes; pbem writes the same format, comment included.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from pbem.sshsig.errors import (
    BadArmorError,
    BadPrivateKeyError,
    BadPublicKeyError,
    EncryptedKeyError,
    UnsupportedKeyError,
)
from pbem.sshsig.wire import WireReader, WireWriter, armor, dearmor

ED25519 = "ssh-ed25519"
PRIVATE_KEY_LABEL = "OPENSSH PRIVATE KEY"
_PRIVATE_MAGIC = b"openssh-key-v1\x00"


@dataclass(frozen=True)
class SshPublicKey:
    """An OpenSSH public key: its type name and wire blob (the comment is not compared)."""

    key_type: str
    blob: bytes
    comment: str = field(default="", compare=False)

    @classmethod
    def parse(cls, line: str) -> SshPublicKey:
        """Read ``<type> <base64> [comment]`` (one line of a ``.pub`` file).

        Raises :class:`BadPublicKeyError` if the fields are missing, the
        base64 is bad, or the blob names another type than the first field.
        """
        fields = line.strip().split(None, 2)
        if len(fields) < 2:
            raise BadPublicKeyError("a public key line needs '<type> <base64>'", line=line)
        key_type, b64 = fields[0], fields[1]
        try:
            blob = base64.b64decode(b64.encode("ascii"), validate=True)
        except (binascii.Error, UnicodeEncodeError):
            raise BadPublicKeyError("the public key is not valid base64", line=line) from None
        key = cls.from_blob(blob, comment=fields[2].strip() if len(fields) == 3 else "")
        if key.key_type != key_type:
            raise BadPublicKeyError(
                f"the line says {key_type} but the key is {key.key_type}", line=line
            )
        return key

    @classmethod
    def from_blob(cls, blob: bytes, comment: str = "") -> SshPublicKey:
        """Wrap a wire-format public key blob (its first string names the type)."""
        reader = WireReader(blob, BadPublicKeyError, "public key")
        key_type = reader.text()
        if key_type == ED25519:
            if len(reader.string()) != 32:
                raise BadPublicKeyError("an Ed25519 public key is 32 bytes")
            reader.end()
        return cls(key_type, blob, comment)

    @classmethod
    def from_ed25519(cls, key: Ed25519PublicKey, comment: str = "") -> SshPublicKey:
        """Wrap a ``cryptography`` Ed25519 public key."""
        raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return cls(ED25519, WireWriter().string(ED25519).string(raw).getvalue(), comment)

    @property
    def is_ed25519(self) -> bool:
        """Tell whether this key can verify (pbem supports Ed25519 only)."""
        return self.key_type == ED25519

    def ed25519(self) -> Ed25519PublicKey:
        """Return the ``cryptography`` key; raise :class:`UnsupportedKeyError` if not Ed25519."""
        if not self.is_ed25519:
            raise UnsupportedKeyError(
                f"{self.key_type} keys are not supported; use an Ed25519 key "
                "(ssh-keygen -t ed25519)",
                key_type=self.key_type,
            )
        reader = WireReader(self.blob, BadPublicKeyError, "public key")
        reader.string()
        return Ed25519PublicKey.from_public_bytes(reader.string())

    def fingerprint(self) -> str:
        """Return the fingerprint as ``ssh-keygen -l`` prints it: ``SHA256:<base64>``."""
        digest = hashlib.sha256(self.blob).digest()
        return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")

    def openssh(self) -> str:
        """Return the one-line form, ``<type> <base64>`` plus the comment if any."""
        line = f"{self.key_type} {base64.b64encode(self.blob).decode('ascii')}"
        return f"{line} {self.comment}" if self.comment else line

    def __str__(self) -> str:
        return self.openssh()


def generate_private_key() -> Ed25519PrivateKey:
    """Make a new Ed25519 key from the operating system's random source."""
    return Ed25519PrivateKey.generate()


def public_key_of(key: Ed25519PrivateKey, comment: str = "") -> SshPublicKey:
    """Return the OpenSSH public key of a private key."""
    return SshPublicKey.from_ed25519(key.public_key(), comment)


def private_key_to_openssh(key: Ed25519PrivateKey, comment: str = "") -> str:
    """Encode ``key`` as an unencrypted OpenSSH private key file (PROTOCOL.key).

    The result is what ``ssh-keygen -t ed25519 -N '' -C <comment>`` writes:
    ssh-keygen, ssh-add and ssh read it.
    """
    seed = key.private_bytes(
        serialization.Encoding.Raw,
        serialization.PrivateFormat.Raw,
        serialization.NoEncryption(),
    )
    public = public_key_of(key)
    raw_public = key.public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    )
    check = secrets.randbits(32)  # two equal words let a reader detect a bad passphrase
    inner = (
        WireWriter()
        .uint32(check)
        .uint32(check)
        .string(ED25519)
        .string(raw_public)
        .string(seed + raw_public)
        .string(comment)
        .getvalue()
    )
    pad = (-len(inner)) % 8  # the "none" cipher has an 8-byte block
    inner += bytes(range(1, pad + 1))
    blob = (
        WireWriter()
        .raw(_PRIVATE_MAGIC)
        .string("none")
        .string("none")
        .string(b"")
        .uint32(1)
        .string(public.blob)
        .string(inner)
        .getvalue()
    )
    return armor(PRIVATE_KEY_LABEL, blob)


def load_private_key(data: bytes) -> Ed25519PrivateKey:
    """Read an unencrypted OpenSSH Ed25519 private key file.

    Raises :class:`EncryptedKeyError` for a key with a passphrase (sign with
    ``ssh-keygen -Y sign`` instead, which asks for it),
    :class:`UnsupportedKeyError` for other key types and
    :class:`BadPrivateKeyError` for anything unreadable.
    """
    try:
        blob = dearmor(PRIVATE_KEY_LABEL, data.decode("ascii"))
    except (UnicodeDecodeError, BadArmorError):
        raise BadPrivateKeyError(
            "not an OpenSSH private key (-----BEGIN OPENSSH PRIVATE KEY-----)"
        ) from None
    reader = WireReader(blob, BadPrivateKeyError, "private key")
    if reader.raw(len(_PRIVATE_MAGIC)) != _PRIVATE_MAGIC:
        raise BadPrivateKeyError("not an openssh-key-v1 private key")
    cipher = reader.text()
    if cipher != "none":
        raise EncryptedKeyError(
            "this private key has a passphrase, which pbem cannot remove; "
            "sign with 'ssh-keygen -Y sign' instead",
            cipher=cipher,
        )
    reader.text()  # kdf name
    reader.string()  # kdf options
    if reader.uint32() != 1:
        raise BadPrivateKeyError("the file holds more than one key")
    key_type = SshPublicKey.from_blob(reader.string()).key_type
    if key_type != ED25519:
        raise UnsupportedKeyError(
            f"{key_type} keys are not supported; use an Ed25519 key (ssh-keygen -t ed25519)",
            key_type=key_type,
        )
    try:
        loaded = serialization.load_ssh_private_key(data, password=None)
    except ValueError as exc:
        raise BadPrivateKeyError(f"private key: {exc}") from None
    if not isinstance(loaded, Ed25519PrivateKey):  # pragma: no cover - type checked above
        raise UnsupportedKeyError("only Ed25519 private keys are supported")
    return loaded


def write_private_key(path: Path, key: Ed25519PrivateKey, comment: str = "") -> SshPublicKey:
    """Write ``key`` to ``path`` (mode 0600) and its public key to ``path.pub``.

    Refuses to replace an existing private key (:class:`FileExistsError`):
    a lost key cannot sign for its player any more. Creates missing parent
    directories with mode 0700. Returns the public key, comment included.
    """
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    text = private_key_to_openssh(key, comment)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(text)
    public = public_key_of(key, comment)
    pub_path = path.with_name(path.name + ".pub")
    pub_path.write_text(public.openssh() + "\n", encoding="utf-8")
    return public
