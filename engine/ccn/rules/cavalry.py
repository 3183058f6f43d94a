"""Cavalry retire and reform (ccn.md §20).

A cavalry unit that an enemy infantry unit (a square, or an infantry-led combined-arms
attack, included) declares a melee against may retire and reform, if it can retire a full 2
hexes toward its own side. Never against cavalry or artillery, fire, a battle back, or a
First Strike (the cavalry is then the attacker). The attacker asks before rolling
(:func:`offer_retire`: standing order ``retire``); the attacker then rolls its usual dice, of
which only CAV hits (:func:`resolve_retire`); a survivor moves exactly 2 hexes and does not
battle back; the infantry may take ground.

Retire steps are retreat steps (§15.1): no unit, no enemy leader, no impassable terrain, not
off the map. A lone friendly leader on the first hex makes that path invalid; on the second
hex it is acceptable for cavalry without a leader, which ends there and the leader attaches
([R] A18).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.ccn.rules.field import Field, L, Referee, U, arm, attached, rear, terrain
from engine.ccn.rules.hits import RETIRING, score
from engine.ccn.rules.leaders import check_leader
from engine.ccn.rules.take_ground import ATTACK, BONUS
from engine.hexgrid import Hex

__all__ = ["may_retire", "offer_retire", "resolve_retire", "retire_paths"]


def _open(f: Field[U, L], u: U, h: Hex) -> bool:
    if terrain(f, h).impassable or f.unit_at(h) is not None:
        return False
    ld = f.leader_at(h)
    return ld is None or ld.side == u.side


def retire_paths(f: Field[U, L], cav: U) -> list[tuple[Hex, Hex]]:
    """Every 2-hex retire of ``cav`` toward its baseline (module docstring)."""
    assert cav.hex is not None
    has_leader = attached(f, cav) is not None
    out = []
    for a in rear(f, cav.side, cav.hex):
        if not _open(f, cav, a) or f.leader_at(a) is not None:
            continue
        for b in rear(f, cav.side, a):
            if _open(f, cav, b) and not (has_leader and f.leader_at(b) is not None):
                out.append((a, b))
    return out


def may_retire(f: Field[U, L], cav: U, attacker: U, how: str) -> str | None:
    """Why ``cav`` may not retire and reform from ``attacker``'s melee, or None if it may."""
    if cav.hex is None or arm(f, cav) != "cavalry":
        return "only cavalry retires and reforms"
    if arm(f, attacker) != "infantry":
        return "only an infantry attack may be answered by retire and reform"
    if how not in (ATTACK, BONUS):
        return f"no retire and reform against a {how}"
    if not retire_paths(f, cav):
        return "it cannot retire 2 hexes"
    return None


def offer_retire(ref: Referee[U, L], cav: U, attacker: U, how: str = ATTACK) -> bool:
    """Ask the owner of ``cav`` whether it retires and reforms (standing order ``retire``);
    False where the rules do not allow it."""
    if may_retire(ref, cav, attacker, how) is not None:
        return False
    pol = ref.decider.policy(cav.side, "retire")
    auto = {"always": "retire", "never": "stand"}.get(pol)
    pick = ref.decider.choose(
        cav.side,
        "retire",
        f"The {attacker.type} in {attacker.hex} attacks your {cav.type} in {cav.hex}: "
        "retire and reform?",
        ["retire", "stand"],
        "stand",
        auto,
    )
    return pick == "retire"


def resolve_retire(
    ref: Referee[U, L], cav: U, faces: Sequence[str], by: str, checked: set[str]
) -> tuple[Hex, ...]:
    """Apply the attacker's roll to retiring ``cav`` (only CAV hits), make the leader
    check, then move it 2 hexes along the owner's path. Returns the path (empty if the
    cavalry was eliminated)."""
    got = score(faces, "cavalry", RETIRING)
    ld = attached(ref, cav)
    lost = ref.lose_blocks(cav, got.hits, by, "hit while retiring") if got.hits else 0
    if lost and ld is not None:
        check_leader(ref, ld, cav.hex is None, by, checked)
    if cav.hex is None:
        return ()
    paths = retire_paths(ref, cav)
    if not paths:  # cannot happen unless the roll changed the board; the cavalry stands
        ref.log("retire-blocked", f"the {cav.type} in {cav.hex} cannot retire", unit=cav.id)
        return ()
    names = [f"{a} > {b}" for a, b in paths]
    pol = ref.decider.policy(cav.side, "retreat")
    pick = ref.decider.choose(
        cav.side,
        "retire-path",
        f"Your {cav.type} in {cav.hex} retires 2 hexes: which path?",
        names,
        names[0],
        None if pol == "ask" else names[0],
    )
    path = paths[names.index(pick)]
    start = cav.hex
    ref.move_unit(cav, path[-1])
    ref.log(
        "retire",
        f"{cav.side} {cav.type} retires and reforms {start} > {pick}",
        unit=cav.id,
        path=[str(start), *map(str, path)],
    )
    return path
