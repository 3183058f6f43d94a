"""Flags and retreats of units (ccn.md §15.1, §16, §21.6).

:func:`take_flags` is called once per roll against a unit, after its hits and the leader
check: the owner chooses how many flags to ignore (:mod:`engine.ccn.rules.flags`), then the
unit retreats its hexes per flag (militia 3, Spanish 2: nations.toml) along a path it
chooses, losing one block per hex it cannot retreat. A square cannot retreat: it loses a
block for every hex it would have retreated - the rulebook's "one block per hex" (§21.6 in
the rulebook: a militia square loses three a flag), where the digest says one a flag
(§15.1 rule 11).

Retreat steps (§15.1): each into one of the (up to two) hexes one row toward the owner's
baseline, never sideways or forward; never into impassable terrain (terrain.toml
``impassable``, and ``impassable_artillery`` for artillery: the sand quarry, [R] A5), a hex
with another unit, or one with an enemy leader, nor off the map. A unit without a leader
that enters a lone friendly leader's hex stops there (the leader attaches, the rest is
cancelled with no loss); a unit with a leader may pass such a hex but not end there.
The owner must retreat as far as possible and chooses freely among those paths ([R] A26):
every distinct path is offered (:func:`retreat_paths`).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.ccn.rules.field import Field, L, Referee, U, arm, attached, rear, terrain
from engine.ccn.rules.flags import allowance, choose_ignored
from engine.ccn.rules.leaders import check_leader
from engine.ccn.strength import Strength, retreat_hexes
from engine.hexgrid import Hex

__all__ = ["FlagResult", "RetreatPath", "retreat", "retreat_paths", "take_flags"]


@dataclass(frozen=True)
class RetreatPath:
    """A way to retreat: the hexes entered in order, and the hexes it falls short (each
    costs a block; 0 when a lone friendly leader stopped it, §15.1 rule 6)."""

    hexes: tuple[Hex, ...]
    short: int
    joins_leader: bool = False

    def text(self) -> str:
        """The answer a player writes: ``C3 > C2``, or ``stay`` for no move."""
        return " > ".join(map(str, self.hexes)) if self.hexes else "stay"


@dataclass(frozen=True)
class FlagResult:
    """What a roll's flags did: flags ignored, the path retreated, blocks lost for hexes not
    retreated, and whether the unit left its hex (eliminated or moved)."""

    ignored: int = 0
    path: tuple[Hex, ...] = ()
    lost: int = 0
    left_hex: bool = False


def _enterable(f: Field[U, L], u: U, h: Hex) -> bool:
    ter = terrain(f, h)
    if ter.impassable or (ter.impassable_artillery and arm(f, u) == "artillery"):
        return False
    if f.unit_at(h) is not None:
        return False
    ld = f.leader_at(h)
    return ld is None or ld.side == u.side


def retreat_paths(f: Field[U, L], u: U, hexes: int) -> list[RetreatPath]:
    """Every distinct legal retreat of ``u`` for ``hexes`` hexes, furthest first (a path
    falling short is listed only where it cannot go on; module docstring)."""
    assert u.hex is not None
    has_leader = attached(f, u) is not None
    out: list[RetreatPath] = []

    def walk(h: Hex, path: tuple[Hex, ...]) -> None:
        left = hexes - len(path)
        went = False
        if left > 0:
            for n in rear(f, u.side, h):
                if not _enterable(f, u, n):
                    continue
                if f.leader_at(n) is not None:  # a lone friendly leader
                    if not has_leader:
                        out.append(RetreatPath((*path, n), 0, True))
                        went = True
                    elif left > 1:
                        went = True
                        walk(n, (*path, n))
                    continue
                went = True
                walk(n, (*path, n))
        if went:
            return
        if path and has_leader and f.leader_at(path[-1]) is not None:
            out.append(RetreatPath(path[:-1], left + 1))  # may not end on another leader
        else:
            out.append(RetreatPath(path, left))

    walk(u.hex, ())
    return sorted(dict.fromkeys(out), key=lambda p: p.short)


def _key(f: Field[U, L], u: U, p: RetreatPath, friends: bool) -> tuple[int, int, str]:
    end = p.hexes[-1] if p.hexes else u.hex
    assert end is not None
    near = 0
    if friends:
        for n in f.board.neighbours(end):
            o = f.unit_at(n)
            near += o is not None and o.side == u.side and o is not u
    left = end.x if f.baseline(u.side) == 1 else -end.x  # the owner's left
    return (-near, left, p.text())


def choose_path(ref: Referee[U, L], u: U, hexes: int) -> RetreatPath:
    """The owner's path among those retreating furthest (standing order ``retreat``;
    ``auto``: the owner's leftmost, ``prefer-friends``: ending next to most friends)."""
    paths = retreat_paths(ref, u, hexes)
    fewest = paths[0].short
    pol = ref.decider.policy(u.side, "retreat")
    best = sorted(
        (p for p in paths if p.short == fewest),
        key=lambda p: _key(ref, u, p, pol == "prefer-friends"),
    )
    names = [p.text() for p in best]
    pick = ref.decider.choose(
        u.side,
        "retreat",
        f"Your {u.type} in {u.hex} retreats {hexes} hex(es): which path?",
        names,
        names[0],
        None if pol == "ask" else names[0],
    )
    return best[names.index(pick)]


