"""Chariots of Fire heroic combat (Sumer and Troy only; cof.md §10) as pure functions.

A duel round: each leader rolls a d10 and adds his Combat; the lower total takes hits (1, 2
when the higher is at least twice it, 3 at three times), subtracted from his Endurance.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from engine.cof.elevation import sight
from engine.cof.leaders import trace_leader
from engine.cof.pieces import Chief, Ground, Piece
from engine.cof.tables import CofTables
from engine.gboh.grid import GHex

__all__ = [
    "Round",
    "after_round",
    "challenge_problem",
    "checks_casualty",
    "declined",
    "duel_hits",
    "duel_leader",
    "duel_round",
    "hero_drm",
    "heroic_shock",
    "hits_kept",
    "killed_by_archer",
    "marker_after_challenge",
    "on_foot_after",
]


def duel_hits(lower: int, higher: int) -> int:
    """Hits the lower total takes (cof.md §10.3 #3); 0 on equal totals. A lower total of 0 or
    less against a positive one counts as three times [E]."""
    if lower >= higher:
        return 0
    if lower <= 0:
        return 3
    if higher >= 3 * lower:
        return 3
    return 2 if higher >= 2 * lower else 1


@dataclass(frozen=True)
class Round:
    """One round: the hits each side took and whether each is dead (hits >= Endurance)."""

    hits: tuple[int, int]
    dead: tuple[bool, bool]


def duel_round(
    rolls: tuple[int, int],
    combat: tuple[int, int],
    endurance: tuple[int, int],
    hits_before: tuple[int, int] = (0, 0),
) -> Round:
    """Resolve one round of a duel (cof.md §10.3 #3-#4)."""
    a, b = rolls[0] + combat[0], rolls[1] + combat[1]
    new = (hits_before[0] + duel_hits(a, b), hits_before[1] + duel_hits(b, a))
    return Round(new, (new[0] >= endurance[0], new[1] >= endurance[1]))


def hits_kept(before: int, taken: int) -> int:
    """A survivor keeps one of the hits he took in the duel (cof.md §10.3 #6)."""
    return before + min(taken, 1)


def hero_drm(charts: CofTables, attacker_hero_won: bool) -> int:
    """The shock modifier for the rest of the activation (cof.md §10.4 #2)."""
    v = charts.shock_modifiers["hero_won"].value
    return v if attacker_hero_won else -v


def killed_by_archer(dr: int) -> bool:
    """A hero archer's shot kills on a 9 (cof.md §10.4 #5)."""
    return dr == 9


def heroic_shock(attacking: Sequence[Chief], defending: Sequence[Chief]) -> bool:
    """Whether a shock brings a mandatory duel (rulebook §10.22): both sides have a leader
    stacked with a unit in it and at least one of those leaders is a hero. Else the leaders
    check casualties as usual (§8.15)."""
    return bool(attacking) and bool(defending) and any(c.hero for c in (*attacking, *defending))


def duel_leader(involved: Sequence[Chief]) -> list[str]:
    """Ids a side may pick for a shock's duel (rulebook §10.22): its heroes if it has any
    (it must pick one), else any of its involved leaders. The others give no modifier and
    do not check casualties."""
    heroes = [c.id for c in involved if c.hero]
    return sorted(heroes or [c.id for c in involved])


def checks_casualty(chief: Chief) -> bool:
    """Heroes, hero-leaders included, never check casualties from fire or shock (rulebook
    §10.17)."""
    return not chief.hero


def challenge_problem(
    charts: CofTables,
    ground: Ground,
    pieces: Sequence[Piece],
    hero: Chief,
    target: Chief,
    *,
    path: Sequence[GHex],
) -> str | None:
    """Why ``hero`` may not challenge ``target`` instead of using a drawn marker (rulebook
    §10.23; cof.md §10.2 #2), or ``None``: the challenger is a hero on foot; the target an
    enemy leader within the hero's movement (``path``, the hexes to the target's, costed as
    on foot, never through an enemy unit) and in his line of sight (§7.14)."""
    if not hero.hero:
        return f"{hero.id} is not a hero"
    if not hero.on_foot:
        return "a hero challenges on foot"
    if target.side == hero.side or target.hex is None or hero.hex is None:
        return f"{target.id} is not an enemy leader on the map"
    if not path or path[-1] != target.hex:
        return f"the path must end at {target.hex}"
    occupied = {p.hex for p in pieces}
    if not sight(ground, hero.hex, target.hex, occupied=lambda h: h in occupied):
        return f"{target.id} is out of {hero.id}'s line of sight"
    others = [p for p in pieces if p.hex != target.hex]
    _, problem = trace_leader(charts, ground, others, hero, path)
    return problem or None


def declined(chief: Chief, pieces: Sequence[Piece]) -> str:
    """A challenged leader who declines (rulebook §10.24): ``stays`` with a friendly combat
    unit in his hex, else ``retreats`` as a lone leader (§4.24). Either way he counts as
    having withdrawn (§10.43: his side spends its next marker)."""
    if any(p.side == chief.side and p.hex == chief.hex for p in pieces):
        return "stays"
    return "retreats"


def after_round(taken: tuple[int, int], dead: tuple[bool, bool]) -> str:
    """What follows a duel round (rulebook §10.26): ``over`` when a leader died; ``again``
    (rolled automatically) when both took as many hits in this duel; otherwise ``0 chooses``
    or ``1 chooses``: the leader with more hits continues or withdraws (and loses)."""
    if any(dead):
        return "over"
    if taken[0] == taken[1]:
        return "again"
    return "0 chooses" if taken[0] > taken[1] else "1 chooses"


def marker_after_challenge(*, initiator_won: bool, archer: bool = False) -> str:
    """The challenger's activation marker after a challenge (rulebook §10.41, §10.45):
    ``returned`` to the pool undrawn when he won, else ``spent``; a hero archer's shot
    always spends it."""
    return "returned" if initiator_won and not archer else "spent"


def on_foot_after(chief: Chief, event: str, *, choose_foot: bool = False) -> Chief:
    """A leader's mode after ``event`` (rulebook §10.15-§10.16): ``activated`` (he may flip,
    ``choose_foot``; it holds until his next activation); ``accepted`` (a challenged leader in
    his chariot goes on foot at once); anything else leaves it."""
    if event == "activated":
        return replace(chief, on_foot=choose_foot)
    if event == "accepted":
        return replace(chief, on_foot=True)
    return chief
