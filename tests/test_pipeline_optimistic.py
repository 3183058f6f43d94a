"""Processing on SQLite: the expensive work runs without the write lock, re-checked at write.

Design invariant 1 still holds: a crash leaves the old state with the message
pending, or the new state with its mails queued; a commit that changes the game
while a turn is being worked out makes the referee redo the turn on the new
state, and a commit that leaves the game alone (another mail stored, the outbox
recording a send) costs nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, timedelta
from typing import Any

import pytest
from pipeline_kit import GAME, NORTH, SOUTH, Kit, body_of, mail, make_kit, orders
from sqlalchemy import event, text
from sqlalchemy.engine import Engine
from sqlalchemy.orm.exc import StaleDataError
from sqlmodel import col, select

from pbem.deadlines import current_deadline
from pbem.mailin.accept import store_message
from pbem.pipeline.processor import Processor
from pbem.pipeline.settings import GameSettings
from pbem.store import (
    Event,
    Game,
    GameStatus,
    InboxStatus,
    RateLimit,
    Snapshot,
    Store,
    optimistic_transaction,
)
from pbem.store.sessions import GameMoved


@pytest.fixture
def kit(db_url, config, clock) -> Iterator[Kit]:
    k = make_kit(Store(db_url, busy_timeout_ms=10_000), config, clock)
    k.set_hand("north", ["2", "3", "4"])
    yield k
    k.store.dispose()


MOVE_THE_GAME = "UPDATE games SET state_version = state_version + 1, row_version = row_version + 1"
"""What a deadline sweep or an operator's command does to the game's row (through the ORM,
which bumps ``row_version`` on every update of a game)."""


class Crash(Exception):
    """The process died (simulated) at a fault point."""


def _event_count(kit: Kit) -> int:
    with kit.store.transaction() as s:
        return len(s.exec(select(Event.id).where(col(Event.game_id) == kit.game().id)).all())


def test_the_engine_and_board_run_without_the_write_lock(kit: Kit, db_url: str) -> None:
    inbox_id = kit.deliver(mail(NORTH, orders(kit, "north", "2"), key=kit.keys["north"]))
    other = Store(db_url, busy_timeout_ms=50)  # gives up at once if the lock is held
    wrote: list[str] = []

    def write_elsewhere(point: str) -> None:
        # The SMTP listener storing another mail while the turn is worked out.
        if point == "after-engine" and not wrote:
            store_message(other, b"Subject: hi\r\n\r\nhello\r\n", source="smtp", clock=kit.clock)
            wrote.append(point)

    processor = Processor(kit.config, kit.store, kit.clock, fault=write_elsewhere)
    processor.process(inbox_id)
    other.dispose()
    assert wrote == ["after-engine"]  # the other writer did not wait for the turn
    assert processor.conflicts == 0  # ... and the turn, whose game it left alone, was not redone
    assert kit.inbox(inbox_id).status == InboxStatus.PROCESSED
    assert kit.game().epoch == 1 and kit.game().state_version == 1


def test_a_version_that_moved_meanwhile_makes_the_turn_redo_on_the_new_state(
    kit: Kit, db_url: str
) -> None:
    before = kit.last_id()
    events = _event_count(kit)
    unplayed = kit.game().state_json
    inbox_id = kit.deliver(mail(NORTH, orders(kit, "north", "2"), key=kit.keys["north"]))
    other = Store(db_url, busy_timeout_ms=50)
    moved: list[int] = []

    def land_a_change(point: str) -> None:
        # What a deadline sweep or an operator command does: move the game's version.
        if point == "after-engine" and not moved:
            with other.transaction() as s:
                s.execute(text(MOVE_THE_GAME))
            moved.append(1)

    processor = Processor(kit.config, kit.store, kit.clock, fault=land_a_change)
    processor.process(inbox_id)
    other.dispose()
    assert processor.conflicts == 1
    game = kit.game()
    # Built on the moved version (1), not on the one first read (0): one epoch, once.
    assert game.epoch == 1 and game.state_version == 2
    with kit.store.transaction() as s:
        states = dict(
            s.exec(
                select(Snapshot.version, Snapshot.state_json).where(
                    col(Snapshot.game_id) == game.id
                )
            ).all()
        )
    # Version 1 is the other writer's (the database keeps every version): the state
    # first worked out was not written.
    assert sorted(states) == [0, 1, 2] and states[1] == unplayed != states[2]
    assert sorted(m.recipient for m in kit.new_mail(before)) == [NORTH, SOUTH]
    assert all(".turn.2." in m.message_id for m in kit.new_mail(before))
    accepted = _event_count(kit) - events
    assert accepted > 0
    # Processing again changes nothing.
    Processor(kit.config, kit.store, kit.clock).process(inbox_id)
    assert _event_count(kit) - events == accepted and kit.game().state_version == 2


def test_no_conflict_no_redo(kit: Kit) -> None:
    before = kit.last_id()
    inbox_id = kit.deliver(mail(NORTH, orders(kit, "north", "2"), key=kit.keys["north"]))
    processor = Processor(kit.config, kit.store, kit.clock)
    processor.process(inbox_id)
    assert processor.conflicts == 0
    assert kit.game().epoch == 1 and kit.game().state_version == 1
    assert sorted(m.recipient for m in kit.new_mail(before)) == [NORTH, SOUTH]


@pytest.mark.parametrize("point", ["after-engine", "before-commit"])
def test_a_crash_before_or_after_the_writes_leaves_the_old_state(kit: Kit, point: str) -> None:
    before = kit.last_id()
    events = _event_count(kit)
    inbox_id = kit.deliver(mail(NORTH, orders(kit, "north", "2"), key=kit.keys["north"]))

    def die(at: str) -> None:
        if at == point:
            raise Crash(at)

    with pytest.raises(Crash):
        Processor(kit.config, kit.store, kit.clock, fault=die).process(inbox_id)
    assert kit.game().epoch == 0 and kit.game().state_version == 0
    assert kit.new_mail(before) == [] and _event_count(kit) == events
    assert kit.inbox(inbox_id).status == InboxStatus.PENDING
    Processor(kit.config, kit.store, kit.clock).process(inbox_id)
    assert kit.game().epoch == 1
    assert sorted(m.recipient for m in kit.new_mail(before)) == [NORTH, SOUTH]


def test_the_turn_mails_are_composed_before_the_first_write(
    kit: Kit, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pbem.pipeline import mails

    writes: list[str] = []
    composed_after_a_write: list[bool] = []
    real_compose = mails.build

    def spy_compose(m: object) -> object:
        composed_after_a_write.append(bool(writes))
        return real_compose(m)  # type: ignore[arg-type]

    def spy_sql(conn: object, cursor: object, statement: str, *args: object) -> None:
        if statement.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE")):
            writes.append(statement)

    monkeypatch.setattr(mails, "build", spy_compose)
    before = kit.last_id()
    inbox_id = kit.deliver(mail(NORTH, orders(kit, "north", "2"), key=kit.keys["north"]))
    event.listen(Engine, "before_cursor_execute", spy_sql)
    try:
        Processor(kit.config, kit.store, kit.clock).process(inbox_id)
    finally:
        event.remove(Engine, "before_cursor_execute", spy_sql)
    assert composed_after_a_write == [False, False]  # both players' turn mails
    assert writes  # ... and then the turn was written
    assert sorted(m.recipient for m in kit.new_mail(before)) == [NORTH, SOUTH]


def test_mails_composed_ahead_are_redone_if_the_written_deadline_differs(
    kit: Kit, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from pbem.pipeline import turns

    real = turns.prompt_deadline

    def an_hour_off(*args: Any) -> Any:
        return real(*args) - timedelta(hours=1)

    monkeypatch.setattr(turns, "prompt_deadline", an_hour_off)
    before = kit.last_id()
    inbox_id = kit.deliver(mail(NORTH, orders(kit, "north", "2"), key=kit.keys["north"]))
    Processor(kit.config, kit.store, kit.clock).process(inbox_id)
    assert "composing again" in caplog.text
    new = kit.new_mail(before)
    assert sorted(m.recipient for m in new) == [NORTH, SOUTH]
    with kit.store.transaction() as s:
        shown = current_deadline(s, kit.game().id, GameSettings().grace)
    assert shown is not None
    for m in new:
        # "due by Saturday 3 January 2026, 13:00 CET (UTC+01:00)": back to UTC.
        found = re.findall(r"(\d\d):(\d\d) \S+ \(UTC([+-])(\d\d):(\d\d)\)", body_of(m))
        assert found, body_of(m)
        for hh, mm, sign, oh, om in found:
            offset = timedelta(hours=int(oh), minutes=int(om)) * (1 if sign == "+" else -1)
            local = shown.astimezone(UTC) + offset
            assert (int(hh), int(mm)) == (local.hour, local.minute)


@pytest.mark.parametrize(("moves_the_game", "redone_composed"), [(False, (0, 2)), (True, (1, 4))])
def test_a_turn_is_redone_only_when_its_game_changed(
    kit: Kit,
    db_url: str,
    monkeypatch: pytest.MonkeyPatch,
    moves_the_game: bool,
    redone_composed: tuple[int, int],
) -> None:
    redone, composed = redone_composed
    from pbem.pipeline import mails

    calls: list[object] = []
    real_compose = mails.build

    def counting(m: Any) -> Any:
        calls.append(m)
        return real_compose(m)

    monkeypatch.setattr(mails, "build", counting)
    before = kit.last_id()
    inbox_id = kit.deliver(mail(NORTH, orders(kit, "north", "2"), key=kit.keys["north"]))
    other = Store(db_url, busy_timeout_ms=50)
    done: list[int] = []

    def meanwhile(point: str) -> None:
        if point == "after-engine" and not done:
            if moves_the_game:
                with other.transaction() as s:
                    s.execute(text(MOVE_THE_GAME))
            else:  # an unrelated commit: another mail arrives
                store_message(other, b"Subject: x\r\n\r\nx\r\n", source="smtp", clock=kit.clock)
            done.append(1)

    processor = Processor(kit.config, kit.store, kit.clock, fault=meanwhile)
    processor.process(inbox_id)
    other.dispose()
    assert processor.conflicts == redone
    assert len(calls) == composed  # two players' turn mails, once or twice
    new = kit.new_mail(before)
    assert sorted(m.recipient for m in new) == [NORTH, SOUTH]
    version = kit.game().state_version
    assert all(f".turn.{version}." in m.message_id for m in new)
    assert all(b"X-Pbem-Turn" in m.raw for m in new)


def _store_a_mail(store: Store, kit: Kit) -> None:
    store_message(store, b"Subject: x\r\n\r\nx\r\n", source="smtp", clock=kit.clock)


def _pause_through_the_orm(store: Store) -> None:
    with store.transaction() as s:
        game = s.get(Game, GAME)
        assert game is not None
        # What an operator's pause or resume does: no state_version bump.
        paused = game.status == GameStatus.PAUSED
        game.status = GameStatus.ACTIVE if paused else GameStatus.PAUSED
        s.add(game)


def test_a_game_changed_meanwhile_refuses_the_write_of_what_was_computed_from_it(
    kit: Kit, db_url: str
) -> None:
    other = Store(db_url, busy_timeout_ms=50)
    with pytest.raises(StaleDataError), optimistic_transaction(kit.store) as s:
        game = s.get(Game, GAME)
        assert game is not None
        _pause_through_the_orm(other)  # committed while this transaction computes
        game.updated_at = kit.clock.now() + timedelta(minutes=1)
        s.add(game)
    with pytest.raises(GameMoved), optimistic_transaction(kit.store) as s:
        assert s.get(Game, GAME) is not None  # read, not changed: a reply computed from it
        _pause_through_the_orm(other)
        _store_a_mail(other, kit)
        now = kit.clock.now()
        s.add(RateLimit(sender="x@example.org", first_seen_at=now, last_seen_at=now))
    other.dispose()
    assert kit.game().status == GameStatus.ACTIVE  # the other writer's changes stand (twice)


def test_a_commit_that_leaves_the_game_alone_does_not_refuse_the_write(
    kit: Kit, db_url: str
) -> None:
    other = Store(db_url, busy_timeout_ms=50)
    with optimistic_transaction(kit.store) as s:
        game = s.get(Game, GAME)
        assert game is not None
        _store_a_mail(other, kit)  # the listener does not wait for this transaction's reads
        game.updated_at = kit.clock.now() + timedelta(minutes=1)
        s.add(game)
    other.dispose()
    assert kit.game().updated_at == kit.clock.now() + timedelta(minutes=1)
