"""Off-turn choices the rules leave to a unit's owner, made by his standing orders (cof.md
§4.5, §6.4, §6.5, §9.2 #1; docs/cof-orders.md "Standing orders")::

    shock-hits:     safest | runners | chariot   which of my counters takes the odd hits of a
                                                 shock result when no superiority decides it
    withdraw-to:    far | standard               where my unit's orderly withdrawal ends
    replacement:    rear | front                 where a killed wing commander's replacement
                                                 appears

Each function reads the owner's standing order and returns the choice; ties fall to the
lowest id or hex number. (A reaction turn, cof.md §6.5, leaves no choice: of the two
vertices one turn away, only one puts the enemy that came adjacent in the unit's front.)
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cof.policy import policy_of
from engine.cof.state import CofState, Unit, other
from engine.gboh.grid import GHex

__all__ = ["hit_order", "replacement_hex", "withdrawal_choice"]


def hit_order(s: CofState, units: Sequence[Unit]) -> list[str]:
    """The order in which the owner gives the odd hits of a shock among ``units`` (rulebook
    §9.12, the owner's choice after the superiority units): ``safest`` the counter with the
    most hits to spare before its TQ first; ``runners`` / ``chariot`` that kind of counter
    first, then the safest."""
    if not units:
        return []
    wish = policy_of(s, units[0].side).get("shock-hits")
    first = {"runners": ("RI",), "chariot": ("CH2", "CH3")}.get(wish, ())

    def key(u: Unit) -> tuple[bool, int, str]:
        return (u.type not in first, u.hits - u.tq, u.id)

    return [u.id for u in sorted(units, key=key)]


def withdrawal_choice(
    s: CofState, x: Unit, options: Sequence[tuple[int, int, str]]
) -> tuple[int, int, str]:
    """Where ``x``'s orderly withdrawal ends among ``options`` (``(-distance from the
    mover, MP, hex)``): ``far`` the farthest from the mover (then the fewest MP, the lowest
    number); ``standard`` the nearest its Standard (then the farthest from the mover)."""
    std = s.sides[x.side].standard
    if policy_of(s, x.side).get("withdraw-to") == "standard" and std:
        home = GHex.parse(std)
        return min(options, key=lambda o: (GHex.parse(o[2]).distance(home), o))
    return min(options)


def replacement_hex(s: CofState, side: str, hexes: Sequence[GHex]) -> GHex:
    """Where a killed wing commander's replacement appears among ``hexes`` (his wing's
    units, rulebook §4.25): ``rear`` the farthest from the enemy, ``front`` the nearest."""
    foes = [u.at for u in s.live(other(side))]
    if not foes:
        return min(hexes)
    sign = -1 if policy_of(s, side).get("replacement") == "rear" else 1

    def key(h: GHex) -> tuple[int, GHex]:
        return (sign * min(h.distance(f) for f in foes), h)

    return min(hexes, key=key)
