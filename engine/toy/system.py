"""The toy race: a tiny two-player game behind :class:`engine.core.api.GameSystem`.

Each turn the side to move plays a card (1-9) and rolls a d6; it advances by
card + die. A card of 7 or more lets the opponent answer a question
("block" or "allow"): a block rolls a d6 and, on 4+, halves the advance.
The first side at 25 wins. Cards are dealt from a shuffled deck (the deck
chain), so hidden hands exist: player_view shows one's own hand only.

It is pbem's example system (docs/adding-a-system.md): small enough to read
in one sitting, and it goes through every command the way a real system
does. A position file is TOML::

    format = "pbem-position/1"
    system = "toy"
    first = "north"          # who moves first
    [meta]
    id = "toy-race"
    name = "A dice race"

``write_position`` adds the whole running state as a ``state`` JSON string,
so the output of ``pbem engine resolve`` is the input of the next call.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from typing import Any

from engine.core.api import (
    CardMove,
    CardPiles,
    Event,
    OrdersError,
    OrdersProblem,
    PositionError,
    Prompt,
    Question,
    Resolution,
)
from engine.core.capabilities import Dealt
from engine.randomness import D6, Die, Randomness

__all__ = ["SYSTEM", "ToySystem"]

SIDES = ("north", "south")
TARGET = 25
FORMAT = "pbem-position/1"


def _other(side: str) -> str:
    return "south" if side == "north" else "north"


class ToySystem:
    """The toy race (stateless)."""

    name = "toy"
    version = "1"
    title = "Toy dice race (the example system)"
    sides: tuple[str, ...] = SIDES
    dice: Mapping[str, Die] = {D6.name: D6}
    deck_contents: tuple[str, ...] = tuple(str(i) for i in range(1, 10)) * 2
    """Every card of the deck (the audit verifiers fix it, docs/audit.md)."""
    target: int = TARGET
    """The square that wins."""

    def load_position(self, text: str) -> dict[str, Any]:
        """Read a toy position (TOML); a ``state`` key holds a game in progress."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise PositionError(_toml_line(str(exc)), f"not TOML: {exc}") from exc
        system = data.get("system", "toy")
        if system != "toy":
            raise PositionError(_line_of(text, "system"), f"system is {system!r}, not 'toy'")
        if "state" in data:
            try:
                state = json.loads(str(data["state"]))
            except ValueError as exc:
                raise PositionError(_line_of(text, "state"), f"state: {exc}") from exc
            return {"started": state}
        first = data.get("first", "north")
        if first not in SIDES:
            raise PositionError(
                _line_of(text, "first"), f"first must be north or south, not {first!r}"
            )
        meta = data.get("meta", {})
        game_id = str(meta.get("id", "toy")) if isinstance(meta, dict) else "toy"
        return {"game_id": game_id, "first": first}

    def write_position(self, state: Any) -> str:
        """The state as a position file (the running state as JSON under ``state``)."""
        return f'format = "{FORMAT}"\nsystem = "toy"\nstate = {json.dumps(self.to_json(state))}\n'

    def new_game(
        self, position: Any, options: Mapping[str, Any] | None = None, rng: Randomness | None = None
    ) -> dict[str, Any]:
        """Deal three cards a side from a shuffled deck (a started game is returned as is)."""
        state: dict[str, Any] = self.deal(position, options, rng).state
        return state

    def deal(
        self, position: Any, options: Mapping[str, Any] | None = None, rng: Randomness | None = None
    ) -> Dealt:
        """:meth:`new_game`, with the piles before the deal and the cards it moved."""
        if "started" in position:
            started: dict[str, Any] = dict(position["started"])
            held = {side: tuple(started["hands"][side]) for side in SIDES}
            return Dealt(started, CardPiles(tuple(started["deck"]), (), held), ())
        for k in options or {}:
            raise ValueError(f"unknown option {k!r}: the toy has none")
        deck = [str(i) for i in range(1, 10)] * 2
        setup = CardPiles(tuple(deck), (), {side: () for side in SIDES})
        moves: list[CardMove] = []
        if rng is not None:
            moves.append(CardMove("shuffle", pile="deck"))
            order = rng.permutation(len(deck), "shuffle the deck")
            deck = [deck[i] for i in order]
        hands: dict[str, list[str]] = {"north": deck[:3], "south": deck[3:6]}
        moves += [CardMove("draw", side, card) for side in SIDES for card in hands[side]]
        return Dealt(_started(position, hands, deck[6:]), setup, tuple(moves))

    def resolve(self, state: Any, submission: Any, rng: Randomness) -> Resolution:
        s = _copy(state)
        events: list[Event] = []
        if s["pending"] is not None:
            p = s["pending"]
            mover, advance = p["mover"], p["advance"]
            if submission["answer"] == "block":
                (face,) = rng.roll(D6, 1, f"{p['side']} blocks")
                if int(face) >= 4:
                    advance //= 2
                events.append(Event("block", f"{p['side']} blocks", {"side": p["side"]}, (face,)))
            s["pending"] = None
            self._advance(s, mover, advance, events)
            return Resolution(s, tuple(events))
        side = submission["side"]
        card = submission["card"]
        s["hands"][side].remove(card)
        s["deck"].append(card)
        drawn = s["deck"].pop(0)
        s["hands"][side].append(drawn)
        cards = (CardMove("return", side, card), CardMove("draw", side, drawn))
        (face,) = rng.roll(D6, 1, f"{side} plays {card}")
        advance = int(card) + int(face)
        events.append(
            Event("play", f"{side} plays {card} and rolls {face}", {"side": side}, (face,))
        )
        if int(card) >= 7:
            s["pending"] = {
                "id": f"block-{s['turn']}",
                "side": _other(side),
                "text": f"{side} advances {advance}: block?",
                "mover": side,
                "advance": advance,
            }
            return Resolution(s, tuple(events), cards)
        self._advance(s, side, advance, events)
        return Resolution(s, tuple(events), cards)

    def prompt(self, state: Any) -> Prompt:
        if state["result"]:
            return Prompt(
                "over", None, f"{state['result']} wins", result=state["result"], turn=state["turn"]
            )
        if state["pending"]:
            p = state["pending"]
            q = Question(p["id"], p["side"], p["text"], ("block", "allow"), "allow", 1, "block")
            return Prompt("question", p["side"], p["text"], question=q, turn=state["turn"])
        return Prompt(
            "orders",
            state["to_move"],
            f"Turn {state['turn']}: {state['to_move']} plays a card.",
            turn=state["turn"],
        )

    def parse_orders(self, state: Any, side: str, text: str) -> dict[str, Any]:
        problems: list[OrdersProblem] = []
        card = answer = None
        for n, raw in enumerate(text.splitlines(), 1):
            body = raw.split("#", 1)[0].strip()
            if not body:
                continue
            word, _, rest = body.partition(" ")
            word = word.lower()
            if word in ("game", "turn", "side", "standing"):
                continue
            if word == "card":
                if rest.strip() not in state["hands"][side]:
                    problems.append(
                        OrdersProblem(
                            n,
                            raw,
                            "not-in-hand",
                            f"card {rest.strip()} is not in your hand",
                            tuple(f"card {c}" for c in state["hands"][side]),
                        )
                    )
                card = rest.strip()
            elif word == "answer":
                answer = rest.strip().lower()
                if answer not in ("block", "allow"):
                    problems.append(
                        OrdersProblem(
                            n,
                            raw,
                            "bad-answer",
                            "answer block or allow",
                            ("answer block", "answer allow"),
                        )
                    )
            else:
                problems.append(
                    OrdersProblem(
                        n, raw, "unknown-order", f"{word!r} is not an order", ("card", "answer")
                    )
                )
        pending = state["pending"]
        if not problems:
            if pending is not None and answer is None:
                problems.append(
                    OrdersProblem(
                        0,
                        "",
                        "answer-needed",
                        "answer the question",
                        ("answer block", "answer allow"),
                    )
                )
            if pending is None and card is None:
                problems.append(
                    OrdersProblem(
                        0,
                        "",
                        "no-card",
                        "play a card",
                        tuple(f"card {c}" for c in state["hands"][side]),
                    )
                )
        if problems:
            raise OrdersError(problems)
        return {"side": side, "card": card, "answer": answer}

    def _advance(self, s: dict[str, Any], side: str, advance: int, events: list[Event]) -> None:
        s["pos"][side] += advance
        events.append(Event("move", f"{side} advances {advance} to {s['pos'][side]}"))
        if s["pos"][side] >= TARGET:
            s["result"] = side
            return
        s["to_move"] = _other(side)
        s["turn"] += 1

    def player_view(self, state: Any, side: str) -> dict[str, Any]:
        v = self.public_view(state)
        v["hand"] = [{"code": c, "name": f"card {c}"} for c in state["hands"][side]]
        v["standing"] = state["sides"][side]["standing"]
        return v

    def public_view(self, state: Any) -> dict[str, Any]:
        # A loaded position before the game starts has no turn, squares or hands yet.
        hands = state.get("hands") or {s: [] for s in SIDES}
        return {
            "game_id": state["game_id"],
            "turn": state.get("turn", 0),
            "pos": dict(state.get("pos") or dict.fromkeys(SIDES, 0)),
            "sides": {s: {"army": s.title(), "hand_count": len(hands[s])} for s in SIDES},
            "units": [],
            "terrain": {},
            "leaders": [],
        }

    def to_json(self, state: Any) -> str:
        return json.dumps(state, sort_keys=True, separators=(",", ":"))

    def from_json(self, text: str) -> Any:
        return json.loads(text)

    def legal_hints(self, state: Any, side: str) -> dict[str, Any]:
        return {"cards": [{"code": c, "name": f"card {c}"} for c in state["hands"][side]]}

    def legal_actions(self, state: Any, side: str, card: str | None = None) -> dict[str, Any]:
        """The cards ``side`` may play (the toy has no units)."""
        return {**self.legal_hints(state, side), "units": []}

    def masked(self, state: Any, side: str) -> dict[str, Any]:
        """The other side's hand and the deck dealt again in sorted order; its policy blanked."""
        s: dict[str, Any] = json.loads(json.dumps(state))
        other = _other(side)
        pool = sorted(s["deck"] + s["hands"][other])
        n = len(s["hands"][other])
        s["hands"][other], s["deck"] = pool[:n], pool[n:]
        s["sides"][other]["standing"] = ""
        return s

    def summary(self, state: Any) -> str:
        """``Turn 3: north 12, south 9; north to move``."""
        pos = state["pos"]
        tail = f"{state['result']} wins" if state["result"] else f"{state['to_move']} to move"
        return f"Turn {state['turn']}: north {pos['north']}, south {pos['south']}; {tail}"

    def card_name(self, code: str) -> str:
        return f"card {code}"

    def capability(self, name: str) -> object | None:
        """The toy offers an autoplayer, a playout, scenario checks, rules help, a picture, deal,
        dice luck."""
        if name == "deal":
            return self
        if name == "playout":
            from engine.toy.playout import ToyPlayout  # noqa: PLC0415 - loaded only when asked for

            return ToyPlayout(self)
        if name in ("autoplay", "scenarios", "rules-help", "picture", "dice-luck"):
            from engine.toy import extras  # noqa: PLC0415 - loaded only when asked for

            return extras.providers(self)[name]
        return None

    def orders_template(self, state: Any, side: str) -> str:
        head = f"game {state['game_id']}\nturn {state['turn']}\nside {side}\n"
        if state["pending"] is not None and state["pending"]["side"] == side:
            return head + "# answers: block, allow (default allow)\nanswer allow\n"
        return head + "# cards: " + ", ".join(state["hands"][side]) + "\ncard \n"

    def parse_standing_orders(self, text: str) -> Any:
        return _Policy(text)


