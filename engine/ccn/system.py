"""The C&C Napoleonics system object: the API of :mod:`engine.core.api` for this game.

Flow: ``load_position`` (a scenario, :mod:`engine.ccn.scenario`, or a saved position,
:mod:`engine.ccn.position`) -> ``new_game`` (options, shuffle, deal) -> loop { ``prompt`` ->
``parse_orders`` -> ``resolve`` }. A submission is checked as a whole before any die is
rolled (:class:`OrdersError` lists every problem by line). When a player's decision is
needed mid-turn (First Strike, square, retire and reform, flags, retreat paths...), the new
state has a pending turn and ``prompt`` is a question to that side.

Event kinds (``Event.kind``; ``data`` carries unit ids, hexes, counts): ``card ordered
card-dice rallied move attach detach square-broken short-supply`` (orders and movement), ``fire
battle first-strike square square-roll repulse attack-cancelled`` (combat; ``dice`` holds
the faces), ``hits eliminated banner banner-lost flags retreat retreat-blocked
square-flags take-ground no-bonus`` (results), ``leader-check leader-killed leader-retreat
leader-escape leader-trapped leader-off`` (leaders), ``shuffle draw scout`` (cards), ``moot``
(an order the dice made pointless, skipped), ``question`` and ``victory``.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from engine.cc.orders import Submission
from engine.ccn.cards import DECK, card_name
from engine.ccn.rules.hits import BATTLE_DIE
from engine.ccn.state import SIDES, State, state_from_dict, state_to_dict
from engine.core.api import Prompt, Resolution
from engine.core.canonical import canonical_json, load_json
from engine.core.capabilities import Dealt
from engine.randomness import D6, Die, Randomness

__all__ = ["SYSTEM", "CCNSystem"]


class CCNSystem:
    """C&C Napoleonics behind the system-neutral protocol (stateless; one instance)."""

    name = "ccn"
    version = "1"
    title = "Commands & Colors: Napoleonics"
    sides: tuple[str, ...] = SIDES
    dice: Mapping[str, Die] = {BATTLE_DIE.name: BATTLE_DIE, D6.name: D6}
    """The battle die, and a d6 for the random square card (ccn.md §21.4)."""
    deck_contents: tuple[str, ...] = DECK
    """Every card of the deck, table order (the audit verifiers fix it, docs/audit.md)."""

    def load_position(self, text: str) -> State:
        """Parse a scenario or a position file (raises PositionError with a line)."""
        from engine.ccn.position import load_position  # noqa: PLC0415

        return load_position(text)

    def write_position(self, state: State) -> str:
        """Print a state as a ``pbem-position/2`` file."""
        from engine.ccn.position import write_position  # noqa: PLC0415

        return write_position(state)

    def new_game(
        self,
        position: State,
        options: Mapping[str, Any] | None = None,
        rng: Randomness | None = None,
    ) -> State:
        """Start a game: apply ``options``, shuffle the deck and deal the hands (ccn.md §5)."""
        from engine.ccn.setup import new_game  # noqa: PLC0415

        return new_game(position, options, rng)

    def deal(
        self,
        position: State,
        options: Mapping[str, Any] | None = None,
        rng: Randomness | None = None,
    ) -> Dealt:
        """:meth:`new_game`, with the piles before the deal and the cards it moved."""
        from engine.ccn.setup import deal  # noqa: PLC0415

        return deal(position, options, rng)

    def prompt(self, state: State) -> Prompt:
        """Say who must act now."""
        if state.result is not None:
            return Prompt(
                "over", None, f"The battle is over: {state.result} wins.",
                result=state.result, turn=state.turn,
            )  # fmt: skip
        if state.pending is not None:
            # ``text`` is public; ``question`` (its text, answers, default) goes to q.side only.
            q = state.pending.question
            return Prompt(
                "question", q.side, f"Waiting for a decision from {q.side}.",
                question=q, turn=state.turn,
            )  # fmt: skip
        return Prompt(
            "orders", state.to_move,
            f"Turn {state.turn}: {state.to_move} plays a card and gives orders.",
            turn=state.turn,
        )  # fmt: skip

    def parse_orders(self, state: State, side: str, text: str) -> Submission:
        """Parse and check a whole submission (raises OrdersError, changes nothing)."""
        from engine.ccn.validate import check_submission  # noqa: PLC0415

        return check_submission(state, side, text)

    def resolve(self, state: State, submission: Submission, rng: Randomness) -> Resolution:
        """Resolve an accepted submission (orders or an answer) with ``rng``."""
        from engine.ccn.turn import resolve  # noqa: PLC0415

        return resolve(state, submission, rng)

    def legal_actions(self, state: State, side: str, card: str | None = None) -> dict[str, Any]:
        """Playable cards, and per piece its reach and targets (under ``card``)."""
        from engine.ccn.view import legal_actions  # noqa: PLC0415

        return legal_actions(state, side, card)

    def player_view(self, state: State, side: str) -> dict[str, Any]:
        """What ``side`` may see: its own hand and square chart; counts for the rest."""
        from engine.ccn.view import player_view  # noqa: PLC0415

        return player_view(state, side)

    def public_view(self, state: State) -> dict[str, Any]:
        """What anyone may see: no hands, no square-chart cards, no deck order."""
        from engine.ccn.view import public_view  # noqa: PLC0415

        return public_view(state)

    def masked(self, state: State, side: str) -> State:
        """``state`` as ``side`` may know it: other hands, charts and the deck re-dealt."""
        from engine.ccn.view import masked  # noqa: PLC0415

        return masked(state, side)

    def summary(self, state: State) -> str:
        """``banners: north 2/5 / south 3/5`` (what a player checks each turn)."""
        return "banners: " + " / ".join(
            f"{s} {len(v.banners)}/{v.banners_needed}" for s, v in state.sides.items()
        )

    def to_json(self, state: State) -> str:
        """Canonical JSON of the whole state (secrets included: store only)."""
        return canonical_json(state_to_dict(state))

    def from_json(self, text: str) -> State:
        """Inverse of :meth:`to_json`."""
        return state_from_dict(load_json(text))

    def legal_hints(self, state: State, side: str) -> dict[str, Any]:
        """Playable cards and what each may order, for mails and templates."""
        from engine.ccn.view import legal_hints  # noqa: PLC0415

        return legal_hints(state, side)

    def orders_template(self, state: State, side: str) -> str:
        """An orders template ready to fill in (comments explain the choices)."""
        from engine.ccn.view import orders_template  # noqa: PLC0415

        return orders_template(state, side)

    def parse_standing_orders(self, text: str) -> Any:
        """Parse standing orders text (raises OrdersError); see engine.ccn.policy."""
        from engine.ccn.policy import parse_policy  # noqa: PLC0415

        return parse_policy(text)

    def card_name(self, code: str) -> str:
        """Full name of a card code."""
        return card_name(code)

    def capability(self, name: str) -> object | None:
        """Autoplay, scenario checks, the board picture, rules help (imported when asked for);
        the deal (the audit's card log) is the system itself."""
        if name == "deal":
            return self
        target = _CAPABILITIES.get(name)
        if target is None:
            return None
        module, _, attr = target.partition(":")
        provider: object = getattr(importlib.import_module(module), attr)()
        return provider


_CAPABILITIES = {
    "forecast": "engine.ccn.odds:Forecaster",
    "autoplay": "engine.ccn.autoplay:AutoPlayer",
    "scenarios": "engine.ccn.scenario:ScenarioChecker",
    "picture": "engine.ccn.picture:PictureBuilder",
    "rules-help": "engine.ccn.rules_text:RulesHelp",
    "tables": "engine.ccn.tables:TableProvider",
    "playout": "engine.ccn.playout:NapoleonicsPlayout",
}


SYSTEM = CCNSystem()
"""The one C&C Napoleonics system object."""
