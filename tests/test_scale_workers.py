"""Several workers on one store (docs/scaling.md): lanes, the SQLite refusal, failover.

The failover test runs two worker processes against a real PostgreSQL
(``PBEM_TEST_PG_URL``; CI starts one with ``scripts/test-postgres``): worker A
takes a game's orders mail and stops inside its transaction, just before the
commit, holding the lane's claim and the game's row; worker B (``pbem serve``)
goes on with the other game meanwhile and leaves A's game alone; then A is
killed with SIGKILL. PostgreSQL ends A's session, which releases its claims
(no lease, no clock), and B applies the mail: once, with its result mail sent
once.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

import pytest
import test_store_migrations
from fault_kit import (
    REFEREE,
    REPO,
    ReadStore,
    Sink,
    create_games,
    game_epochs,
    orders_mail,
    summary,
    wait_settled,
    write_config,
)
from sqlalchemy import text

from pbem.cli import main
from pbem.clock import SystemClock
from pbem.config import load_config
from pbem.mailin.accept import store_message
from pbem.pipeline.lanes import lane_of
from pbem.store import InboxStatus, Store, migrate
from pbem.store.locks import LANE_LOCK_CLASS, lane_key

pg_url = test_store_migrations.pg_url  # the PostgreSQL fixture (skips without PBEM_TEST_PG_URL)

ADDRESS = "referee@pbem.test"


def _mail(*headers: str) -> bytes:
    return ("\r\n".join(headers) + "\r\n\r\norders\r\n").encode()


def test_a_mail_s_lane_is_the_game_its_headers_name_else_its_sender() -> None:
    """The lane follows the pipeline's routing: plus-address, then [tag], then our thread ids."""
    plus = _mail("From: Ann <ann@x.org>", "To: referee+g7@pbem.test", "Subject: [g9] hi")
    assert lane_of(plus, "", ADDRESS, "pbem.test") == "game:g7"
    tagged = _mail("From: ann@x.org", "To: referee@pbem.test", "Subject: Re: [g9] orders")
    assert lane_of(tagged, "", ADDRESS, "pbem.test") == "game:g9"
    thread = _mail(
        "From: ann@x.org",
        "Subject: orders",
        "References: <abc@elsewhere.org>",
        " <g5.turn.3.438c4c7afe60@pbem.test>",
    )
    assert lane_of(thread, "", ADDRESS, "pbem.test") == "game:g5"
    envelope = _mail("From: ann@x.org", "Subject: orders")
    assert lane_of(envelope, "referee+g2@pbem.test", ADDRESS, "pbem.test") == "game:g2"
    plain = _mail("From: Ann <Ann@X.org>", "Subject: help")
    assert lane_of(plain, "referee@pbem.test", ADDRESS, "pbem.test") == "from:ann@x.org"
    assert lane_of(_mail("Subject: no sender"), "", ADDRESS, "pbem.test") == ""
    # Another domain's ids and a look-alike address name no game.
    other = _mail("From: ann@x.org", "To: xreferee+g1@pbem.test", "In-Reply-To: <g3.t@else.org>")
    assert lane_of(other, "", ADDRESS, "pbem.test") == "from:ann@x.org"


def test_sqlite_refuses_several_workers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """SQLite is the one-worker embedded store: --workers 2 is refused with the fix to make."""
    cfg = write_config(tmp_path, sink_port=0)
    assert main(["serve", "--config", str(cfg), "--workers", "2"]) == 78
    err = capsys.readouterr().err
    assert "--workers 2 needs PostgreSQL" in err
    assert "docs/scaling.md" in err
    assert not (tmp_path / "data" / "pbem.sqlite3").exists()  # refused before migrating


HOLDING_WORKER = textwrap.dedent(
    """
    import asyncio, pathlib, sys, threading
    from pbem.config import load_config
    from pbem.daemon import Daemon
    from pbem.pipeline import Processor, load_server_key

    config = load_config(sys.argv[1])
    marker = pathlib.Path(sys.argv[2])

    def hold(point: str) -> None:
        if point == "before-commit":
            marker.write_text("holding")
            threading.Event().wait()  # until SIGKILL

    daemon = Daemon(config)
    key = load_server_key(config.server_key_path)
    daemon.set_processor(Processor(config, daemon.store, daemon.clock, server_key=key, fault=hold))
    asyncio.run(daemon.serve_forever())
    """
)


def _wait_for(what: str, check: object, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(0.05)


def _spawn(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, *args], stdout=out, stderr=subprocess.STDOUT, env=env
        )


def _lane_held(store: ReadStore, lane: str) -> bool:
    with store.engine.connect() as conn:
        held = conn.execute(
            text(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                " AND classid = :c AND objid = :k"
            ),
            {"c": LANE_LOCK_CLASS, "k": lane_key(lane)},
        ).scalar()
    return bool(held)


