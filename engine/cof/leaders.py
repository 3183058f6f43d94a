"""Chariots of Fire leaders off the battle line (cof.md §4.2, §4.4-§4.6, §10.1), as pure
functions over :mod:`engine.cof.pieces`.

:func:`displaced` moves a lone leader an enemy unit comes next to; :func:`wound` and
:func:`ratings` are a wound's effect; :func:`replacement_hexes` is Phase D's replacement of a
killed wing leader; :func:`leader_ma`, :func:`trace_leader` and :func:`moves_on` are leader
movement: how far, at what cost, and on which activation marker.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from engine.cof.elevation import step_cost
from engine.cof.pieces import Chief, Ground, Piece, adjacent
from engine.cof.tables import CofTables
from engine.gboh.grid import GHex

__all__ = [
    "displaced",
    "leader_ma",
    "moves_on",
    "ratings",
    "replacement_hexes",
    "trace_leader",
    "wound",
]


def displaced(pieces: Sequence[Piece], chief: Chief, enemy_at: GHex) -> list[GHex] | None:
    """Where a lone leader goes when an enemy combat unit moves next to him (rulebook §4.24,
    cof.md §4.2): ``[]`` if he is not alone (stacked with a friendly combat unit) or the enemy
    is not adjacent; else the hexes of the nearest friendly combat units (ties: the owner's
    choice, all listed); ``None``: his side has no combat unit left and he is eliminated.
    Not a move, no cost; a Standard with him goes along (§9.33). Heroes alike (§10.16).
    An enemy unit entering his very hex (§6.56 lets it) is nearer than next to him: he falls
    back alike (the rulebook captures no leader)."""
    if chief.hex is None or chief.hex.distance(enemy_at) > 1:
        return []
    here = chief.hex
    friends = [p.hex for p in pieces if p.side == chief.side]
    if here in friends:
        return []
    if not friends:
        return None
    best = min(h.distance(here) for h in friends)
    return sorted({h for h in friends if h.distance(here) == best})


def wound(chief: Chief) -> Chief | None:
    """A wound (rulebook §8.15, cof.md §4.4): the leader stays, wounded; wounded again he is
    killed (``None``)."""
    return None if chief.wounded else replace(chief, wounded=True)


def ratings(chief: Chief) -> Chief:
    """The ratings a wounded leader uses: Initiative, Command Range, Charisma and Ability
    one less, never below 0 (cof.md §4.4 [E]: not Combat or Endurance)."""
    if not chief.wounded:
        return chief
    return replace(
        chief,
        initiative=max(0, chief.initiative - 1),
        command_range=max(0, chief.command_range - 1),
        charisma=max(0, chief.charisma - 1),
        ability=max(0, chief.ability - 1),
    )


def replacement_hexes(pieces: Sequence[Piece], killed: Chief) -> list[GHex]:
    """Phase D (rulebook §4.25, cof.md §4.5): where a killed wing leader's replacement may be
    placed: with any unit of his wing in play (the owner's choice). An overall commander is
    never replaced, nor a wing leader whose wing has no unit left (both: ``[]``). A killed
    replacement is replaced again the same way."""
    if killed.role != "WC" or killed.wing is None:
        return []
    return sorted({p.hex for p in pieces if p.side == killed.side and p.wing == killed.wing})


def leader_ma(charts: CofTables, chief: Chief) -> int:
    """A leader's MA each Orders Phase (rulebook §4.13, §10.13): 9 mounted, 5 on foot."""
    return charts.actions["leader_foot_ma" if chief.on_foot else "leader_ma"].value


def trace_leader(
    charts: CofTables, ground: Ground, pieces: Sequence[Piece], chief: Chief, path: Sequence[GHex]
) -> tuple[int, str]:
    """MP a leader spends along ``path`` (the hexes entered), and the problem that stops
    him ('' when none) (rulebook §4.14, §6.56; cof.md §4.6): no facing; the chariot column
    mounted, the infantry column on foot; +1 MP into a friendly combat unit's hex; never into
    an enemy combat unit's hex or past his MA."""
    column = "infantry" if chief.on_foot else "chariot"
    ma = leader_ma(charts, chief)
    spent = 0
    here = chief.hex
    for h in path:
        if here is None or not adjacent(here, h):
            return spent, f"{h} is not next to {here}"
        there = [p for p in pieces if p.hex == h]
        if any(p.side != chief.side for p in there):
            return spent, f"a leader may not enter {h}: an enemy combat unit is there"
        cost = step_cost(charts, ground, charts.types["CH2"], here, h, column=column)
        if cost is None:
            return spent, f"a leader may not enter {h} ({ground.kind(h)})"
        if there:
            cost += charts.actions["leader_into_unit"].value
        if spent + cost > ma:
            return spent, f"entering {h} needs {cost} MP, {ma - spent} left"
        spent += cost
        here = h
    return spent, ""


def moves_on(chief: Chief, marker: str, *, commands_wing: bool) -> bool:
    """Whether ``chief`` moves when ``marker`` (``wing:<id>`` or ``momentum``) of his side is
    used (rulebook §5.46, §10.14; cof.md §4.6, §15 item 5): a wing leader, and an overall
    commander leading a wing, in that wing's Orders Phase; an overall commander without a
    wing, and a hero who leads nobody, on the Momentum marker (after the attempt, whatever
    its result)."""
    if marker == "momentum":
        return (chief.role == "OC" and not commands_wing) or (
            chief.role == "hero" and chief.wing is None
        )
    return commands_wing and chief.wing is not None and marker == f"wing:{chief.wing}"
