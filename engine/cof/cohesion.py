"""Chariots of Fire cohesion: TQ checks, hits, rout, rally, turnover, leader casualties.

Pure functions of a die roll and the charts' Cohesion Hit & TQ Check rows
(``checks.toml [events]``, cof.md §9, §12.2), the Chariot Turnover Table (``turnover.toml``,
§6.8) and the Leader Casualty rows (``checks.toml [leader_casualty]``, §7.9, §8.5, §12.11).
A TQ check passes on a d10 at most the unit's printed TQ (a routed unit's TQ is 1, a unit in
column loses ``column_tq_penalty``); hits never lower TQ (cof.md §9.1).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from engine.cof.tables import CofTables, TroopType

__all__ = [
    "Check",
    "aggression_vs_fire",
    "aggression_vs_shock",
    "check",
    "effective_tq",
    "leader_casualty",
    "orderly_withdrawal",
    "pass_through_blocked",
    "rally",
    "recover",
    "rout_roll",
    "routs",
    "turnover",
]

ROUTED_TQ = 1
"""A routed unit's TQ (cof.md §9.1)."""

RECOVERY = 2
"""Hits a recovering unit removes (cof.md §9.3)."""


def effective_tq(
    charts: CofTables, printed: int, *, routed: bool = False, column: bool = False
) -> int:
    """The TQ a check uses: 1 if routed, printed minus the column penalty in column."""
    if routed:
        return ROUTED_TQ
    if column:
        return printed - charts.actions["column_tq_penalty"].value
    return printed


def routs(hits: int, tq: int) -> bool:
    """A unit with hits at least its TQ routs (cof.md §9.2 #2)."""
    return hits >= tq


@dataclass(frozen=True)
class Check:
    """The outcome of a chart event's roll: passed (or triggered), and the hits it gives."""

    passed: bool
    hits: int


def check(charts: CofTables, event: str, tq: int, dr: int) -> Check:
    """Roll ``dr`` for chart event ``event`` against ``tq`` (cof.md §12.2), by its ``check``:
    ``none`` always gives its hits; ``fail-above-tq`` gives them on a roll above the TQ;
    ``excess-over-tq`` gives the excess; ``fail-on-nine`` on a (modified) 9; ``below-tq``
    passes on a roll below the TQ; ``at-least-tq`` on a roll at least the TQ."""
    row = charts.events[event]
    if row.check == "none":
        return Check(True, row.hits)
    if row.check == "fail-above-tq":
        return Check(dr <= tq, 0 if dr <= tq else row.hits)
    if row.check == "excess-over-tq":
        return Check(dr <= tq, max(0, dr - tq))
    if row.check == "fail-on-nine":
        return Check(dr <= tq, row.hits if dr >= 9 else 0)
    if row.check == "below-tq":
        return Check(dr < tq, 0)
    return Check(dr >= tq, 0)  # at-least-tq


def orderly_withdrawal(
    charts: CofTables,
    troop: TroopType,
    tq: int,
    dr: int,
    *,
    wc_ability: int = 0,
    oc_charisma: int = 0,
) -> Check:
    """Whether a unit may withdraw before an approaching enemy (cof.md §6.4): chariots
    always; others roll, minus a stacked wing leader's Ability and OC's Charisma, at most
    the printed TQ; a failed modified 9 costs a hit."""
    if troop.withdrawal == "auto":
        return Check(True, 0)
    return check(charts, "withdrawal_failed", tq, dr - wc_ability - oc_charisma)


def pass_through_blocked(charts: CofTables, ch2_tq: int, dr: int) -> bool:
    """A CH-2 with runners blocks a chariot passing through on a roll below its CH-2's TQ
    (cof.md §6.7)."""
    return check(charts, "pass_through_block", ch2_tq, dr).passed


def aggression_vs_fire(charts: CofTables, tq: int, dr: int, distance: int) -> bool:
    """A BI/RI fired on by a chariot must react on a roll, minus 1 per hex, at least its TQ
    (cof.md §8.10)."""
    return check(charts, "aggression_vs_fire", tq, dr - distance).passed


def aggression_vs_shock(charts: CofTables, tq: int, dr: int) -> bool:
    """A BI/RI about to be shocked by chariots only reacts on a roll at most its TQ."""
    return check(charts, "aggression_vs_shock", tq, dr).passed


def rout_roll(charts: CofTables, tq: int, dr: int, *, standard: bool = True) -> str:
    """A routing unit (cof.md §9.7): ``standard`` (placed by its Standard) on a roll at most
    its printed TQ, else ``flees`` (eliminated); always flees without a Standard."""
    if not standard:
        return "flees"
    return "standard" if check(charts, "rout", tq, dr).passed else "flees"


def rally(rating: int, printed_tq: int, dr: int) -> int | None:
    """A routed unit rallies on a roll at most the OC's Charisma (or a leader's Ability): its
    hits become half its printed TQ, rounded down; ``None`` if it stays routed (cof.md §9.8)."""
    return printed_tq // 2 if dr <= rating else None


def recover(hits: int) -> int:
    """Hits left after Recovery (cof.md §9.3)."""
    return max(0, hits - RECOVERY)


def turnover(
    charts: CofTables, unit: str, speed: int, dr: int, *, fire_and_run: bool = False
) -> bool:
    """Whether a chariot or wagon overturns (1 hit) on ``dr`` (cof.md §6.8): the band of
    its type covering its declared speed, or its fire-and-run band."""
    for band in charts.bands.values():
        if band.unit != unit or band.fire_and_run != fire_and_run:
            continue
        if fire_and_run or band.min_speed <= speed <= band.max_speed:
            return next(r.over[band.code] for r in charts.turnover if r.dr == dr)
    return False


def leader_casualty(
    charts: CofTables, kind: str, rolls: Iterator[int], rating: int, *, wounded: bool = False
) -> str:
    """A leader's casualty check (cof.md §7.9, §8.5, §12.11): ``unhurt``, ``wounded`` or
    ``killed``. ``kind`` is ``missile`` (``rolls`` starts with the unmodified fire roll) or
    ``shock``; ``rating`` is a wing leader's Ability or an OC's Initiative. A wounded leader
    wounded again is killed."""
    row = charts.leader_casualty[kind]
    if row.trigger >= 0 and next(rolls) != row.trigger:
        return "unhurt"
    if next(rolls) != row.wound_on:
        return "unhurt"
    if wounded:
        return "killed"
    if row.kill_above_rating and next(rolls) > rating:
        return "killed"
    return "wounded"
