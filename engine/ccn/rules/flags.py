"""Which flags a unit may ignore, and how many it does (ccn.md §15.2, §21.5, §21.6, §23.5).

Ignoring is optional and decided anew at every roll; the allowances add up (§15.2):

* an attached leader: 1 (a leader killed by the casualty check of this combat is gone and
  counts for nothing, §15.2 first row);
* support: 2 or more friendly units in adjacent hexes, a lone friendly leader counting as a
  unit and a square giving support: 1 - never for a square (it cannot be supported, §21.6);
* field fortifications: 1 for an infantry or artillery unit attacked across a fortified
  hexside (§23.5);
* its type in its nation (grenadiers, cuirassiers, guard: nations.toml ``flags_ignored``).

Repulse flags - rolled by a square against cavalry - may never be ignored (§21.5). The owner
chooses how many to ignore from 0 to the allowance (standing order ``flags``, §26.2).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.cc.decide import Decider
from engine.ccn.rules.field import Field, L, U, arm, attached, lone
from engine.ccn.rules.ground import across_fortified
from engine.ccn.strength import Strength, type_flags
from engine.hexgrid import Hex

__all__ = ["Allowance", "allowance", "choose_ignored", "supporters"]


@dataclass(frozen=True)
class Allowance:
    """Flags a unit may ignore, and why (one reason per flag)."""

    total: int
    reasons: tuple[str, ...] = ()


def supporters(f: Field[U, L], u: U) -> int:
    """Friendly units and lone friendly leaders in hexes adjacent to ``u`` (ccn.md §15.2,
    [R] A22: an attached leader is part of its unit; squares count)."""
    if u.hex is None:
        return 0
    n = 0
    for h in f.board.neighbours(u.hex):
        other = f.unit_at(h)
        if other is not None:
            n += other.side == u.side
            continue
        ld = f.leader_at(h)
        if ld is not None and ld.side == u.side and lone(f, ld):
            n += 1
    return n


def allowance(
    f: Field[U, L], u: U, attacker: Hex | None = None, repulse: bool = False
) -> Allowance:
    """How many flags ``u`` may ignore against one roll (module docstring).

    ``attacker``: the hex the roll came from (for field fortifications); ``repulse``: the
    flags were rolled by a square against cavalry (none may be ignored, §21.5).
    """
    if repulse or u.hex is None:
        return Allowance(0)
    reasons: list[str] = []
    if attached(f, u) is not None:
        reasons.append("leader")
    if not u.square and supporters(f, u) >= 2:
        reasons.append("support")
    if (
        attacker is not None
        and arm(f, u) in ("infantry", "artillery")
        and across_fortified(f, u.hex, attacker)
    ):
        reasons.append("field fortifications")
    reasons += ["type"] * type_flags(f.tables, Strength(u.nation, u.type, u.blocks))
    return Allowance(len(reasons), tuple(reasons))


def choose_ignored(decider: Decider, u: U, flags: int, allowed: Allowance) -> int:
    """How many of ``flags`` the owner of ``u`` ignores (standing order ``flags``, §15.2)."""
    can = min(flags, allowed.total)
    if can <= 0:
        return 0
    pol = decider.policy(u.side, "flags")
    auto = {"ignore-all": str(can), "accept-all": "0"}.get(pol)
    why = ", ".join(dict.fromkeys(allowed.reasons))
    pick = decider.choose(
        u.side,
        "flags",
        f"Your {u.type} in {u.hex} gets {flags} flag(s) and may ignore up to {can} ({why}): "
        "how many?",
        [str(i) for i in range(can, -1, -1)],
        str(can),
        auto,
    )
    return int(pick)
