"""What a side may do now, piece by piece: ``pbem engine legal`` (docs/engine-cli.md).

:func:`legal_actions` is the system's ``legal_actions``: the playable cards
(:func:`engine.cca.view.legal_hints`) and, per unit and lone leader, the
hexes it could reach if ordered, the adjacent enemies it could attack and
the hexes it could fire at.
"""

from __future__ import annotations

from typing import Any

from engine.cca import combat, movement
from engine.cca.decide import Decider
from engine.cca.policy import parse_policy
from engine.cca.state import State
from engine.cca.view import legal_hints
from engine.cca.work import Work
from engine.core.choices import choice_stream
from engine.core.replay import AnswerBook

__all__ = ["legal_actions", "unit_options"]


def legal_actions(state: State, side: str, card: str | None = None) -> dict[str, Any]:
    """``cards`` (playable, with the units each orders), ``hints`` and ``units``."""
    hints = legal_hints(state, side)
    units = unit_options(state, side, card)
    return {"cards": hints.get("cards", []), "hints": hints, "units": units}


def unit_options(state: State, side: str, card: str | None) -> list[dict[str, Any]]:
    """Per unit: hexes it could reach if ordered, adjacent enemies, fire targets."""
    pol = {s: parse_policy(v.standing or "") for s, v in state.sides.items()}
    w = Work.start(state, choice_stream(b"legal"), Decider(pol, AnswerBook(())))
    w.active = side
    w.card = card
    out: list[dict[str, Any]] = []
    for u in w.live_units(side):
        assert u.hex is not None
        w.ordered = {u.id}
        reach = sorted(str(h) for h in movement.reach(w, u) if h != u.hex)
        adjacent = sorted(str(e.hex) for e in w.enemy_units_adjacent(u))
        rmax = combat.fire_range(w, u)
        fire: list[str] = []
        if rmax and not adjacent:
            for h in w.state.board:
                e = w.unit_at(h)
                if (
                    e is not None
                    and e.side != side
                    and 2 <= u.hex.distance(h) <= rmax
                    and combat.los_clear(w, u.hex, h)
                ):
                    fire.append(str(h))
        ld = w.attached(u)
        out.append(
            {
                "hex": str(u.hex),
                "type": u.type,
                "blocks": u.blocks,
                "leader": None if ld is None else ld.name,
                "reach": reach,
                "attack": adjacent,
                "fire": sorted(fire),
            }
        )
    for ld in w.leaders.values():
        if ld.side == side and ld.hex is not None and w.lone(ld):
            out.append(
                {
                    "leader": ld.name,
                    "hex": str(ld.hex),
                    "reach": sorted(str(h) for h in movement.leader_reach(w, ld) if h != ld.hex),
                }
            )
    return out
