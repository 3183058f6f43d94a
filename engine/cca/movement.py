"""Movement (cca.md §7, §16.6, §17): reach, paths, and carrying out moves.

:func:`allowance` is how far an ordered unit may move under the card in
effect; :func:`reach` maps every hex it may end on to the shortest legal
path (ties broken by a fixed neighbour order, so the choice is stable);
:func:`check_path` explains why an explicit path is illegal;
:func:`do_move` carries a move out (attached leaders go along, a unit that
ends on a lone friendly leader picks it up, a leader that joins a unit pins it).
"""

from __future__ import annotations

from engine.cca.terrain import mover_kind
from engine.cca.units import LEADER_MOVE, UnitSpec
from engine.cca.work import WLeader, Work, WUnit
from engine.hexgrid import Hex

__all__ = ["allowance", "check_path", "do_leader_move", "do_move", "leader_reach", "reach"]


def allowance(w: Work, u: WUnit) -> int:
    """Hexes ``u`` may move this turn under the card in effect (§7.2, §18.5)."""
    s = u.spec
    card = w.card
    n = s.move
    if card in ("CS", "DS"):
        return 0
    if card == "LN":
        n = 1
    elif card == "DT" and s.foot and not s.war_machine:
        n = 3 if s.warrior else 2
    elif card == "CH" and s.mounted and s.weight == "heavy":
        n = 3
    assert u.hex is not None
    leave = w.terrain(u.hex).leave_max_move
    if leave is not None and w.moved.get(u.id, 0) == 0:
        n = min(n, leave)
    return n


def _through_friends(w: Work, u: WUnit, steps: int) -> bool:
    """Light foot pass through friends under Order Light Troops or a 2-hex MFM move (§7.1)."""
    if not u.spec.light_foot:
        return False
    return w.card == "LT" or (w.card == "MFM" and steps >= 2)


def _can_enter(w: Work, u: WUnit, start: Hex, h: Hex) -> str | None:
    """Why ``u`` may not step into ``h`` (None: it may, perhaps only to pass through)."""
    if not w.on_board(h):
        return f"{h} is off the board"
    ter = w.terrain(h)
    kind = mover_kind(u.spec)
    if kind in ter.impassable:
        return f"{h} ({w.state.terrain_at(h)}) is impassable to {u.type}"
    if kind in ter.enter_only_from_adjacent_start and not start.is_adjacent(h):
        return f"{h} ({w.state.terrain_at(h)}) may be entered only from an adjacent start hex"
    e = w.unit_at(h)
    if e is not None and e.side != u.side:
        return f"{h} holds an enemy unit"
    ld = w.leader_at(h)
    if ld is not None and ld.side != u.side:
        return f"{h} holds an enemy leader"
    return None


def reach(w: Work, u: WUnit, limit: int | None = None) -> dict[Hex, tuple[Hex, ...]]:
    """Every hex ``u`` may end a move on, with the shortest path to it (steps after start)."""
    assert u.hex is not None
    start = u.hex
    max_steps = allowance(w, u) if limit is None else limit
    best: dict[Hex, tuple[Hex, ...]] = {start: ()}
    frontier: list[tuple[Hex, tuple[Hex, ...]]] = [(start, ())]
    own_leader = w.attached(u) is not None
    for _ in range(max_steps):
        nxt: list[tuple[Hex, tuple[Hex, ...]]] = []
        for h, path in frontier:
            for n in w.neighbours(h):
                if n in best or n == start or _can_enter(w, u, start, n) is not None:
                    continue
                p = (*path, n)
                friend = w.unit_at(n)
                lone = w.leader_at(n)
                stop = mover_kind(u.spec) in w.terrain(n).stop
                if friend is not None:
                    if _through_friends(w, u, max_steps):
                        nxt.append((n, p))
                        best.setdefault(n, p)  # marked seen; removed below (cannot end here)
                    continue
                if lone is not None:  # a lone friendly leader: stop there and pick it up
                    if not own_leader:
                        best[n] = p
                    continue
                best[n] = p
                if not stop:
                    nxt.append((n, p))
        frontier = nxt
    return {h: p for h, p in best.items() if w.unit_at(h) is None or h == start}


def check_path(w: Work, u: WUnit, path: tuple[Hex, ...]) -> str | None:
    """Explain why ``u`` may not move along ``path`` (None if it may)."""
    assert u.hex is not None
    start = u.hex
    if len(path) > allowance(w, u):
        return f"{u.type} may move at most {allowance(w, u)} hexes now, not {len(path)}"
    prev = start
    own_leader = w.attached(u) is not None
    for i, h in enumerate(path):
        if not prev.is_adjacent(h):
            return f"{prev} and {h} are not adjacent"
        why = _can_enter(w, u, start, h)
        if why:
            return why
        last = i == len(path) - 1
        friend = w.unit_at(h)
        if friend is not None and friend is not u and (
            last or not _through_friends(w, u, len(path))
        ):
            return f"{h} holds a friendly unit" + (
                "" if last else " (only light foot under LT or MFM may pass through)"
            )
        lone = w.leader_at(h)
        if lone is not None and friend is None:
            if own_leader:
                return f"{h} holds a friendly leader and {u.type} already has one"
            if not last:
                return f"a unit entering {h} (a lone friendly leader) must stop there"
        if not last and mover_kind(u.spec) in w.terrain(h).stop:
            return f"{u.type} must stop on entering {h} ({w.state.terrain_at(h)})"
        prev = h
    return None


