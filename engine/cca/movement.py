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
from engine.cca.units import UnitSpec
from engine.cca.work import WLeader, Work, WUnit
from engine.hexgrid import Hex

__all__ = [
    "allowance",
    "check_leader_path",
    "check_path",
    "do_leader_move",
    "do_move",
    "end_rule",
    "leader_allowance",
    "leader_reach",
    "leader_step_rule",
    "reach",
    "step_rule",
    "stopped_by_terrain",
    "why_not_reach",
]


def allowance(w: Work, u: WUnit) -> int:
    """Hexes ``u`` may move this turn under the card in effect (§7.2, §18.5).

    A reinforcement placed on the board this turn has used one hex (§19). A unit that
    entered Stop terrain this turn moves no further, even in a second move (§17, §18.5).
    """
    s = u.spec
    card = w.effect
    n = s.move
    if card in ("CS", "DS") or stopped_by_terrain(w, u):
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
    if u.id in w.placed:  # the entry hex was its first hex; Stop terrain there ends it
        n = 0 if mover_kind(s) in w.terrain(u.hex).stop else n - 1
    return max(n, 0)


def stopped_by_terrain(w: Work, u: WUnit) -> str | None:
    """Why ``u`` may not move again this turn: it entered Stop terrain (None if it did not).

    The terrain legend's Stop holds for the whole turn the unit enters the hex, so a
    Move-Fire-Move second move may not start from it (§17 legend, §18.5).
    """
    kind = mover_kind(u.spec)
    stops = [h for h in w.entered.get(u.id, ()) if kind in w.terrain(h).stop]
    if not stops:
        return None
    h = min(stops, key=lambda x: (x.y, x.x))
    return (
        f"the {u.type} entered {h} ({w.state.terrain_at(h)}) this turn and must stop there "
        "for the rest of the turn"
    )


def _through_friends(w: Work, u: WUnit, steps: int) -> bool:
    """Light foot pass through friends under Order Light Troops or a 2-hex MFM move (§7.1)."""
    if not u.spec.light_foot:
        return False
    return w.effect == "LT" or (w.effect == "MFM" and steps >= 2)


def _can_enter(w: Work, u: WUnit, start: Hex, h: Hex) -> str | None:
    """Why ``u`` may not step into ``h`` at all (None: it may, perhaps only to pass through)."""
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


def step_rule(  # noqa: PLR0917
    w: Work, u: WUnit, start: Hex, h: Hex, last: bool, steps: int
) -> str | None:
    """Why ``u`` may not enter ``h`` on a move of ``steps`` hexes (§7.1, §16.6, §17).

    ``last``: the move ends on ``h``; otherwise it passes through. This is the
    one movement rule: :func:`reach` (the legal list) and :func:`check_path`
    (an explicit path) both ask it, so they agree by construction.
    """
    why = _can_enter(w, u, start, h)
    if why:
        return why
    friend = w.unit_at(h)
    if friend is not None and friend is not u and (last or not _through_friends(w, u, steps)):
        return f"{h} holds a friendly unit" + (
            "" if last else " (only light foot under LT or MFM may pass through)"
        )
    lone = w.leader_at(h)
    if lone is not None and (friend is None or friend is u) and lone is not w.attached(u):
        if w.attached(u) is not None:
            return f"{h} holds a friendly leader and {u.type} already has one"
        if not last:
            return f"a unit entering {h} (a lone friendly leader) must stop there"
    if not last and mover_kind(u.spec) in w.terrain(h).stop:
        return f"{u.type} must stop on entering {h} ({w.state.terrain_at(h)})"
    return None


WARRIORS_MUST_CLOSE = "must end next to an enemy unit"
"""Text of the end rule's refusal (validation reports it as ``warriors-must-close``)."""


def end_rule(w: Work, u: WUnit, path: tuple[Hex, ...]) -> str | None:
    """Why a move along ``path`` may not end where it does (§3.2 warriors), None if it may."""
    need = u.spec.must_melee_after
    moved = len(path) + (1 if u.id in w.placed else 0)
    if not need or not path or moved < need:
        return None
    if any((e := w.unit_at(n)) is not None and e.side != u.side for n in w.neighbours(path[-1])):
        return None
    return f"warriors moving {moved} hexes {WARRIORS_MUST_CLOSE}"


