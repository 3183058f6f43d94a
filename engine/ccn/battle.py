"""Napoleonics battles: fire and melee declared, dice counted and rolled (ccn.md §11-§14, §22).

This module is the turn's side of combat: it checks that a battle is allowed (:func:`fire_problem`,
:func:`melee_problem`, shared with order validation), counts the dice in the order of §11
(base from :mod:`engine.ccn.dice`, card dice of §24, terrain, the square cap), rolls them
from the committed stream and scores them (:mod:`engine.ccn.rules.hits`). What follows a roll
- leader checks, flags and retreats, squares, cavalry retire and reform, take ground,
breakthrough, bonus melee, battle back - is the rules' (:mod:`engine.ccn.rules`), called
here in the exact order of §13.2: declare (with combined-arms artillery), First Strike,
retire and reform, square, roll, hits and leader check, flags, the attacker's follow-up,
battle back.
"""

from __future__ import annotations

from engine.cc.orders import Action
from engine.ccn.dice import FIRE, MELEE, battle_dice, fire_dice, melee_dice
from engine.ccn.movement import limits
from engine.ccn.rules.cavalry import offer_retire, resolve_retire
from engine.ccn.rules.combined_arms import artillery_dice, combined_sabres, may_join
from engine.ccn.rules.ground import reduction
from engine.ccn.rules.hits import MELEE as SCORE_MELEE
from engine.ccn.rules.hits import RANGED as SCORE_RANGED
from engine.ccn.rules.hits import sabres_hit, score
from engine.ccn.rules.leaders import attack_lone_leader, check_leader
from engine.ccn.rules.los import sight
from engine.ccn.rules.retreat import take_flags
from engine.ccn.rules.squares import capped, offer_square, square_first_roll
from engine.ccn.rules.take_ground import (
    ATTACK,
    BATTLE_BACK,
    BONUS,
    FIRST_STRIKE,
    FollowUp,
    after_melee,
    battle_back,
    may_battle_back,
)
from engine.ccn.strength import Strength
from engine.ccn.work import WLeader, Work, WUnit
from engine.core.api import CardMove
from engine.hexgrid import Hex

__all__ = [
    "card_dice",
    "fire",
    "fire_count",
    "fire_problem",
    "may_battle",
    "melee",
    "melee_count",
    "melee_problem",
    "moved_for_dice",
]

_BUILDINGS = ("town", "mill")


def _strength(u: WUnit) -> Strength:
    return Strength(u.nation, u.type, u.blocks)


def may_battle(w: Work, u: WUnit) -> str | None:
    """Why the ordered unit ``u`` may not battle now, or None (ccn.md §9, §11, §23, §24)."""
    if u.hex is None:
        return "the unit is gone"
    if u.id not in w.ordered:
        return f"the {u.type} in {u.hex} is not ordered"
    if u.id in w.battled:
        return f"the {u.type} in {u.hex} has already battled this turn"
    if u.id in w.no_battle:
        return f"the {u.type} in {u.hex} may not battle: {w.no_battle[u.id]}"
    card = None if w.fallback else w.card
    if card == "grande_manoeuvre":
        return "units ordered by La Grande Manoeuvre do not battle (§24.2)"
    moved = w.moved.get(u.id, 0)
    _, most = limits(w, u)
    if moved > most:
        return f"the {u.type} moved {moved} hex{'es' if moved > 1 else ''}: too far to battle"
    return None


def card_dice(w: Work, u: WUnit, kind: str, target: Hex, how: str = ATTACK) -> int:
    """Card dice for ``u``'s battle (ccn.md §24.2); none in a battle back or First Strike."""
    if how in (BATTLE_BACK, FIRST_STRIKE) or u.side != w.active or u.hex is None:
        return 0
    card = None if w.fallback else w.card
    sp = w.spec(u)
    extra = w.dice_bonus.get(u.id, 0)
    if (
        card == "cavalry_charge"
        and sp.arm == "cavalry"
        and (w.terrain_at(target) in _BUILDINGS or w.terrain_at(u.hex) in _BUILDINGS)
    ):
        extra -= 1  # no Cavalry Charge die into or out of buildings
    if card == "bombard" and sp.arm == "artillery" and not w.moved.get(u.id, 0):
        extra += 3 if u.type.startswith("G") else 2
    if card == "bayonet_charge" and kind == MELEE and u.type in ("YG", "OG", "GG"):
        extra += 1
    if card == "cold_steel" and kind == MELEE and how == ATTACK:
        extra += 1
    return max(0, extra)


# --- fire -------------------------------------------------------------------


