"""Leaders under attack (ccn.md §16, §17): casualty checks, lone leaders, retreat, escape.

:func:`check_leader` makes the one casualty check a combat allows an attached leader (2 dice,
both SABRE kill; 1 die, SABRE kills, when the unit is eliminated, then the survivor retreats
alone). :func:`attack_lone_leader` resolves a melee against a lone leader (one SABRE kills,
whoever rolls; else it retreats). :func:`leader_retreat` moves a leader that must retreat 1-3
hexes toward its baseline along the owner's chosen path (:func:`leader_paths`), escaping
through enemy units on the way (§17.3: the enemy unit rolls its usual melee dice, no terrain
for the leader, one SABRE kills), or off the map across its own baseline (no banner); with no
legal path it is eliminated (banner).

Impassable hexes for a leader are terrain.toml ``impassable`` (river, steep slope). The
rulebook's leader-retreat list also names the sand quarry; the digest reads it as passable
for leaders (ccn.md §17.2 [R], §27 A5) and so does the data.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.ccn.dice import melee_dice
from engine.ccn.rules.field import Field, L, Referee, U, host, rear, terrain
from engine.ccn.rules.hits import check_kills, lone_leader_killed
from engine.ccn.strength import Strength
from engine.hexgrid import Hex

__all__ = [
    "OFF",
    "LeaderPath",
    "attack_lone_leader",
    "check_leader",
    "escape_dice",
    "leader_paths",
    "leader_retreat",
]

OFF = "off"
"""The last word of a path that leaves the map across the leader's own baseline."""


@dataclass(frozen=True)
class LeaderPath:
    """One way a leader may retreat: the hexes entered, whether it then leaves the map, and
    the enemy-held hexes it must escape through (in order)."""

    hexes: tuple[Hex, ...]
    off: bool = False
    escapes: tuple[Hex, ...] = ()

    def text(self) -> str:
        """The answer a player writes: ``C3 > C2`` or ``C2 > off``."""
        return " > ".join([*map(str, self.hexes), *([OFF] if self.off else [])])


def check_leader(ref: Referee[U, L], ld: L, eliminated: bool, by: str, checked: set[str]) -> bool:
    """The casualty check of an attached leader whose unit lost blocks (ccn.md §16.1-§16.2).

    ``checked`` holds the leaders already checked in this combat: one check per combat; a
    leader checked before whose unit is now eliminated just retreats. Returns True if the
    leader is still attached and alive afterwards.
    """
    if ld.hex is None:
        return False
    if ld.name in checked:
        if eliminated:
            leader_retreat(ref, ld, by)
        return not eliminated
    checked.add(ld.name)
    dice = 1 if eliminated else 2
    faces = ref.roll(dice, f"leader check for {ld.name}")
    why = "its unit is eliminated" if eliminated else "its unit lost blocks"
    ref.log(
        "leader-check",
        f"leader {ld.name}: {why}, check with {dice} dice: {' '.join(faces)}",
        faces,
        leader=ld.name,
    )
    if check_kills(faces):
        ref.kill_leader(ld, by, "casualty check")
        return False
    if eliminated:
        leader_retreat(ref, ld, by)
        return False
    return True


def escape_dice(f: Field[U, L], e: U) -> int:
    """The dice an enemy unit rolls at an escaping leader: its usual melee dice for its type
    and blocks, no card and no terrain; a square rolls 1 (ccn.md §17.3 [R])."""
    if e.square:
        return 1
    return melee_dice(f.tables, Strength(e.nation, e.type, e.blocks), 0, "leader")


def leader_paths(f: Field[U, L], ld: L) -> list[LeaderPath]:
    """Every legal retreat of ``ld``: 1-3 hexes toward its baseline, in a fixed order
    (ccn.md §17.2, §17.3). A path may pass friendly units and lone friendly leaders, end
    on an empty hex or a friendly unit without a leader (it attaches), escape through enemy
    units (with or without their leader), or leave the map from the baseline; it never passes
    a lone enemy leader nor ends on an enemy unit, an enemy leader or another friendly
    leader."""
    assert ld.hex is not None
    base = f.baseline(ld.side)
    out: list[LeaderPath] = []

    def walk(h: Hex, path: tuple[Hex, ...], escapes: tuple[Hex, ...]) -> None:
        if path:
            unit = f.unit_at(h)
            other = f.leader_at(h)
            friendly = unit is None or unit.side == ld.side
            if friendly and other is None:
                out.append(LeaderPath(path, False, escapes))
        if len(path) < 3 and h.row == base:
            out.append(LeaderPath(path, True, escapes))
        if len(path) == 3:
            return
        for n in rear(f, ld.side, h):
            if terrain(f, n).impassable:
                continue
            other = f.leader_at(n)
            unit = f.unit_at(n)
            hostile = unit is not None and unit.side != ld.side
            if other is not None and other.side != ld.side and not hostile:
                continue  # a lone enemy leader ([R] §17.2); one with its unit is escaped
            walk(n, (*path, n), (*escapes, n) if hostile else escapes)

    walk(ld.hex, (), ())
    return [p for p in out if p.hexes or p.off]