def _search(w: Work, u: WUnit, max_steps: int) -> dict[Hex, tuple[Hex, ...]]:
    """Every hex the step rule lets ``u`` end on, with a shortest path (fixed neighbour order).

    :func:`step_rule` for ending on a hex and for passing through it, asked once
    for both, on the board as integers (:meth:`engine.hexgrid.Board.indexed`:
    this is the rules' inner loop): entering at all (:func:`_can_enter`: the
    board, impassable terrain, adjacent-start terrain, enemies), then a
    friendly unit (only light foot pass through, under LT or a 2-hex MFM move),
    a lone friendly leader (a unit entering it stops there; one that has a
    leader may not), Stop terrain (ends a move).
    """
    assert u.hex is not None
    start = u.hex
    side = u.side
    kind = mover_kind(u.spec)
    att = w.attached(u)
    hexes, where, near = w.state.board.indexed()
    # What stands where, by position (nothing moves during the search).
    units: list[WUnit | None] = [None] * len(hexes)
    for at, piece in w.units.index().items():
        i = where.get(at)
        if i is not None:
            units[i] = piece
    leaders: list[WLeader | None] = [None] * len(hexes)
    for at, lead in w.leaders.index().items():
        i = where.get(at)
        if i is not None:
            leaders[i] = lead
    terrain = w.terrain_by_position(hexes)
    through = {d: _through_friends(w, u, d + 1) for d in range(1, max_steps)}
    ends: dict[Hex, tuple[Hex, ...]] = {start: ()}
    s0 = where[start]
    seen = [False] * len(hexes)
    seen[s0] = True
    frontier: list[tuple[int, tuple[Hex, ...]]] = [(s0, ())]
    for d in range(1, max_steps + 1):
        nxt: list[tuple[int, tuple[Hex, ...]]] = []
        last = d >= max_steps
        for i, path in frontier:
            for n in near[i]:
                if seen[n]:
                    continue
                ter = terrain[n]
                if ter is None:
                    ter = terrain[n] = w.terrain(hexes[n])
                if kind in ter.impassable or (
                    kind in ter.enter_only_from_adjacent_start and not start.is_adjacent(hexes[n])
                ):
                    continue
                friend = units[n]
                if friend is not None and friend.side != side:
                    continue
                lone = leaders[n]
                if lone is not None and lone.side != side:
                    continue
                other = friend is not None and friend is not u
                joins = lone is not None and not other and lone is not att
                end_ok = not other and not (joins and att is not None)
                pass_ok = not (last or joins or (other and not through[d]) or kind in ter.stop)
                if end_ok or pass_ok:
                    seen[n] = True
                    hx = hexes[n]
                    p = (*path, hx)
                    if end_ok:
                        ends[hx] = p
                    if pass_ok:
                        nxt.append((n, p))
        frontier = nxt
    return ends


def reach(w: Work, u: WUnit, limit: int | None = None) -> dict[Hex, tuple[Hex, ...]]:
    """Every hex ``u`` may end a move on, with the shortest path to it (steps after start)."""
    found = _search(w, u, allowance(w, u) if limit is None else limit)
    return {h: p for h, p in found.items() if end_rule(w, u, p) is None}


def why_not_reach(w: Work, u: WUnit, h: Hex) -> str:
    """Why ``u`` cannot end a move on ``h`` (for a ``move X to Y`` that is refused)."""
    stopped = stopped_by_terrain(w, u)
    if stopped and h != u.hex:
        return stopped
    path = _search(w, u, allowance(w, u)).get(h)
    why = None if path is None else end_rule(w, u, path)
    return why or f"the {u.type} in {u.hex} cannot reach {h}"


def check_path(w: Work, u: WUnit, path: tuple[Hex, ...]) -> str | None:
    """Explain why ``u`` may not move along ``path`` (None if it may)."""
    assert u.hex is not None
    start = u.hex
    stopped = stopped_by_terrain(w, u)
    if stopped and path:
        return stopped
    if len(path) > allowance(w, u):
        return f"{u.type} may move at most {allowance(w, u)} hexes now, not {len(path)}"
    prev = start
    for i, h in enumerate(path):
        if not prev.is_adjacent(h):
            return f"{prev} and {h} are not adjacent"
        why = step_rule(w, u, start, h, i == len(path) - 1, len(path))
        if why:
            return why
        prev = h
    return end_rule(w, u, path)


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
        w.log(
            "move",
            f"{u.side} {u.type} moves {start} > " + " > ".join(map(str, path)),
            unit=u.id,
            path=[str(start), *map(str, path)],
        )
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


def leader_allowance(w: Work, ld: WLeader) -> int:
    """Hexes a lone leader may move (§7.3): 3, or 1 off a marsh or city-wall hex (§17.4)."""
    assert ld.hex is not None
    leave = w.terrain(ld.hex).leave_max_move
    most = w.state.tables.leader_moves["move"]
    return most if leave is None else min(most, leave)


