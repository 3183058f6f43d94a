"""A smarthost outage of a simulated hour: nothing lost, all delivered after, backoff visible.

The outbox sender talks to a real loopback SMTP sink that, for one hour of
a fake clock (no sleeping), answers ``421`` at connect, then resets
connections, then is down (connection refused), then answers ``451`` after
DATA. Game mail keeps being queued during the outage (players' orders are
processed meanwhile). When the sink recovers, every queued mail is delivered
once; the log shows each failed attempt with its growing retry time
(``outbox.retry_base`` doubling, capped at ``retry_max``) — design §2
invariant 2.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import re
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from fault_kit import Sink
from pipeline_kit import NORTH, SOUTH, Kit, mail, make_kit, orders

from pbem.clock import FakeClock
from pbem.config import Config, config_from_dict
from pbem.outbox import OutboxSender
from pbem.store import Store

HOUR = timedelta(hours=1)


def _config(tmp_path: Path, db_url: str, port: int) -> Config:
    return config_from_dict(
        {
            "data_dir": str(tmp_path / "data"),
            "database": {"url": db_url, "busy_timeout_ms": 200},
            "mail": {"address": "pbem@game.test", "operator": "op@club.test"},
            "smarthost": {"host": "127.0.0.1", "port": port, "security": "none", "timeout": "5s"},
            "outbox": {"retry_base": "1m", "retry_factor": 2, "retry_max": "16m"},
        },
        base=tmp_path,
    )


def _play_turn(kit: Kit) -> None:
    """The side to move sends signed orders; the turn's mails (or a refusal) are queued."""
    side = kit.state()["to_move"]
    address = NORTH if side == "north" else SOUTH
    kit.deliver(mail(address, orders(kit, side), key=kit.keys[side]))
    kit.process_all()


def _next_due(kit: Kit) -> datetime | None:
    queued = [r.next_attempt_at for r in kit.outbox() if r.status == "queued"]
    return min(queued) if queued else None


PHASES = ("refuse", "drop", "down", "tempfail")


def test_outage_of_an_hour_loses_nothing(
    tmp_path: Path, db_url: str, store: Store, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    phases = PHASES
    caplog.set_level(logging.INFO, logger="pbem.outbox")
    with Sink() as sink:
        config = _config(tmp_path, db_url, sink.port)
        kit = make_kit(store, config, clock)
        sender = OutboxSender(config, store, clock)
        start = clock.now()
        phase_length = HOUR / len(phases)

        async def outage() -> int:
            flushes = 0
            current = ""
            while clock.now() - start < HOUR:
                phase = phases[int((clock.now() - start) / phase_length)]
                if phase != current:
                    current = phase
                    if phase == "down":
                        sink.down()
                    else:
                        sink.up()
                        sink.mode = phase
                    _play_turn(kit)  # mail keeps coming in during the outage
                await sender.flush()
                flushes += 1
                due = _next_due(kit)
                step = min(due - clock.now() if due else HOUR, phase_length / 4)
                clock.advance(max(step, timedelta(seconds=1)))
            return flushes

        flushes = asyncio.run(outage())
        during = len(sink.deliveries)
        rows = kit.outbox()
        assert during == 0, "the sink accepted mail during the outage"
        assert rows and all(r.status == "queued" for r in rows), "a mail was given up or lost"
        assert all(r.attempts >= 1 for r in rows)

        sink.up()
        sink.mode = "accept"
        due = _next_due(kit)
        assert due is not None and due - clock.now() <= timedelta(minutes=16)
        clock.set(due)
        asyncio.run(sender.flush())
        while _next_due(kit) is not None:  # rows queued later than the first are due later
            clock.set(max(_next_due(kit) or clock.now(), clock.now()))
            asyncio.run(sender.flush())

        rows = kit.outbox()
        assert all(r.status == "sent" for r in rows)
        delivered = Counter(d.message_id for d in sink.deliveries)
        assert set(delivered) == {r.message_id for r in rows}
        assert max(delivered.values()) == 1, "a mail was delivered twice"
        assert {d.rcpt for d in sink.deliveries} <= {NORTH, SOUTH, "op@club.test"}
        assert flushes < 200, "the sender tried far more often than its backoff allows"

    # The log shows the backoff: for the first mail, retries after 1, 2, 4, 8, 16, 16... min.
    first = rows[0].message_id
    retry_times = [
        datetime.fromisoformat(m.group(1))
        for rec in caplog.records
        if first in rec.getMessage()
        for m in [re.search(r"retry at (\S+):", rec.getMessage())]
        if m
    ]
    assert len(retry_times) >= 5
    gaps = [b - a for a, b in itertools.pairwise(retry_times)]
    assert gaps[:4] == [timedelta(minutes=m) for m in (2, 4, 8, 16)]
    assert all(g == timedelta(minutes=16) for g in gaps[4:])
    assert any("sent" in r.getMessage() and first in r.getMessage() for r in caplog.records)
