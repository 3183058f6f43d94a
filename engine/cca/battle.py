"""One battle at a time (cca.md §8-§11, §14, §18.5 First Strike, §20.2).

:func:`fire` resolves a ranged combat; :func:`close_combat` resolves a
close combat with everything it triggers: the defender's evade or First
Strike, the roll, hits, leader check, flags and retreat, momentum advance
and bonus combat (:mod:`engine.cca.momentum`), or the battle back. An order
the dice made moot (a unit or target gone, no longer adjacent) is skipped
with an event.
"""

from __future__ import annotations

from engine.cca.combat import (
    Score,
    fire_range,
    los_clear,
    melee_dice,
    ranged_dice,
    roll_melee,
    score_ranged,
)
from engine.cca.evade import evade_paths, may_evade, resolve_evade
from engine.cca.leaders import attack_lone_leader, check_after_losses
from engine.cca.momentum import after_success, report_skipped
from engine.cca.orders import Action
from engine.cca.retreat import take_flags
from engine.cca.work import Work, WUnit
from engine.core.api import CardMove
from engine.hexgrid import Hex

__all__ = ["close_combat", "fire"]


def _moot(w: Work, act: Action | None, why: str) -> None:
    line = f"line {act.line}: " if act is not None and act.line else ""
    w.log("moot", f"{line}order skipped: {why}", line=act.line if act else 0)


def _log_roll(w: Work, u: WUnit, tgt: WUnit, score: Score, *, kind: str, said: str) -> None:
    """Log a roll of ``u`` against ``tgt`` (``said``, then the faces): hits, flags, which
    faces hit and who rolled."""
    w.log(
        kind,
        f"{said}: {' '.join(score.faces)}",
        score.faces,
        unit=u.id,
        target=tgt.id,
        hits=score.hits,
        flags=score.flags,
        hit_faces=score.hit_faces,
        side=u.side,
    )


def apply_roll(  # noqa: PLR0917
    w: Work, roller: WUnit, target: WUnit, score: Score, close: bool, target_full: bool
) -> tuple[bool, bool]:
    """Apply hits, the leader check and the flags of the roll just made; return
    (eliminated, left its hex)."""
    cause = w.rolls  # this roll: its hits and its blocked retreat make one check (§16.1)
    ld = w.attached(target)
    lost = w.lose_blocks(target, score.hits, roller.side, "battle")
    eliminated = target.hex is None
    leader_ok = True
    if lost and ld is not None:
        leader_ok = check_after_losses(w, ld, eliminated, roller.side, cause)
    if eliminated:
        return True, True
    moved = take_flags(w, target, score.flags, roller, close, leader_ok, target_full, cause)
    return False, moved


def fire(w: Work, u: WUnit, target_hex: Hex, act: Action | None = None) -> None:
    """Ranged combat by ``u`` at ``target_hex`` (§9)."""
    if u.hex is None:
        _moot(w, act, "the firing unit is gone")
        return
    if w.enemy_units_adjacent(u):
        _moot(w, act, f"{u.label} is next to an enemy unit and may only close-combat")
        return
    tgt = w.unit_at(target_hex)
    ld = w.leader_at(target_hex)
    if (tgt is None or tgt.side == u.side) and (ld is None or ld.side == u.side or not w.lone(ld)):
        _moot(w, act, f"no enemy in {target_hex} any more")
        return
    dist = u.hex.distance(target_hex)
    if not 2 <= dist <= fire_range(w, u):
        _moot(w, act, f"{target_hex} is out of range ({dist})")
        return
    if not los_clear(w, u.hex, target_hex):
        _moot(w, act, f"no line of sight from {u.hex} to {target_hex}")
        return
    w.battled[u.id] = w.battled.get(u.id, 0) + 1
    dice = ranged_dice(w, u, target_hex)
    if dice < 1:
        _moot(w, act, f"{u.label} has no dice left against {target_hex}")
        return
    if tgt is None or tgt.side == u.side:
        assert ld is not None
        attack_lone_leader(w, u, ld, dice, "fires at")
        return
    full = w.full_strength(tgt)
    score = score_ranged(w, tgt, dice, f"fire {u.hex} at {target_hex}")
    _log_roll(
        w, u, tgt, score, kind="fire", said=f"{u.label} fires at {tgt.label} with {dice} dice"
    )
    apply_roll(w, u, tgt, score, False, full)


