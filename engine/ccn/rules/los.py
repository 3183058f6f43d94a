"""Line of sight (ccn.md §23.10, §23.2, §22), read from terrain.toml and the board.

A line runs from the centre of the firer's hex to the centre of the target's hex
(:meth:`engine.hexgrid.Hex.line_to`, exact arithmetic). Only the hexes in between matter:
terrain in the firer's or the target's hex never blocks. An intermediate hex is an
obstacle when it holds any unit or leader (friendly or enemy), when its terrain blocks
sight (terrain.toml ``blocks_los``: woods, town, mill, steep slope, hill), or when it is off
the board (the edge of the battlefield). A hill is no obstacle when firer and target both
stand on hills (§23.2, [R] A19). Where the line runs exactly along a hexside the two hexes
are read together: blocked only if both are obstacles (rule 4).

Artillery standing on a hill may fire over an adjacent lower hex holding only friendly
units or leaders (no blocking terrain) - in ordinary fire, never when it joins a
combined-arms attack (§23.2, §22, rule 5).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.ccn.rules.field import Field, L, U, terrain
from engine.hexgrid import Hex

__all__ = ["Sight", "los_clear", "sight"]


@dataclass(frozen=True)
class Sight:
    """Whether a line of sight is clear, and if not the hexes that block it."""

    clear: bool
    blocked_by: tuple[Hex, ...] = ()

    def why(self) -> str:
        """A short explanation for an error or a log line."""
        if self.clear:
            return "line of sight is clear"
        return "line of sight blocked at " + " and ".join(map(str, self.blocked_by))


def _obstacle(  # noqa: PLR0917 (the rule reads this many things)
    f: Field[U, L], h: Hex, frm: Hex, hills: bool, over_friends: bool, side: str | None
) -> bool:
    if h not in f.board:
        return True
    ter = terrain(f, h)
    unit = f.unit_at(h)
    leader = f.leader_at(h)
    if ter.blocks_los and not (ter.hill and hills):
        return True
    if unit is None and leader is None:
        return False
    if over_friends and not ter.hill and h.is_adjacent(frm):
        return not all(p is None or p.side == side for p in (unit, leader))
    return True


def sight(f: Field[U, L], frm: Hex, to: Hex, combined: bool = False) -> Sight:
    """The line of sight from ``frm`` to ``to`` (ccn.md §23.10; module docstring).

    ``combined``: the unit on ``frm`` is artillery joining a combined-arms attack, so the
    artillery-on-hill exception does not apply (§22).
    """
    hills = terrain(f, frm).hill and terrain(f, to).hill
    firer = f.unit_at(frm)
    over_friends = (
        not combined
        and firer is not None
        and f.tables.units[firer.type].arm == "artillery"
        and terrain(f, frm).hill
    )
    side = firer.side if firer is not None else None
    blocked: list[Hex] = []
    for step in frm.line_to(to)[1:-1]:
        hit = [h for h in step if _obstacle(f, h, frm, hills, over_friends, side)]
        if len(hit) == len(step):
            blocked.extend(h for h in hit if h in f.board)
            if not any(h in f.board for h in hit):
                blocked.extend(hit)
    return Sight(not blocked, tuple(blocked))


def los_clear(f: Field[U, L], frm: Hex, to: Hex, combined: bool = False) -> bool:
    """True if ``frm`` sees ``to`` (:func:`sight`)."""
    return sight(f, frm, to, combined).clear
