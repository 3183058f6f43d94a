"""SIGTERM while the worker reads a huge mail: the daemon stops at once; a restart sets it aside.

Before, the worker read mail in the event loop's default executor, which the
loop joins when it closes: SIGTERM while the standard library parsed a
100,000-address mail (about 30 s here) waited for the parse, beyond systemd's
stop timeout (deploy/pbem.service: 30 s), and the mail stayed pending to
stall every following start. The daemon's own sqlite file and a real
``pbem serve`` subprocess; mail over loopback SMTP only.
"""

from __future__ import annotations

import time
from pathlib import Path

from fault_kit import (
    OPERATOR,
    REFEREE,
    ReadStore,
    Serve,
    free_port,
    send_until_accepted,
    write_config,
)

from pbem.store import InboxMessage

STOP_TIMEOUT = 30.0  # deploy/pbem.service TimeoutStopSec


def _huge(count: int) -> bytes:
    # Folded, as a mail program sends it (SMTP lines are at most 1,000 bytes).
    to = ",\r\n ".join(f"user{i}@list.test" for i in range(count))
    return (
        f"From: {OPERATOR}\r\nTo: {REFEREE}, {to}\r\nSubject: hi\r\n"
        "Message-ID: <huge@ops.test>\r\n\r\ncommand help\r\n"
    ).encode()


def _row(store: ReadStore) -> InboxMessage | None:
    with store.transaction() as s:
        return s.get(InboxMessage, 1)


def _wait(store: ReadStore, ok: object, timeout: float = 60.0) -> InboxMessage:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        row = _row(store)
        if row is not None and ok(row):  # type: ignore[operator]
            return row
        time.sleep(0.05)
    raise AssertionError(f"inbox row never reached the expected state: {_row(store)}")


def test_sigterm_while_reading_a_huge_mail_stops_at_once_and_the_next_start_sets_it_aside(
    tmp_path: Path,
) -> None:
    db = f"sqlite:///{tmp_path / 'pbem.sqlite3'}"
    config = write_config(tmp_path / "d", sink_port=0, db_url=db, listener_port=free_port())
    plain = config.read_text()
    # A budget so generous the huge mail reaches the (slow) parser.
    config.write_text(
        plain + "max_addresses = 10000000\nmax_header_bytes = 100000000\nmax_parse_seconds = 600\n"
    )
    serve = Serve(config, tmp_path / "serve.log")
    store = ReadStore(db)
    try:
        serve.start()
        send_until_accepted(serve.listener, OPERATOR, REFEREE, _huge(100_000))
        _wait(store, lambda r: r.attempts == 1)  # the worker is reading it now
        start = time.monotonic()
        code = serve.stop(timeout=STOP_TIMEOUT)
        took = time.monotonic() - start
        assert code == 0, (tmp_path / "serve.log").read_text()[-3000:]
        assert took < 10.0, f"SIGTERM took {took:.1f} s"
        row = _row(store)
        assert row is not None and row.status == "pending"  # nothing lost
        # The shipped budget: the next start refuses it unread and sets it aside.
        config.write_text(plain)
        serve = Serve(config, tmp_path / "serve.log")
        serve.start()
        row = _wait(store, lambda r: r.status != "pending", timeout=30)
        assert row.status == "set-aside" and "too-many-addresses" in row.outcome
    finally:
        serve.stop()
        store.dispose()
