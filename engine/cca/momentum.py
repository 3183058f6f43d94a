"""Momentum advance, the cavalry extra hex and bonus close combat (cca.md §15, §17.3).

Called after a successful close combat (the defender eliminated or driven
out of its hex, not evaded, not a lone leader, not a battle back or First
Strike). Each choice comes from the attack line's options, else the
attacker's standing orders, else a question. The bonus close combat itself is
fought by the caller (:func:`engine.cca.battle.close_combat`), which this
module therefore does not import.
"""

from __future__ import annotations

from engine.cca.orders import Action
from engine.cca.terrain import mover_kind
from engine.cca.units import BONUS_ALWAYS, BONUS_WITH_LEADER
from engine.cca.work import Work, WUnit
from engine.hexgrid import Hex

__all__ = ["after_success"]


def _yes_no(flag: bool | None) -> str | None:
    return None if flag is None else ("advance" if flag else "stay")


def report_skipped(  # noqa: PLR0917
    w: Work, act: Action | None, is_bonus: bool, stage: str, why: str, only: bool = False
) -> None:
    """Report the options of an attack line that will not happen (never dropped silently).

    ``stage`` is the first step that did not happen: ``advance``, ``extra`` or
    ``bonus``; every option written for that step and the later ones (``only``:
    that step's alone) is reported with ``why``.
    """
    if act is None:
        return
    steps = ("advance", "extra", "bonus")
    later = (stage,) if only else steps[steps.index(stage) :]
    wanted: list[str] = []
    if is_bonus:
        if "advance" in later and act.bonus_advance:
            wanted.append("bonus-advance")
    else:
        if "advance" in later and act.advance:
            wanted.append("advance")
        if "extra" in later and act.extra is not None:
            wanted.append(f"extra {act.extra}")
        if "bonus" in later and act.bonus is not None:
            wanted.append(f"bonus {act.bonus}")
    if wanted:
        w.log("moot", f"line {act.line}: {', '.join(wanted)} skipped: {why}", line=act.line)


