"""Standards in the turn (cof.md §9.6, rulebook §9.33-§9.34): capture, the captor's choice,
a kept Standard following its captor, its return to the owner and its loss.

The rules are :mod:`engine.cof.rout`'s (:func:`~engine.cof.rout.standard_captured`,
:func:`~engine.cof.rout.flee_near_standard`, :func:`~engine.cof.rout.standard_returns`);
these steps apply them to a :class:`~engine.cof.state.CofState`:

* :func:`update` after every order line and every advance: an enemy combat unit standing in
  a Standard's hex with no friendly combat unit there captures it; the owner's routed units
  within 3 hexes flee; the captor keeps it (it moves with that unit) or eliminates it, as the
  captor's standing order ``standard`` says; a kept Standard that moves makes the routed
  units near its new hex flee too;
* :func:`restore` when a side's marker is used: the Standard comes back to the overall
  commander once he is activated or may move in a game turn after the capture;
* :func:`end_of_turn`: a captured Standard whose overall commander is dead is removed at the
  end of the game turn after the capture.

pbem's readings [E]: a Standard is captured where the enemy unit ends a move or an advance
(passing through its hex does not capture it); a kept Standard whose captor is eliminated
stays in the hex where the captor fell, still captured.
"""

from __future__ import annotations

from engine.cof.adapt import chief, piece, pieces
from engine.cof.leaders import moves_on
from engine.cof.policy import policy_of
from engine.cof.rout import Standard, standard_captured, standard_returns
from engine.cof.state import SIDES, CofState, other
from engine.cof.steps import Ctx, flee_near
from engine.gboh.grid import GHex

__all__ = ["end_of_turn", "restore", "standard_of", "update"]


def standard_of(s: CofState, side: str) -> Standard:
    """A side's Standard as the rules see it."""
    v = s.sides[side]
    return Standard(
        side,
        GHex.parse(v.standard) if v.standard else None,
        captured_by=v.standard_by or None,
        captured_turn=v.standard_captured or None,
        eliminated=bool(v.standard_captured) and not v.standard,
    )


def update(ctx: Ctx) -> None:
    """Capture and follow every Standard (see the module docstring)."""
    s = ctx.s
    for side in SIDES:
        v = s.sides[side]
        std = standard_of(s, side)
        if std.hex is None:
            continue
        if v.standard_by:
            captor = s.unit(v.standard_by)
            if captor.on_map and captor.hex != v.standard:
                v.standard = captor.hex
                moved = standard_of(s, side)
                ctx.log(
                    "standard",
                    f"{captor.id} carries off the {v.name} Standard to {v.standard}",
                    {"side": side, "hex": v.standard},
                )
                flee_near(ctx, moved, "moves")
            continue
        here = [u for u in s.units_at(v.standard) if u.side == other(side)]
        if not here or not standard_captured(pieces(s), std, piece(s, here[0])):
            continue
        captor = here[0]
        keep = policy_of(s, captor.side).get("standard") == "keep"
        ctx.log(
            "standard",
            f"{captor.id} captures the {v.name} Standard at {v.standard}"
            + (" and keeps it" if keep else " and destroys it"),
            {"side": side, "captor": captor.id, "hex": v.standard, "kept": keep},
        )
        flee_near(ctx, std, "is captured")
        v.standard_captured = s.turn
        if keep:
            v.standard_by = captor.id
        else:
            v.standard = ""


def restore(ctx: Ctx, side: str, marker: str) -> None:
    """The owner's Standard comes back to his overall commander when ``marker`` (``wing:<id>``
    or ``momentum``) lets him move in a later game turn (rulebook §9.33)."""
    s = ctx.s
    v = s.sides[side]
    oc = s.oc(side)
    if oc is None or not oc.on_map or not v.standard_captured:
        return
    may_move = moves_on(chief(oc), marker, commands_wing=bool(oc.wing))
    if not standard_returns(standard_of(s, side), s.turn, owner_may_move=may_move):
        return
    v.standard, v.standard_by, v.standard_captured = oc.hex, "", 0
    ctx.log(
        "standard",
        f"the {v.name} Standard is back with {oc.name} at {oc.hex}",
        {"side": side, "hex": oc.hex},
    )


def end_of_turn(ctx: Ctx) -> None:
    """A captured Standard whose overall commander is dead is gone for good at the end of the
    game turn after the capture (rulebook §9.33)."""
    s = ctx.s
    for side in SIDES:
        v = s.sides[side]
        if v.standard_captured and s.oc(side) is None and s.turn > v.standard_captured:
            if v.standard:
                ctx.log(
                    "standard",
                    f"the captured {v.name} Standard is removed from play",
                    {"side": side},
                )
            v.standard, v.standard_by = "", ""
