"""The loopback SMTP/LMTP listener: stored before 250, 451 when the store fails."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from email.message import EmailMessage

import aiosmtplib
import pytest
from sqlmodel import select

from pbem.clock import FakeClock
from pbem.mailin.smtp import InboxHandler, start_listener
from pbem.mailin.worker import InboxWorker
from pbem.store import InboxMessage, InboxStatus, Store

DOMAIN = "game.test"


def _mail(n: int = 1, body: str = "move C4 D5\n", msgid: str | None = None) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = "ann@club.test"
    msg["To"] = f"pbem@{DOMAIN}"
    msg["Subject"] = f"[g1] Turn {n}"
    msg["Date"] = "Thu, 01 Jan 2026 12:00:00 +0000"
    msg["Message-ID"] = msgid or f"<m{n}@club.test>"
    msg.set_content(body)
    return msg


def _rows(store: Store) -> list[InboxMessage]:
    with store.transaction() as session:
        return list(session.exec(select(InboxMessage).order_by(InboxMessage.id)).all())


class Marker:
    """A processor that marks each row processed and remembers the order."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.seen: list[int] = []

    def process(self, inbox_id: int) -> None:
        with self.store.transaction() as session:
            row = session.get(InboxMessage, inbox_id)
            assert row is not None
            row.status = InboxStatus.PROCESSED
            row.outcome = "ok"
            session.add(row)
        self.seen.append(inbox_id)


async def _serve(handler: InboxHandler, port: int) -> asyncio.Server:
    return await start_listener(handler, "127.0.0.1", port, hostname=DOMAIN)


def _handler(store: Store, clock: FakeClock, **kw: object) -> InboxHandler:
    return InboxHandler(
        store,
        clock,
        domain=DOMAIN,
        max_message_size=int(kw.pop("max_message_size", 100_000)),  # type: ignore[call-overload]
        **kw,  # type: ignore[arg-type]
    )


def test_message_is_committed_before_the_250(
    free_port: Callable[[], int], store: Store, db_url: str, clock: FakeClock
) -> None:
    committed_at_callback: list[int] = []

    def on_new(inbox_id: int) -> None:
        # A separate connection sees the row: it is committed, and the 250
        # has not been sent yet (the handler calls us before replying).
        path = db_url.removeprefix("sqlite:///")
        with sqlite3.connect(path) as conn:
            got = conn.execute("SELECT id FROM inbox WHERE id = ?", (inbox_id,)).fetchone()
        committed_at_callback.append(got[0] if got else -1)

    async def main() -> tuple[int, str]:
        port = free_port()
        server = await _serve(_handler(store, clock, on_new_mail=on_new), port)
        try:
            _, reply = await aiosmtplib.send(_mail(), hostname="127.0.0.1", port=port)
            return port, reply
        finally:
            server.close()
            await server.wait_closed()

    _, reply = asyncio.run(main())
    rows = _rows(store)
    assert len(rows) == 1
    assert committed_at_callback == [rows[0].id]
    assert f"inbox #{rows[0].id}" in reply
    assert rows[0].status == InboxStatus.PENDING
    assert rows[0].message_id == "<m1@club.test>"
    assert rows[0].envelope_to == f"pbem@{DOMAIN}"
    assert rows[0].received_at == clock.now()
    assert b"move C4 D5" in rows[0].raw


def test_database_down_gives_451_and_the_retry_is_stored(
    free_port: Callable[[], int], store: Store, db_url: str, clock: FakeClock
) -> None:
    path = db_url.removeprefix("sqlite:///")
    blocker = sqlite3.connect(path, isolation_level=None)

    async def main() -> None:
        port = free_port()
        server = await _serve(_handler(store, clock), port)
        try:
            blocker.execute("BEGIN EXCLUSIVE")  # the database is unavailable
            with pytest.raises(aiosmtplib.SMTPDataError) as err:
                await aiosmtplib.send(_mail(), hostname="127.0.0.1", port=port)
            assert err.value.code == 451
            blocker.execute("ROLLBACK")
            assert _rows(store) == []
            # The MTA retries later: now it is stored, exactly once.
            await aiosmtplib.send(_mail(), hostname="127.0.0.1", port=port)
        finally:
            server.close()
            await server.wait_closed()

    try:
        asyncio.run(main())
    finally:
        blocker.close()
    assert len(_rows(store)) == 1


