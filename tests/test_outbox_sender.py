"""The outbox: deterministic ids, at-least-once sending, backoff, give-up, Maildir mode."""

from __future__ import annotations

import asyncio
import mailbox
from collections.abc import Callable
from datetime import timedelta
from email import message_from_bytes
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from aiosmtpd.smtp import SMTP
from sqlmodel import select

from pbem.clock import FakeClock
from pbem.config import Config, config_from_dict
from pbem.outbox import OutboxSender, make_message_id, queue_message, retry_delay
from pbem.store import OutboxMessage, OutboxStatus, Store


class Sink:
    """An SMTP smarthost on loopback that records mail or refuses as told."""

    def __init__(self) -> None:
        self.received: list[tuple[str, list[str], bytes]] = []
        self.rcpt_reply = "250 OK"
        self.data_reply = "250 OK"

    async def handle_RCPT(
        self, server: Any, session: Any, envelope: Any, address: str, options: list[str]
    ) -> str:
        if self.rcpt_reply.startswith("250"):
            envelope.rcpt_tos.append(address)
        return self.rcpt_reply

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.data_reply.startswith("250"):
            self.received.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.content))
        return self.data_reply


async def _start_sink(sink: Sink, port: int) -> asyncio.Server:
    loop = asyncio.get_running_loop()
    return await loop.create_server(
        lambda: SMTP(sink, hostname="smarthost.test", loop=loop), "127.0.0.1", port
    )


def _config(tmp_path: Path, db_url: str, **smarthost: object) -> Config:
    data: dict[str, Any] = {
        "data_dir": str(tmp_path / "data"),
        "database": {"url": db_url},
        "mail": {"address": "pbem@game.test", "operator": "op@club.test"},
        "outbox": {"retry_base": "1m", "retry_factor": 2, "retry_max": "1h", "give_up_after": "1d"},
    }
    if smarthost:
        data["smarthost"] = {"host": "127.0.0.1", "security": "none", **smarthost}
    return config_from_dict(data, base=tmp_path)


def _queue(store: Store, clock: FakeClock, recipient: str = "ann@club.test", n: int = 1) -> str:
    msg = EmailMessage()
    msg["From"] = "pbem@game.test"
    msg["To"] = recipient
    msg["Subject"] = f"[g1] Turn {n}: your move"
    msg.set_content("The board...\n")
    message_id = make_message_id("g1", "turn", n, recipient, "game.test")
    with store.transaction() as session:
        queue_message(
            session, msg, recipient=recipient, message_id=message_id, clock=clock, kind="turn"
        )
    return message_id


def _rows(store: Store) -> list[OutboxMessage]:
    with store.transaction() as session:
        return list(session.exec(select(OutboxMessage).order_by(OutboxMessage.id)).all())


def test_message_ids_are_deterministic_and_queuing_is_idempotent(
    store: Store, clock: FakeClock
) -> None:
    a = make_message_id("g1", "turn", 3, "Ann@Club.test", "game.test")
    assert a == make_message_id("g1", "turn", 3, "ann@club.test ", "game.test")
    assert a != make_message_id("g1", "turn", 3, "bob@club.test", "game.test")
    assert a != make_message_id("g1", "turn", 4, "ann@club.test", "game.test")
    assert a.startswith("<g1.turn.3.") and a.endswith("@game.test>")
    assert "ann" not in a  # addresses do not leak into References headers
    _queue(store, clock)
    _queue(store, clock)
    rows = _rows(store)
    assert len(rows) == 1
    parsed = message_from_bytes(rows[0].raw)
    assert parsed["Message-ID"] == rows[0].message_id
    assert parsed["Date"]
    assert b"\r\n" in rows[0].raw


def test_backoff_schedule_doubles_up_to_the_cap(tmp_path: Path, db_url: str) -> None:
    cfg = _config(tmp_path, db_url).outbox
    delays = [retry_delay(cfg, n) for n in range(1, 9)]
    assert delays[:4] == [timedelta(minutes=m) for m in (1, 2, 4, 8)]
    assert delays[-1] == timedelta(hours=1)


def test_smarthost_down_then_up_delivers_after_backoff(
    tmp_path: Path, db_url: str, store: Store, clock: FakeClock, free_port: Callable[[], int]
) -> None:
    port = free_port()
    config = _config(tmp_path, db_url, port=port)
    sender = OutboxSender(config, store, clock)
    message_id = _queue(store, clock)
    queued_at = clock.now()
    sink = Sink()

    async def main() -> None:
        report = await sender.flush()  # nobody listens: connection refused
        assert (report.sent, report.deferred) == (0, 1)
        row = _rows(store)[0]
        assert row.status == OutboxStatus.QUEUED and row.attempts == 1
        assert row.next_attempt_at == queued_at + timedelta(minutes=1)
        assert row.last_error
        assert (await sender.flush()).deferred == 0  # not due yet: no attempt
        server = await _start_sink(sink, port)
        try:
            clock.advance(timedelta(seconds=59))
            assert (await sender.flush()).sent == 0
            clock.advance(timedelta(seconds=1))
            assert (await sender.flush()).sent == 1
        finally:
            server.close()
            await server.wait_closed()

    asyncio.run(main())
    row = _rows(store)[0]
    assert row.status == OutboxStatus.SENT
    assert row.attempts == 2
    assert row.sent_at == queued_at + timedelta(minutes=1)
    assert row.last_error == ""
    [(mail_from, rcpts, content)] = sink.received
    assert mail_from == "pbem@game.test" and rcpts == ["ann@club.test"]
    assert message_from_bytes(content)["Message-ID"] == message_id


