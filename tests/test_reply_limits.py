"""Replies are rate-limited: forged mail cannot make the referee a mail cannon (issue 11).

Before, 200 forged ``help`` mails got 200 replies, and 200 strangers 200 notes.
Now one address gets at most ``limits.replies_per_sender_per_hour`` (10)
answers an hour, and all strangers together ``limits.stranger_replies_per_hour`` (4).
"""

from __future__ import annotations

from datetime import timedelta

from pipeline_kit import NORTH, Kit, mail, make_kit

from pbem.store import InboxStatus


def _kit(store, config, clock) -> Kit:
    return make_kit(store, config, clock)


def test_200_forged_help_mails_get_at_most_10_replies_an_hour(store, config, clock) -> None:
    kit = _kit(store, config, clock)
    before = kit.last_id()
    ids = [kit.deliver(mail(NORTH, f"command help\n# {n}\n")) for n in range(200)]
    kit.process_all()
    replies = [m for m in kit.new_mail(before) if m.recipient == NORTH]
    assert len(replies) == config.limits.replies_per_sender_per_hour == 10
    # Every mail was still read and answered in the operator's log.
    assert all(kit.inbox(i).status != InboxStatus.PENDING for i in ids)
    # An hour later the player is answered again.
    kit.clock.advance(timedelta(hours=1))
    kit.deliver(mail(NORTH, "command help\n# later\n"))
    kit.process_all()
    assert len([m for m in kit.new_mail(before) if m.recipient == NORTH]) == 11


def test_200_strangers_get_at_most_4_notes_an_hour(store, config, clock) -> None:
    kit = _kit(store, config, clock)
    before = kit.last_id()
    for n in range(200):
        kit.deliver(mail(f"stranger{n}@forged{n}.test", "command help\n"))
    kit.process_all()
    notes = [m for m in kit.new_mail(before) if m.kind == "unknown-sender"]
    assert len(notes) == config.limits.stranger_replies_per_hour == 4
    kit.clock.advance(timedelta(hours=1))
    kit.deliver(mail("late@forged.test", "command help\n"))
    kit.process_all()
    assert len([m for m in kit.new_mail(before) if m.kind == "unknown-sender"]) == 5