def test_redelivery_with_same_message_id_makes_no_second_row(
    free_port: Callable[[], int], store: Store, clock: FakeClock
) -> None:
    woken: list[int] = []

    async def main() -> list[str]:
        port = free_port()
        server = await _serve(_handler(store, clock, on_new_mail=woken.append), port)
        try:
            replies = []
            for body in ("move C4 D5\n", "move C4 D5\n", "a different body, same id\n"):
                _, reply = await aiosmtplib.send(
                    _mail(body=body, msgid="<same@club.test>"), hostname="127.0.0.1", port=port
                )
                replies.append(reply)
            return replies
        finally:
            server.close()
            await server.wait_closed()

    replies = asyncio.run(main())
    rows = _rows(store)
    # Duplicates are keyed on Message-ID *and* content: the re-delivery makes no
    # row, a different body under the same id is another mail.
    assert len(rows) == 2
    assert all(f"inbox #{rows[0].id}" in r for r in replies[:2])
    assert f"inbox #{rows[1].id}" in replies[2]
    assert woken == [rows[0].id, rows[1].id]  # the duplicate does not wake the pipeline


def test_oversized_message_gets_552(
    free_port: Callable[[], int], store: Store, clock: FakeClock
) -> None:
    async def main() -> None:
        port = free_port()
        server = await _serve(_handler(store, clock, max_message_size=2000), port)
        try:
            with pytest.raises(aiosmtplib.SMTPResponseException) as err:
                await aiosmtplib.send(_mail(body="x" * 5000), hostname="127.0.0.1", port=port)
            assert err.value.code == 552
        finally:
            server.close()
            await server.wait_closed()

    asyncio.run(main())
    assert _rows(store) == []


def test_recipient_outside_game_domain_is_refused(
    free_port: Callable[[], int], store: Store, clock: FakeClock
) -> None:
    async def main() -> None:
        port = free_port()
        server = await _serve(_handler(store, clock), port)
        try:
            with pytest.raises(aiosmtplib.SMTPRecipientsRefused) as err:
                await aiosmtplib.send(
                    _mail(), hostname="127.0.0.1", port=port, recipients=["x@elsewhere.test"]
                )
            assert err.value.recipients[0].code == 550
        finally:
            server.close()
            await server.wait_closed()

    asyncio.run(main())
    assert _rows(store) == []


def test_pending_row_left_by_a_crash_is_processed_at_restart(
    free_port: Callable[[], int], store: Store, clock: FakeClock
) -> None:
    async def receive_then_crash() -> None:
        port = free_port()
        server = await _serve(_handler(store, clock), port)
        try:
            await aiosmtplib.send(_mail(1), hostname="127.0.0.1", port=port)
            await aiosmtplib.send(_mail(2), hostname="127.0.0.1", port=port)
        finally:
            server.close()  # the process dies before any processing
            await server.wait_closed()

    asyncio.run(receive_then_crash())
    assert [r.status for r in _rows(store)] == [InboxStatus.PENDING] * 2

    marker = Marker(store)
    worker = InboxWorker(store, marker, clock)

    async def restart() -> None:
        loop = asyncio.get_running_loop()
        done = asyncio.Event()
        worker.on_processed = lambda: loop.call_soon_threadsafe(done.set)
        task = asyncio.create_task(worker.run())
        await asyncio.wait_for(done.wait(), timeout=10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(restart())
    rows = _rows(store)
    assert marker.seen == [rows[0].id, rows[1].id]
    assert [r.status for r in rows] == [InboxStatus.PROCESSED] * 2


async def _lmtp_exchange(port: int, recipients: list[str], data: bytes) -> list[str]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)

    async def reply() -> str:
        lines = []
        while True:
            line = (await reader.readline()).decode()
            lines.append(line.strip())
            if len(line) < 4 or line[3] != "-":
                return lines[-1]

    out = [await reply()]
    for command in [b"LHLO client.test", b"MAIL FROM:<ann@club.test>"] + [
        f"RCPT TO:<{r}>".encode() for r in recipients
    ]:
        writer.write(command + b"\r\n")
        out.append(await reply())
    writer.write(b"DATA\r\n")
    out.append(await reply())
    writer.write(data.replace(b"\n", b"\r\n") + b".\r\n")
    out.append(await reply())
    writer.write(b"QUIT\r\n")
    out.append(await reply())
    writer.close()
    await writer.wait_closed()
    return out


def test_lmtp_takes_one_recipient_per_transaction(
    free_port: Callable[[], int], store: Store, clock: FakeClock
) -> None:
    async def main() -> list[str]:
        port = free_port()
        server = await _serve(_handler(store, clock, lmtp=True), port)
        try:
            return await _lmtp_exchange(port, [f"pbem@{DOMAIN}", f"other@{DOMAIN}"], bytes(_mail()))
        finally:
            server.close()
            await server.wait_closed()

    replies = asyncio.run(main())
    codes = [r[:3] for r in replies]
    # greeting, LHLO, MAIL, RCPT ok, RCPT 452, DATA 354, one reply for one recipient, QUIT
    assert codes == ["220", "250", "250", "250", "452", "354", "250", "221"]
    rows = _rows(store)
    assert len(rows) == 1
    assert rows[0].source == "lmtp"
    assert rows[0].envelope_to == f"pbem@{DOMAIN}"