def fire_problem(w: Work, u: WUnit, target: Hex) -> str | None:
    """Why ``u`` may not fire at ``target`` now, or None (ccn.md §12.1, §23.10)."""
    why = may_battle(w, u)
    if why:
        return why
    assert u.hex is not None
    card = None if w.fallback else w.card
    if card in ("bayonet_charge", "cold_steel"):
        return "units ordered by this card may not fire (§24.2)"
    sp = w.spec(u)
    if sp.range == 0:
        return f"the {u.type} does not fire (§12.1)"
    if w.enemy_adjacent(u):
        return f"the {u.type} in {u.hex} is next to an enemy unit: it may only melee (§12.1)"
    tgt = w.unit_at(target)
    if tgt is None or tgt.side == u.side:
        return f"no enemy unit in {target} (a lone leader cannot be fired at, §16.4)"
    dist = u.hex.distance(target)
    moved = w.moved.get(u.id, 0)
    reach = sp.range_after_move if moved else sp.range
    if dist > reach:
        return f"{target} is {dist} hexes away: the {u.type}'s range is {reach}"
    seen = sight(w, u.hex, target)
    if not seen.clear:
        return f"no line of sight from {u.hex} to {target}: {seen.why()}"
    return None


def moved_for_dice(w: Work, u: WUnit) -> int:
    """Hexes ``u`` moved, for its dice: a card that lets it move further and still battle
    (Bayonet Charge, Cavalry Charge, Force March, §24.2) gives the dice of a unit that moved
    as far as it normally may and battle - not none."""
    return min(w.moved.get(u.id, 0), max(1, w.spec(u).move_and_battle))


def fire_count(w: Work, u: WUnit, target: Hex) -> int:
    """The dice ``u`` rolls firing at ``target`` (§11 order; the square cap)."""
    assert u.hex is not None
    moved = moved_for_dice(w, u)
    base = fire_dice(w.tables, _strength(u), moved, u.hex.distance(target))
    red = reduction(w, u.hex, w.arm(u), FIRE, target)
    if u.square:
        return battle_dice(1, 0, red, square=True)
    return battle_dice(base, card_dice(w, u, FIRE, target), red)


def fire(w: Work, u: WUnit, target: Hex, act: Action | None = None) -> None:
    """Ranged combat by ``u`` at ``target`` (ccn.md §12.2)."""
    why = fire_problem(w, u, target)
    if why:
        _moot(w, act, why)
        return
    tgt = w.unit_at(target)
    assert tgt is not None and u.hex is not None
    dice = fire_count(w, u, target)
    w.battled.add(u.id)
    faces = w.roll(dice, f"fire {u.hex} at {target}")
    w.log(
        "fire",
        f"{u.label} fires at {tgt.label} with {dice} dice: {' '.join(faces) or 'no dice'}",
        faces,
        unit=u.id,
        target=tgt.id,
        dice=dice,
    )
    got = score(faces, w.arm(tgt), SCORE_RANGED)
    w.checked = set()
    _apply(w, u.side, tgt, got.hits, got.flags, u.hex)


def _apply(w: Work, by: str, tgt: WUnit, hits: int, flags: int, frm: Hex) -> bool:  # noqa: PLR0917
    """Hits, then the leader check, then flags (ccn.md §12.2, §13.2, §16); True if the
    target left its hex (eliminated or retreated)."""
    start = tgt.hex
    ld = w.attached(tgt)
    lost = w.lose_blocks(tgt, hits, by, "hits") if hits else 0
    if lost and ld is not None:
        check_leader(w, ld, tgt.hex is None, by, w.checked)
    if tgt.hex is None:
        return True
    if flags:
        take_flags(w, tgt, flags, by, w.checked, frm)
    return tgt.hex != start


# --- melee --------------------------------------------------------------------


def melee_problem(w: Work, u: WUnit, target: Hex, joined: tuple[Hex, ...] = ()) -> str | None:
    """Why ``u`` may not melee ``target`` (with ``joined`` artillery) now, or None (§13.1, §22)."""
    why = may_battle(w, u)
    if why:
        return why
    assert u.hex is not None
    card = None if w.fallback else w.card
    if card == "fire_and_hold":
        return "units ordered by Fire and Hold may only fire (§24.2)"
    if not u.hex.is_adjacent(target):
        return f"{target} is not next to {u.hex}: melee is against an adjacent hex (§13.1)"
    if not w.terrain(target).combat_into:
        return f"no combat into {w.terrain_at(target)} (§23)"
    tgt = w.unit_at(target)
    ld = w.leader_at(target)
    if (tgt is None or tgt.side == u.side) and (ld is None or ld.side == u.side):
        return f"no enemy in {target}"
    for h in joined:
        if w.arm(u) == "artillery":
            return "artillery joins an infantry or cavalry melee, it does not lead one (§22)"
        art = w.unit_at(h)
        if art is None or art.side != u.side:
            return f"no artillery of yours in {h} to join the attack"
        jwhy = _join_problem(w, art, u, target)
        if jwhy:
            return f"the {art.type} in {h} cannot join: {jwhy}"
    return None


