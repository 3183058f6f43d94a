"""Create and verify OpenSSH signatures (SSHSIG) with Ed25519 keys.

The format is the one ``ssh-keygen -Y sign`` writes (OpenSSH PROTOCOL.sshsig):
an armored ``-----BEGIN SSH SIGNATURE-----`` block holding the magic
``SSHSIG``, version 1, the signer's public key, a namespace, a reserved
string, the hash algorithm and the signature over::

    "SSHSIG" || string(namespace) || string(reserved) || string(hash_alg) || string(H(message))

so a signature made for one purpose (namespace ``pbem-orders``) cannot be
replayed for another (``pbem-mail``, or ``git``). What pbem signs
``ssh-keygen -Y verify`` accepts and the other way round.

Every failure is a :class:`SshSigError` (a :class:`ValueError`) whose
``code`` says what went wrong; see :mod:`pbem.sshsig.errors`. Checks run in
the order a player can act on: format, namespace, key type, hash, which key,
then the signature itself (``bad-signature`` therefore means "your key, but
not these bytes").
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from pbem.sshsig.errors import (
    AllowedSignersError,
    BadArmorError,
    BadPrivateKeyError,
    BadPublicKeyError,
    BadSignatureError,
    EncryptedKeyError,
    KeyNotValidError,
    MalformedSignatureError,
    SshSigError,
    UnsupportedHashError,
    UnsupportedKeyError,
    WrongKeyError,
    WrongNamespaceError,
)
from pbem.sshsig.keys import (
    ED25519,
    SshPublicKey,
    generate_private_key,
    load_private_key,
    private_key_to_openssh,
    public_key_of,
    write_private_key,
)
from pbem.sshsig.signers import AllowedSigner, AllowedSigners
from pbem.sshsig.wire import WireReader, WireWriter, armor, dearmor

__all__ = [
    "DEFAULT_NAMESPACE",
    "MAIL_NAMESPACE",
    "AllowedSigner",
    "AllowedSigners",
    "AllowedSignersError",
    "BadArmorError",
    "BadPrivateKeyError",
    "BadPublicKeyError",
    "BadSignatureError",
    "EncryptedKeyError",
    "KeyNotValidError",
    "MalformedSignatureError",
    "SshPublicKey",
    "SshSigError",
    "SshSignature",
    "UnsupportedHashError",
    "UnsupportedKeyError",
    "WrongKeyError",
    "WrongNamespaceError",
    "check_novalidate",
    "generate_private_key",
    "load_private_key",
    "private_key_to_openssh",
    "public_key_of",
    "sign",
    "verify",
    "verify_allowed",
    "write_private_key",
]

MAGIC = b"SSHSIG"
VERSION = 1
SIGNATURE_LABEL = "SSH SIGNATURE"
DEFAULT_NAMESPACE = "pbem-orders"
MAIL_NAMESPACE = "pbem-mail"
HASHES: dict[str, Callable[[bytes], hashlib._Hash]] = {
    "sha512": hashlib.sha512,
    "sha256": hashlib.sha256,
}


@dataclass(frozen=True)
class SshSignature:
    """A decoded SSHSIG signature; ``signature`` is the raw 64-byte Ed25519 value."""

    public_key: SshPublicKey
    namespace: str
    hash_algorithm: str
    signature_type: str
    signature: bytes
    reserved: bytes = b""

    @classmethod
    def from_armor(cls, text: str) -> SshSignature:
        """Decode the ``-----BEGIN SSH SIGNATURE-----`` block in ``text``.

        Raises :class:`BadArmorError` (no block, bad base64) or
        :class:`MalformedSignatureError` (not SSHSIG v1).
        """
        return cls.from_blob(dearmor(SIGNATURE_LABEL, text))

    @classmethod
    def from_blob(cls, blob: bytes) -> SshSignature:
        """Decode the binary SSHSIG structure."""
        reader = WireReader(blob, MalformedSignatureError, "signature")
        if reader.raw(len(MAGIC)) != MAGIC:
            raise MalformedSignatureError("not an SSH signature (no SSHSIG magic)")
        version = reader.uint32()
        if version != VERSION:
            raise MalformedSignatureError(
                f"SSH signature version {version} is not supported (want 1)",
                version=str(version),
            )
        try:
            public_key = SshPublicKey.from_blob(reader.string())
        except BadPublicKeyError as exc:
            raise MalformedSignatureError(f"signature: {exc.message}") from None
        namespace = reader.text()
        reserved = reader.string()
        hash_algorithm = reader.text()
        inner = WireReader(reader.string(), MalformedSignatureError, "signature value")
        reader.end()
        signature_type = inner.text()
        signature = inner.string()
        # FIDO (sk-) signatures carry flags and a counter after the value.
        if not signature_type.startswith("sk-"):
            inner.end()
        return cls(public_key, namespace, hash_algorithm, signature_type, signature, reserved)

    def blob(self) -> bytes:
        """Encode the binary SSHSIG structure."""
        value = WireWriter().string(self.signature_type).string(self.signature).getvalue()
        return (
            WireWriter()
            .raw(MAGIC)
            .uint32(VERSION)
            .string(self.public_key.blob)
            .string(self.namespace)
            .string(self.reserved)
            .string(self.hash_algorithm)
            .string(value)
            .getvalue()
        )

    def armor(self) -> str:
        """Encode as the armored block ``ssh-keygen -Y sign`` writes (ends in LF)."""
        return armor(SIGNATURE_LABEL, self.blob())

    def signed_data(self, message: bytes) -> bytes:
        """Return the bytes the key actually signs for ``message``."""
        return _signed_data(message, self.namespace, self.reserved, self.hash_algorithm)

    def fingerprint(self) -> str:
        """Return the signing key's ``SHA256:`` fingerprint."""
        return self.public_key.fingerprint()