def after_success(
    w: Work, att: WUnit, vacated: Hex, act: Action | None, is_bonus: bool
) -> Hex | None:
    """Offer the momentum advance and what may follow it.

    Return the hex of the bonus close combat the attacker makes next, if any.
    """
    s = att.spec
    assert att.hex is not None
    if s.war_machine:
        report_skipped(w, act, is_bonus, "advance", "a war machine never advances")
        return None
    if w.unit_at(vacated) is not None or w.leader_at(vacated) is not None:
        report_skipped(w, act, is_bonus, "advance", f"{vacated} is not empty")
        return None
    here = att.hex
    if w.terrain(here).no_advance_out_if_entered_this_turn and (
        here in w.entered.get(att.id, set()) or w.start_hex.get(att.id) != here
    ):
        w.log("no-advance", f"{att.label} entered {here} this turn and may not advance out")
        report_skipped(w, act, is_bonus, "advance", f"no advance out of {here} this turn")
        return None
    if not w.passable(vacated, s):
        report_skipped(w, act, is_bonus, "advance", f"{vacated} is impassable to {att.type}")
        return None
    flag = (act.bonus_advance if is_bonus else act.advance) if act is not None else None
    pol = w.decider.policy(att.side, "advance")
    auto = _yes_no(flag) or {"always": "advance", "never": "stay"}.get(pol)
    pick = w.decider.choose(
        att.side,
        "advance",
        f"{att.label} may advance into {vacated}: do it?",
        ["advance", "stay"],
        "advance",
        auto,
    )
    if pick != "advance":
        report_skipped(w, act, is_bonus, "extra", f"the {att.type} did not advance")
        return None
    w.relocate(att, vacated)
    w.entered.setdefault(att.id, set()).add(vacated)
    w.log("advance", f"{att.side} {att.type} advances {here} > {vacated}", unit=att.id)
    from engine.cca.special import marsh_entry  # noqa: PLC0415

    marsh_entry(w, att, vacated)
    if att.gone():
        report_skipped(w, act, is_bonus, "extra", f"the {att.type} was lost in the marsh")
        return None
    if is_bonus:
        return None
    kind = mover_kind(s)
    entered = [vacated]
    # The extra hex is a second hex of movement: not after entering Stop terrain,
    # nor for a unit that began the advance on a hex it may leave by 1 hex only
    # (marsh, city wall: §17.4).
    leave = w.terrain(here).leave_max_move
    if s.cavalry and kind in w.terrain(vacated).stop:
        ter = w.state.terrain_at(vacated)
        report_skipped(w, act, False, "extra", f"the advance into {vacated} ({ter}) stops it", True)
    elif s.cavalry and leave is not None and leave < 2:
        ter = w.state.terrain_at(here)
        report_skipped(
            w, act, False, "extra", f"a unit leaving {here} ({ter}) moves 1 hex only", True
        )
    elif s.cavalry:
        extra = _extra_hex(w, att, act)
        if extra is not None:
            entered.append(extra)
    if att.gone():
        report_skipped(w, act, False, "bonus", f"the {att.type} was lost in the marsh")
        return None
    eligible = s.bonus == BONUS_ALWAYS or (
        s.bonus == BONUS_WITH_LEADER and w.attached(att) is not None
    )
    if not eligible:
        report_skipped(w, act, False, "bonus", f"{att.type} without a leader has no bonus combat")
        return None
    stopped = [h for h in entered if kind in w.terrain(h).no_bonus_on_entry]
    if stopped:
        ter = w.state.terrain_at(stopped[0])
        report_skipped(w, act, False, "bonus", f"no bonus combat after entering {ter}")
        return None
    targets = sorted(
        (e for e in w.enemy_units_adjacent(att)),
        key=lambda e: (e.blocks, str(e.hex)),
    )
    lone = [
        n
        for n in w.neighbours(att.hex)
        if (ld2 := w.leader_at(n)) is not None and ld2.side != att.side and w.lone(ld2)
    ]
    names = [str(e.hex) for e in targets] + [str(h) for h in lone]
    if not names:
        report_skipped(w, act, False, "bonus", "no enemy next to it after the advance")
        return None
    wanted = str(act.bonus) if act is not None and act.bonus is not None else None
    if wanted is not None and wanted not in names:
        report_skipped(
            w, act, False, "bonus", f"{wanted} is not next to the {att.type} after the advance"
        )
        return None
    pol = w.decider.policy(att.side, "bonus")
    auto = wanted or {"never": "none", "auto": names[0]}.get(pol)
    pick = w.decider.choose(
        att.side,
        "bonus",
        f"{att.label} may make a bonus close combat: against which hex (or none)?",
        [*names, "none"],
        "none",
        auto,
    )
    if pick == "none":
        return None
    return Hex.parse(pick)


def _extra_hex(w: Work, att: WUnit, act: Action | None) -> Hex | None:
    assert att.hex is not None
    options = []
    for n in w.neighbours(att.hex):
        if not w.passable(n, att.spec) or w.unit_at(n) is not None:
            continue
        ld = w.leader_at(n)
        if ld is not None and (ld.side != att.side or w.attached(att) is not None):
            continue
        options.append(str(n))
    if not options:
        report_skipped(w, act, False, "extra", "no open hex next to it after the advance", True)
        return None
    wanted = str(act.extra) if act is not None and act.extra is not None else None
    pol = w.decider.policy(att.side, "extra-hex")
    auto = wanted or ("none" if pol == "never" else None)
    if wanted is not None and wanted not in options:
        report_skipped(w, act, False, "extra", f"{wanted} is not open after the advance", True)
        auto = "none"
    pick = w.decider.choose(
        att.side,
        "extra-hex",
        f"{att.label} (cavalry) may move 1 more hex: where (or none)?",
        [*options, "none"],
        "none",
        auto,
    )
    if pick == "none":
        return None
    h = Hex.parse(pick)
    start = att.hex
    ld = w.relocate(att, h)
    w.entered.setdefault(att.id, set()).add(h)
    w.log("extra-hex", f"{att.side} {att.type} moves on {start} > {h}", unit=att.id)
    joined = w.leader_at(h)
    if ld is None and joined is not None:
        w.log("attach", f"leader {joined.name} joins the {att.type} in {h}")
    from engine.cca.special import marsh_entry  # noqa: PLC0415

    marsh_entry(w, att, h)
    return h