def _join_problem(w: Work, art: WUnit, u: WUnit, target: Hex) -> str | None:
    """Why ``art`` may not join ``u``'s melee on ``target`` (§22 [R] A14: joining is battling,
    so artillery that may not battle this turn - it entered woods or a town, §23 - may not
    join either), or None."""
    if art.id in w.no_battle:
        return f"it may not battle: {w.no_battle[art.id]}"
    return may_join(
        w, art, u, target, art.id in w.ordered, art.id in w.battled, w.moved.get(art.id, 0)
    )


def melee_count(w: Work, u: WUnit, target: Hex, how: str = ATTACK) -> int:
    """The dice ``u`` rolls in melee against ``target`` (§11 order; the square cap)."""
    assert u.hex is not None
    tgt = w.unit_at(target)
    target_arm = w.arm(tgt) if tgt is not None else ""
    moved = 0 if how in (BATTLE_BACK, FIRST_STRIKE) else moved_for_dice(w, u)
    red = reduction(w, u.hex, w.arm(u), MELEE, target)
    if capped(w, u, tgt):
        return battle_dice(1, 0, red, square=True)
    base = melee_dice(w.tables, _strength(u), moved, target_arm)
    return battle_dice(base, card_dice(w, u, MELEE, target, how), red)


def _first_strike(w: Work, att: WUnit, tgt: WUnit) -> bool | None:
    """The defender may play First Strike (ccn.md §24.2, one per melee): None if it does not,
    else whether the attack is cancelled."""
    side = tgt.side
    if "first_strike" not in w.hands[side]:
        return None
    if tgt.square and w.arm(att) == "cavalry":
        return None  # a square attacked by cavalry rolls first anyway ([R] §24.2)
    pol = w.decider.policy(side, "first-strike")
    auto = {"always": "yes", "never": "no"}.get(pol)
    if pol.startswith("vs "):  # (played without a pause against one arm's melee)
        auto = "yes" if w.arm(att) == pol[3:] else "no"
    pick = w.decider.choose(
        side,
        "first-strike",
        f"The {att.type} in {att.hex} attacks your {tgt.type} in {tgt.hex}: play First Strike?",
        ["yes", "no"],
        "no",
        auto,
    )
    if pick != "yes":
        return None
    w.hands[side].remove("first_strike")
    w.discard.append("first_strike")
    w.cards.append(CardMove("discard", side, "first_strike"))
    w.first_strikes += 1
    assert att.hex is not None and tgt.hex is not None
    start = att.hex
    dice = melee_count(w, tgt, att.hex, FIRST_STRIKE)
    faces = w.roll(dice, f"First Strike {tgt.hex} at {att.hex}")
    w.log(
        "first-strike",
        f"{side} plays First Strike: {tgt.label} strikes first with {dice} "
        f"dice: {' '.join(faces) or 'no dice'}",
        faces,
        unit=tgt.id,
        target=att.id,
    )
    got = score(faces, w.arm(att), SCORE_MELEE, sabres_hit(w.tables, tgt.type))
    _apply(w, side, att, got.hits, got.flags, tgt.hex)
    if att.hex != start:
        w.log("attack-cancelled", f"the {att.type}'s attack is cancelled", unit=att.id)
        return True
    return False


