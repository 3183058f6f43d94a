"""kill -9 at random points: nothing acknowledged is lost, processed twice or mailed twice.

``pbem serve`` runs as a subprocess on a temp SQLite store; a load of signed
orders (random legal C&C Ancients orders for several games, design §2
invariant 1) is delivered over SMTP like an MTA would (re-sent until ``250``).
A killer thread SIGKILLs the daemon at seeded random moments (after a
random number of acknowledged mails, then a random short delay, so kills
land mid-DATA, mid-turn and mid-flush) and restarts it. Afterwards:

- every mail the listener acknowledged has exactly one inbox row, processed;
- each game moved one epoch per processed mail (no turn resolved twice);
- every queued result mail reached the sink, and at most one sender batch
  (``pbem.outbox.RECORD_BATCH`` rows) of extra copies per kill (the same
  Message-ID: sent at least once, shown once — invariant 2).

The same test runs on PostgreSQL when ``PBEM_TEST_PG_URL`` is set (CI sets
it, ``scripts/test-postgres``), in a schema of its own, with one worker and
with ``pbem serve --workers 2`` (the kill takes the supervisor and both
workers). The failover of one worker while the others run is
``tests/test_scale_workers.py``.
"""

from __future__ import annotations

import os
import random
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from fault_kit import (
    REFEREE,
    ReadStore,
    Serve,
    Sink,
    create_games,
    game_epochs,
    orders_mail,
    send_until_accepted,
    summary,
    wait_settled,
    write_config,
)
from sqlalchemy import create_engine, text

from pbem.config import load_config
from pbem.outbox import RECORD_BATCH
from pbem.store import GameStatus, Store, migrate


def _run(
    tmp_path: Path,
    *,
    games: int,
    epochs: int,
    kills: int,
    seed: int,
    db_url: str = "",
    workers: int = 1,
) -> None:
    rnd = random.Random(seed)
    with Sink() as sink:
        cfg = write_config(tmp_path, sink_port=sink.port, db_url=db_url)
        config = load_config(str(cfg))
        migrate(config.database_url)
        store = Store(config.database_url)
        load = create_games(store, cfg, games)
        store.dispose()
        store = ReadStore(config.database_url)
        serve = Serve(cfg, tmp_path / "serve.log", workers=workers)
        serve.start()
        acked: dict[str, str] = {}
        total = games * epochs
        thresholds = sorted(rnd.sample(range(1, total), min(kills, total - 1)))
        stop = threading.Event()
        kills_done = [0]
        restart_lock = threading.Lock()

        def killer() -> None:
            for threshold in thresholds:
                while len(acked) < threshold and not stop.is_set():
                    time.sleep(0.005)
                if stop.is_set():
                    return
                time.sleep(rnd.uniform(0.0, 0.25))
                with restart_lock:
                    serve.kill()
                    kills_done[0] += 1
                    serve.start()

        thread = threading.Thread(target=killer, daemon=True)
        thread.start()
        try:
            sent_for: dict[str, int] = {}
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                state = game_epochs(store)
                waiting = False
                for game in load:
                    epoch, status = state[game.game_id]
                    if status != GameStatus.ACTIVE or epoch >= epochs:
                        continue
                    waiting = True
                    if sent_for.get(game.game_id) == epoch:
                        continue
                    mail = orders_mail(store, game)
                    assert mail is not None
                    send_until_accepted(serve.listener, mail.sender, REFEREE, mail.raw)
                    acked[mail.message_id] = game.game_id
                    sent_for[game.game_id] = epoch
                if not waiting:
                    break
                time.sleep(0.01)
            stop.set()
            thread.join()
            assert kills_done[0] == len(thresholds), "the load ended before every kill"
            wait_settled(store, sink, timeout=60)
        finally:
            stop.set()
            thread.join()
            serve.stop()

        s = summary(store)
        by_id = Counter(r.message_id for r in s.inbox)
        statuses = {r.message_id: r.status for r in s.inbox}
        for message_id in acked:
            assert by_id[message_id] == 1, f"{message_id} stored {by_id[message_id]} times"
            assert statuses[message_id] == "processed", (message_id, statuses[message_id])
        assert not [r for r in s.inbox if r.status == "failed"]
        processed = Counter(r.game_id for r in s.inbox if r.status == "processed")
        for game in load:
            epoch, _ = s.games[game.game_id]
            assert epoch == processed[game.game_id], f"{game.game_id}: epochs vs processed mails"

        outbox_ids = [r.message_id for r in s.outbox]
        assert len(outbox_ids) == len(set(outbox_ids))
        assert all(r.status == "sent" for r in s.outbox)
        delivered = Counter(sink.message_ids())
        assert set(outbox_ids) <= set(delivered), "a queued mail never reached the sink"
        extra = sum(n - 1 for n in delivered.values())
        # A kill between sending a batch and recording it re-sends that batch.
        bound = kills_done[0] * RECORD_BATCH
        assert extra <= bound, f"{extra} re-sent copies after {kills_done[0]} kills"
        # Every accepted orders mail produced result mail, and only to players.
        players = {p.address for g in load for p in g.players.values()}
        caused = Counter(r.inbox_id for r in s.outbox if r.inbox_id is not None)
        for row in s.inbox:
            if row.status == "processed":
                assert caused[row.id] >= 1
        assert {r.recipient for r in s.outbox} <= players | {config.mail.operator}
        store.dispose()


def test_kill9_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    _run(tmp_path, games=3, epochs=4, kills=3, seed=9)


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh PostgreSQL schema (skipped unless PBEM_TEST_PG_URL is set)."""
    base = os.environ.get("PBEM_TEST_PG_URL")
    if not base:
        pytest.skip("set PBEM_TEST_PG_URL to run the PostgreSQL variant")
    schema = f"k9_{uuid.uuid4().hex[:12]}"
    admin = create_engine(base)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    sep = "&" if "?" in base else "?"
    try:
        yield f"{base}{sep}options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


def test_kill9_on_postgresql(tmp_path: Path, pg_url: str) -> None:
    _run(tmp_path, games=2, epochs=3, kills=2, seed=19, db_url=pg_url)


def test_kill9_two_workers_on_postgresql(tmp_path: Path, pg_url: str) -> None:
    """``pbem serve --workers 2``: the whole group killed -9 at random moments, then restarted."""
    _run(tmp_path, games=3, epochs=3, kills=2, seed=29, db_url=pg_url, workers=2)


@pytest.mark.slow
def test_kill9_many_kills(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    marks = str(request.config.getoption("markexpr") or "")
    if "slow" not in marks or "not slow" in marks:
        pytest.skip("20 kills: run with pytest -m slow")
    _run(tmp_path, games=8, epochs=12, kills=20, seed=99)
