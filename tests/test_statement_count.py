"""How many SQL statements one orders mail costs the inbox worker, like a query-count assertion.

Every statement the store's engine sends while the worker handles a signed
orders mail that resolves a turn (the common case: the claim, which finds the
oldest pending row, counts the attempt, returns the row and says whether a
deadline was due before it and whether more mail waits; the one processing
transaction with its events, deadlines and result mails) is counted with a
SQLAlchemy ``before_cursor_execute`` listener. On SQLite the transaction's
``BEGIN IMMEDIATE`` counts too (pbem sends it itself, at the turn's first
write; PostgreSQL's driver begins implicitly).

On PostgreSQL a turn's writes but the game's row go as one statement
(data-modifying ``WITH``, :func:`pbem.store.bulk.defer_write`): 5 (the
claim, the game's row locked, the game read, its new state, the rest).
SQLite has no such statement, so it sends one per table a turn writes (game,
dice epoch, events, deadlines, outbox, signed statement, inbox row): 10, all
in-process calls. On both the database itself keeps the snapshot of each
version and retires a game's old deadlines when a new one is set (triggers,
migration r0007). The budget catches a change that adds a query per mail, or
a loop of queries (per seat, per event, per recipient), without anyone
noticing; bench/README.md gives the history of the figure.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import test_store_migrations
from fault_kit import create_games, orders_mail, write_config
from sqlalchemy import event

from pbem.clock import SystemClock
from pbem.config import load_config
from pbem.deadlines import DeadlineScheduler
from pbem.mailin.accept import store_message
from pbem.mailin.worker import InboxWorker
from pbem.pipeline import Processor, load_server_key
from pbem.pipeline.timing import fire_deadline
from pbem.store import InboxMessage, InboxStatus, Store, migrate

pg_url = test_store_migrations.pg_url  # the PostgreSQL fixture (skips without PBEM_TEST_PG_URL)

BUDGET = {"sqlite": 10, "postgresql": 5}
"""Statements per orders mail, common case (57 and 40 before issue 20, 32 and 28 after its
first batching, 13 and 8 after its first session)."""
REPLY = 6
"""A turn that also sends the player a note: the rate limit's read and write, the note (and on
PostgreSQL the reads between them send the last queued writes on their own)."""
HISTORY = 2
"""A turn that reads the game's history: the dice logs (the first turn a process sees of a
game, or a turn continuing after a question) and that turn's earlier epochs."""


class Counter:
    """Count the statements an engine sends, with their first words (for the failure message)."""

    def __init__(self, store: Store) -> None:
        self.statements: list[str] = []
        self.engine = store.engine
        event.listen(self.engine, "before_cursor_execute", self._count)

    def _count(self, _conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        self.statements.append(" ".join(statement.split()[:4]))

    def close(self) -> None:
        event.remove(self.engine, "before_cursor_execute", self._count)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield ""
    else:
        yield request.getfixturevalue("pg_url")


def test_an_orders_mail_costs_the_worker_a_bounded_number_of_statements(
    tmp_path: Path, db_url: str
) -> None:
    cfg = write_config(tmp_path, sink_port=0, db_url=db_url)
    config = load_config(str(cfg))
    migrate(config.database_url)
    store = Store(config.database_url)
    clock = SystemClock()
    games = create_games(store, cfg, 2)
    processor = Processor(config, store, clock, server_key=load_server_key(config.server_key_path))
    judge = DeadlineScheduler(config, store, clock, None, fire=fire_deadline)
    worker = InboxWorker(store, processor, clock, judge=judge.judge_received)
    counts = []
    # Five rounds of both games, and more (at most ten) while no mail has taken the common
    # path yet: the games' secret seeds are fresh, so now and then every turn of the first
    # rounds stops on a question or reads the history, and the test would prove nothing.
    for round_no in range(10):
        if round_no >= 5 and any(_common(statements) for _, statements in counts):
            break
        for game in games:
            mail = orders_mail(store, game)
            assert mail is not None
            accepted = store_message(
                store, mail.raw, source="smtp", clock=clock, envelope_to=[config.mail.address]
            )
            counter = Counter(store)
            try:
                assert worker.process_pending() == 1
            finally:
                counter.close()
            with store.transaction() as session:
                row = session.get(InboxMessage, accepted.inbox_id)
                assert row is not None and row.status == InboxStatus.PROCESSED, row.outcome
            counts.append((len(counter.statements), counter.statements))
    dialect = store.engine.dialect.name
    store.dispose()
    # The common case: a turn resolved and mailed. A turn that also answers the
    # player with a note (a rate-limited reply) is allowed REPLY statements more,
    # one that reads the game's history HISTORY more.
    for count, statements in counts:
        assert count <= BUDGET[dialect] + _extra(statements), "\n".join(statements)
    assert any(_common(statements) for _, statements in counts), "no mail took the common path"


def _extra(statements: list[str]) -> int:
    noted = any(s.startswith("SELECT rate_limits") for s in statements)
    history = any(s.startswith("SELECT events.epoch") for s in statements)
    return (REPLY if noted else 0) + (HISTORY if history else 0)


def _common(statements: list[str]) -> bool:
    return _extra(statements) == 0
