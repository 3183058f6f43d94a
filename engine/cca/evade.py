"""Evade (cca.md §14): who may, where to, the attacker's roll, war machines.

An evading unit moves 2 hexes toward its own side (1 only if 2 is
impossible), after the attacker rolls its usual dice where only the
evader's own symbol hits. The attacker may not advance afterwards.
"""

from __future__ import annotations

from engine.cca.combat import melee_dice
from engine.cca.leaders import check_after_losses
from engine.cca.units import (
    EVADE_ALWAYS,
    EVADE_FOOT_ELEPHANT,
    EVADE_FOOT_HEAVY,
    EVADE_WAR_MACHINE,
)
from engine.cca.work import Work, WUnit
from engine.hexgrid import Hex

__all__ = ["evade_paths", "may_evade", "resolve_evade"]


def may_evade(w: Work, u: WUnit, attacker: WUnit) -> bool:
    """Whether ``u`` may evade ``attacker`` by type (§14.1); paths are checked apart."""
    e = u.spec.evade
    a = attacker.spec
    if e in (EVADE_ALWAYS, EVADE_WAR_MACHINE):
        return True
    if e == EVADE_FOOT_HEAVY:
        return a.foot or a.weight == "heavy"
    if e == EVADE_FOOT_ELEPHANT:
        return a.foot or a.elephant
    return False


def _step_ok(w: Work, u: WUnit, h: Hex) -> bool:
    if not w.passable(h, u.spec) or w.unit_at(h) is not None:
        return False
    ld = w.leader_at(h)
    return ld is None or ld.side == u.side


def evade_paths(w: Work, u: WUnit) -> list[tuple[Hex, ...]]:
    """Legal evade paths: all 2-hex paths, else the 1-hex ones (§14.2 step 4)."""
    assert u.hex is not None
    has_leader = w.attached(u) is not None
    ones: list[tuple[Hex, ...]] = []
    twos: list[tuple[Hex, ...]] = []
    for a in w.rear(u.side, u.hex):
        if not _step_ok(w, u, a):
            continue
        passing = w.leader_at(a) is not None  # a lone friendly leader
        if passing and not has_leader:
            twos.append((a,))  # the unit picks him up and stops there: a full evade
            continue
        if not passing:
            ones.append((a,))
        # A unit with a leader may pass a lone friendly leader but not end on his hex, as in
        # a retreat: only the unit, an enemy leader or terrain blocks (§14.2 step 4).
        for b in w.rear(u.side, a):
            if _step_ok(w, u, b) and not (has_leader and w.leader_at(b) is not None):
                twos.append((a, b))
    return twos or ones


def resolve_evade(w: Work, att: WUnit, u: WUnit, is_bonus: bool) -> None:
    """The attacker rolls; a survivor moves away; a war machine then leaves (§14.2, §14.4)."""
    assert u.hex is not None and att.hex is not None
    start = u.hex
    dice = melee_dice(
        w, att, u, "attack", w.full_strength(att), is_bonus, target_full=w.full_strength(u)
    )
    faces = w.roll(dice, f"evade roll {att.hex} at {start}")
    hits = sum(1 for f in faces if f == u.spec.symbol)
    w.log(
        "evade",
        f"{u.label} evades; {att.label} rolls {dice} dice: {' '.join(faces)}",
        faces,
        unit=u.id,
        attacker=att.id,
        hits=hits,
    )
    ld = w.attached(u)
    lost = w.lose_blocks(u, hits, att.side, "hit while evading")
    if lost and ld is not None:
        check_after_losses(w, ld, u.hex is None, att.side, w.rolls)
    if u.gone():
        return
    paths = evade_paths(w, u)
    if not paths:
        return
    names = [" > ".join(map(str, p)) for p in paths]
    pol = w.decider.policy(u.side, "retreat")
    pick = w.decider.choose(
        u.side,
        "evade-path",
        f"{u.label} evades: which path?",
        names,
        names[0],
        None if pol == "ask" else names[0],
    )
    path = paths[names.index(pick)]
    w.relocate(u, path[-1])
    w.log(
        "evade-move",
        f"{u.side} {u.type} evades {start} > " + " > ".join(map(str, path)),
        unit=u.id,
        path=[str(start), *map(str, path)],
    )
    from engine.cca.retreat import _marsh_rolls  # noqa: PLC0415

    _marsh_rolls(w, u, path)
    if u.gone():
        return
    if u.spec.war_machine:
        u.hex = None
        w.log(
            "crew-fled",
            f"the war machine's crew flees: the {u.type} is removed (no banner)",
            unit=u.id,
        )