def _no_dice(w: Work, u: WUnit, what: str, against: WUnit) -> None:
    """Report an attack that is not made: its dice fell below one (§17.1)."""
    w.log(
        "no-dice",
        f"{u.label} cannot {what}: no dice left against {against.label} (§17.1)",
        unit=u.id,
        target=against.id,
    )


def _wants_first_strike(w: Work, att: WUnit, tgt: WUnit, def_full: bool, att_full: bool) -> bool:
    side = tgt.side
    if w.first_strike_used is not None or "FS" not in w.hands[side]:
        return False
    if melee_dice(w, tgt, att, "first", def_full, target_full=att_full) < 1:
        return False  # no strike to make (§17.1); the hand stays secret (the battle back says why)
    pol = w.decider.policy(side, "first-strike")
    auto: str | None = {"always": "first-strike", "never": "no"}.get(pol)
    if pol.startswith("vs "):
        what = pol[3:]
        hit = att.spec.mounted if what == "mounted" else att.spec.weight == what
        auto = "first-strike" if hit else "no"
    pick = w.decider.choose(
        side,
        "first-strike",
        f"{att.label} attacks your {tgt.type} in {tgt.hex}: play First Strike?",
        ["first-strike", "no"],
        "no",
        auto,
    )
    return pick == "first-strike"


