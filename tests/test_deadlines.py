"""Deadlines with a fake clock: reminders, grace, absences, missed turns, questions, restart."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from pipeline_kit import GAME, NORTH, SOUTH, Kit, body_of, mail, make_kit, orders
from sqlmodel import col, select

from pbem.daemon import Daemon
from pbem.deadlines import (
    DeadlineScheduler,
    extend_for_absences,
    next_due,
    set_prompt_deadlines,
    sweep,
)
from pbem.pipeline.settings import GameSettings
from pbem.pipeline.timing import configure, fire_deadline
from pbem.store import Absence, Deadline, Game, GameStatus, Player, Store

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
    assert sweep(kit.store, clock, fire_deadline).reminders == 1
    assert sweep(kit.store, clock, fire_deadline).reminders == 0  # never repeated
    [reminder] = kit.new_mail(before)
    assert reminder.recipient == NORTH  # only the side that must act
    text = " ".join(body_of(reminder).split())
    assert "CET" in text  # Ann's time zone
    clock.advance(11 * H + timedelta(minutes=30))  # past the 1 h reminder, inside the grace
    assert sweep(kit.store, clock, fire_deadline).reminders == 1
    clock.advance(timedelta(minutes=31))  # the deadline passed, the grace has not
    assert sweep(kit.store, clock, fire_deadline).missed == 0
    clock.advance(H)
    before = kit.last_id()
    assert sweep(kit.store, clock, fire_deadline).missed == 1
    told = kit.new_mail(before)
    assert sorted(m.recipient for m in told) == [NORTH, SOUTH]  # everyone is told
    assert kit.game().status == GameStatus.ACTIVE
    turn = [d for d in _unfired(kit) if d.kind == "turn"]
    assert [d.due_at - clock.now() for d in turn] == [49 * H]


def test_forfeit_after_n_missed_deadlines(kit: Kit, clock) -> None:
    clock.advance(49 * H)
    sweep(kit.store, clock, fire_deadline)
    assert kit.game().status == GameStatus.ACTIVE
    before = kit.last_id()
    clock.advance(49 * H)
    report = sweep(kit.store, clock, fire_deadline)
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
    assert sweep(kit.store, clock, fire_deadline).missed == 0
    clock.advance(timedelta(minutes=1))
    assert sweep(kit.store, clock, fire_deadline).missed == 1


def test_question_deadline_applies_the_documented_default(kit: Kit, clock) -> None:
    kit.set_hand("north", ["8", "3", "4"])
    kit.deliver(mail(NORTH, orders(kit, "north", "8"), key=kit.keys["north"]))
    kit.process_all()
    assert kit.state()["pending"]["side"] == "south"
    before = kit.last_id()
    clock.advance(24 * H)
    assert sweep(kit.store, clock, fire_deadline).defaults == 1
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


class _Jobs:
    """A stand-in for APScheduler's add/get/remove of jobs by id."""

    def __init__(self) -> None:
        self.jobs: dict[str, dict[str, object]] = {}

    def add_job(self, func: object, trigger: str | None = None, **kw: object) -> None:
        self.jobs[str(kw["id"])] = {"trigger": trigger, **kw}

    def get_job(self, job_id: str) -> object | None:
        return self.jobs.get(job_id)

    def remove_job(self, job_id: str) -> None:
        del self.jobs[job_id]


def _wait(job: dict[str, object]) -> float:
    """Return the seconds of wall clock a date job waits (the clock under test is fake)."""
    run_date = job["run_date"]
    assert isinstance(run_date, datetime)
    return (run_date - datetime.now(UTC)).total_seconds()


def _add_deadlines(store: Store, game_id: str, dues: list[datetime]) -> None:
    with store.transaction() as s:
        for due in dues:
            s.add(
                Deadline(
                    game_id=game_id,
                    side="north",
                    kind="reminder",
                    due_at=due,
                    state_version=-1,
                    created_at=due,
                )
            )


