"""Napoleonics movement: allowances, paths, terrain stops, stacking, leaders (ccn.md §10, §23).

A unit moves up to its allowance (units.toml ``move``; a card may change it, §24) through
on-board hexes, never into or through another unit or an enemy leader (§10.1). Impassable
terrain (river, steep slope; sand quarry for artillery) is never entered; woods, towns,
fords and sand quarries end the move on entry, and crossing a fortified hexside ends it in
the hex entered (§23.5). A lone friendly leader's hex may be entered, and ends the move: the
leader attaches (a unit with a leader may not end there). A leader moves up to 3 hexes alone
(§10.3), through friendly pieces, not ending on another friendly leader; a leader that moved
and then joined a unit pins it (§10.4). :func:`limits` says how far each ordered unit may
move and how far it may move and still battle under the card in effect.
"""

from __future__ import annotations

from engine.ccn.work import WLeader, Work, WUnit
from engine.hexgrid import Hex

__all__ = [
    "LEADER_MOVE",
    "check_leader_path",
    "check_path",
    "do_leader_move",
    "do_move",
    "impassable",
    "leader_limit",
    "leader_reach",
    "limits",
    "reach",
]

LEADER_MOVE = 3
"""Hexes a leader moving alone may move (ccn.md §10.3)."""

GRANDE_MANOEUVRE_MOVE = 4
"""Hexes La Grande Manoeuvre lets the units and leaders it orders move (ccn.md §24.2)."""

_GUARD_OR_ELITE_INF = ("LT", "RI", "GR", "YG", "OG", "GG")
"""Force March: light infantry, rifles, grenadiers and guard infantry march 2 and battle."""


def limits(w: Work, u: WUnit) -> tuple[int, int]:
    """(most hexes ``u`` may move, most hexes it may move and still battle) this turn,
    under the card in effect (ccn.md §10.2, §24.2)."""
    sp = w.spec(u)
    move, battle = sp.move, sp.move_and_battle
    if sp.arm == "artillery" and u.blocks < 2 and sp.move_and_battle > 0:
        battle = 0  # 1-block horse artillery: move or battle (§4.4)
    card = None if w.fallback else w.card
    if u.square:
        return 0, 0  # a square never moves (§21.6); breaking it is an order (§21.7)
    if card == "bayonet_charge" and sp.arm == "infantry":
        move, battle = 2, 2
    elif card == "bombard" and sp.arm == "artillery":
        move, battle = 3, 0
    elif card == "cavalry_charge" and sp.arm == "cavalry":
        move, battle = 3, 3
    elif card == "force_march" and sp.arm == "infantry":
        if u.type in _GUARD_OR_ELITE_INF or w.attached(u) is not None:
            move, battle = 2, 2
        else:
            move, battle = 2, 1
    elif card == "grande_manoeuvre":
        move, battle = GRANDE_MANOEUVRE_MOVE, -1
    elif card in ("fire_and_hold", "cold_steel"):
        move, battle = 0, 0
    return move, battle


def leader_limit(w: Work) -> int:
    """Hexes an ordered leader may move this turn: 3 (§10.3), 4 under La Grande Manoeuvre
    (§24.2: the units *and leaders* it orders move up to 4)."""
    if w.card == "grande_manoeuvre" and not w.fallback:
        return GRANDE_MANOEUVRE_MOVE
    return LEADER_MOVE


def _stops(w: Work, frm: Hex, to: Hex) -> bool:
    """Entering ``to`` from ``frm`` ends a move: stop terrain, or a fortified side crossed."""
    ter = w.terrain(to)
    if w.fortified(to, frm) or w.fortified(frm, to):
        return True
    return ter.stop and not ter.fortified


def impassable(w: Work, h: Hex, artillery: bool) -> bool:
    """Whether ``h`` may never be entered (by artillery, if ``artillery``; §23.1, §23.8)."""
    ter = w.terrain(h)
    return ter.impassable or (artillery and ter.impassable_artillery)


def _step_problem(w: Work, u: WUnit, frm: Hex, to: Hex, last: bool) -> str | None:
    if to not in w.board:
        return f"{to} is off the board"
    if not frm.is_adjacent(to):
        return f"{to} is not next to {frm}"
    if impassable(w, to, w.arm(u) == "artillery"):
        return f"{to} ({w.terrain_at(to)}) is impassable"
    other = w.unit_at(to)
    if other is not None and other is not u:
        return f"{to} holds a unit"
    ld = w.leader_at(to)
    if ld is not None:
        if ld.side != u.side:
            return f"{to} holds an enemy leader"
        if w.host(ld) is None:
            if w.attached(u) is not None:
                return f"{to} holds a friendly leader and the unit already has one"
            if not last:
                return f"entering the lone leader's hex {to} ends the move"
    if not last and _stops(w, frm, to):
        return f"entering {to} ({w.terrain_at(to)}) ends the move"
    return None


def check_path(w: Work, u: WUnit, path: tuple[Hex, ...]) -> str | None:
    """Why ``u`` may not move along ``path`` (the hexes after its own), or None."""
    if u.hex is None:
        return "the unit is not on the board"
    if u.id in w.pinned:
        return "a leader joined this unit after moving: it cannot move any more (§10.4)"
    if u.id in w.moved:
        return "the unit has already moved this turn"
    move, _ = limits(w, u)
    if len(path) > move:
        return f"the {u.type} may move {move} hex{'es' if move != 1 else ''}, not {len(path)}"
    here = u.hex
    for i, h in enumerate(path):
        why = _step_problem(w, u, here, h, i == len(path) - 1)
        if why:
            return why
        here = h
    return None