def retreat(ref: Referee[U, L], u: U, hexes: int, by: str, checked: set[str]) -> FlagResult:
    """Retreat ``u`` ``hexes`` hexes toward its baseline; a block lost per hex it cannot
    (§15.1 rule 8), with the leader check those losses call for (§16.1)."""
    assert u.hex is not None
    path = choose_path(ref, u, hexes)
    start = u.hex
    if path.hexes:
        ref.move_unit(u, path.hexes[-1])
        ref.log(
            "retreat",
            f"{u.side} {u.type} retreats {start} > {path.text()}"
            + (" and stops at its leader" if path.joins_leader else ""),
            unit=u.id,
            path=[str(start), *map(str, path.hexes)],
        )
    lost = 0
    if path.short:
        ref.log("retreat-blocked", f"the {u.type} cannot retreat {path.short} hex(es)", unit=u.id)
        lost = _lose(ref, u, path.short, by, "blocked retreat", checked)
    return FlagResult(0, path.hexes, lost, u.hex != start)


def _lose(ref: Referee[U, L], u: U, n: int, by: str, why: str, checked: set[str]) -> int:  # noqa: PLR0917
    ld = attached(ref, u)
    lost = ref.lose_blocks(u, n, by, why)
    if lost and ld is not None:
        check_leader(ref, ld, u.hex is None, by, checked)
    return lost


def take_flags(  # noqa: PLR0917 (the rule reads this many things)
    ref: Referee[U, L],
    u: U,
    flags: int,
    by: str,
    checked: set[str],
    attacker: Hex | None = None,
    repulse: bool = False,
) -> FlagResult:
    """Apply a roll's ``flags`` to ``u`` (module docstring): ignore, then retreat or, in
    square, lose blocks. ``attacker`` is the hex the roll came from (field fortifications;
    a square there makes flags against cavalry repulse flags, §21.5-§21.6, as ``repulse``
    does: none ignored), ``checked`` the leaders already checked in this combat."""
    if flags <= 0 or u.hex is None:
        return FlagResult()
    roller = ref.unit_at(attacker) if attacker is not None else None
    if roller is not None and roller.side != u.side and roller.square and arm(ref, u) == "cavalry":
        repulse = True  # a square's flags against cavalry, its artillery's included (§21.6)
    ignored = choose_ignored(ref.decider, u, flags, allowance(ref, u, attacker, repulse))
    if ignored:
        ref.log(
            "flags",
            f"the {u.type} in {u.hex} ignores {ignored} of {flags} flag(s)",
            unit=u.id,
            ignored=ignored,
        )
    left = flags - ignored
    if left <= 0:
        return FlagResult(ignored)
    hexes = retreat_hexes(ref.tables, Strength(u.nation, u.type, u.blocks), left)
    if u.square:
        why = f"the square in {u.hex} cannot retreat: {hexes} block(s) lost"
        ref.log("square-flags", why, unit=u.id)
        lost = _lose(ref, u, hexes, by, "flags on a square", checked)
        return FlagResult(ignored, (), lost, u.hex is None)
    got = retreat(ref, u, hexes, by, checked)
    return FlagResult(ignored, got.path, got.lost, got.left_hex)
