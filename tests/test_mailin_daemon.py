"""The daemon skeleton: mail in, a plugged-in processor, mail out, graceful SIGTERM."""

from __future__ import annotations

import asyncio
import mailbox
import os
import signal
import subprocess
import sys
import threading
import types
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path

import aiosmtplib
import pytest
from sqlmodel import select

from pbem.clock import FakeClock
from pbem.config import Config
from pbem.daemon import Daemon
from pbem.outbox import FlushReport, make_message_id, queue_message
from pbem.store import InboxMessage, InboxStatus, Store


class EchoProcessor:
    """Marks each message processed and queues a reply to its sender."""

    def __init__(self, store: Store, clock: FakeClock) -> None:
        self.store = store
        self.clock = clock

    def process(self, inbox_id: int) -> None:
        with self.store.transaction() as session:
            row = session.get(InboxMessage, inbox_id)
            assert row is not None
            reply = EmailMessage()
            reply["From"] = "pbem@game.test"
            reply["To"] = row.envelope_from
            reply["Subject"] = "Re: got it"
            reply.set_content(f"stored as #{inbox_id}\n")
            queue_message(
                session,
                reply,
                recipient=row.envelope_from,
                message_id=make_message_id("-", "echo", inbox_id, row.envelope_from, "game.test"),
                clock=self.clock,
                inbox_id=inbox_id,
                kind="echo",
            )
            row.status = InboxStatus.PROCESSED
            row.outcome = "echoed"
            session.add(row)


def _mail() -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = "ann@club.test"
    msg["To"] = "pbem@game.test"
    msg["Subject"] = "[g1] hello"
    msg["Message-ID"] = "<daemon-1@club.test>"
    msg.set_content("hello\n")
    return msg


def test_mail_in_is_processed_and_the_reply_delivered(
    config: Config, store: Store, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    extension = types.ModuleType("pbem_test_extension")

    def setup_daemon(daemon: Daemon) -> None:
        daemon.set_processor(EchoProcessor(daemon.store, clock))

    extension.setup_daemon = setup_daemon  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pbem_test_extension", extension)
    daemon = Daemon(config, clock=clock, store=store, extensions=("pbem_test_extension",))

    async def main() -> None:
        delivered = asyncio.Event()
        real_flush = daemon.outbox.flush

        async def flush() -> FlushReport:
            report = await real_flush()
            if report.sent:
                delivered.set()
            return report

        monkeypatch.setattr(daemon.outbox, "flush", flush)
        await daemon.start()
        try:
            await aiosmtplib.send(
                _mail(), hostname="127.0.0.1", port=config.listener.port, sender="ann@club.test"
            )
            await asyncio.wait_for(delivered.wait(), timeout=10)
        finally:
            await daemon.stop()

    asyncio.run(main())
    with store.transaction() as session:
        row = session.exec(select(InboxMessage)).one()
    assert row.status == InboxStatus.PROCESSED
    box = mailbox.Maildir(config.maildir_path, create=False)
    [reply] = list(box)
    assert reply["X-Pbem-Envelope-To"] == "ann@club.test"
    assert reply["Subject"] == "Re: got it"


def test_without_a_processor_mail_is_kept_pending(config: Config, store: Store) -> None:
    daemon = Daemon(config, clock=FakeClock(), store=store, extensions=())

    async def main() -> None:
        await daemon.start()
        try:
            await aiosmtplib.send(_mail(), hostname="127.0.0.1", port=config.listener.port)
        finally:
            await daemon.stop()

    asyncio.run(main())
    with store.transaction() as session:
        assert session.exec(select(InboxMessage)).one().status == InboxStatus.PENDING


def test_pbem_serve_stops_cleanly_on_sigterm(tmp_path: Path, free_port: Callable[[], int]) -> None:
    port = free_port()
    config = tmp_path / "pbem.toml"
    config.write_text(
        f'data_dir = "{tmp_path / "data"}"\n[listener]\nport = {port}\n'
        '[mail]\naddress = "pbem@game.test"\n'
    )
    env = {k: v for k, v in os.environ.items() if k != "PBEM_CONFIG"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "pbem", "serve", "--config", str(config)],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    log: list[str] = []
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            log.append(line)
            if "pbem daemon started" in line:
                break
        assert any("Maildir" in line for line in log), log
        asyncio.run(
            aiosmtplib.send(_mail(), hostname="127.0.0.1", port=port, sender="ann@club.test")
        )
        proc.send_signal(signal.SIGTERM)
        rest = proc.communicate(timeout=30)[1]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, "".join(log) + rest
    assert "pbem daemon stopped" in rest
    assert (tmp_path / "data" / "pbem.sqlite3").exists()


def test_stop_finishes_the_mail_in_hand_before_it_releases_the_store(
    config: Config, store: Store, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stop requested while a mail is being processed lets that mail finish (processed,
    not left pending for the next start), and only then disposes of the daemon's store:
    no connection is pulled from under the worker's thread (on PostgreSQL, a warning at
    every shutdown)."""
    in_hand = threading.Event()
    release = threading.Event()
    seen: list[str] = []

    class SlowProcessor(EchoProcessor):
        def process(self, inbox_id: int) -> None:
            with self.store.transaction() as session:
                session.get(InboxMessage, inbox_id)  # the connection is held from here
                in_hand.set()
                assert release.wait(60)
            super().process(inbox_id)
            seen.append("processed")
            in_hand.clear()

    extension = types.ModuleType("pbem_slow_extension")

    def setup_daemon(daemon: Daemon) -> None:
        daemon.set_processor(SlowProcessor(daemon.store, clock))

    extension.setup_daemon = setup_daemon  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pbem_slow_extension", extension)
    daemon = Daemon(config, clock=clock, extensions=("pbem_slow_extension",))  # owns its store
    dispose = daemon.store.dispose

    def recorded_dispose() -> None:
        seen.append("disposed while a mail was in hand" if in_hand.is_set() else "disposed")
        dispose()

    monkeypatch.setattr(daemon.store, "dispose", recorded_dispose)

    async def main() -> None:
        await daemon.start()
        assert daemon.worker is not None
        stop_worker = daemon.worker.stop

        def stop_and_release() -> None:
            stop_worker()
            release.set()  # the mail ends while the daemon stops

        monkeypatch.setattr(daemon.worker, "stop", stop_and_release)
        await aiosmtplib.send(_mail(), hostname="127.0.0.1", port=config.listener.port)
        assert await asyncio.to_thread(in_hand.wait, 60)
        await daemon.stop()

    asyncio.run(main())
    assert seen == ["processed", "disposed"]
    with store.transaction() as session:
        assert session.exec(select(InboxMessage)).one().status == InboxStatus.PROCESSED