def do_move(w: Work, u: WUnit, path: tuple[Hex, ...], off: bool = False) -> None:
    """Move ``u`` along a checked ``path`` (and off the board if ``off``)."""
    assert u.hex is not None
    ld = w.attached(u)
    start = u.hex
    for h in path:
        u.hex = h
        w.entered.setdefault(u.id, set()).add(h)
    if ld is not None:
        ld.hex = u.hex
    w.moved[u.id] = w.moved.get(u.id, 0) + len(path)
    if path:
        w.log("move", f"{u.side} {u.type} moves {start} > " + " > ".join(map(str, path)),
              unit=u.id, path=[str(start), *map(str, path)])
    joined = w.leader_at(u.hex)
    if ld is None and joined is not None and joined.side == u.side and path:
        w.log("attach", f"leader {joined.name} joins the {u.type} in {u.hex}", leader=joined.name)
        w.pinned.add(u.id)
    from engine.cca.special import marsh_entry  # noqa: PLC0415

    for h in path:
        if not u.gone():
            marsh_entry(w, u, h)
    if off and not u.gone():
        from engine.cca.special import exit_board  # noqa: PLC0415

        exit_board(w, u)


def _leader_enter(w: Work, ld: WLeader, h: Hex) -> str | None:
    if not w.on_board(h):
        return f"{h} is off the board"
    if "leader" in w.terrain(h).impassable:
        return f"{h} is impassable"
    e = w.unit_at(h)
    if e is not None and e.side != ld.side:
        return f"{h} holds an enemy unit"
    other_ld = w.leader_at(h)
    if other_ld is not None and other_ld.side != ld.side:
        return f"{h} holds an enemy leader"
    return None


def leader_reach(w: Work, ld: WLeader) -> dict[Hex, tuple[Hex, ...]]:
    """Hexes a leader on its own may end on (1-3 hexes, §7.3), with shortest paths."""
    assert ld.hex is not None
    start = ld.hex
    best: dict[Hex, tuple[Hex, ...]] = {start: ()}
    frontier: list[tuple[Hex, tuple[Hex, ...]]] = [(start, ())]
    for _ in range(LEADER_MOVE):
        nxt = []
        for h, path in frontier:
            for n in w.neighbours(h):
                if n in best or _leader_enter(w, ld, n) is not None:
                    continue
                p = (*path, n)
                best[n] = p
                if "leader" not in w.terrain(n).stop:
                    nxt.append((n, p))
        frontier = nxt
    return {
        h: p
        for h, p in best.items()
        if h == start or (w.leader_at(h) is None)
    }


def check_leader_path(w: Work, ld: WLeader, path: tuple[Hex, ...]) -> str | None:
    """Explain why a lone leader may not move along ``path`` (None if it may)."""
    assert ld.hex is not None
    if len(path) > LEADER_MOVE:
        return f"a leader moves at most {LEADER_MOVE} hexes"
    prev = ld.hex
    for i, h in enumerate(path):
        if not prev.is_adjacent(h):
            return f"{prev} and {h} are not adjacent"
        why = _leader_enter(w, ld, h)
        if why:
            return why
        if i == len(path) - 1 and w.leader_at(h) not in (None, ld):
            return f"{h} already holds a friendly leader"
        if i < len(path) - 1 and "leader" in w.terrain(h).stop:
            return f"a leader must stop on entering {h} ({w.state.terrain_at(h)})"
        prev = h
    return None


def do_leader_move(w: Work, ld: WLeader, path: tuple[Hex, ...]) -> None:
    """Move a leader on its own along a checked ``path``; it attaches where it ends."""
    assert ld.hex is not None
    start = ld.hex
    ld.hex = path[-1] if path else start
    if path:
        w.log("move", f"{ld.side} leader {ld.name} moves {start} > " + " > ".join(map(str, path)),
              leader=ld.name, path=[str(start), *map(str, path)])
    host = w.unit_at(ld.hex)
    if path and host is not None and host.side == ld.side:
        w.log("attach", f"leader {ld.name} joins the {host.type} in {ld.hex}", leader=ld.name)
        w.pinned.add(host.id)
    elif path:
        from engine.cca.special import leader_marsh  # noqa: PLC0415

        leader_marsh(w, ld, path[-1])


def moved_too_far_to_battle(w: Work, u: WUnit) -> str | None:
    """Why ``u`` may not battle after its move this turn (None if it may)."""
    s: UnitSpec = u.spec
    moved = w.moved.get(u.id, 0)
    if s.war_machine and moved:
        return "a war machine cannot battle in a turn it moved"
    limit = s.battle_after
    if w.card == "DT" and s.foot and not s.war_machine:
        limit = 3 if s.warrior else 2
    if w.card == "CH" and s.mounted and s.weight == "heavy":
        limit = 3
    if moved > limit:
        return f"{u.type} moved {moved} hexes and may not battle"
    for h in w.entered.get(u.id, set()):
        if mover_kind(s) in w.terrain(h).no_battle_on_entry:
            return f"{u.type} entered {h} ({w.state.terrain_at(h)}) this turn and may not battle"
    return None