def reach(w: Work, u: WUnit) -> dict[Hex, tuple[Hex, ...]]:
    """Every hex ``u`` may end a move in, with a shortest legal path (breadth first)."""
    if u.hex is None or u.id in w.pinned or u.id in w.moved:
        return {}
    move, _ = limits(w, u)
    out: dict[Hex, tuple[Hex, ...]] = {}
    frontier: list[tuple[Hex, tuple[Hex, ...]]] = [(u.hex, ())]
    seen = {u.hex}
    for _ in range(move):
        nxt: list[tuple[Hex, tuple[Hex, ...]]] = []
        for here, path in frontier:
            for h in w.board.neighbours(here):
                if h not in out and _step_problem(w, u, here, h, last=True) is None:
                    out[h] = (*path, h)
                if h not in seen and _step_problem(w, u, here, h, last=False) is None:
                    seen.add(h)
                    nxt.append((h, (*path, h)))
        frontier = nxt
    out.pop(u.hex, None)
    return out


def do_move(w: Work, u: WUnit, path: tuple[Hex, ...]) -> None:
    """Move ``u`` (with its attached leader) along an accepted path; log it."""
    if not path:
        w.moved[u.id] = 0
        return
    start = u.hex
    assert start is not None
    ld = w.attached(u)
    stays = ld is not None and ld.name in w.leader_moved
    if ld is not None and stays:
        # It detached and was declared to stay (§9.4, §10.4 [R]): the unit leaves it behind.
        w.log("detach", f"leader {ld.name} stays in {start}", leader=ld.name, unit=u.id)
    w.move_unit(u, path[-1], carry=not stays)
    w.moved[u.id] = len(path)
    if ld is not None:
        w.leader_moved.add(ld.name)  # a leader carried along has used its move (§10.4)
    end = path[-1]
    ter = w.terrain(end)
    if ter.battle_on_entry == "none" or (ter.battle_on_entry == "light" and not w.spec(u).light):
        w.no_battle.setdefault(u.id, f"it entered {w.terrain_at(end)} this turn (§23)")
    w.log(
        "move",
        f"{u.side} {u.type} moves {start} > {' > '.join(str(h) for h in path)}",
        unit=u.id,
        path=[str(start), *(str(h) for h in path)],
    )
    joined = w.leader_at(end)
    if joined is not None and joined is not ld and joined.side == u.side:
        w.log(
            "attach",
            f"leader {joined.name} joins the {u.type} in {end}",
            leader=joined.name,
            unit=u.id,
        )


def _leader_step(w: Work, ld: WLeader, frm: Hex, to: Hex, last: bool) -> str | None:
    if to not in w.board:
        return f"{to} is off the board"
    if not frm.is_adjacent(to):
        return f"{to} is not next to {frm}"
    if impassable(w, to, artillery=False):
        return f"{to} ({w.terrain_at(to)}) is impassable"
    u = w.unit_at(to)
    if u is not None and u.side != ld.side:
        return f"{to} holds an enemy unit"
    other = w.leader_at(to)
    if other is not None and other is not ld:
        if other.side != ld.side:
            return f"{to} holds an enemy leader"
        if last:
            return f"{to} already holds a friendly leader"
    if not last and _stops(w, frm, to):
        return f"entering {to} ({w.terrain_at(to)}) ends the move"
    return None


def check_leader_path(w: Work, ld: WLeader, path: tuple[Hex, ...]) -> str | None:
    """Why ``ld`` may not move along ``path``, or None (ccn.md §10.3)."""
    if ld.hex is None:
        return "the leader is not on the board"
    if ld.name in w.leader_moved:
        return "a leader moves at most once a turn"
    host = w.host(ld)
    if host is not None and host.square:
        return "a leader may not leave a unit in square (§9.6)"
    most = leader_limit(w)
    if len(path) > most:
        return f"a leader moves {most} hexes at most"
    here = ld.hex
    for i, h in enumerate(path):
        why = _leader_step(w, ld, here, h, i == len(path) - 1)
        if why:
            return why
        here = h
    return None


def leader_reach(w: Work, ld: WLeader) -> dict[Hex, tuple[Hex, ...]]:
    """Every hex ``ld`` may end a move in, with a shortest legal path."""
    if check_leader_path(w, ld, ()) is not None:
        return {}
    assert ld.hex is not None
    out: dict[Hex, tuple[Hex, ...]] = {}
    frontier: list[tuple[Hex, tuple[Hex, ...]]] = [(ld.hex, ())]
    seen = {ld.hex}
    for _ in range(leader_limit(w)):
        nxt: list[tuple[Hex, tuple[Hex, ...]]] = []
        for here, path in frontier:
            for h in w.board.neighbours(here):
                if h not in out and _leader_step(w, ld, here, h, last=True) is None:
                    out[h] = (*path, h)
                if h not in seen and _leader_step(w, ld, here, h, last=False) is None:
                    seen.add(h)
                    nxt.append((h, (*path, h)))
        frontier = nxt
    out.pop(ld.hex, None)
    return out


def do_leader_move(w: Work, ld: WLeader, path: tuple[Hex, ...]) -> None:
    """Move a leader alone along an accepted path; a unit it joins is pinned (§10.4)."""
    w.leader_moved.add(ld.name)
    if not path:
        return
    start = ld.hex
    w.move_leader(ld, path[-1])
    w.log(
        "move",
        f"{ld.side} leader {ld.name} moves {start} > {' > '.join(str(h) for h in path)}",
        leader=ld.name,
        path=[str(start), *(str(h) for h in path)],
    )
    host = w.host(ld)
    if host is not None:
        w.pinned.add(host.id)
        w.log(
            "attach",
            f"leader {ld.name} joins the {host.type} in {path[-1]}",
            leader=ld.name,
            unit=host.id,
        )
