"""Flags, retreats, blocked retreats, elephant rampage and elephant retreat (cca.md §12, §13).

:func:`take_flags` is called after a roll's hits and leader check: the
owner decides how many flags to ignore (§12.3), then the unit retreats its
distance per accepted flag along a path it chooses (§12.2), losing a block
per hex it cannot retreat. An elephant rampages first and then retreats by
its own blocking rule (§13).
"""

from __future__ import annotations

from engine.cca.leaders import check_after_losses, leader_evade
from engine.cca.state import other
from engine.cca.work import WLeader, Work, WUnit
from engine.hexgrid import Hex

__all__ = ["flag_ignores", "retreat", "take_flags"]


def flag_ignores(  # noqa: PLR0917
    w: Work, u: WUnit, roller: WUnit | None, close: bool, leader_ok: bool, full: bool
) -> int:
    """How many flags ``u`` may ignore against this roll (§12.3; reasons add up)."""
    s = u.spec
    n = 0
    if not s.elephant:
        if leader_ok and w.attached(u) is not None:
            n += 1
        if w.supporters(u) >= 2:
            n += 1
    assert u.hex is not None
    ter = w.terrain(u.hex)
    if s.foot and ter.foot_ignores_flag:
        from engine.cca.combat import protected_edge  # noqa: PLC0415

        if not ter.ramparts or (
            roller is not None and roller.hex is not None and protected_edge(w, u.hex, roller.hex)
        ):
            n += ter.foot_ignores_flag
    if s.strength_bonus and full:
        n += 1
    if s.elephant and close and roller is not None and roller.spec.cav_or_chariot:
        n += 1
    if w.has_tag_rule("sacred-band", u):
        n += 1
    return n


def take_flags(  # noqa: PLR0917
    w: Work,
    u: WUnit,
    flags: int,
    roller: WUnit | None,
    close: bool,
    leader_ok: bool,
    full: bool,
    cause: int,
) -> bool:
    """Apply ``flags`` to ``u``; return True if it left its hex (retreated out).

    ``cause`` numbers the roll that gave the flags: losses for a blocked retreat share
    its leader check (§16.1).
    """
    if flags <= 0 or u.hex is None:
        return False
    can = min(flags, flag_ignores(w, u, roller, close, leader_ok, full))
    pol = w.decider.policy(u.side, "flags")
    auto = {"ignore-all": str(can), "accept-all": "0"}.get(pol)
    ign = int(
        w.decider.choose(
            u.side,
            "flags",
            f"{u.label} gets {flags} flag(s) and may ignore up to {can}: how many?",
            [str(i) for i in range(can, -1, -1)],
            str(can),
            auto,
        )
    )
    accepted = flags - ign
    if ign:
        w.log("flags", f"{u.label} ignores {ign} of {flags} flag(s)", unit=u.id, ignored=ign)
    if accepted <= 0:
        return False
    per = int(w.state.option("elephant_retreat_per_flag")) if u.spec.elephant else u.spec.retreat
    total = accepted * per
    if roller is not None and (roller.spec.elephant or roller.spec.camel) and u.spec.cav_or_chariot:
        total += flags if w.state.option("extra_retreat_per_flag_rolled") else accepted
    by = roller.side if roller is not None else other(u.side)
    start = u.hex
    if u.spec.elephant:
        rampage(w, u, by)
        if u.gone():
            return True
        elephant_retreat(w, u, total, by, cause)
    else:
        retreat(w, u, total, by, cause)
    return u.hex != start


