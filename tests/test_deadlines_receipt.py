"""Deadlines are judged by the time a mail was received, not processed (issue 11).

Before, the start-up sweep (and any sweep while the worker was busy) fired a
deadline first and forfeited a player whose orders were received in time but
waited in the inbox; and a game created by ``pbem game create`` while the
daemon ran waited up to 30 s (the interval sweep) for its deadlines.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from pipeline_kit import GAME, NORTH, Kit, mail, make_kit, orders
from test_deadlines import _Jobs

from pbem.daemon import Daemon
from pbem.deadlines import DeadlineScheduler, sweep
from pbem.mailin import InboxWorker
from pbem.pipeline.settings import GameSettings
from pbem.pipeline.timing import configure, fire_deadline
from pbem.store import Deadline, InboxMessage, InboxStatus, Store, read_session

H = timedelta(hours=1)


@pytest.fixture
def kit(store, config, clock) -> Kit:
    configure(config, None)
    return make_kit(
        store,
        config,
        clock,
        GameSettings(turn_time=48 * H, grace=H, missed_turn="forfeit", forfeit_after=1),
    )


def _worker(kit: Kit, scheduler: DeadlineScheduler) -> InboxWorker:
    return InboxWorker(
        kit.store,
        kit.processor,
        kit.clock,
        before_row=scheduler.judge_before_mail,
        on_processed=scheduler.after_mail,
    )


def _kinds(kit: Kit, since: int) -> list[str]:
    return sorted({m.kind for m in kit.new_mail(since)})


def test_orders_received_in_time_but_waiting_are_processed_before_the_deadline_is_judged(
    kit: Kit,
) -> None:
    before = kit.last_id()
    kit.clock.advance(47 * H)  # an hour before the deadline (two with the grace)
    i = kit.deliver(mail(NORTH, orders(kit, "north"), key=kit.keys["north"]))
    kit.clock.advance(3 * H)  # the daemon was down (or busy) across the deadline
    # The start-up sweep runs first, as it may: the deadline waits for the mail.
    report = sweep(kit.store, kit.clock, fire_deadline)
    assert report.deferred == 1 and report.missed == 0
    scheduler = DeadlineScheduler(kit.config, kit.store, kit.clock, _Jobs(), fire=fire_deadline)
    _worker(kit, scheduler).process_pending()
    assert kit.inbox(i).status == InboxStatus.PROCESSED
    assert kit.game().epoch == 1 and kit.game().status == "active"
    # The old deadline is now stale; nobody was forfeited.
    assert sweep(kit.store, kit.clock, fire_deadline).missed == 0
    assert "missed" not in _kinds(kit, before) and "end" not in _kinds(kit, before)


def test_orders_received_after_the_deadline_stay_late_however_early_they_are_processed(
    kit: Kit,
) -> None:
    kit.clock.advance(50 * H)  # past the deadline (49 h with the grace); no sweep ran yet
    i = kit.deliver(mail(NORTH, orders(kit, "north"), key=kit.keys["north"]))
    before = kit.last_id()
    scheduler = DeadlineScheduler(kit.config, kit.store, kit.clock, _Jobs(), fire=fire_deadline)
    _worker(kit, scheduler).process_pending()
    # The deadline was judged before the late mail: north forfeited, the orders are refused.
    assert kit.game().status == "finished"
    assert kit.inbox(i).status == InboxStatus.REFUSED
    assert "missed" in _kinds(kit, before)


def test_the_start_up_sweep_waits_for_orders_stored_while_the_daemon_was_down(
    db_url, config, clock
) -> None:
    configure(config, None)
    kit = make_kit(
        Store(db_url, busy_timeout_ms=10_000),
        config,
        clock,
        GameSettings(turn_time=48 * H, grace=H, missed_turn="forfeit", forfeit_after=1),
    )
    before = kit.last_id()
    clock.advance(47 * H)
    i = kit.deliver(mail(NORTH, orders(kit, "north"), key=kit.keys["north"]))
    clock.advance(3 * H)
    daemon = Daemon(kit.config, clock=clock, store=kit.store, extensions=("pbem.pipeline",))

    def settled() -> bool:
        with read_session(kit.store) as s:
            turn = s.get(Deadline, 1)
            row = s.get(InboxMessage, i)
            return (
                row is not None and row.status != InboxStatus.PENDING and bool(turn and turn.fired)
            )

    async def main() -> None:
        await daemon.start()
        try:
            for _ in range(1000):
                if settled():
                    break
                await asyncio.sleep(0.01)
        finally:
            await daemon.stop()

    asyncio.run(main())
    assert kit.inbox(i).status == InboxStatus.PROCESSED
    assert kit.game().epoch == 1 and kit.game().status == "active"
    assert "missed" not in _kinds(kit, before)
    kit.store.dispose()


def test_a_game_created_by_another_process_is_armed_within_a_second(kit: Kit, db_url: str) -> None:
    jobs = _Jobs()
    scheduler = DeadlineScheduler(kit.config, kit.store, kit.clock, jobs, fire=fire_deadline)
    scheduler.install()
    asyncio.run(scheduler.run_sweep())
    first = scheduler.armed_at
    assert first is not None
    watch = jobs.jobs["deadline-watch"]
    assert watch["trigger"] == "interval" and float(str(watch["seconds"])) <= 1.0
    # `pbem game create` in another process: its own store, a shorter turn.
    other = Store(db_url)
    try:
        from pbem.pipeline.admin import create_and_start
        from pbem.pipeline.games import NewSeat

        create_and_start(
            other,
            kit.config,
            kit.clock,
            game_id="quick-1",
            system_name="toy",
            scenario_id="toy-race",
            scenario_text='first = "north"\n',
            seats=[
                NewSeat("north", "Ann", NORTH, kit.pub("north")),
                NewSeat("south", "Bob", "bob@south.test", kit.pub("south")),
            ],
            settings=GameSettings(turn_time=2 * H, grace=timedelta(0)),
        )
    finally:
        other.dispose()
    assert scheduler.armed_at == first  # this process was not told
    scheduler.watch()  # what the one-second watch job runs
    assert scheduler.armed_at == kit.clock.now() + 2 * H
    assert GAME != "quick-1"
