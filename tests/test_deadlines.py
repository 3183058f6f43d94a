"""Deadlines with a fake clock: reminders, grace, absences, missed turns, questions, restart."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from pipeline_kit import GAME, NORTH, SOUTH, Kit, body_of, mail, make_kit, orders
from sqlmodel import col, select

from pbem.daemon import Daemon
from pbem.deadlines import extend_for_absences, sweep
from pbem.pipeline.settings import GameSettings
from pbem.pipeline.timing import configure
from pbem.store import Absence, Deadline, GameStatus, Player, Store

H = timedelta(hours=1)


@pytest.fixture
def kit(store, config, clock) -> Kit:
    configure(config, None)
    settings = GameSettings(
        turn_time=48 * H,
        question_time=24 * H,
        grace=H,
        reminders=(12 * H, H),
        missed_turn="forfeit",
        forfeit_after=2,
    )
    return make_kit(store, config, clock, settings)


def _unfired(kit: Kit) -> list[Deadline]:
    with kit.store.transaction() as s:
        return list(
            s.exec(
                select(Deadline)
                .where(col(Deadline.fired).is_(False))
                .order_by(col(Deadline.due_at))
            ).all()
        )


def test_reminders_fire_once_each_then_grace_then_wait(kit: Kit, clock) -> None:
    start = clock.now()
    kinds = [(d.kind, d.due_at - start) for d in _unfired(kit)]
    assert kinds == [("reminder", 36 * H), ("reminder", 47 * H), ("turn", 49 * H)]
    before = kit.last_id()
    clock.advance(36 * H)
    assert sweep(kit.store, clock).reminders == 1
    assert sweep(kit.store, clock).reminders == 0  # never repeated
    [reminder] = kit.new_mail(before)
    assert reminder.recipient == NORTH  # only the side that must act
    text = " ".join(body_of(reminder).split())
    assert "CET" in text  # Ann's time zone
    clock.advance(11 * H + timedelta(minutes=30))  # past the 1 h reminder, inside the grace
    assert sweep(kit.store, clock).reminders == 1
    clock.advance(timedelta(minutes=31))  # the deadline passed, the grace has not
    assert sweep(kit.store, clock).missed == 0
    clock.advance(H)
    before = kit.last_id()
    assert sweep(kit.store, clock).missed == 1
    told = kit.new_mail(before)
    assert sorted(m.recipient for m in told) == [NORTH, SOUTH]  # everyone is told
    assert kit.game().status == GameStatus.ACTIVE
    turn = [d for d in _unfired(kit) if d.kind == "turn"]
    assert [d.due_at - clock.now() for d in turn] == [49 * H]


def test_forfeit_after_n_missed_deadlines(kit: Kit, clock) -> None:
    clock.advance(49 * H)
    sweep(kit.store, clock)
    assert kit.game().status == GameStatus.ACTIVE
    before = kit.last_id()
    clock.advance(49 * H)
    report = sweep(kit.store, clock)
    assert report.missed == 1
    assert kit.game().status == GameStatus.FINISHED
    subjects = [m.raw.split(b"\r\n\r\n")[0] for m in kit.new_mail(before)]
    assert (
        sum(
            b"forfeit" in s.lower() or b"over" in s.lower() or b"missed" in s.lower()
            for s in subjects
        )
        >= 2
    )
    assert _unfired(kit) == []


def test_acting_in_time_makes_old_deadlines_do_nothing(kit: Kit, clock) -> None:
    kit.set_hand("north", ["2", "3", "4"])
    kit.deliver(mail(NORTH, orders(kit, "north", "2"), key=kit.keys["north"]))
    kit.process_all()
    assert {d.side for d in _unfired(kit)} == {"south"}  # north's deadlines are gone
    clock.advance(48 * H + timedelta(minutes=59))  # south's is 48 h + 1 h grace away
    assert sweep(kit.store, clock).missed == 0
    clock.advance(timedelta(minutes=1))
    assert sweep(kit.store, clock).missed == 1


def test_question_deadline_applies_the_documented_default(kit: Kit, clock) -> None:
    kit.set_hand("north", ["8", "3", "4"])
    kit.deliver(mail(NORTH, orders(kit, "north", "8"), key=kit.keys["north"]))
    kit.process_all()
    assert kit.state()["pending"]["side"] == "south"
    before = kit.last_id()
    clock.advance(24 * H)
    assert sweep(kit.store, clock).defaults == 1
    assert kit.state()["pending"] is None and kit.game().epoch == 2
    new = kit.new_mail(before)
    assert sorted(m.recipient for m in new if m.kind == "missed") == [NORTH, SOUTH]
    assert sorted(m.recipient for m in new if m.kind == "turn") == [NORTH, SOUTH]


def test_absence_extends_the_next_deadline(store, config, clock) -> None:
    configure(config, None)
    register_clock = clock.now()
    # Bob announces an absence before his turn comes.
    kit = make_kit(store, config, clock, GameSettings(turn_time=48 * H, reminders=()))
    with kit.store.transaction() as s:
        bob = s.exec(select(Player).where(col(Player.email) == SOUTH)).one()
        s.add(
            Absence(
                player_id=bob.id,
                starts_at=register_clock + 10 * H,
                ends_at=register_clock + 34 * H,
                created_at=register_clock,
            )
        )
    kit.set_hand("north", ["2", "3", "4"])
    kit.deliver(mail(NORTH, orders(kit, "north", "2"), key=kit.keys["north"]))
    kit.process_all()
    [turn] = [d for d in _unfired(kit) if d.kind == "turn"]
    assert turn.side == "south"
    assert turn.due_at - clock.now() == 48 * H + 24 * H


def test_absence_arithmetic() -> None:
    t = datetime(2026, 1, 1, tzinfo=UTC)
    assert extend_for_absences([], t, 10 * H) == t + 10 * H
    assert extend_for_absences([(t + 2 * H, t + 4 * H)], t, 10 * H) == t + 12 * H
    # An absence beginning inside the extension counts too; a later one does not.
    absences = [(t + 2 * H, t + 12 * H), (t + 19 * H, t + 21 * H), (t + 40 * H, t + 41 * H)]
    assert extend_for_absences(absences, t, 10 * H) == t + 22 * H


def test_deadline_missed_while_down_fires_at_start(db_url, config, clock) -> None:
    configure(config, None)
    # A patient store: the test polls while the daemon writes.
    kit = make_kit(
        Store(db_url, busy_timeout_ms=10_000),
        config,
        clock,
        GameSettings(turn_time=48 * H, grace=H),
    )
    clock.advance(50 * H)  # the daemon was down across the deadline
    daemon = Daemon(kit.config, clock=clock, store=kit.store, extensions=("pbem.pipeline",))

    async def main() -> None:
        await daemon.start()
        try:
            for _ in range(500):
                if not any(d.kind == "turn" and d.due_at <= clock.now() for d in _unfired(kit)):
                    break
                await asyncio.sleep(0.01)
        finally:
            await daemon.stop()

    before = kit.last_id()
    asyncio.run(main())
    with kit.store.transaction() as s:
        fired = s.exec(
            select(Deadline)
            .where(col(Deadline.kind) == "turn")
            .where(col(Deadline.fired).is_(True))
        ).all()
    assert len(fired) == 1
    assert any(m.kind == "missed" for m in kit.new_mail(before))
    assert GAME in kit.game().id
    kit.store.dispose()
