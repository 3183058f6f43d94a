"""Errors raised while reading keys and checking OpenSSH signatures.

Every error is a :class:`ValueError` with a stable ``code`` (a short
kebab-case string) that mail templates switch on, and ``details``: a mapping
of plain strings (expected and found namespace, key fingerprints, line
numbers) that a template may show. The message itself is for people and may
change; the codes may not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar


class SshSigError(ValueError):
    """Base of every signature and key error; ``code`` names the kind."""

    code: ClassVar[str] = "signature-error"

    def __init__(self, message: str, **details: str) -> None:
        super().__init__(message)
        self.message = message
        self.details: Mapping[str, str] = dict(details)


class BadArmorError(SshSigError):
    """The text holds no well-formed ``-----BEGIN SSH SIGNATURE-----`` block."""

    code = "bad-armor"


class MalformedSignatureError(SshSigError):
    """The armored block decodes, but not to an SSHSIG version 1 structure."""

    code = "bad-format"


class UnsupportedKeyError(SshSigError):
    """The key is not a plain Ed25519 key (RSA, ECDSA, FIDO, certificates)."""

    code = "unsupported-key"


class UnsupportedHashError(SshSigError):
    """The signature hashes the message with something other than sha512 or sha256."""

    code = "unsupported-hash"


class WrongNamespaceError(SshSigError):
    """The signature was made for another purpose (``-n`` namespace)."""

    code = "wrong-namespace"


class WrongKeyError(SshSigError):
    """The signature was made by a key that is not the expected one."""

    code = "wrong-key"


class BadSignatureError(SshSigError):
    """The right key signed, but not these bytes: the text or signature changed."""

    code = "bad-signature"


class KeyNotValidError(SshSigError):
    """The key is listed, but its ``valid-after``/``valid-before`` window excludes now."""

    code = "key-not-valid"


class BadPublicKeyError(SshSigError):
    """A public key line (``ssh-ed25519 AAAA... comment``) cannot be read."""

    code = "bad-key"


class BadPrivateKeyError(SshSigError):
    """A private key file cannot be read as an OpenSSH Ed25519 key."""

    code = "bad-private-key"


class EncryptedKeyError(BadPrivateKeyError):
    """The private key has a passphrase, which pbem does not decrypt."""

    code = "encrypted-key"


class AllowedSignersError(SshSigError):
    """A line of an ``allowed_signers`` file is malformed (``details['line']``)."""

    code = "bad-allowed-signers"
