"""Dice counts, line of sight and hit scoring (cca.md §9, §10, §17.1).

Pure look-ups on a :class:`Work`: how many dice a unit rolls (base, then
terrain caps, then reductions, then card bonuses), whether a line of sight
is clear, and what a roll scores against a target, including the elephant
sword re-rolls and every defender ignore of §10.7.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.cca.work import Work, WUnit
from engine.hexgrid import Hex

__all__ = ["Score", "los_clear", "melee_dice", "ranged_dice", "roll_melee", "score_ranged"]


def los_clear(w: Work, a: Hex, b: Hex) -> bool:
    """True if nothing strictly between ``a`` and ``b`` blocks the line (§9.3)."""
    both_hill = w.terrain(a).hill and w.terrain(b).hill
    if both_hill and w.state.option("hill_los_same_hill_only"):
        both_hill = _same_hill(w, a, b)
    steps = a.line_to(b)[1:-1]
    return not any(all(_obstacle(w, h, both_hill) for h in step) for step in steps)


def _obstacle(w: Work, h: Hex, both_hill: bool) -> bool:
    if not w.on_board(h):
        return True
    if w.unit_at(h) is not None or w.leader_at(h) is not None:
        return True
    ter = w.terrain(h)
    return ter.blocks_los and not (ter.hill and both_hill)


def _same_hill(w: Work, a: Hex, b: Hex) -> bool:
    seen = {a}
    todo = [a]
    while todo:
        h = todo.pop()
        if h == b:
            return True
        for n in w.neighbours(h):
            if n not in seen and w.terrain(n).hill:
                seen.add(n)
                todo.append(n)
    return False


def _card_bonus(w: Work, u: WUnit, close: bool, bonus_combat: bool) -> int:
    if u.side != w.active or u.id not in w.ordered:
        return 0
    n = w.bonus_dice.get(u.id, 0)
    if close and w.effect == "CH":
        n += 1
    if close and w.effect == "CS" and not bonus_combat:
        n += 2
    return n


def _terrain_adjust(w: Work, roller: Hex, target: Hex, dice: int, close: bool) -> int:
    tr, tt = w.terrain(roller), w.terrain(target)
    caps: list[int] = []
    if close:
        caps += [c for c in (tr.melee_cap, tt.melee_cap) if c is not None]
    else:
        caps += [c for c in (tt.ranged_cap_into, tr.ranged_cap_out) if c is not None]
    if close and tr.hill:  # battling from a hill (§17 hill row): the roller's own row
        u = w.unit_at(roller)
        cap = tr.hill_cap_mounted if u is not None and u.spec.mounted else tr.hill_cap_foot
        caps += [cap] if cap is not None else []
    elif close and tt.hill and tt.hill_cap_uphill is not None:  # uphill from lower ground
        caps.append(tt.hill_cap_uphill)
    if caps:
        dice = min(dice, *caps)
    dice -= tr.minus_out
    if tt.minus_into_option and w.state.option(tt.minus_into_option):
        dice -= 1
    return dice


def melee_dice(  # noqa: PLR0917
    w: Work,
    roller: WUnit,
    target: WUnit | None,
    role: str,
    roller_full: bool,
    bonus_combat: bool = False,
    target_full: bool = True,
    target_hex: Hex | None = None,
) -> int:
    """Close-combat dice for ``roller`` against ``target`` (None: a lone leader).

    ``role`` is ``attack``, ``back`` (battle back) or ``first`` (First Strike);
    full strength is judged at the start of the exchange (§10.3).
    """
    s = roller.spec
    if s.elephant:
        opp = target
        if role == "attack" and opp is None:
            base = 1
        elif opp is None:
            base = 0
        elif opp.spec.elephant_dice:  # §10.4: its row says (3 against ELE WAR HCH camels)
            base = opp.spec.elephant_dice
        elif opp.type == "BCH":
            full = target_full if role == "attack" else True
            base = 3 if full and w.state.option("elephant_vs_bch_full_strength") else 2
        else:
            base = opp.spec.melee
    else:
        base = s.melee if role == "attack" else s.battle_back
        if s.strength_bonus and roller_full:
            base += 1
    assert roller.hex is not None
    where = target_hex if target_hex is not None else (target.hex if target else None)
    assert where is not None
    dice = _terrain_adjust(w, roller.hex, where, base, close=True)
    if role == "attack":
        dice += _card_bonus(w, roller, True, bonus_combat)
    return max(dice, 0)


def ranged_dice(w: Work, roller: WUnit, target_hex: Hex) -> int:
    """Ranged dice (§9.4): 2 if not moved, else 1; terrain; then Spartacus."""
    assert roller.hex is not None
    missile = w.has_tag_rule("missile-units", roller)
    base = int(missile.get("dice", 2)) if missile else 2
    if w.moved.get(roller.id, 0):
        base = 1
    dice = _terrain_adjust(w, roller.hex, target_hex, base, close=False)
    dice += _card_bonus(w, roller, False, False)
    return max(dice, 0)


def fire_range(w: Work, u: WUnit) -> int:
    """Maximum range of ``u`` (0 = cannot fire)."""
    if u.type == "BCH":
        return 0
    missile = w.has_tag_rule("missile-units", u)
    if missile:
        return int(missile.get("range", 2))
    return u.spec.range


@dataclass
class Score:
    """What a roll did: faces rolled (re-rolls included), hits and flags."""

    faces: tuple[str, ...]
    hits: int
    flags: int
    kills_leader: bool = False
    hit_faces: str = ""
    """The faces that score a hit in this roll (before any is ignored), e.g. ``"BS"``: the
    dice-fairness report compares them with a fair die's odds."""


