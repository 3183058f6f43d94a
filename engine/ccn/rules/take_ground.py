"""After a melee: take ground, cavalry breakthrough, bonus melee (ccn.md §18), battle back
(§19).

:func:`after_melee` is called when a melee (or bonus melee) eliminated its target or made it
leave its hex - retreat, cavalry retire and reform, a lone leader's retreat or death, an
attached leader leaving after its unit was destroyed. An ordered infantry unit may take the
vacated hex (§18.1); an ordered cavalry unit may break through into it and then one more hex
(§18.2), and after a breakthrough make one bonus melee per turn (§18.3); after a bonus melee
it may only move into the vacated hex. Artillery, squares, battle backs and First Strikes
never follow up. Each choice comes from the attacker's orders (:class:`FollowUp`), else its
standing orders (``take-ground``, ``breakthrough``, ``extra-hex``, ``bonus``), else a
question.

:func:`may_battle_back` and :func:`battle_back` decide whether the defender battles back
after the attacker's roll and its consequences.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.ccn.rules.field import (
    Field,
    L,
    Referee,
    U,
    arm,
    attached,
    enemy_units_adjacent,
    lone,
    spec,
    terrain,
)
from engine.hexgrid import Hex

__all__ = [
    "ATTACK",
    "BATTLE_BACK",
    "BONUS",
    "FIRST_STRIKE",
    "RANGED",
    "FollowUp",
    "after_melee",
    "battle_back",
    "bonus_targets",
    "may_battle_back",
    "may_follow_up",
]

ATTACK = "attack"
BONUS = "bonus"
BATTLE_BACK = "battle-back"
FIRST_STRIKE = "first-strike"
RANGED = "ranged"
"""How a unit battled: its ordered attack, a cavalry bonus melee, a battle back, a First
Strike, or fire."""


@dataclass(frozen=True)
class FollowUp:
    """What the attacker's orders say it does after winning (None: not written, so the
    standing order or a question decides); ``extra``/``bonus`` "none" is written as a
    ``stay`` string in orders and given here as :data:`NONE`."""

    advance: bool | None = None
    extra: Hex | str | None = None
    bonus: Hex | str | None = None


NONE = "none"


def may_follow_up(  # noqa: PLR0917 (the rule reads this many things)
    f: Field[U, L], att: U, vacated: Hex, how: str, ordered: bool, pinned: bool = False
) -> str | None:
    """Why ``att`` may not move into ``vacated`` after its melee, or None if it may
    (ccn.md §18.1, §18.2). ``pinned``: a leader joined it after moving, so it battles only
    in place (§10.4: the leader may not move again, so neither may the unit)."""
    kind = arm(f, att)
    if att.hex is None:
        return "the attacker is gone"
    if kind == "artillery":
        return "artillery never takes ground"
    if att.square:
        return "a square does not take ground"
    if how == BATTLE_BACK:
        return "no ground is taken after a battle back"
    if how == FIRST_STRIKE:
        return "no ground is taken after a First Strike"
    if how == RANGED:
        return "no ground is taken after fire"
    if not ordered:
        return "the unit was not ordered"
    if pinned:
        return "a leader joined it after moving: it battles only in place (§10.4)"
    if f.unit_at(vacated) is not None or f.leader_at(vacated) is not None:
        return f"{vacated} is not empty"
    ter = terrain(f, vacated)
    if ter.impassable:
        return f"{vacated} is impassable"
    return None


def _decide(ref: Referee[U, L], att: U, key: str, text: str, wanted: bool | None) -> bool:
    pol = ref.decider.policy(att.side, key)
    auto = ("yes" if wanted else "no") if wanted is not None else None
    auto = auto or {"always": "yes", "never": "no"}.get(pol)
    return ref.decider.choose(att.side, key, text, ["yes", "no"], "yes", auto) == "yes"


def _stops(f: Field[U, L], frm: Hex, to: Hex) -> bool:
    """Entering ``to`` from ``frm`` ends a move: stop terrain or a fortified side crossed
    (field fortifications stop a unit only across a fortified side, §23.5, as in movement)."""
    if f.fortified(to, frm) or f.fortified(frm, to):
        return True
    ter = terrain(f, to)
    return ter.stop and not ter.fortified


def _may_battle_in(f: Field[U, L], u: U, h: Hex) -> bool:
    rule = terrain(f, h).battle_on_entry
    return rule == "all" or (rule == "light" and spec(f, u).light)


def after_melee(  # noqa: PLR0917 (the rule reads this many things)
    ref: Referee[U, L],
    att: U,
    vacated: Hex,
    how: str = ATTACK,
    ordered: bool = True,
    bonus_used: bool = False,
    wanted: FollowUp | None = None,
    pinned: bool = False,
) -> Hex | None:
    """Take ground or break through into ``vacated`` (module docstring). Returns the hex of
    the bonus melee the cavalry makes next, if any (the caller fights it, with ``how`` =
    :data:`BONUS`). ``pinned``: see :func:`may_follow_up`."""
    wanted = wanted or FollowUp()
    why = may_follow_up(ref, att, vacated, how, ordered, pinned)
    if why is not None:
        if wanted.advance:
            ref.log("moot", f"the {att.type} does not advance: {why}", unit=att.id)
        return None
    assert att.hex is not None
    cavalry = arm(ref, att) == "cavalry"
    key = "breakthrough" if cavalry else "take-ground"
    word = "break through" if cavalry else "take ground"
    if not _decide(
        ref,
        att,
        key,
        f"Your {att.type} in {att.hex} may {word} into {vacated}: do it?",
        wanted.advance,
    ):
        return None
    start = att.hex
    ref.move_unit(att, vacated)
    verb = "breaks through" if cavalry else "takes ground"
    ref.log("take-ground", f"{att.side} {att.type} {verb} {start} > {vacated}", unit=att.id)
    if not cavalry or how == BONUS:
        return None
    entered = [vacated]
    extra = _extra_hex(ref, att, start, wanted.extra)
    if extra is not None:
        entered.append(extra)
    if bonus_used:
        return None
    if not all(_may_battle_in(ref, att, h) for h in entered):
        ref.log(
            "no-bonus",
            f"the {att.type} entered terrain where it may not battle this turn",
            unit=att.id,
        )
        return None
    targets = bonus_targets(ref, att)
    if not targets:
        return None
    names = [str(h) for h in targets]
    want = wanted.bonus
    if isinstance(want, Hex) and want not in targets:
        ref.log(
            "moot", f"no bonus melee at {want}: not an enemy next to the {att.type}", unit=att.id
        )
        want = NONE
    pol = ref.decider.policy(att.side, "bonus")
    auto = str(want) if want is not None else {"never": NONE, "auto": names[0]}.get(pol)
    pick = ref.decider.choose(
        att.side,
        "bonus",
        f"Your {att.type} in {att.hex} may make a bonus melee: against which hex (or none)?",
        [*names, NONE],
        NONE,
        auto,
    )
    return None if pick == NONE else Hex.parse(pick)


def bonus_targets(f: Field[U, L], att: U) -> list[Hex]:
    """Hexes ``att`` may make a bonus melee against: adjacent enemy units (weakest first)
    and lone enemy leaders (ccn.md §18.3)."""
    assert att.hex is not None
    units = sorted(
        (e for e in enemy_units_adjacent(f, att) if e.hex and terrain(f, e.hex).combat_into),
        key=lambda e: (e.blocks, str(e.hex)),
    )
    out = [e.hex for e in units if e.hex is not None]
    for n in f.board.neighbours(att.hex):
        ld = f.leader_at(n)
        if ld is not None and ld.side != att.side and lone(f, ld):
            out.append(n)
    return out


def _extra_hex(ref: Referee[U, L], att: U, start: Hex, wanted: Hex | str | None) -> Hex | None:
    """The breakthrough's optional second hex (ccn.md §18.2)."""
    assert att.hex is not None
    here = att.hex
    if _stops(ref, start, here):
        if isinstance(wanted, Hex):
            ref.log("moot", f"no extra hex: entering {here} stops the {att.type}", unit=att.id)
        return None
    has_leader = attached(ref, att) is not None
    options = []
    for n in ref.board.neighbours(here):
        ter = terrain(ref, n)
        if ter.impassable or ref.unit_at(n) is not None:
            continue
        ld = ref.leader_at(n)
        if ld is not None and (ld.side != att.side or has_leader):
            continue
        options.append(n)
    if not options:
        return None
    names = [str(h) for h in options]
    auto: str | None = None
    if wanted is not None:
        auto = str(wanted) if str(wanted) in names else NONE
        if auto == NONE and isinstance(wanted, Hex):
            ref.log("moot", f"no extra hex: {wanted} is not open to the {att.type}", unit=att.id)
    elif ref.decider.policy(att.side, "extra-hex") == "never":
        auto = NONE
    pick = ref.decider.choose(
        att.side,
        "extra-hex",
        f"Your {att.type} in {here} may move 1 more hex: where (or none)?",
        [*names, NONE],
        NONE,
        auto,
    )
    if pick == NONE:
        return None
    h = Hex.parse(pick)
    ref.move_unit(att, h)
    ref.log("extra-hex", f"{att.side} {att.type} moves on {here} > {h}", unit=att.id)
    return h