def _auto(f: Field[U, L], ld: L, paths: list[LeaderPath]) -> LeaderPath:
    """ccn.md §26.2 [R]: the nearest legal hex, preferring to join a friendly unit, then the
    owner's leftmost; never an escape or leaving the map if anything else is possible."""

    flip = 1 if f.baseline(ld.side) == 1 else -1  # the owner's left first

    def key(p: LeaderPath) -> tuple[int, int, int, int, int, str]:
        joins = bool(p.hexes) and not p.off and host_at(f, ld, p.hexes[-1])
        end = flip * p.hexes[-1].x if p.hexes else 0
        return (len(p.escapes), int(p.off), 0 if joins else 1, len(p.hexes), end, p.text())

    return min(paths, key=key)


def host_at(f: Field[U, L], ld: L, h: Hex) -> bool:
    """Whether a friendly unit without a leader stands on ``h`` (``ld`` would attach)."""
    u = f.unit_at(h)
    return u is not None and u.side == ld.side and f.leader_at(h) is None


def leader_retreat(ref: Referee[U, L], ld: L, by: str) -> None:
    """Retreat a lone leader 1-3 hexes, escaping where its path crosses enemy units, or
    eliminate it if it has no legal retreat (ccn.md §16.2, §16.3, §17)."""
    assert ld.hex is not None
    paths = leader_paths(ref, ld)
    if not paths:
        ref.log("leader-trapped", f"leader {ld.name} in {ld.hex} has no retreat", leader=ld.name)
        ref.kill_leader(ld, by, "no retreat")
        return
    auto = _auto(ref, ld, paths)
    names = [p.text() for p in paths]
    pol = ref.decider.policy(ld.side, "leader-retreat")
    pick = ref.decider.choose(
        ld.side,
        "leader-retreat",
        f"Leader {ld.name} in {ld.hex} must retreat 1-3 hexes: which path?",
        names,
        auto.text(),
        auto.text() if pol == "auto" else None,
    )
    path = paths[names.index(pick)]
    start = ld.hex
    for h in path.escapes:
        e = ref.unit_at(h)
        assert e is not None
        ref.move_leader(ld, h)
        dice = escape_dice(ref, e)
        faces = ref.roll(dice, f"escape of leader {ld.name} through {h}")
        ref.log(
            "leader-escape",
            f"leader {ld.name} escapes through the {e.type} in {h}: {' '.join(faces)}",
            faces,
            leader=ld.name,
        )
        if lone_leader_killed(faces):
            ref.kill_leader(ld, by, "caught while escaping")
            return
    if path.off:
        ref.move_leader(ld, None)
        ref.log(
            "leader-off",
            f"leader {ld.name} retreats {start} > {pick} and leaves the map (no banner)",
            leader=ld.name,
        )
        return
    ref.move_leader(ld, path.hexes[-1])
    joined = host(ref, ld)
    ref.log(
        "leader-retreat",
        f"leader {ld.name} retreats {start} > {pick}"
        + (f" and joins the {joined.type}" if joined is not None else ""),
        leader=ld.name,
    )


def attack_lone_leader(ref: Referee[U, L], att: U, ld: L, dice: int) -> bool:
    """A melee against a lone leader (ccn.md §16.3): ``dice`` are the attacker's melee dice
    for that hex; one or more SABRE kills it, whatever the attacker; else it must retreat.
    Returns True if the leader was killed."""
    faces = ref.roll(dice, f"melee on leader {ld.name}")
    ref.log(
        "battle",
        f"the {att.type} in {att.hex} attacks lone leader {ld.name} in {ld.hex}: "
        f"{' '.join(faces) or 'no dice'}",
        faces,
        unit=att.id,
        leader=ld.name,
    )
    if lone_leader_killed(faces):
        ref.kill_leader(ld, att.side, "melee")
        return True
    leader_retreat(ref, ld, att.side)
    return False
