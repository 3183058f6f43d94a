"""What a side may do now, piece by piece: ``pbem engine legal`` (docs/engine-cli.md).

:func:`legal_actions` is the system's ``legal_actions``: the playable cards
(:func:`engine.cca.view.legal_hints`) and, per unit and lone leader, the
hexes it could reach if ordered, the enemies it could attack and the hexes
it could fire at (cca.md §7-§9).

One source for the legal list and the orders checker: reach comes from
:func:`engine.cca.movement.reach` (the one movement rule that
:func:`~engine.cca.movement.check_path` also applies), targets from
:func:`targets` (which :mod:`engine.cca.validate` checks battle lines
against), and the card in effect, with its fallback clause, from
:mod:`engine.cca.ordering`.
"""

from __future__ import annotations

from typing import Any

from engine.cc.decide import Decider
from engine.cca.combat import fire_range, los_clear
from engine.cca.movement import leader_reach, reach
from engine.cca.state import State
from engine.cca.work import Work, WUnit
from engine.core.replay import AnswerBook
from engine.hexgrid import Hex
from engine.randomness import ScriptedDice

__all__ = ["legal_actions", "target_hexes", "targets", "unit_options"]


def legal_actions(state: State, side: str, card: str | None = None) -> dict[str, Any]:
    """``cards`` (playable, with the units each orders), ``hints`` and ``units``."""
    from engine.cca.view import legal_hints  # noqa: PLC0415

    hints = legal_hints(state, side)
    units = unit_options(state, side, card)
    return {"cards": hints.get("cards", []), "hints": hints, "units": units}


def targets(w: Work, u: WUnit, close: bool) -> tuple[str, ...]:
    """Hexes ``u`` may close-combat (adjacent) or fire at (range and sight): enemy units
    and lone enemy leaders (§8.7, §9.1, §16.3)."""
    return tuple(str(h) for h in target_hexes(w, u, close))


def target_hexes(w: Work, u: WUnit, close: bool) -> list[Hex]:
    """:func:`targets` as hexes, in the board's order."""
    assert u.hex is not None
    here = u.hex
    if close:  # the neighbours
        near: list[Hex] = list(w.neighbours(here))
    else:  # only a hex holding a piece, in range, can be a target
        most = fire_range(w, u)
        board = w.state.board
        held = {p.hex for p in w.units.values() if p.hex is not None}
        held.update(ld.hex for ld in w.leaders.values() if ld.hex is not None)
        near = [h for h in held if h in board and 2 <= here.distance(h) <= most]
    out: list[Hex] = []
    for h in sorted(near, key=lambda h: (h.y, h.x)):  # the board's order
        e = w.unit_at(h)
        ld = w.leader_at(h)
        enemy = (e is not None and e.side != u.side) or (
            e is None and ld is not None and ld.side != u.side
        )
        if enemy and (close or los_clear(w, here, h)):
            out.append(h)
    return out


def unit_options(state: State, side: str, card: str | None) -> list[dict[str, Any]]:
    """Per unit of ``side``: hexes it could reach if ordered by ``card``, close-combat and
    fire targets; per lone leader: its reach."""
    from engine.cca.ordering import effective_card, fallback_applies  # noqa: PLC0415

    w = Work.start(state, ScriptedDice([]), Decider({}, AnswerBook(())))
    w.simulate = True
    w.active = side
    w.card = card
    if card is not None and card in w.state.tables.cards:
        spec, _sec, _why = effective_card(w.state, side, card)
        if spec is not None:
            w.card = spec.code
            w.fallback = fallback_applies(w, side, spec)
    out: list[dict[str, Any]] = []
    for u in w.live_units(side):
        assert u.hex is not None
        w.ordered = {u.id}
        adjacent = [e.hex for e in w.enemy_units_adjacent(u)]
        ld = w.attached(u)
        out.append(
            {
                "hex": str(u.hex),
                "type": u.type,
                "blocks": u.blocks,
                "leader": None if ld is None else ld.name,
                "reach": sorted(str(h) for h in reach(w, u) if h != u.hex),
                "attack": sorted(targets(w, u, True)),
                "fire": [] if adjacent else sorted(targets(w, u, False)),
            }
        )
    for lead in w.leaders.values():
        if lead.side == side and lead.hex is not None and w.lone(lead):
            out.append(
                {
                    "leader": lead.name,
                    "hex": str(lead.hex),
                    "reach": sorted(str(h) for h in leader_reach(w, lead) if h != lead.hex),
                }
            )
    return out
