"""``pbem doctor``: check an installation and say what to fix.

Checks the config, the database (reachable, migrated to head), the listener
port, the smarthost (connect + EHLO, login when configured; or Maildir mode),
IMAP (when enabled), the server key and the state files' permissions
(the database holds the secret seeds: nothing for group or others). Prints
one line per check, with a ``fix:`` line under each failure, then one summary
line (what was checked, what to fix); exits 1 if anything failed. In Maildir mode it creates the
outgoing Maildir with its ``cur``/``new``/``tmp`` folders.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import imaplib
import os
import socket
import ssl
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass

import aiosmtplib
from sqlalchemy.engine import make_url

from pbem import sshsig
from pbem.commands._shared import add_config_argument
from pbem.config import Config, ConfigError, load_config
from pbem.outbox import ensure_maildir
from pbem.store import Store, head_revision, migrate, schema_revision
from pbem.store.files import loose_files, sqlite_files


@dataclass(frozen=True)
class Check:
    """The result of one check."""

    name: str
    ok: bool
    detail: str
    fix: str = ""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``doctor`` command."""
    parser = sub.add_parser(
        "doctor",
        help="check the installation (database, ports, smarthost, keys)",
        description="Check the installation and say what to fix. Exit 1 if anything fails.",
    )
    add_config_argument(parser)
    parser.add_argument(
        "--migrate", action="store_true", help="upgrade the database schema before checking"
    )
    parser.set_defaults(func=run)


def _safe_url(url: str) -> str:
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "database.url (unparsable)"


def check_database(config: Config, *, do_migrate: bool = False) -> Check:
    """Check the database is reachable and at the newest migration."""
    url = config.database_url
    try:
        if do_migrate:
            migrate(url)
        store = Store(url, busy_timeout_ms=config.database.busy_timeout_ms)
        try:
            current = schema_revision(store.engine)
        finally:
            store.dispose()
    except Exception as exc:
        return Check(
            "database",
            False,
            f"cannot open {_safe_url(url)}: {type(exc).__name__}: {exc}",
            "check database.url and that the database server (or the data directory) "
            "is reachable and writable by the pbem user",
        )
    head = head_revision()
    if current != head:
        return Check(
            "database",
            False,
            f"schema at {current or 'nothing (empty database)'}, expected {head}",
            "run `pbem doctor --migrate` (pbem serve also migrates at start)",
        )
    return Check("database", True, f"reachable, schema at {head}")