def test_one_date_job_however_many_deadlines_armed_at_the_earliest(kit: Kit, clock) -> None:
    start = clock.now()
    _add_deadlines(kit.store, kit.game().id, [start + k * H + 200 * H for k in range(300)])
    jobs = _Jobs()
    scheduler = DeadlineScheduler(kit.config, kit.store, clock, jobs, fire=fire_deadline)
    scheduler.install()
    assert set(jobs.jobs) == {"deadline-startup-sweep", "deadline-sweep", "deadline-watch"}
    asyncio.run(scheduler.run_sweep())  # what the start-up job runs
    date_jobs = [j for j in jobs.jobs.values() if j["trigger"] == "date"]
    assert len(date_jobs) == 1
    # The game's own 36 h reminder is the earliest of 303 pending rows.
    assert scheduler.armed_at == start + 36 * H
    assert _wait(date_jobs[0]) == pytest.approx(36 * 3600, abs=60)
    assert next_due(kit.store) == start + 36 * H


def test_the_job_moves_to_the_next_deadline_after_a_sweep(kit: Kit, clock) -> None:
    start = clock.now()
    jobs = _Jobs()
    scheduler = DeadlineScheduler(kit.config, kit.store, clock, jobs, fire=fire_deadline)
    scheduler.install()
    asyncio.run(scheduler.run_sweep())
    assert scheduler.armed_at == start + 36 * H
    clock.advance(36 * H)
    report = asyncio.run(scheduler.run_sweep())
    assert report.reminders == 1
    assert scheduler.armed_at == start + 47 * H
    assert _wait(jobs.jobs["deadline-next"]) == pytest.approx(11 * 3600, abs=60)


def test_a_committed_earlier_deadline_re_arms_the_job(kit: Kit, clock) -> None:
    jobs = _Jobs()
    scheduler = DeadlineScheduler(kit.config, kit.store, clock, jobs, fire=fire_deadline)
    scheduler.install()
    asyncio.run(scheduler.run_sweep())
    start = clock.now()
    with kit.store.transaction() as s:
        game = s.get(Game, kit.game().id)
        assert game is not None
        set_prompt_deadlines(
            s,
            game,
            kind="turn",
            side="north",
            player_id=None,
            period=2 * H,
            grace=H,
            reminders=(),
            now=start,
        )
        assert scheduler.armed_at == start + 36 * H  # not before the commit
    assert scheduler.armed_at == start + 3 * H
    # A rolled-back deadline does not move it.
    with pytest.raises(RuntimeError), kit.store.transaction() as s:
        game = s.get(Game, kit.game().id)
        assert game is not None
        set_prompt_deadlines(
            s,
            game,
            kind="turn",
            side="north",
            player_id=None,
            period=H,
            grace=timedelta(0),
            reminders=(),
            now=start,
        )
        raise RuntimeError("rolled back")
    assert scheduler.armed_at == start + 3 * H


def test_daemon_start_adds_one_deadline_job_not_one_per_deadline(db_url, config, clock) -> None:
    configure(config, None)
    kit = make_kit(
        Store(db_url, busy_timeout_ms=10_000),
        config,
        clock,
        GameSettings(turn_time=48 * H, grace=H, reminders=(12 * H, H)),
    )
    _add_deadlines(kit.store, kit.game().id, [clock.now() + k * H + 100 * H for k in range(50)])
    daemon = Daemon(kit.config, clock=clock, store=kit.store, extensions=("pbem.pipeline",))

    async def main() -> list[str]:
        await daemon.start()
        try:
            for _ in range(500):
                if daemon.scheduler.get_job("deadline-next") is not None:
                    break
                await asyncio.sleep(0.01)
            return sorted(j.id for j in daemon.scheduler.get_jobs())
        finally:
            await daemon.stop()

    ids = asyncio.run(main())
    assert [i for i in ids if i.startswith("deadline")] == [
        "deadline-next",
        "deadline-sweep",
        "deadline-watch",
    ]
    kit.store.dispose()


def test_a_turn_processed_by_the_pipeline_re_arms_the_job(kit: Kit, clock) -> None:
    jobs = _Jobs()
    scheduler = DeadlineScheduler(kit.config, kit.store, clock, jobs, fire=fire_deadline)
    scheduler.install()
    asyncio.run(scheduler.run_sweep())
    scheduler.rearm(clock.now() + 1000 * H)  # as if only far deadlines were pending
    kit.set_hand("north", ["2", "3", "4"])
    kit.deliver(mail(NORTH, orders(kit, "north", "2"), key=kit.keys["north"]))
    kit.process_all()
    # South's first reminder, 36 h away, written by the turn's transaction.
    assert scheduler.armed_at == clock.now() + 36 * H