def leader_step_rule(w: Work, ld: WLeader, start: Hex, h: Hex, last: bool) -> str | None:
    """Why a lone leader may not enter ``h`` (``last``: its move ends there), §7.3, §16.6.

    The one rule behind both :func:`leader_reach` and :func:`check_leader_path`.
    """
    if not w.on_board(h):
        return f"{h} is off the board"
    ter = w.terrain(h)
    if "leader" in ter.impassable:
        return f"{h} is impassable"
    if "leader" in ter.enter_only_from_adjacent_start and not start.is_adjacent(h):
        return f"{h} ({w.state.terrain_at(h)}) may be entered only from an adjacent start hex"
    e = w.unit_at(h)
    if e is not None and e.side != ld.side:
        return f"{h} holds an enemy unit"
    other_ld = w.leader_at(h)
    if other_ld is not None and other_ld.side != ld.side:
        return f"{h} holds an enemy leader"
    if last and other_ld not in (None, ld):
        return f"{h} already holds a friendly leader"
    if not last and "leader" in w.terrain(h).stop:
        return f"a leader must stop on entering {h} ({w.state.terrain_at(h)})"
    return None


def leader_reach(w: Work, ld: WLeader) -> dict[Hex, tuple[Hex, ...]]:
    """Hexes a leader on its own may end on (1-3 hexes, §7.3), with shortest paths."""
    assert ld.hex is not None
    start = ld.hex
    most = leader_allowance(w, ld)
    ends: dict[Hex, tuple[Hex, ...]] = {start: ()}
    seen = {start}
    frontier: list[tuple[Hex, tuple[Hex, ...]]] = [(start, ())]
    for d in range(1, most + 1):
        nxt = []
        for h, path in frontier:
            for n in w.neighbours(h):
                if n in seen:
                    continue
                p = (*path, n)
                end_ok = leader_step_rule(w, ld, start, n, True) is None
                pass_ok = d < most and leader_step_rule(w, ld, start, n, False) is None
                if end_ok or pass_ok:
                    seen.add(n)
                if end_ok:
                    ends[n] = p
                if pass_ok:
                    nxt.append((n, p))
        frontier = nxt
    return ends


def check_leader_path(w: Work, ld: WLeader, path: tuple[Hex, ...]) -> str | None:
    """Explain why a lone leader may not move along ``path`` (None if it may)."""
    assert ld.hex is not None
    most = leader_allowance(w, ld)
    if len(path) > most:
        return f"leader {ld.name} may move at most {most} hexes now, not {len(path)}"
    prev = ld.hex
    for i, h in enumerate(path):
        if not prev.is_adjacent(h):
            return f"{prev} and {h} are not adjacent"
        why = leader_step_rule(w, ld, ld.hex, h, i == len(path) - 1)
        if why:
            return why
        prev = h
    return None


def do_leader_move(w: Work, ld: WLeader, path: tuple[Hex, ...]) -> None:
    """Move a leader on its own along a checked ``path``; it attaches where it ends."""
    assert ld.hex is not None
    start = ld.hex
    ld.hex = path[-1] if path else start
    if path:
        w.log(
            "move",
            f"{ld.side} leader {ld.name} moves {start} > " + " > ".join(map(str, path)),
            leader=ld.name,
            path=[str(start), *map(str, path)],
        )
    host = w.unit_at(ld.hex)
    if path and host is not None and host.side == ld.side:
        w.log("attach", f"leader {ld.name} joins the {host.type} in {ld.hex}", leader=ld.name)
        w.pinned.add(host.id)
    elif path:
        from engine.cca.leaders import leader_marsh  # noqa: PLC0415

        leader_marsh(w, ld, path[-1])


def moved_too_far_to_battle(w: Work, u: WUnit) -> str | None:
    """Why ``u`` may not battle after its move this turn (None if it may)."""
    s: UnitSpec = u.spec
    moved = w.moved.get(u.id, 0)
    if s.war_machine and moved:
        return "a war machine cannot battle in a turn it moved"
    limit = s.battle_after
    if w.effect == "DT" and s.foot and not s.war_machine:
        limit = 3 if s.warrior else 2
    if w.effect == "CH" and s.mounted and s.weight == "heavy":
        limit = 3
    if moved > limit:
        return f"{u.type} moved {moved} hexes and may not battle"
    for h in w.entered.get(u.id, set()):
        if mover_kind(s) in w.terrain(h).no_battle_on_entry:
            return f"{u.type} entered {h} ({w.state.terrain_at(h)}) this turn and may not battle"
    return None
