"""Orders reach a resolved turn by every route (SMTP, ``pbem ingest``, IMAP), and survive crashes.

Design.md §2 invariant 1: a crash between the acknowledgement and the
processing, or inside the processing, leaves the old state with the message
pending; after the restart it is processed exactly once.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import aiosmtplib
import pytest
from imap_server import ImapTestServer
from pipeline_kit import GAME, NORTH, SOUTH, Kit, mail, make_kit, orders

from pbem.config import ImapConfig, SecretSource
from pbem.daemon import Daemon
from pbem.mailin.imap import poll_once
from pbem.mailin.worker import InboxWorker
from pbem.pipeline.processor import Processor
from pbem.store import InboxStatus, Store


@pytest.fixture
def kit(db_url, config, clock) -> Iterator[Kit]:
    # The daemon's worker holds the write lock while it renders a turn; the test's
    # polling reads wait for it rather than fail (the shared fixture waits 200 ms).
    store = Store(db_url, busy_timeout_ms=10_000)
    k = make_kit(store, config, clock)
    k.set_hand("north", ["2", "3", "4"])
    yield k
    store.dispose()


def _resolved_with_two_mails(kit: Kit, before: int, inbox_id: int) -> None:
    assert kit.inbox(inbox_id).status == InboxStatus.PROCESSED, kit.inbox(inbox_id).outcome
    assert kit.game().epoch == 1
    assert sorted(m.recipient for m in kit.new_mail(before)) == [NORTH, SOUTH]


def test_orders_sent_over_smtp_to_the_listener_resolve_a_turn(kit: Kit) -> None:
    before = kit.last_id()
    daemon = Daemon(kit.config, clock=kit.clock, store=kit.store, extensions=("pbem.pipeline",))
    raw = mail(NORTH, orders(kit, "north", "2"), key=kit.keys["north"])

    async def main() -> None:
        await daemon.start()
        try:
            await aiosmtplib.send(
                raw,
                sender=NORTH,
                recipients=[f"pbem+{GAME}@game.test"],
                hostname="127.0.0.1",
                port=kit.config.listener.port,
            )
            for _ in range(400):  # the worker runs in a thread; poll the store
                if kit.game().epoch == 1 and len(kit.new_mail(before)) >= 2:
                    break
                await asyncio.sleep(0.01)
        finally:
            await daemon.stop()

    asyncio.run(main())
    [row_id] = [r.id for r in [kit.inbox(1)]]  # the first inbox row is the orders mail
    assert row_id is not None
    _resolved_with_two_mails(kit, before, row_id)


def test_orders_through_pbem_ingest(kit: Kit, tmp_path: Path, db_url: str) -> None:
    cfg = tmp_path / "pbem.toml"
    cfg.write_text(
        f'data_dir = "{tmp_path / "data"}"\n[database]\nurl = "{db_url}"\n'
        '[mail]\naddress = "pbem@game.test"\n'
    )
    env = dict(os.environ)
    env.pop("PBEM_CONFIG", None)
    before = kit.last_id()
    result = subprocess.run(
        [sys.executable, "-m", "pbem", "ingest", "--config", str(cfg)],
        input=mail(NORTH, orders(kit, "north", "3"), key=kit.keys["north"]),
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    kit.process_all()
    _resolved_with_two_mails(kit, before, 1)


def test_orders_through_imap(kit: Kit, tmp_path: Path) -> None:
    secret = tmp_path / "imap.secret"
    secret.write_text("s3cret\n")
    before = kit.last_id()
    with ImapTestServer() as server:
        server.add(mail(NORTH, orders(kit, "north", "4"), key=kit.keys["north"]))
        cfg = ImapConfig(
            enabled=True,
            host="127.0.0.1",
            port=server.port,
            security="none",
            user="game",
            password=SecretSource(file=secret),
        )
        poll_once(cfg, kit.store, kit.clock, max_message_size=1_000_000)
    kit.process_all()
    _resolved_with_two_mails(kit, before, 1)


def test_crash_between_acknowledge_and_processing(kit: Kit) -> None:
    before = kit.last_id()
    inbox_id = kit.deliver(mail(NORTH, orders(kit, "north", "2"), key=kit.keys["north"]))
    # The daemon dies here: the mail was acknowledged (stored) but never processed.
    assert kit.inbox(inbox_id).status == InboxStatus.PENDING
    assert kit.game().epoch == 0
    restarted = InboxWorker(kit.store, Processor(kit.config, kit.store, kit.clock), kit.clock)
    assert restarted.process_pending() == 1
    _resolved_with_two_mails(kit, before, inbox_id)
    assert restarted.process_pending() == 0


class Crash(Exception):
    """The process died (simulated) at a fault point."""


def test_crash_inside_processing_rolls_back_and_runs_once_after_restart(kit: Kit) -> None:
    before = kit.last_id()
    inbox_id = kit.deliver(mail(NORTH, orders(kit, "north", "2"), key=kit.keys["north"]))

    def die(point: str) -> None:
        if point == "after-engine":
            raise Crash(point)

    with pytest.raises(Crash):
        Processor(kit.config, kit.store, kit.clock, fault=die).process(inbox_id)
    # Rolled back: old state, no epoch, no mail, the message still pending.
    assert kit.game().epoch == 0 and kit.game().state_version == 0
    assert kit.new_mail(before) == []
    assert kit.inbox(inbox_id).status == InboxStatus.PENDING
    processor = Processor(kit.config, kit.store, kit.clock)
    processor.process(inbox_id)
    processor.process(inbox_id)  # a second run (a re-sweep) changes nothing
    _resolved_with_two_mails(kit, before, inbox_id)
