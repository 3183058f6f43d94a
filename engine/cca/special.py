"""Scenario special rules (docs/position-format.md) and expansion terrain effects.

Flags handled here: ``exit-banner`` (leaving the board scores), ``hold-banner``
(ending a turn on objective hexes scores), ``hand-schedule`` and
``hand-on-banners`` (Command changes). ``sacred-band`` and ``missile-units``
are read by the combat modules, ``no-move-first-turn`` and
``reinforcements`` by ordering, ``leader-sudden-death`` by
:meth:`Work.kill_leader`. Marsh entry rolls (§17.4) live here too.
"""

from __future__ import annotations

from engine.cca.state import other
from engine.cca.work import Work, WUnit
from engine.hexgrid import Hex

__all__ = ["end_of_turn_specials", "exit_board", "exit_hexes", "marsh_entry"]


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
    if ld is not None:
        ld.hex = None
    w.log("exit", f"{u.side} {u.type} leaves the board from {where}", unit=u.id, hex=str(where))
    for _ in range(n):
        w.add_banner(u.side, "special:exit-banner")


def marsh_entry(w: Work, u: WUnit, h: Hex) -> None:
    """A unit entering marsh rolls 1 die and loses a block on its own symbol (§17.4)."""
    if u.hex is None or not w.terrain(h).marsh_roll:
        return
    faces = w.roll(1, f"marsh at {h}")
    w.log("marsh", f"{u.label} enters marsh: {faces[0]}", faces, unit=u.id)
    if faces[0] == u.spec.symbol:
        from engine.cca.leaders import check_after_losses  # noqa: PLC0415

        ld = w.attached(u)
        w.lose_blocks(u, 1, other(u.side), "marsh")
        check_after_losses(w, ld, u.hex is None, other(u.side))


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