def _signed_data(message: bytes, namespace: str, reserved: bytes, hash_algorithm: str) -> bytes:
    hasher = HASHES.get(hash_algorithm)
    if hasher is None:
        raise UnsupportedHashError(
            f"hash algorithm {hash_algorithm!r} is not supported (sha512 or sha256)",
            hash_algorithm=hash_algorithm,
        )
    return (
        WireWriter()
        .raw(MAGIC)
        .string(namespace)
        .string(reserved)
        .string(hash_algorithm)
        .string(hasher(message).digest())
        .getvalue()
    )


def sign(
    message: bytes,
    key: Ed25519PrivateKey,
    *,
    namespace: str = DEFAULT_NAMESPACE,
    hash_algorithm: str = "sha512",
) -> str:
    """Sign ``message`` and return the armored block (``ssh-keygen -Y sign`` output)."""
    if not namespace:
        raise ValueError("the namespace must not be empty")
    data = _signed_data(message, namespace, b"", hash_algorithm)
    signature = SshSignature(
        public_key=public_key_of(key),
        namespace=namespace,
        hash_algorithm=hash_algorithm,
        signature_type=ED25519,
        signature=key.sign(data),
    )
    return signature.armor()


def _as_signature(signature: str | SshSignature) -> SshSignature:
    return signature if isinstance(signature, SshSignature) else SshSignature.from_armor(signature)


def _check_shape(sig: SshSignature, namespace: str) -> None:
    """Check everything that does not depend on the message or the expected key."""
    if sig.namespace != namespace:
        raise WrongNamespaceError(
            f"the signature is for namespace {sig.namespace!r}, not {namespace!r} "
            f"(sign with -n {namespace})",
            expected=namespace,
            found=sig.namespace,
        )
    sig.public_key.ed25519()  # raises UnsupportedKeyError
    if sig.signature_type != ED25519 or len(sig.signature) != 64:
        raise UnsupportedKeyError(
            f"signature type {sig.signature_type!r} is not supported (ssh-ed25519)",
            key_type=sig.signature_type,
        )
    if sig.hash_algorithm not in HASHES:
        raise UnsupportedHashError(
            f"hash algorithm {sig.hash_algorithm!r} is not supported (sha512 or sha256)",
            hash_algorithm=sig.hash_algorithm,
        )


