"""One order line at a time: break a square, move a unit or leader, Short Supply (ccn.md §9,
§10, §21.7, §24.2).

Shared by validation (on a simulated working copy, no dice) and resolution, so a move is
carried out exactly as it was accepted. Each function returns why the line cannot be done,
or None once it is done.
"""

from __future__ import annotations

from engine.cc.orders import Action, Ref
from engine.ccn.movement import (
    check_leader_path,
    check_path,
    do_leader_move,
    do_move,
    impassable,
    leader_reach,
    reach,
)
from engine.ccn.rules.squares import break_square, may_break_square
from engine.ccn.state import name_key
from engine.ccn.work import WLeader, Work, WUnit
from engine.hexgrid import Hex

__all__ = ["break_step", "find", "move_step", "supply_hexes", "supply_step"]


def find(w: Work, side: str | None, ref: Ref) -> WUnit | WLeader | str:
    """The unit or leader ``ref`` names (``side`` None: either side's), or why none."""
    if ref.leader is not None:
        for leader in w.leaders.values():
            if name_key(leader.name) == name_key(ref.leader) and leader.hex is not None:
                if side is not None and leader.side != side:
                    return f"leader {leader.name} is not yours"
                return leader
        return f"no leader called {ref.leader} on the battlefield"
    assert ref.hex is not None
    u = w.unit_at(ref.hex)
    if u is not None:
        if side is not None and u.side != side:
            return f"the unit in {ref.hex} is not yours"
        return u
    ld = w.leader_at(ref.hex)
    if ld is not None and (side is None or ld.side == side):
        return ld
    return f"nothing of yours in {ref.hex}"


def break_step(w: Work, side: str, a: Action) -> str | None:
    """Break an ordered square (ccn.md §21.7): its card goes back to the hand."""
    got = find(w, side, a.ref)
    if isinstance(got, str):
        return got
    if isinstance(got, WLeader):
        return "only a unit in square can be broken"
    if got.id not in w.ordered:
        return f"the {got.type} in {got.hex} is not ordered: breaking a square takes an order"
    why = may_break_square(w, got)
    if why:
        return why
    break_square(w, got)  # it logs the square broken
    return None


def _path(here: Hex | None, a: Action, paths: dict[Hex, tuple[Hex, ...]]) -> tuple[Hex, ...] | str:
    if a.off:
        return "units and leaders leave the board only by retreating (§10.1, §17.2)"
    if a.to is not None:
        if a.to == here:
            return ()
        if a.to not in paths:
            legal = ", ".join(sorted(str(h) for h in paths)) or "none"
            return f"{a.to} cannot be reached (reachable: {legal})"
        return paths[a.to]
    if a.path and a.path[0] == here:
        return a.path[1:]
    return a.path


def move_step(w: Work, side: str, a: Action) -> str | None:
    """Move an ordered unit (with its leader) or an ordered leader alone (ccn.md §10)."""
    if (w.card == "short_supply") and not w.fallback:
        return supply_step(w, side, a)
    got = find(w, side, a.ref)
    if isinstance(got, str):
        return got
    if isinstance(got, WLeader):
        if got.name not in w.ordered_leaders:
            return f"leader {got.name} is not ordered"
        host = w.host(got)
        why = check_leader_path(w, got, ())  # it may not move at all: say why
        if why:
            return why
        path = _path(got.hex, a, leader_reach(w, got))
        if isinstance(path, str):
            return path
        why = check_leader_path(w, got, path)
        if why:
            return why
        if host is not None and w.card == "leadership" and host.id not in w.battled:
            w.ordered.discard(host.id)  # a detaching leader leaves its unit unordered (§24.2)
            w.dice_bonus.pop(host.id, None)
        do_leader_move(w, got, path)
        return None
    if got.id not in w.ordered:
        return f"the {got.type} in {got.hex} is not ordered"
    if got.square:
        return f"the {got.type} in {got.hex} is in square: break it first ('break {got.hex}')"
    path = _path(got.hex, a, reach(w, got))
    if isinstance(path, str):
        return path
    why = check_path(w, got, path)
    if why:
        return why
    do_move(w, got, path)
    return None


def supply_hexes(w: Work, u: WUnit) -> list[Hex]:
    """Where Short Supply may send ``u``: empty hexes of its owner's baseline row in the same
    section it may stand in (never a sand quarry for artillery, §23.8), else of the second
    row (ccn.md §24.2 [R])."""
    assert u.hex is not None
    secs = w.board.sections(u.hex)
    artillery = w.arm(u) == "artillery"
    base = w.baseline(u.side)
    step = 1 if base == 1 else -1
    for row in (base, base + step):
        free = [
            h
            for h in w.board.hexes
            if h.row == row
            and w.board.sections(h) & secs
            and w.unit_at(h) is None
            and w.leader_at(h) is None
            and not impassable(w, h, artillery)
        ]
        if free:
            return sorted(free)
    return []


def supply_step(w: Work, side: str, a: Action) -> str | None:
    """Short Supply: move one unit, friendly or enemy, to its owner's baseline (§24.2)."""
    if w.supplied is not None:
        return "Short Supply moves one unit"
    got = find(w, None, a.ref)
    if isinstance(got, str):
        return got
    if isinstance(got, WLeader):
        return "Short Supply cannot target a lone leader"
    if got.square:
        return "Short Supply cannot target a square"
    options = supply_hexes(w, got)
    if not options:
        return f"no empty hex on the baseline of the {got.type}'s section: no effect"
    dest = a.to if a.to is not None else (a.path[-1] if a.path else options[0])
    if dest not in options:
        legal = ", ".join(map(str, options))
        return f"{dest} is not an empty baseline hex of that section it may stand in ({legal})"
    start = got.hex
    w.move_unit(got, dest)
    w.supplied = got.id
    if got.side == side:
        w.no_battle[got.id] = "Short Supply moved it (§24.2)"
    w.log(
        "short-supply",
        f"Short Supply: the {got.type} in {start} goes back to {dest}",
        unit=got.id,
        path=[str(start), str(dest)],
    )
    return None