def melee(
    w: Work,
    att: WUnit,
    target: Hex,
    act: Action | None = None,
    how: str = ATTACK,
) -> None:
    """A melee by ``att`` against ``target``, with everything that follows (ccn.md §13.2)."""
    joined = act.joined if act is not None and how == ATTACK else ()
    if how == ATTACK:
        why = melee_problem(w, att, target, joined)
        if why:
            _moot(w, act, why)
            return
    elif how == BONUS and act is not None:
        joined = _bonus_joined(w, att, target, act)
    assert att.hex is not None
    w.battled.add(att.id)
    w.checked = set()
    arts = [a for a in (w.unit_at(h) for h in joined) if a is not None]
    for a in arts:
        w.battled.add(a.id)
    tgt = w.unit_at(target)
    if tgt is None or tgt.side == att.side:
        ld = w.leader_at(target)
        assert ld is not None
        _lone_leader(w, att, ld, target, act, how)
        return
    cancelled = False
    retired = False
    square_first = False
    struck = None
    if how in (ATTACK, BONUS):
        struck = _first_strike(w, att, tgt)
        cancelled = bool(struck)
        if struck is None:
            retired = w.arm(tgt) == "cavalry" and offer_retire(w, tgt, att, how)
            if w.arm(att) == "cavalry" and w.arm(tgt) == "infantry":
                offer_square(w, tgt, att, how)
                if tgt.square:
                    square_first = True
                    cancelled = square_first_roll(w, tgt, att, w.checked).cancelled
    if cancelled or att.hex is None:
        return
    dice = melee_count(w, att, target, how)
    parts = [f"{dice}"]
    for a in arts:
        extra = artillery_dice(w, a, target, w.moved.get(a.id, 0), card_dice(w, a, MELEE, target))
        dice += extra
        parts.append(f"{extra} ({a.type} {a.hex})")
    faces = w.roll(dice, f"{how} {att.hex} at {target}")
    label = {ATTACK: "attacks", BONUS: "makes a bonus melee on", BATTLE_BACK: "battles back at"}
    w.log(
        "battle",
        f"{att.label} {label.get(how, 'attacks')} {tgt.label} with "
        f"{' + '.join(parts)} dice: {' '.join(faces) or 'no dice'}",
        faces,
        unit=att.id,
        target=tgt.id,
        dice=dice,
        how=how,
    )
    start = tgt.hex
    if retired:
        resolve_retire(w, tgt, faces, att.side, w.checked)
        left = tgt.hex != start
    else:
        sabres = combined_sabres(w, att) if arts else sabres_hit(w.tables, att.type)
        got = score(faces, w.arm(tgt), SCORE_MELEE, sabres)
        left = _apply(w, att.side, tgt, got.hits, got.flags, att.hex)
    _follow_up(w, att, target, act, how, vacated=_vacated(w, target, att.side) if left else None)
    if how in (ATTACK, BONUS) and tgt.hex is not None and att.hex is not None:
        may = may_battle_back(w, tgt, att, how, left, retired, square_first) is None
        if struck is None and may and battle_back(w, tgt, att):
            melee(w, tgt, att.hex, None, BATTLE_BACK)


def _bonus_joined(w: Work, att: WUnit, target: Hex, act: Action) -> tuple[Hex, ...]:
    """The artillery named to join the bonus melee on ``target`` that can (ccn.md §18.3,
    §22: ordered, not yet battled, in range with a clear line of sight); the others are
    logged and left out - the bonus melee goes on without them."""
    out: list[Hex] = []
    for h in act.bonus_joined:
        art = w.unit_at(h)
        why = (
            "it is gone"
            if art is None or art.side != att.side
            else _join_problem(w, art, att, target)
        )
        if why:
            text = f"line {act.line}: the artillery in {h} does not join the bonus melee: {why}"
            w.log("moot", text, line=act.line)
        else:
            out.append(h)
    return tuple(out)


def _vacated(w: Work, h: Hex, side: str) -> Hex | None:
    if w.unit_at(h) is not None:
        return None
    ld = w.leader_at(h)
    return h if ld is None or ld.side == side else None


def _lone_leader(  # noqa: PLR0917
    w: Work, att: WUnit, ld: WLeader, target: Hex, act: Action | None, how: str
) -> None:
    """A melee against a lone leader (ccn.md §16.3), then the attacker's follow-up."""
    dice = melee_count(w, att, target, how)
    attack_lone_leader(w, att, ld, dice)
    _follow_up(w, att, target, act, how, vacated=_vacated(w, target, att.side))


def _follow_up(  # noqa: PLR0917 (the chain reads this many things)
    w: Work,
    att: WUnit,
    target: Hex,
    act: Action | None,
    how: str,
    vacated: Hex | None,
) -> None:
    """Take ground, breakthrough and the bonus melee chain (ccn.md §18)."""
    if vacated is None or att.hex is None or how in (BATTLE_BACK, FIRST_STRIKE):
        return
    if act is not None and how == ATTACK:
        wanted = FollowUp(act.advance, act.extra, act.bonus)
    elif act is not None and how == BONUS:
        wanted = FollowUp(act.bonus_advance)
    else:
        wanted = FollowUp()
    bonus_hex = after_melee(
        w, att, vacated, how, att.id in w.ordered, att.id in w.bonus_used, wanted,
        pinned=att.id in w.pinned,
    )  # fmt: skip
    if bonus_hex is not None and att.id not in w.bonus_used:
        w.bonus_used.add(att.id)
        melee(w, att, bonus_hex, act, BONUS)


def _moot(w: Work, act: Action | None, why: str) -> None:
    where = f"line {act.line}: " if act is not None and act.line else ""
    w.log(
        "moot",
        f"{where}{act.verb if act else 'battle'} skipped: {why}",
        line=act.line if act else 0,
    )