def check_listener(config: Config) -> Check:
    """Check the listener port can be bound."""
    lst = config.listener
    if not lst.enabled:
        return Check("listener", True, "disabled (mail arrives by pbem ingest or IMAP)")
    kind = "LMTP" if lst.lmtp else "SMTP"
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((lst.host, lst.port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return Check(
                    "listener",
                    False,
                    f"{lst.host}:{lst.port} is in use",
                    "if pbem serve is already running this is expected; otherwise stop what "
                    "holds the port or set listener.port",
                )
            return Check(
                "listener",
                False,
                f"cannot bind {lst.host}:{lst.port}: {exc.strerror}",
                "set listener.host to a local address (127.0.0.1) and a port above 1024",
            )
    return Check("listener", True, f"{kind} port {lst.host}:{lst.port} is free")


async def _smtp_probe(config: Config) -> str:
    host = config.smarthost
    secret = host.password.read()
    client = aiosmtplib.SMTP(
        hostname=host.host,
        port=host.port,
        use_tls=host.security == "tls",
        start_tls=host.security == "starttls",
        timeout=min(host.timeout.total_seconds(), 15.0),
        local_hostname=config.mail_domain,
        cert_bundle=str(host.ca_file) if host.ca_file is not None else None,
    )
    async with client:
        await client.ehlo()
        done = "connected, EHLO accepted"
        if host.username:
            await client.login(host.username, secret.reveal() if secret else "")
            done += ", login accepted"
    return done


def check_smarthost(config: Config) -> Check:
    """Check outgoing mail can leave (smarthost reachable, or the Maildir writable)."""
    if config.maildir_mode:
        path = config.maildir_path
        try:
            ensure_maildir(path)
            probe = path / "tmp" / f".pbem-doctor-{os.getpid()}"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            return Check(
                "smarthost",
                False,
                f"Maildir mode, but {path} is not a writable Maildir: {exc.strerror or exc}",
                "set maildir to a directory the pbem user can write, or configure [smarthost]",
            )
        return Check("smarthost", True, f"Maildir mode: outgoing mail is written to {path / 'new'}")
    host = config.smarthost
    try:
        detail = asyncio.run(_smtp_probe(config))
    except ConfigError as exc:
        return Check(
            "smarthost",
            False,
            str(exc),
            "create smarthost.password_file or set the variable named by password_env",
        )
    except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
        return Check(
            "smarthost",
            False,
            f"{host.host}:{host.port}: {type(exc).__name__}: {exc}",
            "check smarthost.host/port/security and credentials, and that the firewall "
            "allows the connection",
        )
    return Check("smarthost", True, f"{host.host}:{host.port} {detail}")


def check_imap(config: Config) -> Check:
    """Check the IMAP mailbox can be opened (when IMAP polling is enabled)."""
    cfg = config.imap
    if not cfg.enabled:
        return Check("imap", True, "disabled")
    try:
        secret = cfg.password.read()
        timeout = min(cfg.timeout.total_seconds(), 15.0)
        conn: imaplib.IMAP4
        if cfg.security == "tls":
            conn = imaplib.IMAP4_SSL(cfg.host, cfg.port, timeout=timeout)
        else:
            conn = imaplib.IMAP4(cfg.host, cfg.port, timeout=timeout)
            if cfg.security == "starttls":
                conn.starttls(ssl.create_default_context())
        try:
            conn.login(cfg.user, secret.reveal() if secret else "")
            typ, _ = conn.select(cfg.mailbox, readonly=True)
            if typ != "OK":
                raise imaplib.IMAP4.error(f"cannot select {cfg.mailbox}")
        finally:
            conn.logout()
    except (ConfigError, imaplib.IMAP4.error, OSError) as exc:
        return Check(
            "imap",
            False,
            f"{cfg.host}:{cfg.port}: {exc}",
            "check imap.host/port/security/user/mailbox and the password file",
        )
    return Check("imap", True, f"{cfg.user}@{cfg.host}: {cfg.mailbox} opened")


def check_server_key(config: Config) -> Check:
    """Check the server signing key exists, is a usable Ed25519 key and is private."""
    path = config.server_key_path
    fix = (
        f"start pbem serve once (it creates the key), or: "
        f"ssh-keygen -t ed25519 -N '' -C pbem-server -f {path}"
    )
    try:
        info = path.stat()
        data = path.read_bytes()
    except FileNotFoundError:
        return Check("server key", False, f"{path} does not exist", fix)
    except OSError as exc:
        return Check(
            "server key", False, f"{path}: {exc.strerror}", "make it readable by the pbem user"
        )
    try:
        key = sshsig.load_private_key(data)
    except ValueError as exc:
        return Check("server key", False, f"{path}: {exc}", fix)
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        return Check(
            "server key",
            False,
            f"{path} is readable by other users (mode {stat.filemode(info.st_mode)})",
            f"chmod 600 {path}",
        )
    fingerprint = sshsig.public_key_of(key).fingerprint()
    return Check("server key", True, f"{path} ({fingerprint})")


def check_permissions(config: Config) -> Check:
    """Check the state files (database, its -wal/-shm, data dir, Maildir) are private."""
    paths = [*sqlite_files(config.database_url), config.data_dir]
    if config.maildir_mode:
        paths.append(config.maildir_path)
    loose = loose_files(paths)
    if not loose:
        return Check("permissions", True, "state files are private (no group or other access)")
    listing = ", ".join(f"{p} ({stat.filemode(m)[1:]})" for p, m in loose)
    fixes = "; ".join(f"chmod {'700' if p.is_dir() else '600'} {p}" for p, _ in loose)
    return Check(
        "permissions",
        False,
        f"other users may read state (the database holds the games' secret seeds): {listing}",
        f"{fixes} (pbem serve creates them private; the systemd unit sets UMask=0077)",
    )


CHECKS: tuple[Callable[[Config], Check], ...] = (
    check_listener,
    check_smarthost,
    check_imap,
    check_server_key,
    check_permissions,
)


def run_checks(config: Config, *, do_migrate: bool = False) -> list[Check]:
    """Run every check and return the results in order."""
    results = [check_database(config, do_migrate=do_migrate)]
    results.extend(check(config) for check in CHECKS)
    return results


def run(args: argparse.Namespace) -> int:
    """Print the checks; return 1 if any failed."""
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        sys.stdout.write(
            f"FAIL config: {exc}\n     fix: correct the file (see pbem.example.toml)\n"
        )
        return 1
    source = config.source or "defaults (no config file)"
    sys.stdout.write(f"ok   config: {source}\n")
    results = run_checks(config, do_migrate=args.migrate)
    for result in results:
        sys.stdout.write(f"{'ok  ' if result.ok else 'FAIL'} {result.name}: {result.detail}\n")
        if not result.ok and result.fix:
            sys.stdout.write(f"     fix: {result.fix}\n")
    sys.stdout.write(summary_line(results) + "\n")
    return 0 if all(r.ok for r in results) else 1


def summary_line(results: list[Check]) -> str:
    """Say in one line what was checked and what to fix (the last line doctor prints).

    >>> summary_line([Check("database", True, ""), Check("listener", False, "", "set port")])
    'doctor: checked config, database, listener: 1 to fix: listener (set port)'
    """
    names = ", ".join(["config", *(r.name for r in results)])
    bad = [r for r in results if not r.ok]
    if not bad:
        return f"doctor: checked {names}: all ok"
    fixes = "; ".join(f"{r.name} ({r.fix or r.detail})" for r in bad)
    return f"doctor: checked {names}: {len(bad)} to fix: {fixes}"