def _sword_ignores(w: Work, roller: WUnit, target: WUnit) -> int:
    n = target.spec.ignore_swords
    assert target.hex is not None and roller.hex is not None
    ter = w.terrain(target.hex)
    if (
        target.spec.foot
        and ter.foot_ignores_sword
        and (not ter.ramparts or protected_edge(w, target.hex, roller.hex))
    ):
        n += ter.foot_ignores_sword
    return n


def protected_edge(w: Work, h: Hex, source: Hex) -> bool:
    """True if an attack from ``source`` comes across a protected rampart side of ``h``."""
    for fh, ns in w.state.facing:
        if fh == h:
            if source in ns:
                return True
            # Ranged fire: the line enters through the step next to the target.
            steps = source.line_to(h)
            return len(steps) >= 2 and any(x in ns for x in steps[-2])
    return False


def roll_melee(w: Work, roller: WUnit, target: WUnit, dice: int, purpose: str) -> Score:
    """Roll close-combat dice and score them against ``target`` (§10.4, §10.6, §10.7)."""
    s = roller.spec
    ts = target.spec
    sym = ts.symbol
    sword_ign = _sword_ignores(w, roller, target)
    colour_ign = (
        1
        if (
            (ts.ignore_b_vs_mounted and roller.spec.cav_or_chariot)
            or (ts.elephant and roller.spec.cav_or_chariot)
        )
        else 0
    )
    helmet = (not s.elephant and w.leader_support(roller)) or bool(
        w.has_tag_rule("sacred-band", roller)
    )
    hit_faces = sym + ("S" if s.swords_hit else "") + ("H" if helmet else "")
    faces = list(w.roll(dice, purpose))
    all_faces = list(faces)
    hits = flags = 0
    while faces:
        rerolls = 0
        for f in faces:
            if f == sym:
                if colour_ign:
                    colour_ign -= 1
                else:
                    hits += 1
            elif f == "S" and s.swords_hit:
                if sword_ign:
                    sword_ign -= 1
                else:
                    hits += 1
                    if s.elephant:
                        rerolls += 1
            elif f == "H" and helmet:
                hits += 1
            elif f == "F":
                flags += 1
        faces = list(w.roll(rerolls, purpose + " (sword re-roll)")) if rerolls else []
        all_faces += faces
    return Score(tuple(all_faces), hits, flags, hit_faces=hit_faces)


def score_ranged(w: Work, target: WUnit, dice: int, purpose: str) -> Score:
    """Roll ranged dice at ``target``: its symbol hits, F is a flag (§9.5)."""
    faces = w.roll(dice, purpose)
    hits = sum(1 for f in faces if f == target.spec.symbol)
    flags = sum(1 for f in faces if f == "F")
    return Score(faces, hits, flags, hit_faces=target.spec.symbol)
