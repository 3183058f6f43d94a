"""The referee's own Ed25519 key: it signs every mail the server sends.

Players check server mail with plain OpenSSH: the server publishes an
``allowed_signers`` line (:meth:`ServerKey.allowed_signers_line`), and
``ssh-keygen -Y verify -f allowed_signers -I <principal> -n pbem-mail -s
mail.sig < mail.txt`` accepts what :meth:`ServerKey.sign_text` signed. The
key lives in an OpenSSH private key file (mode 0600) that ``ssh-keygen``
also reads, so an operator can inspect or back it up with standard tools.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from pbem import sshsig
from pbem.orders_text import canonicalize
from pbem.sshsig import MAIL_NAMESPACE, SshPublicKey

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SignedText:
    """A canonical text and the armored signature over its UTF-8 bytes."""

    text: str
    signature: str


@dataclass(frozen=True)
class ServerKey:
    """The server's signing key; ``path`` is where it was loaded from, if anywhere."""

    private_key: Ed25519PrivateKey = field(compare=False, repr=False)
    public_key: SshPublicKey
    path: Path | None = None

    @classmethod
    def from_private_key(
        cls, key: Ed25519PrivateKey, path: Path | None = None, comment: str = ""
    ) -> ServerKey:
        """Wrap a key already in memory (tests, or a key from a secrets store)."""
        return cls(key, sshsig.public_key_of(key, comment), path)

    @classmethod
    def load(cls, path: Path) -> ServerKey:
        """Read the key file; warn if other users can read it.

        Raises :class:`FileNotFoundError` or a :class:`~pbem.sshsig.BadPrivateKeyError`.
        """
        mode = path.stat().st_mode
        if mode & 0o077:
            log.warning("server key %s is readable by other users (mode %o)", path, mode & 0o777)
        key = sshsig.load_private_key(path.read_bytes())
        return cls.from_private_key(key, path)

    @classmethod
    def load_or_create(cls, path: Path, comment: str = "pbem server") -> ServerKey:
        """Read the key at ``path``, creating it (mode 0600, plus ``.pub``) if missing.

        Two processes starting at once end up with the same key: creation is
        exclusive, and the loser reads the winner's file.
        """
        if not path.exists():
            key = sshsig.generate_private_key()
            try:
                sshsig.write_private_key(path, key, comment)
            except FileExistsError:
                return cls.load(path)
            log.info("created server key %s (%s)", path, sshsig.public_key_of(key).fingerprint())
            return cls.from_private_key(key, path, comment)
        return cls.load(path)

    def fingerprint(self) -> str:
        """Return the key's ``SHA256:`` fingerprint, as ``ssh-keygen -l`` prints it."""
        return self.public_key.fingerprint()

    def sign(self, data: bytes, namespace: str = MAIL_NAMESPACE) -> str:
        """Sign ``data`` as they are; return the armored SSHSIG block."""
        return sshsig.sign(data, self.private_key, namespace=namespace)

    def sign_text(self, text: str, namespace: str = MAIL_NAMESPACE) -> SignedText:
        """Canonicalise ``text`` and sign its UTF-8 bytes.

        Send ``result.text`` exactly: a player who saves it with LF line ends
        verifies it with ``ssh-keygen -Y verify`` as is, and ``pbem verify``
        accepts it even after a mail client changed line ends or trailing
        spaces.
        """
        canonical = canonicalize(text)
        return SignedText(canonical, self.sign(canonical.encode("utf-8"), namespace))

    def allowed_signers_line(
        self, principal: str, namespaces: tuple[str, ...] = (MAIL_NAMESPACE,)
    ) -> str:
        """Return ``<principal> namespaces="pbem-mail" ssh-ed25519 AAAA...``.

        Players append this line to their ``allowed_signers`` file.
        """
        if not principal or any(c.isspace() or c in ',"' for c in principal):
            raise ValueError(f"principal {principal!r} must be one word without commas or quotes")
        for namespace in namespaces:
            if not namespace or any(c.isspace() or c in ',"' for c in namespace):
                raise ValueError(f"namespace {namespace!r} must be one word")
        key = SshPublicKey(self.public_key.key_type, self.public_key.blob)
        return f'{principal} namespaces="{",".join(namespaces)}" {key.openssh()}'
