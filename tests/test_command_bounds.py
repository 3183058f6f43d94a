"""Every command argument is bounded and refused with a reason; absences do not stack.

Issue 11 ("inputs that crash the handler", "absences stack"),
docs/mail-commands.md. Through the real pipeline on a started toy game.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pipeline_kit import GAME, NORTH, SOUTH, Kit, body_of, command, make_kit
from pipeline_kit import mail as make_mail

from pbem.pipeline.absences import MAX_PER_GAME, MAX_PER_PERIOD
from pbem.pipeline.commands import COMMANDS
from pbem.pipeline.timing import configure
from pbem.store import InboxStatus, OutboxMessage


@pytest.fixture
def kit(store, config, clock) -> Kit:  # type: ignore[no-untyped-def]
    configure(config, None)
    return make_kit(store, config, clock)


def _send(kit: Kit, raw: bytes) -> tuple[str, str, list[OutboxMessage]]:
    return kit.send(raw)


def _cmd(kit: Kit, args: str, side: str = "north") -> tuple[str, str, list[OutboxMessage]]:
    who = NORTH if side == "north" else SOUTH
    return _send(kit, make_mail(who, command(args), key=kit.keys[side]))


@pytest.mark.parametrize(
    "args",
    [
        "timezone Europe",  # a directory of the zone database
        "timezone ../../etc/passwd",
        "timezone " + "A" * 300,
        "timezone Europe/Paris/",
        "timezone posixrules/x",
    ],
)
def test_bad_time_zones_are_refused_with_a_reason(kit: Kit, args: str) -> None:
    status, outcome, out = _cmd(kit, args)
    assert status == InboxStatus.REFUSED and "bad-timezone" in outcome
    assert "Europe/Paris" in body_of(out[0])


@pytest.mark.parametrize(
    "args",
    [
        "absence 9999-12-30 9999-12-31",  # the end plus a day overflows
        "absence 0001-01-01 0001-01-02",
        "absence 2026-13-01 2026-13-02",
        "absence ２０２６-０１-０２ ２０２６-０１-０３",
        "absence 2026-01-02",
        "absence 2026-01-05 2026-01-02",
        "absence 2025-01-01 2025-01-02",  # over already
        "absence 2028-01-01 2028-01-02",  # more than a year ahead
        "absence 2026-01-02 2026-04-30",  # longer than 60 days
        "absence 2026-01-02T10:00:00+99:00 2026-01-03",
    ],
)
def test_bad_absences_are_refused_with_a_reason(kit: Kit, args: str) -> None:
    status, outcome, out = _cmd(kit, args)
    assert status == InboxStatus.REFUSED and "bad-absence" in outcome
    assert "absence" in body_of(out[0])


def _due(kit: Kit) -> object:
    return kit.turn_due()


def test_the_same_absence_sent_three_times_moves_the_deadline_once(kit: Kit) -> None:
    first = _due(kit)
    status, outcome, _ = _cmd(kit, "absence 2026-01-02 2026-01-11")
    assert status == InboxStatus.PROCESSED, outcome
    moved = _due(kit)
    assert moved - first == timedelta(days=10)
    for _ in range(2):
        status, outcome, out = _cmd(kit, "absence 2026-01-02 2026-01-11")
        assert status == InboxStatus.REFUSED and "absence-covered" in outcome
        assert "adds nothing" in " ".join(body_of(out[0]).split())
    # An overlapping absence adds only its new days.
    status, outcome, _ = _cmd(kit, "absence 2026-01-08 2026-01-14")
    assert status == InboxStatus.PROCESSED, outcome
    assert _due(kit) - first == timedelta(days=13)


def test_absences_are_capped_per_game(kit: Kit) -> None:
    # Three absences of 25 days: the third would pass the 60 days one game allows.
    assert timedelta(days=60) == MAX_PER_GAME
    for args in ("absence 2026-01-02 2026-01-26", "absence 2026-02-01 2026-02-25"):
        status, outcome, _ = _cmd(kit, args)
        assert status == InboxStatus.PROCESSED, outcome
    status, outcome, out = _cmd(kit, "absence 2026-03-01 2026-03-25")
    assert status == InboxStatus.REFUSED and "bad-absence" in outcome
    assert "at most 60 days in one game" in " ".join(body_of(out[0]).split())


def test_absences_are_capped_per_period(kit: Kit) -> None:
    from pbem.pipeline.absences import PERIOD

    assert (timedelta(days=90), timedelta(days=365)) == (MAX_PER_PERIOD, PERIOD)
    # The game cap binds first in a running game; the period cap counts across games, so
    # check it on a player whose game ended: plan_absence with no running game.
    from pbem.pipeline.absences import AbsenceError, plan_absence
    from pbem.store import Absence, Game, GameStatus

    with kit.store.transaction() as s:
        g = s.get(Game, GAME)
        assert g is not None
        g.status = GameStatus.FINISHED
        s.add(g)
    with kit.store.transaction() as s:
        start = kit.clock.now() + timedelta(days=1)
        for k in range(3):
            a = start + timedelta(days=40 * k)
            plan = plan_absence(s, 1, a, a + timedelta(days=30))
            assert plan.new
            s.add(Absence(player_id=1, starts_at=a, ends_at=a + timedelta(days=30), created_at=a))
        s.flush()
        late = start + timedelta(days=130)
        with pytest.raises(AbsenceError, match="at most 90 days in any 365"):
            plan_absence(s, 1, late, late + timedelta(days=2))


_ARGS = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\x00"),
    max_size=120,
)


@pytest.mark.parametrize("name", COMMANDS)
def test_any_text_to_any_command_gets_a_reply(store, config, clock, name: str) -> None:  # type: ignore[no-untyped-def]
    """Property: arbitrary arguments (and body lines) to every command never crash the row."""
    configure(config, None)
    kit = make_kit(store, config, clock)

    @settings(max_examples=15, database=None)
    @given(args=_ARGS, body=_ARGS, signed=st.booleans())
    def run(args: str, body: str, signed: bool) -> None:
        text = command(f"{name} {args}") + body + "\n"
        raw = make_mail(SOUTH, text, key=kit.keys["south"] if signed else None)
        kit.clock.advance(timedelta(minutes=7))  # within the reply limit (10 an hour)
        before = kit.last_id()
        i = kit.deliver(raw)
        kit.process_all()
        row = kit.inbox(i)
        assert row.status in (InboxStatus.PROCESSED, InboxStatus.REFUSED), row.outcome
        replies = [m for m in kit.new_mail(before) if m.recipient == SOUTH]
        assert replies or "no reply" in row.outcome, row.outcome

    run()
