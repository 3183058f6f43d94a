"""Issue 11 (ingress): the 100,000-address mail and daemon starts, before and after, in one run.

1. Refusal: the time the inbox worker spends on one mail with 100,000
   addresses in ``To`` (folded, as a mail program sends it). "Before" is what
   the old pipeline did first with every mail, ``read_mail`` (the standard
   library parses the whole address list); "after" is ``Processor.process`` on
   the stored row (the raw-byte budget refuses it unread and sets it aside).
2. Start-up: ``--starts`` in-process daemon starts (system clock, fresh
   store, as ``pbem serve``), counting the starts whose inbox worker failed
   with "deque mutated during iteration". "Before" puts back the old reader
   (a second engine created on the store's pool at the first read); "after"
   is the shipped code.

Usage: python bench/ingress_bench.py [--starts 40] [--skip-before-parse]
Results: bench/results/ingress.json
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchkit import machine, save_json, today
from sqlalchemy import create_engine

from pbem.clock import FakeClock
from pbem.config import Config, config_from_dict
from pbem.daemon import Daemon
from pbem.mailin.accept import store_message
from pbem.pipeline.inbound import read_mail
from pbem.pipeline.processor import Processor
from pbem.store import (
    InboxMessage,
    Player,
    Store,
    migrate,
    sessions,
)


def huge_mail(count: int) -> bytes:
    to = ",\r\n ".join(f"user{i}@list.test" for i in range(count))
    return (
        f"From: ann@north.test\r\nTo: pbem@game.test,\r\n {to}\r\nSubject: hi\r\n"
        "Message-ID: <huge@north.test>\r\n\r\ncommand help\r\n"
    ).encode()


def _config(tmp: Path) -> Config:
    url = f"sqlite:///{tmp / 'pbem.sqlite3'}"
    migrate(url)
    return config_from_dict(
        {
            "data_dir": str(tmp / "data"),
            "database": {"url": url},
            "listener": {"enabled": False},
            "mail": {"address": "pbem@game.test", "operator": "op@club.test"},
        },
        base=tmp,
    )


def refusal(count: int, *, before: bool) -> dict[str, Any]:
    raw = huge_mail(count)
    out: dict[str, Any] = {"addresses": count, "bytes": len(raw)}
    if before:
        start = time.perf_counter()
        read_mail(raw, "", 10 * 1024 * 1024)
        out["before_s"] = round(time.perf_counter() - start, 3)
    with tempfile.TemporaryDirectory() as tmp:
        config = _config(Path(tmp))
        clock = FakeClock()
        store = Store(config.database_url)
        try:
            with store.transaction() as s:  # the sender is a player: the larger budget
                s.add(Player(email="ann@north.test", name="Ann", created_at=clock.now()))
            inbox_id = store_message(store, raw, source="smtp", clock=clock).inbox_id
            processor = Processor(config, store, clock)
            start = time.perf_counter()
            processor.process(inbox_id)
            out["after_s"] = round(time.perf_counter() - start, 4)
            with store.transaction() as s:
                row = s.get(InboxMessage, inbox_id)
                assert row is not None
                out["after_status"] = row.status
                out["after_outcome"] = row.outcome[:80]
        finally:
            store.dispose()
    return out


def _old_read_engine(store: Store) -> Any:
    """The reader before the fix: a second engine on the store's pool, made at first use."""
    return create_engine(store.engine.url, pool=store.engine.pool)


class _Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage() + (record.exc_text or ""))
        if record.exc_info:
            self.messages.append(repr(record.exc_info[1]))


def starts(count: int, *, old: bool) -> dict[str, Any]:
    """Start and stop a daemon ``count`` times (0.3 s each); count the inbox worker's failures."""
    real: Callable[[Store], Any] = sessions._read_engine
    if old:
        sessions._read_engine = _old_read_engine  # type: ignore[assignment]
    failed = 0
    try:
        for _ in range(count):
            with tempfile.TemporaryDirectory() as tmp:
                config = _config(Path(tmp))
                errors = _Errors()
                logging.getLogger().addHandler(errors)

                async def main(config: Config = config) -> None:
                    daemon = Daemon(config)  # the system clock, a fresh store: `pbem serve`
                    await daemon.start()
                    await asyncio.sleep(0.3)
                    await daemon.stop()

                try:
                    asyncio.run(main())
                finally:
                    logging.getLogger().removeHandler(errors)
                if any("mutated" in m for m in errors.messages):
                    failed += 1
    finally:
        sessions._read_engine = real  # type: ignore[assignment]
    return {"starts": count, "worker_failed": failed}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--starts", type=int, default=40)
    parser.add_argument("--addresses", type=int, default=100_000)
    parser.add_argument("--skip-before-parse", action="store_true")
    args = parser.parse_args()
    # Log at INFO like `pbem serve` (the timing of a start depends on it), to nowhere.
    logging.getLogger().addHandler(logging.NullHandler())
    logging.getLogger().setLevel(logging.INFO)
    result = {
        "machine": machine(),
        "date": today(),
        "refusal": refusal(args.addresses, before=not args.skip_before_parse),
        "starts_before": starts(args.starts, old=True),
        "starts_after": starts(args.starts, old=False),
    }
    save_json("ingress.json", result)
    print(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
