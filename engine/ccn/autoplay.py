"""Random legal play for C&C Napoleonics: scripted players, balance runs, random-game tests.

:func:`random_orders` writes a random turn for a side with the engine's own look-ups: a card
from the hand, pieces it may order (one ``order`` line each, so a refused one is dropped
alone), moves toward the enemy among the hexes each unit may reach, then for each ordered
unit a melee on an adjacent enemy or fire at a target in range and sight, as the board
stands after the moves. The shared C&C random play (:mod:`engine.cc.autoplay`) drops any line
the engine refuses, answers questions and plays whole games on the committed dice stream.
"""

from __future__ import annotations

from typing import Any

from engine.cc.autoplay import (
    AutoplayError,
    accepted,
    chance,
    choice_stream,
    header,
    pick,
    play_random_game,
    random_submission,
    shuffled,
)
from engine.cc.orders import parse_submission
from engine.ccn.battle import fire_problem, melee_problem
from engine.ccn.cards import CARDS, LANGUAGE
from engine.ccn.movement import leader_reach, reach
from engine.ccn.policy import POLICY_VALUES
from engine.ccn.state import SIDES, State
from engine.ccn.validate import simulate
from engine.ccn.view import legal_hints
from engine.ccn.work import WLeader, WUnit
from engine.core.api import GameSystem
from engine.hexgrid import Hex
from engine.randomness import Randomness

__all__ = ["RULES", "AutoPlayer", "random_orders"]


def _toward(enemies: list[Hex], options: list[Hex], rng: Randomness) -> Hex:
    if not enemies or chance(rng, 25, "move anywhere"):
        return pick(rng, options, "where to move")
    best = min(min(h.distance(e) for e in enemies) for h in options)
    near = [h for h in options if min(h.distance(e) for e in enemies) == best]
    return pick(rng, near, "move toward the enemy")


def _plan(state: State, side: str, lines: list[str], rng: Randomness) -> list[str]:
    """Move and battle lines for what ``lines`` (header, card, orders) order."""
    sub = parse_submission("\n".join(lines) + "\n", LANGUAGE)
    w, problems = simulate(state, side, sub)
    if problems:
        return []
    enemies = [u.hex for u in w.live_units() if u.side != side and u.hex is not None]
    moves: list[str] = []
    pieces: list[WUnit | WLeader] = [w.units[i] for i in sorted(w.ordered)]
    pieces += [w.leaders[n] for n in sorted(w.ordered_leaders)]
    for it in shuffled(rng, pieces, "order of moves"):
        if it.hex is None or not chance(rng, 70, "move it?"):
            continue
        if isinstance(it, WUnit):
            if it.square and chance(rng, 50, "break the square?"):
                moves.append(f"break {it.hex}")
                continue
            options = sorted(reach(w, it))
            ref = str(it.hex)
        else:
            options = sorted(leader_reach(w, it))
            ref = f"leader {it.name}"
        if options:
            moves.append(f"move {ref} to {_toward(enemies, options, rng)}")
    sub = parse_submission("\n".join(lines + moves) + "\n", LANGUAGE)
    w, problems = simulate(state, side, sub)
    if problems:
        return moves
    battles: list[str] = []
    for uid in sorted(w.ordered):
        u = w.units[uid]
        if u.hex is None or not chance(rng, 85, "battle?"):
            continue
        adjacent = [h for h in w.board.neighbours(u.hex) if melee_problem(w, u, h) is None]
        if adjacent:
            battles.append(f"attack {u.hex} at {pick(rng, adjacent, 'melee target')}")
            continue
        targets = [
            e.hex
            for e in w.live_units()
            if e.side != side and e.hex is not None and fire_problem(w, u, e.hex) is None
        ]
        if targets:
            battles.append(f"fire {u.hex} at {pick(rng, sorted(targets), 'fire target')}")
    return moves + battles


def random_orders(system: GameSystem, state: State, side: str, rng: Randomness) -> str:
    """A random orders text for ``side`` that ``system.parse_orders`` accepts."""
    hints = legal_hints(state, side)["cards"]
    playable = [c for c in hints if c["code"] != "first_strike"] or hints
    last: Exception | None = None
    for c in shuffled(rng, playable, "which card"):
        code = c["code"]
        units = list(c.get("units", []))
        card = CARDS[code]
        most = card.orders or len(units)
        if card.order_rule == "command":
            most = len(state.sides[side].hand)
        refs = shuffled(rng, units, "who is ordered")[: max(1, most)] if units else []
        lines = [*header(state, side), f"card {code}", *(f"order {r}" for r in refs)]
        ok, err = accepted(system, state, side, lines)
        if ok is None:
            last = err
            continue
        body = [x for x in ok.splitlines() if x]
        try:
            actions = _plan(state, side, body, rng)
        except (ValueError, KeyError) as e:  # pragma: no cover - a planning bug: play no actions
            last = e
            actions = []
        text, err = accepted(system, state, side, body + actions)
        if text is not None:
            return text
        last = err
    raise AutoplayError(f"no acceptable orders for {side}: {last}")


class _Random:
    """The Napoleonics part of the shared random play."""

    sides = SIDES
    policy_values = POLICY_VALUES
    not_drawn: frozenset[str] = frozenset()

    @staticmethod
    def orders(system: GameSystem, state: Any, side: str, rng: Randomness) -> str:
        return random_orders(system, state, side, rng)


RULES = _Random()
"""The Napoleonics part of the shared random play (:func:`engine.cc.autoplay.play_random_game`)."""


class AutoPlayer:
    """The ``autoplay`` capability (:mod:`engine.core.capabilities`) of C&C Napoleonics."""

    def orders(self, state: State, seed: bytes, label: str = "autoplay") -> str:
        """Random legal orders (or an answer) for the side that must act."""
        from engine.ccn.system import SYSTEM  # noqa: PLC0415 - the system loads this lazily

        _, text = random_submission(RULES, SYSTEM, state, choice_stream(seed, label))
        return text

    def play_game(self, start: Any, seed: bytes, max_turns: int) -> Any:
        """A whole random game from a loaded scenario or position."""
        from engine.ccn.system import SYSTEM  # noqa: PLC0415

        final, _ = play_random_game(RULES, SYSTEM, start, seed, max_turns)
        return final
