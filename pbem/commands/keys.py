"""``pbem keygen``, ``pbem sign``, ``pbem verify`` and ``pbem server-key``.

Every file these commands write or read is plain OpenSSH: keys from
``pbem keygen`` work with ``ssh-keygen``, signatures from ``pbem sign`` pass
``ssh-keygen -Y verify`` (when the file was already canonical), and
``pbem verify`` accepts what ``ssh-keygen -Y sign`` wrote.
"""

from __future__ import annotations

import argparse
import getpass
import socket
from pathlib import Path

from pbem import sshsig
from pbem.commands._shared import add_config_argument, err, out
from pbem.config import ConfigError, load_config
from pbem.orders_text import BadEncodingError, canonical_bytes
from pbem.server_key import ServerKey
from pbem.sshsig import (
    DEFAULT_NAMESPACE,
    AllowedSigners,
    SshPublicKey,
    SshSigError,
    SshSignature,
)

DEFAULT_KEY = Path("~/.ssh/id_ed25519")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the key and signature commands."""
    keygen = sub.add_parser(
        "keygen",
        help="make an Ed25519 key pair (like ssh-keygen -t ed25519, no passphrase)",
        description="Write an OpenSSH Ed25519 private key (mode 0600) and PATH.pub. "
        "An existing key is never replaced.",
    )
    keygen.add_argument(
        "-f", dest="path", type=Path, default=DEFAULT_KEY, help="key file (~/.ssh/id_ed25519)"
    )
    keygen.add_argument("-C", dest="comment", default=None, help="comment (user@host)")
    keygen.set_defaults(func=_keygen)

    sign = sub.add_parser(
        "sign",
        help="sign a file's canonical form, writing FILE.sig (SSHSIG, like ssh-keygen -Y sign)",
        description="Sign the canonical form of FILE (UTF-8, NFC, LF line ends, no trailing "
        "spaces, no leading or trailing blank lines, one final LF) and write FILE.sig. "
        "If FILE is already canonical the signed bytes are the file's own bytes, so "
        "'ssh-keygen -Y verify' accepts FILE with FILE.sig as they are.",
    )
    sign.add_argument("file", type=Path, metavar="FILE")
    sign.add_argument(
        "-f", dest="key", type=Path, default=DEFAULT_KEY, help="private key (~/.ssh/id_ed25519)"
    )
    sign.add_argument("-n", dest="namespace", default=DEFAULT_NAMESPACE, help="namespace")
    sign.set_defaults(func=_sign)

    verify = sub.add_parser(
        "verify",
        help="check FILE against its SSHSIG signature (exit 0 good, 1 bad)",
        description="Verify FILE.sig over FILE as it is, or over its canonical form.",
    )
    verify.add_argument("file", type=Path, metavar="FILE")
    verify.add_argument("--sig", type=Path, default=None, help="signature file (FILE.sig)")
    who = verify.add_mutually_exclusive_group(required=True)
    who.add_argument("--key", type=Path, help="the signer's public key file (.pub)")
    who.add_argument("--allowed-signers", type=Path, help="an allowed_signers file")
    verify.add_argument("--identity", help="principal to check in --allowed-signers")
    verify.add_argument("-n", dest="namespace", default=DEFAULT_NAMESPACE, help="namespace")
    verify.set_defaults(func=_verify)

    server = sub.add_parser(
        "server-key",
        help="print the server key's allowed_signers line (creating the key if missing)",
        description="Print the line players add to their allowed_signers file to check "
        "server mail (namespace pbem-mail). Creates the key (mode 0600) if it is missing.",
    )
    add_config_argument(server)
    server.add_argument(
        "--key", type=Path, default=None, help="key file (default: keys.server_key of the config)"
    )
    server.add_argument(
        "--principal", default=None, help="principal (default: mail.address of the config)"
    )
    server.set_defaults(func=_server_key)


def _default_comment() -> str:
    """Return ``user@host`` as ssh-keygen does, or just the host if the user is unknown."""
    try:
        return f"{getpass.getuser()}@{socket.gethostname()}"
    except (OSError, KeyError):
        return socket.gethostname()


def _keygen(args: argparse.Namespace) -> int:
    path = Path(args.path).expanduser()
    comment = args.comment if args.comment is not None else _default_comment()
    if path.exists():
        err(f"{path} already exists; choose another file with -f")
        return 1
    try:
        public = sshsig.write_private_key(path, sshsig.generate_private_key(), comment)
    except OSError as exc:
        err(f"cannot write {path}: {exc}")
        return 1
    out(f"Your private key: {path}")
    out(f"Your public key:  {path}.pub")
    out(f"Fingerprint:      {public.fingerprint()}")
    out(public.openssh())
    return 0


def _sign(args: argparse.Namespace) -> int:
    file, key_path = Path(args.file), Path(args.key).expanduser()
    try:
        raw = file.read_bytes()
        canonical = canonical_bytes(raw)
        key = sshsig.load_private_key(key_path.read_bytes())
    except OSError as exc:
        err(f"cannot read {exc.filename}: {exc.strerror}")
        return 1
    except SshSigError as exc:
        err(f"{exc.message} [{exc.code}]")
        return 1
    sig_path = file.with_name(file.name + ".sig")
    sig_path.write_text(sshsig.sign(canonical, key, namespace=args.namespace), encoding="ascii")
    out(f"Signed the canonical form of {file} into {sig_path}")
    if canonical != raw:
        err(
            f"note: {file} is not in canonical form, so the signature covers its canonical "
            "form; pbem accepts it, but 'ssh-keygen -Y verify' on the file as it is will not"
        )
    return 0


def _load_keys(path: Path) -> list[SshPublicKey]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [SshPublicKey.parse(line) for line in lines if line.strip() and not line.startswith("#")]


def _verify(args: argparse.Namespace) -> int:
    file = Path(args.file)
    sig_path = Path(args.sig) if args.sig else file.with_name(file.name + ".sig")
    if args.allowed_signers is not None and not args.identity:
        err("--allowed-signers needs --identity (the principal to check)")
        return 2
    try:
        raw = file.read_bytes()
        signature = SshSignature.from_armor(sig_path.read_text(encoding="ascii"))
        keys = _load_keys(args.key) if args.key is not None else None
        signers = AllowedSigners.load(args.allowed_signers) if keys is None else None
    except OSError as exc:
        err(f"cannot read {exc.filename}: {exc.strerror}")
        return 1
    except UnicodeDecodeError:
        err(f"{sig_path} is not a text file")
        return 1
    except SshSigError as exc:
        err(f"Bad signature for {file}: {exc.message} [{exc.code}]")
        return 1
    forms: list[tuple[bytes, str]] = [(raw, "the file as it is")]
    try:
        canonical = canonical_bytes(raw)
        if canonical != raw:
            forms.append((canonical, "the file's canonical form"))
    except BadEncodingError:
        pass  # not UTF-8: only the exact bytes can match
    first_error: SshSigError | None = None
    for data, form in forms:
        try:
            if keys is not None:
                sshsig.verify(data, signature, keys, namespace=args.namespace)
                who = ""
            else:
                assert signers is not None
                sshsig.verify_allowed(
                    data, signature, signers, args.identity, namespace=args.namespace
                )
                who = f" for {args.identity}"
        except sshsig.BadSignatureError as exc:
            first_error = first_error or exc
            continue
        except SshSigError as exc:
            first_error = exc
            break
        out(
            f'Good "{args.namespace}" signature{who} with ED25519 key '
            f"{signature.fingerprint()} over {form} ({file})"
        )
        return 0
    assert first_error is not None
    err(f"Bad signature for {file}: {first_error.message} [{first_error.code}]")
    return 1


def _server_key(args: argparse.Namespace) -> int:
    path: Path | None = Path(args.key).expanduser() if args.key is not None else None
    principal: str | None = args.principal
    if path is None or principal is None:
        try:
            config = load_config(args.config)
        except ConfigError as exc:
            err(str(exc))
            return 1
        path = path if path is not None else config.server_key_path
        principal = principal if principal is not None else config.server_principal
    try:
        key = ServerKey.load_or_create(path)
        line = key.allowed_signers_line(principal)
    except OSError as exc:
        err(f"cannot use server key {path}: {exc}")
        return 1
    except ValueError as exc:  # SshSigError included: an unreadable key file
        err(f"{path}: {exc}")
        return 1
    out(line)
    return 0
