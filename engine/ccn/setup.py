"""Setting up a Napoleonics battle (ccn.md §5): a scenario made a state, then a new game.

:func:`scenario_state` reads a scenario with the scenario loader (:mod:`engine.ccn.scenario`,
every problem by line) and builds the position before any card is dealt: units with their
starting strength (the scenario's, else the nation's, §4.6), leaders, terrain, fortified
hexsides, objectives, special rules, the 70 cards still to shuffle. :func:`new_game` applies
options, shuffles the deck and deals each side the hand the scenario gives (§5.5), sets the
standing orders every side starts with; the game keeps the tables of its position (the
bundled ones unless a club gave its own, docs/tables.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from engine.cc.deal import deal_cards, merged_options
from engine.ccn.cards import DECK
from engine.ccn.policy import DEFAULT_STANDING
from engine.ccn.state import (
    DEFAULT_OPTIONS,
    SIDES,
    Leader,
    Objective,
    SideState,
    Special,
    State,
    Unit,
)
from engine.ccn.strength import start_blocks
from engine.ccn.work import bundled_tables
from engine.core.api import CardMove, CardPiles, PositionError
from engine.core.capabilities import Dealt
from engine.hexgrid import Hex
from engine.randomness import Randomness

__all__ = ["deal", "new_game", "scenario_state"]


def scenario_state(text: str) -> State:
    """The position a scenario file sets up (cards not yet dealt); PositionError by line."""
    from engine.ccn.scenario import ScenarioFileError, load_scenario  # noqa: PLC0415

    try:
        sc = load_scenario(text)
    except ScenarioFileError as e:
        first = e.problems[0]
        more = f" (and {len(e.problems) - 1} more)" if len(e.problems) > 1 else ""
        raise PositionError(first.line, first.message + more) from None
    t = bundled_tables()
    units: list[Unit] = []
    leaders: list[Leader] = []
    sides: dict[str, SideState] = {}
    for side in SIDES:
        sd = sc.side(side)
        nation = sd.nations[0] if sd.nations else ""
        sides[side] = SideState(
            army=sd.army,
            nation=nation,
            colour=t.nations[nation].colour if nation in t.nations else "",
            command=sd.command,
            banners_needed=sd.banners,
        )
        prefix = side[0]
        for u in sd.units:
            full = start_blocks(t, u.nation, u.type, u.blocks)
            units.append(
                Unit(
                    f"{prefix}{len(units) + 1}",
                    side,
                    u.nation,
                    u.type,
                    Hex.parse(u.hex),
                    full,
                    full,
                    tags=tuple(u.tags),
                )
            )
        leaders += [Leader(ld.name, side, Hex.parse(ld.hex), ld.nation) for ld in sd.leaders]
    objectives = tuple(
        Objective(
            name=o.name(i),
            hexes=tuple(Hex.parse(h) for h in o.hexes),
            side=o.side,
            banners=o.banners,
            count=o.count,
            permanent=o.kind == "permanent",
            when=o.when,
            sudden_death=o.sudden_death,
        )
        for i, o in enumerate(sc.objectives)
    )
    return State(
        game_id=sc.id,
        name=sc.name,
        year=sc.year,
        units=tuple(units),
        leaders=tuple(leaders),
        sides=sides,
        terrain=tuple(sorted((Hex.parse(h), code) for h, code in sc.terrain.items())),
        fortified=tuple(
            sorted(
                (Hex.parse(h), tuple(Hex.parse(n) for n in ns)) for h, ns in sc.fortified.items()
            )
        ),
        deck=DECK,
        deck_random=True,
        to_move=sc.first,
        objectives=objectives,
        specials=tuple(Special(r.rule, dict(r.params)) for r in sc.special),
    )


def new_game(
    position: State, options: Mapping[str, Any] | None = None, rng: Randomness | None = None
) -> State:
    """Start a game: apply ``options``, shuffle the deck, deal the hands (ccn.md §5).

    Without ``rng`` the deck stays in table order (tests). Unknown options raise ValueError.
    """
    state: State = deal(position, options, rng).state
    return state


def deal(
    position: State, options: Mapping[str, Any] | None = None, rng: Randomness | None = None
) -> Dealt:
    """:func:`new_game`, with the piles before the deal and the cards it moved (the audit
    record's card log, docs/audit.md)."""
    state = replace(position, options=merged_options(position.options, options, DEFAULT_OPTIONS))
    setup = CardPiles(state.deck, state.discard, {s: state.sides[s].hand for s in SIDES})
    moves: list[CardMove] = []
    if state.deck_random:
        sides = state.sides
        # a square's chart card stays out of the hand it was taken from (§21.4)
        room = {s: max(0, sides[s].command - len(sides[s].hand) - len(sides[s].squares))
                for s in SIDES}  # fmt: skip
        deck, drawn, moves = deal_cards(state.deck, rng, room)
        for side, cards in drawn.items():
            state = state.with_side(side, hand=state.sides[side].hand + cards)
        state = replace(state, deck=deck, deck_random=False)
    for side in SIDES:
        if not state.sides[side].standing:
            state = state.with_side(side, standing=DEFAULT_STANDING)
    return Dealt(state, setup, tuple(moves))
