"""The C&C Ancients system object: the API of :mod:`engine.core.api` for this game.

Flow: ``load_position`` (TOML) -> ``new_game`` (options, shuffle, deal) ->
loop { ``prompt`` -> ``parse_orders`` -> ``resolve`` }. A submission is
checked as a whole before any die is rolled (:class:`OrdersError` lists every
problem). ``resolve`` returns the new state and the events; when a player's
decision is needed mid-turn, the new state has a pending turn and
``prompt`` is a question to that side; its answer is parsed by
``parse_orders`` (the text ``answer <choice>`` or just the choice) and passed
to ``resolve`` with the next epoch's randomness.

Event kinds (``Event.kind``; ``data`` carries unit ids, hexes, counts):
``card ordered move attach enter exit`` (orders and movement), ``fire attack
battle battle-back first-strike attack-cancelled evade evade-move crew-fled``
(combat; ``dice`` holds the faces), ``hits eliminated banner banner-lost
flags retreat retreat-blocked rampage rampage-roll advance no-advance
extra-hex marsh`` (results), ``leader-check leader-killed leader-evade
leader-escape leader-trapped sudden-death`` (leaders), ``spartacus rally
rallied shuffle draw`` (cards), ``moot`` (an order the dice made pointless,
skipped), ``question`` (the turn waits for a side) and ``victory``.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from engine.cc.deal import deal_cards, merged_options
from engine.cca.cards import CARDS, DECK
from engine.cca.orders import Submission
from engine.cca.position import load_position, write_position
from engine.cca.state import DEFAULT_OPTIONS, SIDES, State, state_from_dict, state_to_dict
from engine.core.api import CardMove, CardPiles, Prompt, Resolution
from engine.core.canonical import canonical_json, load_json
from engine.core.capabilities import Dealt
from engine.core.masking import mask_hands
from engine.dice import BATTLE_DIE
from engine.randomness import Die, Randomness

__all__ = ["SYSTEM", "CCASystem"]


class CCASystem:
    """C&C Ancients behind the system-neutral protocol (stateless; one instance)."""

    name = "cca"
    version = "1"
    title = "Commands & Colors: Ancients"
    sides: tuple[str, ...] = SIDES
    dice: Mapping[str, Die] = {BATTLE_DIE.name: BATTLE_DIE}
    deck_contents: tuple[str, ...] = DECK
    """Every card of the deck, catalogue order (the audit verifiers fix it, docs/audit.md)."""

    def load_position(self, text: str) -> State:
        """Parse a position or scenario file (raises PositionError)."""
        return load_position(text)

    def write_position(self, state: State) -> str:
        """Print a state as a position file."""
        return write_position(state)

    def new_game(
        self,
        position: State,
        options: Mapping[str, Any] | None = None,
        rng: Randomness | None = None,
    ) -> State:
        """Start a game: apply ``options``, shuffle the deck and deal the hands.

        ``rng.permutation`` shuffles the deck (the daemon routes it to the deck
        chain); without ``rng`` the deck stays in catalogue order (tests).
        Unknown option names raise ``ValueError``.
        """
        state: State = self.deal(position, options, rng).state
        return state

    def deal(
        self,
        position: State,
        options: Mapping[str, Any] | None = None,
        rng: Randomness | None = None,
    ) -> Dealt:
        """:meth:`new_game`, with the piles before the deal and the cards it moved."""
        state = replace(
            position, options=merged_options(position.options, options, DEFAULT_OPTIONS)
        )
        for sp in state.specials:  # a hand schedule sets the first turn's hand size
            if sp.rule == "hand-schedule" and sp.params.get("sizes") and state.deck_random:
                side = str(sp.params["side"])
                if state.sides[side].turns == 0:
                    state = state.with_side(side, command=int(sp.params["sizes"][0]))
        setup = CardPiles(state.deck, state.discard, {s: state.sides[s].hand for s in SIDES})
        moves: list[CardMove] = []
        if state.deck_random:
            room = {s: max(0, state.sides[s].command - len(state.sides[s].hand)) for s in SIDES}
            deck, drawn, moves = deal_cards(state.deck, rng, room)
            for side, cards in drawn.items():
                state = state.with_side(side, hand=state.sides[side].hand + cards)
            state = replace(state, deck=deck, deck_random=False)
        from engine.cca.policy import DEFAULT_STANDING  # noqa: PLC0415

        for side in SIDES:
            if not state.sides[side].standing:
                state = state.with_side(side, standing=DEFAULT_STANDING)
        return Dealt(state, setup, tuple(moves))

    def prompt(self, state: State) -> Prompt:
        """Say who must act now."""
        if state.result is not None:
            text = "draw" if state.result == "draw" else f"{state.result} wins"
            return Prompt(
                "over", None, f"The battle is over: {text}.", result=state.result, turn=state.turn
            )
        if state.pending is not None:
            # ``text`` is public; ``question`` (its text, answers, default) goes to q.side only.
            q = state.pending.question
            return Prompt(
                "question",
                q.side,
                f"Waiting for a decision from {q.side}.",
                question=q,
                turn=state.turn,
            )
        return Prompt(
            "orders",
            state.to_move,
            f"Turn {state.turn}: {state.to_move} plays a card and gives orders.",
            turn=state.turn,
        )

    def parse_orders(self, state: State, side: str, text: str) -> Submission:
        """Parse and check a whole submission (raises OrdersError, changes nothing)."""
        from engine.cca.validate import check_submission  # noqa: PLC0415

        return check_submission(state, side, text)

    def resolve(self, state: State, submission: Submission, rng: Randomness) -> Resolution:
        """Resolve an accepted submission (orders or an answer) with ``rng``."""
        from engine.cca.turn import resolve  # noqa: PLC0415

        return resolve(state, submission, rng)

    def player_view(self, state: State, side: str) -> dict[str, Any]:
        """What ``side`` may see: its own hand; counts only for the rest."""
        from engine.cca.view import player_view  # noqa: PLC0415

        return player_view(state, side)

    def public_view(self, state: State) -> dict[str, Any]:
        """What anyone may see: no hands, no deck order."""
        from engine.cca.view import public_view  # noqa: PLC0415

        return public_view(state)

    def to_json(self, state: State) -> str:
        """Canonical JSON of the whole state (secrets included: store only)."""
        return canonical_json(state_to_dict(state))

    def from_json(self, text: str) -> State:
        """Inverse of :meth:`to_json`."""
        return state_from_dict(load_json(text))

    def legal_hints(self, state: State, side: str) -> dict[str, Any]:
        """Playable cards and orderable units per card, for mails and templates."""
        from engine.cca.view import legal_hints  # noqa: PLC0415

        return legal_hints(state, side)

    def orders_template(self, state: State, side: str) -> str:
        """An orders template ready to fill in (comments explain the choices)."""
        from engine.cca.view import orders_template  # noqa: PLC0415

        return orders_template(state, side)

    def parse_standing_orders(self, text: str) -> Any:
        """Parse standing orders text (raises OrdersError); see engine.cca.policy."""
        from engine.cca.policy import parse_policy  # noqa: PLC0415

        return parse_policy(text)

    def legal_actions(self, state: State, side: str, card: str | None = None) -> dict[str, Any]:
        """Playable cards, and per unit its reach, attacks and fire targets (under ``card``)."""
        from engine.cca.legal import legal_actions  # noqa: PLC0415

        return legal_actions(state, side, card)

    def masked(self, state: State, side: str) -> State:
        """``state`` as ``side`` may know it: other hands and the deck re-dealt in order."""
        masked: State = mask_hands(state, side, self.to_json, self.from_json)
        return masked

    def summary(self, state: State) -> str:
        """``banners: north 2/5 / south 3/5`` (what a player checks each turn)."""
        return "banners: " + " / ".join(
            f"{s} {len(v.banners)}/{v.banners_needed}" for s, v in state.sides.items()
        )

    def card_name(self, code: str) -> str:
        """Full name of a card code."""
        return CARDS[code].name

    def capability(self, name: str) -> object | None:
        """Forecast, autoplay, scenario checks, rules help, picture, tables, dice luck
        (imported when asked for)."""
        if name == "deal":
            return self
        target = _CAPABILITIES.get(name)
        if target is None:
            return None
        module, _, attr = target.partition(":")
        provider: object = getattr(importlib.import_module(module), attr)()
        return provider


_CAPABILITIES = {
    "forecast": "engine.cca.forecast_text:Forecaster",
    "autoplay": "engine.cca.autoplay:AutoPlayer",
    "scenarios": "engine.cca.scenario:ScenarioChecker",
    "rules-help": "engine.cca.cards:RulesHelp",
    "picture": "engine.cca.picture:PictureBuilder",
    "tables": "engine.cca.tables:TableProvider",
    "dice-luck": "engine.cca.luck:DiceLuck",
    "playout": "engine.cca.playout:AncientsPlayout",
}


SYSTEM = CCASystem()
"""The one C&C Ancients system object."""