def _paths(w: Work, u: WUnit, n: int) -> list[tuple[tuple[Hex, ...], int]]:
    """Every distinct retreat path, as (path, hexes short), in a fixed walk order.

    Two paths to the same hex are both listed: the owner chooses the path, not
    only its end (a path may cross marsh, §17.4). Every path to one hex has the
    same length, since each step goes one row back.
    """
    assert u.hex is not None
    has_leader = w.attached(u) is not None
    results: list[tuple[tuple[Hex, ...], int]] = []

    def walk(h: Hex, path: tuple[Hex, ...]) -> None:
        left = n - len(path)
        moved = False
        if left > 0:
            for nx in w.rear(u.side, h):
                if not w.passable(nx, u.spec) or w.unit_at(nx) is not None:
                    continue
                ld = w.leader_at(nx)
                if ld is not None and ld.side != u.side:
                    continue
                if ld is not None:  # a lone friendly leader
                    if not has_leader:
                        results.append(((*path, nx), 0))  # picks it up and stops
                        moved = True
                        continue
                    if left == 1:  # may pass but not end there
                        continue
                moved = True
                walk(nx, (*path, nx))
        if not moved or left == 0:
            results.append((path, left))

    walk(u.hex, ())
    return sorted(results, key=lambda r: r[1])


def _choose_path(w: Work, u: WUnit, n: int, options: list[tuple[Hex, ...]]) -> tuple[Hex, ...]:
    """The owner's choice among equally good retreat paths (standing order ``retreat``)."""
    pol = w.decider.policy(u.side, "retreat")
    best = sorted(options, key=lambda p: _order_key(w, u, p, pol == "prefer-friends"))
    names = [" > ".join(map(str, p)) if p else "stay" for p in best]
    pick = w.decider.choose(
        u.side,
        "retreat",
        f"{u.label} retreats {n} hex(es): which path?",
        names,
        names[0],
        None if pol == "ask" else names[0],
    )
    return best[names.index(pick)]


def _order_key(w: Work, u: WUnit, path: tuple[Hex, ...], prefer_friends: bool) -> tuple[int, int]:
    end = path[-1] if path else u.hex
    assert end is not None
    friends = 0
    if prefer_friends:
        for h in w.neighbours(end):
            f = w.unit_at(h)
            friends += 1 if f is not None and f.side == u.side and f is not u else 0
    left = end.x if u.side == "south" else -end.x  # leftmost as the owner sees the board
    return (-friends, left)


def retreat(w: Work, u: WUnit, n: int, by: str, cause: int) -> None:
    """Retreat ``u`` ``n`` hexes toward its side; lose a block per hex it cannot (§12.2).

    ``cause`` numbers the roll whose flags made it retreat (one leader check, §16.1).
    """
    assert u.hex is not None
    options = _paths(w, u, n)
    fewest = min(short for _, short in options)
    path = _choose_path(w, u, n, [p for p, short in options if short == fewest])
    start = u.hex
    if path:
        ld = w.relocate(u, path[-1])
        w.log(
            "retreat",
            f"{u.side} {u.type} retreats {start} > " + " > ".join(map(str, path)),
            unit=u.id,
            path=[str(start), *map(str, path)],
        )
        joined = w.leader_at(u.hex)
        if ld is None and joined is not None:
            w.log("attach", f"leader {joined.name} joins the retreating {u.type}")
        _marsh_rolls(w, u, path)
        if u.gone():
            return
    if fewest:
        w.log("retreat-blocked", f"{u.label} cannot retreat {fewest} hex(es)", unit=u.id)
        where_ld = w.attached(u)
        lost = w.lose_blocks(u, fewest, by, "blocked retreat")
        if lost:  # one roll, one check: a leader checked already just evades (§16.1)
            check_after_losses(w, where_ld, u.gone(), by, cause)


def _marsh_rolls(w: Work, u: WUnit, path: tuple[Hex, ...]) -> None:
    """A retreating or evading unit rolls for each marsh hex it enters (§17.4)."""
    from engine.cca.special import marsh_entry  # noqa: PLC0415

    for h in path:
        if not u.gone():
            marsh_entry(w, u, h)