def test_temporary_refusal_is_retried(
    tmp_path: Path, db_url: str, store: Store, clock: FakeClock, free_port: Callable[[], int]
) -> None:
    port = free_port()
    sender = OutboxSender(_config(tmp_path, db_url, port=port), store, clock)
    _queue(store, clock)
    sink = Sink()
    sink.data_reply = "451 4.3.0 try later"

    async def main() -> None:
        server = await _start_sink(sink, port)
        try:
            assert (await sender.flush()).deferred == 1
            sink.data_reply = "250 OK"
            clock.advance(timedelta(minutes=1))
            assert (await sender.flush()).sent == 1
        finally:
            server.close()
            await server.wait_closed()

    asyncio.run(main())
    assert _rows(store)[0].attempts == 2


def test_permanent_refusal_is_recorded_and_the_operator_told(
    tmp_path: Path, db_url: str, store: Store, clock: FakeClock, free_port: Callable[[], int]
) -> None:
    port = free_port()
    sender = OutboxSender(_config(tmp_path, db_url, port=port), store, clock)
    _queue(store, clock, recipient="gone@club.test")
    sink = Sink()

    async def main() -> None:
        server = await _start_sink(sink, port)
        try:
            sink.rcpt_reply = "550 5.1.1 no such user"
            report = await sender.flush()
            assert report.failed == 1
            sink.rcpt_reply = "250 OK"
            # The notice to the operator goes out through the same smarthost.
            assert (await sender.flush()).sent == 1
        finally:
            server.close()
            await server.wait_closed()

    asyncio.run(main())
    failed, notice = _rows(store)
    assert failed.status == OutboxStatus.FAILED and failed.attempts == 1
    assert "550" in failed.last_error
    assert notice.recipient == "op@club.test" and notice.kind == "operator"
    assert notice.status == OutboxStatus.SENT
    text = message_from_bytes(notice.raw).get_payload(decode=True)
    assert isinstance(text, bytes) and b"gone@club.test" in text and b"550" in text
    assert [r for _, r, _ in sink.received] == [["op@club.test"]]


def test_gives_up_after_the_configured_time_with_one_notice(
    tmp_path: Path, db_url: str, store: Store, clock: FakeClock, free_port: Callable[[], int]
) -> None:
    config = _config(tmp_path, db_url, port=free_port())  # nobody ever listens
    sender = OutboxSender(config, store, clock)
    _queue(store, clock)

    async def main() -> int:
        flushes = 0
        while _rows(store)[0].status == OutboxStatus.QUEUED:
            await sender.flush()
            flushes += 1
            clock.advance(timedelta(hours=1))
            assert flushes < 100
        return flushes

    asyncio.run(main())
    rows = _rows(store)
    gave_up = rows[0]
    assert gave_up.status == OutboxStatus.FAILED
    assert clock.now() - gave_up.queued_at >= timedelta(days=1)
    # ConnectionRefused on every attempt; the give-up is what ended it.
    assert gave_up.attempts >= 10
    notices = [r for r in rows if r.kind == "operator"]
    assert len(notices) == 1 and notices[0].recipient == "op@club.test"

    # The notice itself can fail too, and never causes a notice about a notice.
    async def drain() -> None:
        for _ in range(60):
            await sender.flush()
            clock.advance(timedelta(hours=1))

    asyncio.run(drain())
    rows = _rows(store)
    assert [r.status for r in rows] == [OutboxStatus.FAILED, OutboxStatus.FAILED]


def test_maildir_mode_delivers_to_the_local_maildir(
    tmp_path: Path, db_url: str, store: Store, clock: FakeClock
) -> None:
    config = _config(tmp_path, db_url)
    assert config.maildir_mode
    sender = OutboxSender(config, store, clock)
    ids = [_queue(store, clock, recipient=r) for r in ("ann@club.test", "bob@club.test")]
    report = asyncio.run(sender.flush())
    assert report.sent == 2
    box = mailbox.Maildir(config.maildir_path, create=False)
    got = sorted((m["X-Pbem-Envelope-To"], m["Message-ID"]) for m in box)
    assert got == sorted(zip(["ann@club.test", "bob@club.test"], ids, strict=True))
    assert all(r.status == OutboxStatus.SENT for r in _rows(store))


def test_request_flush_before_any_flush_is_harmless(
    tmp_path: Path, db_url: str, store: Store, clock: FakeClock
) -> None:
    sender = OutboxSender(_config(tmp_path, db_url), store, clock)
    sender.request_flush()  # no loop known yet: nothing happens, nothing raises


def test_tls_to_a_plain_server_is_a_temporary_failure(
    tmp_path: Path, db_url: str, store: Store, clock: FakeClock, free_port: Callable[[], int]
) -> None:
    port = free_port()
    config = _config(tmp_path, db_url, port=port, security="tls", timeout=5)
    sender = OutboxSender(config, store, clock)
    _queue(store, clock)

    async def main() -> None:
        server = await _start_sink(Sink(), port)
        try:
            assert (await sender.flush()).deferred == 1
        finally:
            server.close()
            await server.wait_closed()

    asyncio.run(main())
    assert _rows(store)[0].status == OutboxStatus.QUEUED