def _copy(state: dict[str, Any]) -> dict[str, Any]:
    """A copy of a started state that ``resolve`` may change without touching ``state``:
    the piles, positions, sides and question copied, the rest (strings, numbers) shared.
    Byte-identical to a copy through JSON, without the text (a playout resolves often)."""
    s = dict(state)
    s["pos"] = dict(state["pos"])
    s["hands"] = {k: list(v) for k, v in state["hands"].items()}
    s["deck"] = list(state["deck"])
    s["sides"] = {k: dict(v) for k, v in state["sides"].items()}
    if state["pending"] is not None:
        s["pending"] = dict(state["pending"])
    return s


def _started(position: Any, hands: dict[str, list[str]], deck: list[str]) -> dict[str, Any]:
    """A toy game's first state: ``hands`` dealt, ``deck`` the rest (top first)."""
    return {
        "game_id": position["game_id"],
        "turn": 1,
        "to_move": position["first"],
        "pos": {"north": 0, "south": 0},
        "hands": hands,
        "deck": deck,
        "pending": None,
        "result": None,
        "sides": {"north": {"standing": "block: ask\n"}, "south": {"standing": "block: ask\n"}},
    }


def _toml_line(message: str) -> int:
    """The line in a ``tomllib`` error message (``... (at line 3, column 1)``), else 0."""
    _, found, rest = message.partition("at line ")
    digits = rest.split(",", 1)[0].strip(" )") if found else ""
    return int(digits) if digits.isdigit() else 0


def _line_of(text: str, key: str) -> int:
    """The 1-based line where ``key`` is set, else 0."""
    for n, raw in enumerate(text.splitlines(), 1):
        if raw.split("=", 1)[0].strip() == key:
            return n
    return 0


class _Policy:
    def __init__(self, text: str) -> None:
        self.rules = {}
        problems = []
        for n, raw in enumerate(text.splitlines(), 1):
            body = raw.split("#", 1)[0].strip()
            if not body:
                continue
            key, _, val = body.partition(":")
            if key.strip() != "block" or val.strip() not in ("ask", "always", "never"):
                problems.append(
                    OrdersProblem(
                        n,
                        raw,
                        "bad-standing-order",
                        "block: ask|always|never",
                        ("block: ask", "block: always", "block: never"),
                    )
                )
            else:
                self.rules[key.strip()] = val.strip()
        if problems:
            raise OrdersError(problems)

    def merged(self, other: _Policy) -> _Policy:
        out = _Policy("")
        out.rules = {**self.rules, **other.rules}
        return out

    def text(self) -> str:
        return "".join(f"{k}: {v}\n" for k, v in self.rules.items())


SYSTEM = ToySystem()