def close_combat(
    w: Work, att: WUnit, target_hex: Hex, act: Action | None = None, is_bonus: bool = False
) -> None:
    """Close combat by ``att`` against ``target_hex`` and all that follows (§10, §20.2)."""
    if att.hex is None:
        _moot(w, act, "the attacking unit is gone")
        return
    if not att.hex.is_adjacent(target_hex):
        _moot(w, act, f"{target_hex} is not adjacent to {att.hex}")
        return
    tgt = w.unit_at(target_hex)
    att_full = w.full_strength(att)
    w.battled[att.id] = w.battled.get(att.id, 0) + 1
    if tgt is None or tgt.side == att.side:
        ld = w.leader_at(target_hex)
        if ld is not None and ld.side != att.side and w.lone(ld):
            dice = melee_dice(w, att, None, "attack", att_full, is_bonus, target_hex=target_hex)
            if dice < 1:  # an attack reduced below one die is not made (§17.1)
                _moot(w, act, f"{att.label} has no dice against {target_hex}")
                return
            attack_lone_leader(w, att, ld, dice, "attacks")
            report_skipped(w, act, is_bonus, "advance", "no advance after attacking a leader")
        else:
            _moot(w, act, f"no enemy in {target_hex} any more")
        return
    def_full = w.full_strength(tgt)
    if melee_dice(w, att, tgt, "attack", att_full, is_bonus, target_full=def_full) < 1:
        _moot(w, act, f"{att.label} has no dice against {target_hex}")  # §17.1: no attack
        return
    w.log(
        "attack",
        f"{att.label} attacks {tgt.label}" + (" (bonus combat)" if is_bonus else ""),
        unit=att.id,
        target=tgt.id,
        bonus=is_bonus,
    )
    if may_evade(w, tgt, att) and evade_paths(w, tgt):
        pol = w.decider.policy(tgt.side, "evade")
        s = tgt.spec
        auto = {
            "always": "evade",
            "never": "stand",
            "light": "evade" if s.weight == "light" else "stand",
            "mounted": "evade" if s.mounted else "stand",
            "light-and-mounted": "evade" if s.weight == "light" or s.mounted else "stand",
        }.get(pol)
        pick = w.decider.choose(
            tgt.side,
            "evade",
            f"{att.label} attacks your {tgt.type} in {tgt.hex}: evade?",
            ["evade", "stand"],
            "stand",
            auto,
        )
        if pick == "evade":
            resolve_evade(w, att, tgt, is_bonus)
            report_skipped(w, act, is_bonus, "advance", "no advance after an evade")
            return
    assert tgt.hex is not None and att.hex is not None
    wall = w.terrain(tgt.hex).defender_strikes_first and not (
        w.terrain(att.hex).defender_strikes_first
    )
    first = wall or _wants_first_strike(w, att, tgt, def_full, att_full)
    if first:
        retreated = _first_strike(w, att, tgt, def_full, att_full, card=not wall)
        # The attacker attacks only if it was neither destroyed nor made to retreat (§18.5),
        # even when its retreat ends next to the target; a retreat that was blocked (blocks
        # lost, no hex left) leaves it free to attack.
        if (
            retreated
            or att.hex is None
            or not att.hex.is_adjacent(target_hex)
            or tgt.hex != target_hex
        ):
            w.log("attack-cancelled", "the First Strike stopped the attack", unit=att.id)
            report_skipped(w, act, is_bonus, "advance", "the attack was cancelled")
            return
    dice = melee_dice(w, att, tgt, "attack", att_full, is_bonus, target_full=def_full)
    if dice < 1:
        _moot(w, act, f"{att.label} has no dice against {target_hex}")
        return
    score = roll_melee(w, att, tgt, dice, f"close combat {att.hex} at {target_hex}")
    _log_roll(
        w, att, tgt, score, kind="battle", said=f"{att.label} rolls {dice} dice at {tgt.label}"
    )
    eliminated, moved = apply_roll(w, att, tgt, score, True, def_full)
    if eliminated or moved:
        if att.gone():  # an elephant's rampage may destroy it
            report_skipped(w, act, is_bonus, "advance", f"the {att.type} is gone")
            return
        bonus = after_success(w, att, target_hex, act, is_bonus)
        if bonus is not None:
            close_combat(w, att, bonus, act, is_bonus=True)
        return
    report_skipped(w, act, is_bonus, "advance", "the defender held its hex")
    if first or tgt.hex is None or att.hex is None or not tgt.hex.is_adjacent(att.hex):
        return
    dice = melee_dice(w, tgt, att, "back", def_full, target_full=att_full)
    if dice < 1:  # a battle back reduced below one die is not made (§17.1)
        _no_dice(w, tgt, "battle back", att)
        return
    pol = w.decider.policy(tgt.side, "battle-back")
    auto = {"always": "battle-back", "never": "no"}.get(pol)
    pick = w.decider.choose(
        tgt.side,
        "battle-back",
        f"Your {tgt.label} may battle back against {att.label}: do it?",
        ["battle-back", "no"],
        "battle-back",
        auto,
    )
    if pick != "battle-back":
        return
    score = roll_melee(w, tgt, att, dice, f"battle back {tgt.hex} at {att.hex}")
    _log_roll(
        w, tgt, att, score, kind="battle-back", said=f"{tgt.label} battles back with {dice} dice"
    )
    apply_roll(w, tgt, att, score, True, att_full)


def _first_strike(  # noqa: PLR0917
    w: Work, att: WUnit, tgt: WUnit, def_full: bool, att_full: bool, card: bool = True
) -> bool:
    """The defender's strike before the attack; True if it destroyed the attacker or made it
    leave its hex."""
    side = tgt.side
    if card:
        w.first_strike_used = side
        w.hands[side].remove("FS")
        w.discard.append("FS")
        w.cards.append(CardMove("discard", side, "FS"))
        w.log(
            "first-strike",
            f"{side} plays First Strike with the {tgt.type} in {tgt.hex}",
            side=side,
            unit=tgt.id,
        )
    else:
        w.log(
            "first-strike",
            f"the {tgt.type} on the city wall in {tgt.hex} strikes first",
            side=side,
            unit=tgt.id,
            card=False,
        )
    dice = melee_dice(w, tgt, att, "first", def_full, target_full=att_full)
    if dice < 1:  # a strike reduced below one die is not made (§17.1)
        _no_dice(w, tgt, "strike first", att)
        return False
    score = roll_melee(w, tgt, att, dice, f"first strike {tgt.hex} at {att.hex}")
    _log_roll(w, tgt, att, score, kind="battle", said=f"{tgt.label} strikes first with {dice} dice")
    eliminated, moved = apply_roll(w, tgt, att, score, True, att_full)
    return eliminated or moved
