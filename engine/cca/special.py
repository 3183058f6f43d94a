"""Scenario special rules (docs/position-format.md) and expansion terrain effects.

Flags handled here: ``exit-banner`` (leaving the board scores), ``hold-banner``
(ending a turn on objective hexes scores), ``hand-schedule`` and
``hand-on-banners`` (Command changes). ``sacred-band`` and ``missile-units``
are read by the combat modules, ``no-move-first-turn`` and
``reinforcements`` by ordering, ``leader-sudden-death`` by
:meth:`Work.kill_leader`. Marsh entry rolls (§17.4) live here too.
"""

from __future__ import annotations

from engine.cca.state import name_key, other
from engine.cca.work import Work, WUnit
from engine.hexgrid import Hex

__all__ = ["end_of_turn_specials", "enter_step", "exit_board", "exit_hexes", "marsh_entry"]


def exit_hexes(w: Work, side: str) -> dict[Hex, int]:
    """Hexes ``side`` may leave the board from, with the banners each exit scores."""
    out: dict[Hex, int] = {}
    for p in w.specials("exit-banner", side):
        for h in p.get("hexes", ()):
            out[Hex.parse(h)] = int(p.get("banners", 1))
    return out


def exit_board(w: Work, u: WUnit) -> None:
    """Take ``u`` off the board through an exit hex and score its banners."""
    assert u.hex is not None
    where = u.hex
    n = exit_hexes(w, u.side).get(where, 0)
    ld = w.attached(u)
    u.hex = None
    u.tags = (*u.tags, "exited")
    if ld is not None:
        ld.hex = None
    w.log("exit", f"{u.side} {u.type} leaves the board from {where}", unit=u.id, hex=str(where))
    for _ in range(n):
        w.add_banner(u.side, "special:exit-banner")


def marsh_entry(w: Work, u: WUnit, h: Hex) -> None:
    """A unit entering marsh rolls 1 die and loses a block on its own symbol (§17.4)."""
    if u.hex is None or not w.terrain(h).marsh_roll or w.simulate:
        return
    faces = w.roll(1, f"marsh at {h}")
    cause = w.rolls  # a roll of its own: its loss makes its own check (§16.1)
    w.log("marsh", f"{u.label} enters marsh: {faces[0]}", faces, unit=u.id)
    if faces[0] == u.spec.symbol:
        from engine.cca.leaders import check_after_losses  # noqa: PLC0415

        ld = w.attached(u)
        w.lose_blocks(u, 1, other(u.side), "marsh")
        check_after_losses(w, ld, u.hex is None, other(u.side), cause)


def end_of_turn_specials(w: Work) -> None:
    """Objective banners and Command changes at the end of a turn."""
    held = dict(w.marks.get("held", {}))
    for p in w.specials("hold-banner"):
        side = str(p["side"])
        for hs in p.get("hexes", ()):
            key = f"{side}:{hs}"
            u = w.unit_at(Hex.parse(hs))
            mine = u is not None and u.side == side
            if mine and key not in held:
                if p.get("once") and key in w.marks.get("scored", []):
                    continue
                held[key] = bool(p.get("permanent", False))
                w.marks["scored"] = [*w.marks.get("scored", []), key]
                for _ in range(int(p.get("banners", 1))):
                    w.add_banner(side, f"hold:{hs}")
            elif not mine and key in held and not held[key]:
                del held[key]
                reason = f"hold:{hs}"
                if reason in w.banners[side]:
                    w.banners[side].remove(reason)
                    w.log("banner-lost", f"{side} no longer holds {hs} and loses its banner")
    w.marks["held"] = held


def command_now(w: Work, side: str, turns_done: int) -> int:
    """Command (hand size) of ``side`` after it has completed ``turns_done`` turns."""
    command = w.state.sides[side].command
    for p in w.specials("hand-schedule", side):
        sizes = [int(x) for x in p.get("sizes", ())]
        if sizes:
            command = sizes[min(turns_done, len(sizes) - 1)]
    for p in w.specials("hand-on-banners", side):
        if len(w.banners[side]) >= int(p["banners"]):
            command = int(p["command"])
    return command


def _reinforcement_rule(w: Work, side: str) -> tuple[dict[str, object] | None, str]:
    for p in w.specials("reinforcements", side):
        if w.state.sides[side].turns < int(p.get("after_turn", 0)):
            return None, f"reinforcements may enter only after turn {p.get('after_turn')}"
        kind = str(p.get("card", "any"))
        card = w.state.tables.cards.get(w.card or "")
        if kind != "any" and (card is None or card.kind != kind):
            return None, f"reinforcements enter only with a {kind} card"
        return p, ""
    return None, "this scenario has no reinforcements for you"


def enter_step(w: Work, side: str, a: object) -> str | None:
    """Bring a reserve unit (or leader) onto its entry hex; return why not (None if done)."""
    from engine.cca.ordering import sections_of  # noqa: PLC0415
    from engine.cca.orders import Action  # noqa: PLC0415

    assert isinstance(a, Action) and a.target is not None
    rule, why = _reinforcement_rule(w, side)
    if rule is None:
        return why
    entry = {Hex.parse(str(h)) for h in rule.get("enter", ())}  # type: ignore[attr-defined]
    if a.target not in entry:
        return f"reinforcements enter at {', '.join(sorted(map(str, entry)))}"
    card = w.state.tables.cards.get(w.card or "")
    if (
        card is not None
        and card.leader_section
        and card.leader_section not in sections_of(w, side, a.target)
    ):
        return f"{card.name} brings units on only in your {card.leader_section}"
    if a.ref.leader is not None:
        names = [name_key(str(n)) for n in rule.get("leaders", ())]  # type: ignore[attr-defined]
        ld = next(
            (x for x in w.leaders.values() if name_key(x.name) == name_key(a.ref.leader)), None
        )
        if (
            ld is None
            or name_key(ld.name) not in names
            or ld.hex is not None
            or (ld.name not in w.marks.get("reserve_leaders", []))
        ):
            return f"leader {a.ref.leader} is not waiting in reserve"
        host = w.unit_at(a.target)
        if host is None or host.side != side or w.leader_at(a.target) is not None:
            return "a reserve leader enters with one of your units on its hex"
        ld.hex = a.target
        w.marks["reserve_leaders"] = [n for n in w.marks["reserve_leaders"] if n != ld.name]
        w.log("enter", f"leader {ld.name} enters at {a.target}", leader=ld.name)
        return None
    if w.unit_at(a.target) is not None or w.leader_at(a.target) is not None:
        return f"{a.target} is occupied"
    tags = [str(t) for t in rule.get("units", ())]  # type: ignore[attr-defined]
    for u in w.units.values():
        if (
            u.side == side
            and u.hex is None
            and u.blocks > 0
            and "exited" not in u.tags
            and u.type == a.unit_type
            and (not tags or set(tags) & set(u.tags))
        ):
            if not w.passable(a.target, u.spec):  # the entry hex is its first hex (§19)
                return f"{a.target} ({w.state.terrain_at(a.target)}) is impassable to {u.type}"
            u.hex = a.target
            w.moved[u.id] = 1
            w.entered.setdefault(u.id, set()).add(a.target)
            w.ordered.add(u.id)
            w.placed.add(u.id)  # the entry hex is its first hex of movement (§19)
            w.log("enter", f"{side} {u.type} enters at {a.target}", unit=u.id)
            marsh_entry(w, u, a.target)
            return None
    return f"no {a.unit_type} is waiting in reserve"
