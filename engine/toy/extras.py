"""The toy race's optional capabilities: autoplayer, scenarios, rules help, picture, luck.

Each provider is given the system it serves (:func:`providers`), so this
module does not import :mod:`engine.toy.system` (which imports it).
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from engine.core.api import PositionError
from engine.core.capabilities import ScenarioInfo, ScenarioProblem, Throw
from engine.core.choices import below, choice_stream
from engine.core.picture import Counter, Label, Picture, SideBand, cells, half_turn
from engine.dice import EpochDice, HashChain, hash_orders

__all__ = ["providers"]


class _AutoPlayer:
    """Plays a random card, answers block or allow at random."""

    def __init__(self, system: Any) -> None:
        self.system = system

    def orders(self, state: Any, seed: bytes, label: str = "autoplay") -> str:
        rng = choice_stream(seed, label)
        p = self.system.prompt(state)
        if p.kind == "over" or p.side is None:
            raise ValueError("the race is over: nobody acts")
        head = f"game {state['game_id']}\nturn {state['turn']}\nside {p.side}\n"
        if p.question is not None:
            answer = p.question.answers[below(rng, len(p.question.answers), "answer")]
            return head + f"answer {answer}\n"
        hand = state["hands"][p.side]
        return head + f"card {hand[below(rng, len(hand), 'card')]}\n"

    def play_game(self, start: Any, seed: bytes, max_turns: int) -> Any:
        seed = hashlib.sha256(b"pbem-random-game|" + seed).digest()
        deck = HashChain(hashlib.sha256(b"deck|" + seed).digest(), 16)
        dice = HashChain(hashlib.sha256(b"dice|" + seed).digest(), max(16, max_turns * 2))
        setup = EpochDice("toy", 0, None, hashlib.sha256(b"").digest(), deck=deck)
        state = self.system.new_game(start, None, setup)
        for epoch in range(1, dice.length + 1):
            if self.system.prompt(state).kind == "over" or state["turn"] > max_turns:
                break
            text = self.orders(state, seed + epoch.to_bytes(4, "big"))
            sub = self.system.parse_orders(state, self.system.prompt(state).side or "", text)
            rng = EpochDice("toy", epoch, dice.key(epoch), hash_orders(text.encode()), deck=deck)
            state = self.system.resolve(state, sub, rng).state
        return state


class _Scenarios:
    """Checks a toy scenario: the loader's errors, and an ``[meta]`` with id and name."""

    def __init__(self, system: Any) -> None:
        self.system = system

    def check(self, text: str) -> tuple[list[ScenarioProblem], ScenarioInfo | None]:
        try:
            pos = self.system.load_position(text)
        except PositionError as exc:
            return [ScenarioProblem(exc.line, "invalid", exc.message)], None
        meta = tomllib.loads(text).get("meta", {})
        problems = [
            ScenarioProblem(0, "missing", f"[meta] needs {key!r}")
            for key in ("id", "name")
            if not isinstance(meta, dict) or not meta.get(key)
        ]
        if problems or "started" in pos:
            return problems or [ScenarioProblem(0, "started", "a game in progress")], None
        info = ScenarioInfo(
            id=str(meta["id"]),
            name=str(meta["name"]),
            year=str(meta.get("year", "")),
            sides={"north": "North", "south": "South"},
            goal="first to 25",
            first=str(pos["first"]),
        )
        return [], info

    def details(self, text: str) -> list[str]:
        problems, info = self.check(text)
        if info is None:
            return [str(p.message) for p in problems]
        return [f"{info.first} moves first; the first side at 25 wins."]


class _RulesHelp:
    _TOPICS: ClassVar[dict[str, str]] = {
        "turn": "Play a card (1-9) and roll a d6: advance by card + die.",
        "block": "After a card of 7 or more the other side may block: on a 4+ the advance halves.",
        "victory": "The first side to reach 25 wins.",
    }

    def topics(self) -> Sequence[str]:
        return tuple(self._TOPICS)

    def help(self, topic: str) -> str:
        return self._TOPICS[topic]


class _Picture:
    """The race as a picture: a flat-top track of hexes ``CCRR`` (column = square, row = side)."""

    def __init__(self, system: Any) -> None:
        self.sides: tuple[str, ...] = tuple(system.sides)
        self.target = int(system.target)

    def picture(
        self,
        view: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]] = (),
        viewer: str | None = None,
    ) -> Picture:
        from engine.core.hexlayout import offset_columns  # noqa: PLC0415
        from engine.gboh.grid import HexMap  # noqa: PLC0415 - a flat-top map, as in GBoH

        sides, target = self.sides, self.target
        track = HexMap(target + 1, len(sides))
        grid = offset_columns(
            track, str, lambda h: (h.col, h.row), (1, 1), (track.last_col, track.last_row)
        )
        pos = view.get("pos") or {}
        counters = tuple(
            Counter(
                f"{min(int(pos.get(s, 0)), target) + 1:02d}{row:02d}",
                s,
                s[0].upper(),
                int(pos.get(s, 0)),
                target,
                symbol="circle",
            )
            for row, s in enumerate(sides, 1)
        )
        armies = view.get("sides") or {}
        bands = tuple(
            SideBand(
                s,
                s.title(),
                str((armies.get(s) or {}).get("army", s.title())),
                score=int(pos.get(s, 0)),
                goal=target,
                score_word="squares",
            )
            for s in sides
        )
        columns = tuple(
            Label((grid.centre(f"{c:02d}01")[0], 0.0), str(c - 1)) for c in range(1, target + 2)
        )
        rows = tuple(
            Label((0.0, grid.centre(f"01{r:02d}")[1]), s[0].upper()) for r, s in enumerate(sides, 1)
        )
        pic = Picture(
            size=grid.size,
            hexes=cells(grid),
            sides=bands,
            top=sides[0],
            bottom=sides[1],
            columns=columns,
            rows=rows,
            counters=counters,
            legend=("Counters: each side's square on the track, 0 to 25.",),
            title=f"Race, turn {view.get('turn', '')}",
            viewer=viewer or "",
        )
        return half_turn(pic) if viewer == sides[0] else pic


class _DiceLuck:
    """Every toy roll is a d6 where 4, 5 or 6 counts as a hit: a block holds on 4+,
    and a card's roll of 4+ is the better half of the race's advances."""

    HITS = frozenset({"4", "5", "6"})

    def throws(self, events: Sequence[Mapping[str, Any]]) -> Sequence[Throw]:
        out = []
        for e in events:
            data = e.get("data")
            faces = tuple(str(f) for f in e.get("dice", ()) or ())
            if e.get("kind") in ("play", "block") and isinstance(data, Mapping) and faces:
                out.append(Throw(str(data.get("side", "")), "d6", faces, self.HITS))
        return out


def providers(system: Any) -> dict[str, object]:
    """Return the capabilities ``system`` (the toy race) offers, by name."""
    return {
        "autoplay": _AutoPlayer(system),
        "scenarios": _Scenarios(system),
        "rules-help": _RulesHelp(),
        "picture": _Picture(system),
        "dice-luck": _DiceLuck(),
    }
