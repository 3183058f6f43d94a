"""A player's mail never waits for the bot's search (issue 19).

Before, the inbox worker judged the deadlines due before each mail with the
scheduler's sweep lock held, and that judgement played a bot's due turn
itself, search included (seconds at the higher levels): a mail received
after a bot's deadline waited for the search, and so did a mail arriving
while the regular sweep searched. Now the judgement before a mail leaves a
bot's work to the regular sweep (armed at once), and no lock is held while
the bot thinks. The clock is a ``FakeClock``; nothing sleeps.
"""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from pipeline_kit import NORTH, Kit, body_of, mail, orders, second_game
from test_bot_mail import (  # noqa: F401 (autopilot_kit: a fixture)
    CID,
    OTHER,
    H,
    _ann_acts,
    _bot_game,
    _game,
    _while_thinking,
    autopilot_kit,
    cid_orders,
)
from test_deadlines import _Jobs

from pbem.deadlines import DeadlineScheduler
from pbem.mailin import InboxWorker
from pbem.pipeline.timing import fire_deadline


def _scheduler_and_worker(kit: Kit) -> tuple[DeadlineScheduler, InboxWorker]:
    scheduler = DeadlineScheduler(kit.config, kit.store, kit.clock, _Jobs(), fire=fire_deadline)
    worker = InboxWorker(
        kit.store,
        kit.processor,
        kit.clock,
        before_row=scheduler.judge_before_mail,
        on_processed=scheduler.after_mail,
    )
    return scheduler, worker


def test_a_mail_received_after_a_bots_deadline_is_processed_before_the_bot_searches(
    store: Any, config: Any, clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit, _ = _bot_game(store, config, clock)
    cid = second_game(kit, OTHER, CID)
    _ann_acts(kit)  # the bot (south) must act now: its deadline is due
    clock.advance(timedelta(minutes=1))  # no sweep ran yet
    searches = _while_thinking(monkeypatch, lambda _: None)
    i = cid_orders(kit, cid)
    scheduler, worker = _scheduler_and_worker(kit)
    worker.process_pending()
    # Cid's mail was judged after the bot's deadline, without the bot's search.
    assert kit.inbox(i).status == "processed" and _game(kit, OTHER).epoch == 1
    assert searches == [] and kit.game().epoch == 1
    # ... which the regular sweep does, armed to run at once.
    assert scheduler.armed_at is not None and scheduler.armed_at <= clock.now()
    report = scheduler.sweep_now()
    assert report.bots == 1 and len(searches) == 1 and kit.game().epoch == 2


def test_a_mail_arriving_while_the_sweep_searches_for_the_bot_does_not_wait_for_it(
    store: Any, config: Any, clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit, _ = _bot_game(store, config, clock)
    cid = second_game(kit, OTHER, CID)
    _ann_acts(kit)
    clock.advance(timedelta(minutes=1))
    scheduler, worker = _scheduler_and_worker(kit)
    seen: list[str] = []

    def cid_mails(_: Any) -> None:
        # The inbox worker runs in its own thread, as in the daemon; it must finish while
        # the sweep is still searching (joined with a bound only so a regression fails
        # instead of hanging: nothing here waits on the wall clock when it works).
        i = cid_orders(kit, cid)
        thread = threading.Thread(target=worker.process_pending)
        thread.start()
        thread.join(timeout=120)
        assert not thread.is_alive(), "the mail waited for the bot's search"
        seen.append(kit.inbox(i).status)

    searches = _while_thinking(monkeypatch, cid_mails)
    report = scheduler.sweep_now()
    assert seen == ["processed"] and _game(kit, OTHER).epoch == 1
    assert report.bots == 1 and len(searches) == 1 and kit.game().epoch == 2


def test_orders_received_after_an_autopilot_deadline_stay_late_without_waiting_for_its_search(
    autopilot_kit: Kit,  # noqa: F811 (the fixture imported above)
    clock: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kit = autopilot_kit
    clock.advance(50 * H)  # past north's deadline; the autopilot has not played yet
    searches = _while_thinking(monkeypatch, lambda _: None)
    i = kit.deliver(mail(NORTH, orders(kit, "north"), key=kit.keys["north"]))
    scheduler, worker = _scheduler_and_worker(kit)
    worker.process_pending()
    # The mail did not wait for the autopilot's search, and its orders are still late.
    assert searches == [] and kit.game().epoch == 0
    assert kit.inbox(i).status == "refused"
    told = [" ".join(body_of(m).split()) for m in kit.outbox() if m.recipient == NORTH]
    assert any("received after your deadline for turn 1" in b for b in told), told
    report = scheduler.sweep_now()  # the regular sweep, armed at once: the autopilot plays
    assert report.defaults == 1 and len(searches) == 1 and kit.game().epoch == 1