def may_battle_back(  # noqa: PLR0917 (the rule reads this many things)
    f: Field[U, L],
    defender: U,
    attacker: U,
    how: str,
    left_hex: bool = False,
    retired: bool = False,
    square_first: bool = False,
) -> str | None:
    """Why ``defender`` may not battle back against ``attacker``, or None if it may (ccn.md
    §19): it must still be on the map, not have left its hex (retreat, retire and reform),
    not be answering a battle back or a First Strike, nor be a square that rolled first
    against cavalry (A6); its type must battle back (units.toml ``battle_back``)."""
    if defender.hex is None:
        return "the defender is eliminated"
    if left_hex:
        return "the defender left its hex"
    if retired:
        return "retiring cavalry does not battle back"
    if how in (BATTLE_BACK, RANGED):
        return f"no battle back against a {how}"
    if how == FIRST_STRIKE:
        return "no battle back after a First Strike"
    if square_first:
        return "the square's first roll took the place of its battle back"
    if not spec(f, defender).battle_back:
        return f"a {defender.type} does not battle back"
    if attacker.hex is None or not attacker.hex.is_adjacent(defender.hex):
        return "the attacker is no longer adjacent"
    return None


def battle_back(ref: Referee[U, L], defender: U, attacker: U) -> bool:
    """Whether the owner of ``defender`` battles back (standing order ``battle-back``)."""
    pol = ref.decider.policy(defender.side, "battle-back")
    auto = {"always": "yes", "never": "no"}.get(pol)
    pick = ref.decider.choose(
        defender.side,
        "battle-back",
        f"Your {defender.type} in {defender.hex} may battle back against the {attacker.type} "
        f"in {attacker.hex}: do it?",
        ["yes", "no"],
        "yes",
        auto,
    )
    return pick == "yes"
