"""Chariots of Fire command: initiative, momentum, trump, command range, withdrawal, victory.

Pure functions of die rolls and leader ratings (cof.md §3, §5, §9.5, §11). Command range is a
path of hexes on the flat-top map (:func:`command_path`): counting the unit's hex and not the
leader's, never through enemy combat units or terrain the leader could not enter.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from engine.gboh.grid import GHex, HexMap

__all__ = [
    "command_path",
    "command_range",
    "in_command",
    "initiative",
    "momentum",
    "outcome",
    "trump",
    "trump_allowed",
    "withdraw_engaged",
    "withdrawal_points",
]


def initiative(rolls: tuple[int, int], ratings: tuple[int, int]) -> int | None:
    """Which side (0 or 1) has the Initiative: d10 plus its OC's Initiative (0 without an OC),
    higher wins, a tie gives it to neither (cof.md §3 A)."""
    a, b = rolls[0] + ratings[0], rolls[1] + ratings[1]
    return None if a == b else (0 if a > b else 1)


def momentum(dr: int, rating: int) -> bool:
    """A Momentum attempt succeeds on a roll at most the wing leader's Ability (the OC's
    Initiative when he leads the wing) (cof.md §5.3)."""
    return dr <= rating


def trump_allowed(
    *, oc_alive: bool, used_this_turn: bool, oc_with_engaged: bool, marker_chosen: bool
) -> bool:
    """Whether a player may try to Trump the marker just drawn (cof.md §5.4): once a turn,
    with a living OC not stacked with an Engaged unit, never the Initiative's chosen marker."""
    return oc_alive and not used_this_turn and not oc_with_engaged and not marker_chosen


def trump(dr: int, oc_initiative: int) -> bool:
    """A Trump succeeds on a roll at most the OC's Initiative (cof.md §5.4)."""
    return dr <= oc_initiative


def command_range(printed: int, *, wounded: bool = False, with_engaged: bool = False) -> int:
    """A leader's Command Range: one less wounded (cof.md §4.4), halved rounding down in a
    hex with an Engaged unit (§5.5)."""
    r = max(0, printed - 1) if wounded else printed
    return r // 2 if with_engaged else r


def command_path(
    grid: HexMap, leader: GHex, unit: GHex, passable: Callable[[GHex], bool]
) -> int | None:
    """Hexes of the shortest path from ``leader`` to ``unit`` (the unit's hex counted, the
    leader's not) through hexes ``passable`` says a leader may enter and that hold no enemy
    combat unit; ``None`` if there is none (cof.md §5.5)."""
    if leader == unit:
        return 0
    seen = {leader}
    queue = deque([(leader, 0)])
    while queue:
        h, n = queue.popleft()
        for nb in grid.neighbours(h):
            if nb in seen:
                continue
            if nb == unit:
                return n + 1
            if passable(nb):
                seen.add(nb)
                queue.append((nb, n + 1))
    return None


def in_command(
    grid: HexMap, leader: GHex | None, unit: GHex, rng: int, passable: Callable[[GHex], bool]
) -> bool:
    """Whether a unit is in command: its wing has a leader and the path fits his range."""
    if leader is None:
        return False
    n = command_path(grid, leader, unit, passable)
    return n is not None and n <= rng


def withdraw_engaged(dr: int, rating: int, *, oc_charisma: int = 0) -> bool:
    """Withdrawal of a wing's Engaged units (cof.md §9.5): a roll at most the leader's Ability
    (an OC's Initiative), plus the OC's Charisma when the leader is, or is with or next to, the
    OC. Chariots need no roll."""
    return dr <= rating + oc_charisma


def withdrawal_points(eliminated_tq: list[int], oc_initiative_if_killed: int = 0) -> int:
    """A side's withdrawal points (cof.md §11): the printed TQ of its eliminated units plus
    five times its OC's Initiative if he was eliminated."""
    return sum(eliminated_tq) + 5 * oc_initiative_if_killed


def outcome(points: tuple[int, int], levels: tuple[int, int]) -> str:
    """End-of-turn withdrawal (cof.md §11): ``"on"``, ``"0"``/``"1"`` (that side wins: the
    other reached its level, or both did and that side by less) or ``"draw"``."""
    over = [points[i] >= levels[i] for i in (0, 1)]
    if not any(over):
        return "on"
    if over[0] and over[1]:
        a, b = points[0] - levels[0], points[1] - levels[1]
        return "draw" if a == b else ("0" if a < b else "1")
    return "1" if over[0] else "0"