def rampage(w: Work, ele: WUnit, by: str) -> None:
    """An elephant that must retreat first rolls 2 dice at every adjacent hex (§13.2)."""
    assert ele.hex is not None
    w.log("rampage", f"the {ele.side} elephants in {ele.hex} rampage", unit=ele.id)
    targets = [h for h in w.neighbours(ele.hex) if w.unit_at(h) or w.leader_at(h)]
    if w.decider.policy(by, "rampage") == "ask":  # the side that caused it picks the order
        left = list(targets)
        targets = []
        while left:
            names = [str(h) for h in left]
            pick = w.decider.choose(
                by,
                "rampage",
                f"The elephants in {ele.hex} rampage: which hex is rolled for next?",
                names,
                names[0],
            )
            targets.append(left.pop(names.index(pick)))
    for h in targets:
        t = w.unit_at(h)
        if t is not None:
            faces = w.roll(2, f"rampage of elephants {ele.hex} at {h}")
            cause = w.rolls  # each rampage roll makes its own check (HU 358)
            hits = sum(1 for f in faces if f == t.spec.symbol)
            w.log("rampage-roll", f"rampage at {t.label}: {' '.join(faces)}", faces, unit=t.id)
            ld = w.attached(t)
            lost = w.lose_blocks(t, hits, other(t.side), "elephant rampage")
            if lost:
                check_after_losses(w, ld, t.hex is None, other(t.side), cause)
            continue
        ldr: WLeader | None = w.leader_at(h)
        if ldr is None:
            continue
        faces = w.roll(2, f"rampage of elephants {ele.hex} at leader {ldr.name}")
        w.log("rampage-roll", f"rampage at leader {ldr.name}: {' '.join(faces)}", faces)
        if "H" in faces:
            w.kill_leader(ldr, other(ldr.side), "elephant rampage")
        else:
            leader_evade(w, ldr)


def _blocks(w: Work, ele: WUnit, h: Hex) -> bool:
    if w.unit_at(h) is not None:
        return True
    ld = w.leader_at(h)
    return ld is not None and ld.side != ele.side


def elephant_retreat(w: Work, ele: WUnit, n: int, by: str, cause: int) -> None:
    """Retreat an elephant; units blocking it lose the blocks instead (§13.3, A-9).

    The losses of a blocked retreat come from the roll ``cause`` whose flags made the
    elephant retreat: they check a leader even if a rampage roll has checked him (§16.1).
    """
    assert ele.hex is not None
    options = _paths(w, ele, n)
    fewest = min(short for _, short in options)
    # The owner chooses among the paths that go furthest (§12.2, §13.3); where it
    # stops decides which units block it and lose blocks.
    path = _choose_path(w, ele, n, [p for p, s in options if s == fewest])
    start = ele.hex
    if path:
        w.relocate(ele, path[-1])
        w.log(
            "retreat",
            f"{ele.side} ELE retreats {start} > " + " > ".join(map(str, path)),
            unit=ele.id,
        )
        _marsh_rolls(w, ele, path)  # as any retreating unit (§17.4)
        if ele.gone():
            return
    if not fewest:
        return
    assert ele.hex is not None
    blockers = [h for h in w.rear(ele.side, ele.hex) if w.on_board(h) and _blocks(w, ele, h)]
    if not blockers:
        w.log("retreat-blocked", f"the elephants cannot retreat {fewest} hex(es)", unit=ele.id)
        eld = w.attached(ele)
        lost = w.lose_blocks(ele, fewest, by, "blocked retreat")
        if lost:
            check_after_losses(w, eld, ele.hex is None, by, cause)
        return
    w.log(
        "retreat-blocked",
        f"the elephants cannot retreat {fewest} hex(es): the units "
        f"behind them lose {fewest} block(s) each",
        unit=ele.id,
    )
    checks: list[tuple[WLeader | None, WUnit]] = []
    with w.together():
        for h in blockers:
            t = w.unit_at(h)
            if t is not None:
                ld2 = w.attached(t)
                w.lose_blocks(t, fewest, other(t.side), "blocking an elephant retreat")
                checks.append((ld2, t))
                continue
            lone = w.leader_at(h)
            if lone is not None:
                lone.hex = None
                w.log("leader-killed", f"leader {lone.name} is trampled by retreating elephants")
                w.add_banner(other(lone.side), f"leader:{lone.name}")
    for ld2, t in checks:
        check_after_losses(w, ld2, t.hex is None, other(t.side), cause)