def test_failover_after_kill9_of_a_worker_holding_a_claim(tmp_path: Path, pg_url: str) -> None:
    with Sink() as sink:
        cfg = write_config(
            tmp_path, sink_port=sink.port, db_url=pg_url, listener=False, sweep_interval="0.2s"
        )
        config = load_config(str(cfg))
        migrate(config.database_url)
        store = Store(config.database_url)
        first, second = create_games(store, cfg, 2)
        ids = {}
        for game in (first, second):
            mail = orders_mail(store, game)
            assert mail is not None
            ids[game.game_id] = store_message(
                store,
                mail.raw,
                source="smtp",
                clock=SystemClock(),
                envelope_from=mail.sender,
                envelope_to=[REFEREE],
            ).inbox_id
        store.dispose()
        reader = ReadStore(config.database_url)
        before = game_epochs(reader)

        def row(game_id: str) -> tuple[str, int]:
            rows = {r.id: r for r in summary(reader).inbox}
            found = rows[ids[game_id]]
            return found.status, found.attempts

        script = tmp_path / "holding_worker.py"
        script.write_text(HOLDING_WORKER, encoding="utf-8")
        marker = tmp_path / "holding"
        holder = _spawn([str(script), str(cfg), str(marker)], tmp_path / "a.log")
        other: subprocess.Popen[bytes] | None = None
        try:
            # A took the first game's mail (the oldest) and stopped before committing it.
            _wait_for("worker A to hold the first mail", marker.exists)
            assert _lane_held(reader, f"game:{first.game_id}")
            other = _spawn(["-m", "pbem", "serve", "--config", str(cfg)], tmp_path / "b.log")
            # B goes on with the other game, leaves the held one alone ...
            _wait_for(
                "worker B to take the second game", lambda: row(second.game_id)[0] != "pending"
            )
            _wait_for(
                "the outbox to drain",
                lambda: all(r.status != "queued" for r in summary(reader).outbox),
            )
            assert row(first.game_id) == (InboxStatus.PENDING, 1)
            assert game_epochs(reader)[first.game_id] == before[first.game_id]
            # ... until A dies holding it: PostgreSQL ends its session and its claims.
            os.kill(holder.pid, signal.SIGKILL)
            holder.wait()
            wait_settled(reader, sink, timeout=120)
        finally:
            for proc in (holder, other):
                if proc is not None and proc.poll() is None:
                    proc.send_signal(signal.SIGTERM)
                    try:
                        proc.wait(20)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                        proc.wait()

        s = summary(reader)
        assert [r.status for r in s.inbox] == [InboxStatus.PROCESSED, InboxStatus.PROCESSED]
        assert row(first.game_id) == (InboxStatus.PROCESSED, 2)  # A's attempt, then B's
        for game in (first, second):  # each mail moved its game once
            assert s.games[game.game_id][0] == before[game.game_id][0] + 1
        outbox_ids = [r.message_id for r in s.outbox]
        assert len(outbox_ids) == len(set(outbox_ids))
        assert all(r.status == "sent" for r in s.outbox)
        delivered = Counter(sink.message_ids())
        assert {m: delivered[m] for m in outbox_ids} == dict.fromkeys(outbox_ids, 1)
        caused = Counter(r.inbox_id for r in s.outbox)
        assert caused[ids[first.game_id]] >= 1 and caused[ids[second.game_id]] >= 1
        reader.dispose()


def test_the_cluster_example_config_runs_several_workers() -> None:
    """deploy/pbem.cluster.example.toml loads, names PostgreSQL, and polls no IMAP."""
    from pbem.commands.serve import workers_problem

    config = load_config(REPO / "deploy" / "pbem.cluster.example.toml")
    assert config.database_url.startswith("postgresql+psycopg://")
    assert not config.imap.enabled
    assert workers_problem(config, 4) is None
    assert workers_problem(config, 0) == "--workers must be 1 or more, not 0"


def test_one_worker_at_a_time_runs_a_periodic_job(pg_url: str) -> None:
    """Every worker schedules the clubs' sweep; the job lock lets one run it at a time."""
    from pbem.store.locks import try_job_lock

    migrate(pg_url)
    store = Store(pg_url)
    try:
        with store.transaction() as first:
            assert try_job_lock(first, "clubs-sweep")
            with store.transaction() as second:  # another worker, meanwhile
                assert not try_job_lock(second, "clubs-sweep")
                assert try_job_lock(second, "another-job")
        with store.transaction() as later:  # the first committed: the lock is free again
            assert try_job_lock(later, "clubs-sweep")
    finally:
        store.dispose()