def _check_value(sig: SshSignature, message: bytes) -> None:
    try:
        sig.public_key.ed25519().verify(sig.signature, sig.signed_data(message))
    except InvalidSignature:
        raise BadSignatureError(
            "the signature does not match the text: the text or the signature was changed "
            "after signing",
            fingerprint=sig.fingerprint(),
        ) from None


def check_novalidate(
    message: bytes, signature: str | SshSignature, *, namespace: str = DEFAULT_NAMESPACE
) -> SshSignature:
    """Check that ``signature`` is sound for ``message``, whoever signed it.

    Like ``ssh-keygen -Y check-novalidate``: proves only that the embedded key
    signed these bytes. Returns the decoded signature (``public_key`` says who).
    """
    sig = _as_signature(signature)
    _check_shape(sig, namespace)
    _check_value(sig, message)
    return sig


def verify(
    message: bytes,
    signature: str | SshSignature,
    keys: SshPublicKey | Iterable[SshPublicKey],
    *,
    namespace: str = DEFAULT_NAMESPACE,
) -> SshSignature:
    """Verify that one of ``keys`` signed ``message`` in ``namespace``.

    Returns the decoded signature. Raises :class:`WrongKeyError` when a key
    not in ``keys`` signed, :class:`BadSignatureError` when the right key
    signed other bytes, and the other :class:`SshSigError` kinds for the rest.
    """
    sig = _as_signature(signature)
    _check_shape(sig, namespace)
    expected = (keys,) if isinstance(keys, SshPublicKey) else tuple(keys)
    if sig.public_key not in expected:
        raise WrongKeyError(
            f"signed with key {sig.fingerprint()}, which is not "
            + (
                f"the expected key {expected[0].fingerprint()}"
                if len(expected) == 1
                else "one of the expected keys"
            ),
            found=sig.fingerprint(),
            expected=", ".join(k.fingerprint() for k in expected),
        )
    _check_value(sig, message)
    return sig


def verify_allowed(
    message: bytes,
    signature: str | SshSignature,
    signers: AllowedSigners,
    identity: str,
    *,
    namespace: str = DEFAULT_NAMESPACE,
    now: datetime | None = None,
) -> AllowedSigner:
    """Verify like ``ssh-keygen -Y verify -f signers -I identity -n namespace``.

    Returns the ``allowed_signers`` line that vouched for the key. ``now``
    (default: the current time) is checked against ``valid-after`` and
    ``valid-before``.
    """
    sig = _as_signature(signature)
    _check_shape(sig, namespace)
    listed = signers.for_identity(identity)
    if not listed:
        raise WrongKeyError(
            f"no key is listed for {identity!r}", found=sig.fingerprint(), identity=identity
        )
    matching = [e for e in listed if e.key == sig.public_key]
    if not matching:
        raise WrongKeyError(
            f"signed with key {sig.fingerprint()}, which is not listed for {identity!r}",
            found=sig.fingerprint(),
            identity=identity,
        )
    allowed = [e for e in matching if e.allows_namespace(namespace)]
    if not allowed:
        raise WrongNamespaceError(
            f"key {sig.fingerprint()} may not sign in namespace {namespace!r}",
            expected=matching[0].namespaces or "",
            found=namespace,
        )
    when = now if now is not None else datetime.now(UTC)
    valid = [e for e in allowed if e.valid_at(when)]
    if not valid:
        raise KeyNotValidError(
            f"key {sig.fingerprint()} is not valid at {when.isoformat()}",
            found=sig.fingerprint(),
        )
    _check_value(sig, message)
    return valid[0]
