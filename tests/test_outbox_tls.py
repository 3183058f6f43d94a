"""The outbox over STARTTLS with a login, against a loopback smarthost with its own CA."""

from __future__ import annotations

import asyncio
import ipaddress
import ssl
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from sqlmodel import select

from pbem.clock import FakeClock
from pbem.config import config_from_dict
from pbem.outbox import OutboxSender, make_message_id, queue_message
from pbem.store import OutboxMessage, OutboxStatus, Store


def _self_signed(tmp_path: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    start = datetime(2020, 1, 1, tzinfo=UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(start)
        .not_valid_after(start + timedelta(days=365 * 30))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


class Relay:
    """Accepts mail only after STARTTLS and a login as pbem / relay-pw."""

    def __init__(self) -> None:
        self.received: list[tuple[str, bytes]] = []
        self.logins: list[tuple[bytes, bool]] = []

    def authenticate(
        self, server: Any, session: Any, envelope: Any, mechanism: str, data: Any
    ) -> AuthResult:
        ok = isinstance(data, LoginPassword) and (data.login, data.password) == (
            b"pbem",
            b"relay-pw",
        )
        self.logins.append((data.login if isinstance(data, LoginPassword) else b"?", ok))
        # handled=False: aiosmtpd then answers 535 itself.
        return AuthResult(success=ok, handled=False)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.received.append((envelope.rcpt_tos[0], envelope.content))
        return "250 OK"


@pytest.mark.parametrize("password", ["relay-pw", "wrong"])
def test_starttls_and_login_with_a_private_ca(  # noqa: PLR0917
    tmp_path: Path,
    db_url: str,
    store: Store,
    clock: FakeClock,
    free_port: Callable[[], int],
    password: str,
) -> None:
    cert, key = _self_signed(tmp_path)
    (tmp_path / "relay-password").write_text(password + "\n")
    port = free_port()
    config = config_from_dict(
        {
            "database": {"url": db_url},
            "mail": {"address": "pbem@game.test", "operator": "op@club.test"},
            "smarthost": {
                "host": "127.0.0.1",
                "port": port,
                "security": "starttls",
                "username": "pbem",
                "password_file": "relay-password",
                "ca_file": str(cert),
                "timeout": "10s",
            },
        },
        base=tmp_path,
    )
    msg = EmailMessage()
    msg["To"] = "ann@club.test"
    msg["Subject"] = "[g1] Turn 1"
    msg.set_content("hello\n")
    with store.transaction() as session:
        queue_message(
            session,
            msg,
            recipient="ann@club.test",
            message_id=make_message_id("g1", "turn", 1, "ann@club.test", "game.test"),
            clock=clock,
        )
    relay = Relay()
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_tls.load_cert_chain(cert, key)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(
            lambda: SMTP(
                relay,
                hostname="relay.test",
                tls_context=server_tls,
                require_starttls=True,
                authenticator=relay.authenticate,
                auth_required=True,
                loop=loop,
            ),
            "127.0.0.1",
            port,
        )
        try:
            report = await OutboxSender(config, store, clock).flush()
            # A refused login is our configuration's fault: keep the mail and retry.
            assert (report.sent, report.deferred) == ((1, 0) if password == "relay-pw" else (0, 1))
        finally:
            server.close()
            await server.wait_closed()

    asyncio.run(main())
    with store.transaction() as session:
        row = session.exec(select(OutboxMessage)).one()
    if password == "relay-pw":
        assert relay.logins == [(b"pbem", True)]
        assert [r for r, _ in relay.received] == ["ann@club.test"]
        assert row.status == OutboxStatus.SENT
    else:
        assert relay.received == []
        assert row.status == OutboxStatus.QUEUED and "authentication" in row.last_error
