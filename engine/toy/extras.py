"""The toy race's optional capabilities: autoplayer, scenario checker, rules help, picture."""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from engine.core.api import PositionError
from engine.core.capabilities import ScenarioInfo, ScenarioProblem
from engine.core.choices import below, choice_stream
from engine.core.picture import Counter, Label, Picture, SideBand, cells, half_turn
from engine.dice import EpochDice, HashChain, hash_orders

__all__ = ["PROVIDERS"]


class _AutoPlayer:
    """Plays a random card, answers block or allow at random."""

    def orders(self, state: Any, seed: bytes, label: str = "autoplay") -> str:
        from engine.toy.system import SYSTEM  # noqa: PLC0415 - the system imports this module

        rng = choice_stream(seed, label)
        p = SYSTEM.prompt(state)
        if p.kind == "over" or p.side is None:
            raise ValueError("the race is over: nobody acts")
        head = f"game {state['game_id']}\nturn {state['turn']}\nside {p.side}\n"
        if p.question is not None:
            answer = p.question.answers[below(rng, len(p.question.answers), "answer")]
            return head + f"answer {answer}\n"
        hand = state["hands"][p.side]
        return head + f"card {hand[below(rng, len(hand), 'card')]}\n"

    def play_game(self, start: Any, seed: bytes, max_turns: int) -> Any:
        from engine.toy.system import SYSTEM  # noqa: PLC0415

        seed = hashlib.sha256(b"pbem-random-game|" + seed).digest()
        deck = HashChain(hashlib.sha256(b"deck|" + seed).digest(), 16)
        dice = HashChain(hashlib.sha256(b"dice|" + seed).digest(), max(16, max_turns * 2))
        setup = EpochDice("toy", 0, None, hashlib.sha256(b"").digest(), deck=deck)
        state = SYSTEM.new_game(start, None, setup)
        for epoch in range(1, dice.length + 1):
            if SYSTEM.prompt(state).kind == "over" or state["turn"] > max_turns:
                break
            text = self.orders(state, seed + epoch.to_bytes(4, "big"))
            sub = SYSTEM.parse_orders(state, SYSTEM.prompt(state).side or "", text)
            rng = EpochDice("toy", epoch, dice.key(epoch), hash_orders(text.encode()), deck=deck)
            state = SYSTEM.resolve(state, sub, rng).state
        return state


class _Scenarios:
    """Checks a toy scenario: the loader's errors, and an ``[meta]`` with id and name."""

    def check(self, text: str) -> tuple[list[ScenarioProblem], ScenarioInfo | None]:
        from engine.toy.system import SYSTEM  # noqa: PLC0415

        try:
            pos = SYSTEM.load_position(text)
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

    def picture(
        self,
        view: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]] = (),
        viewer: str | None = None,
    ) -> Picture:
        from engine.core.hexlayout import offset_columns  # noqa: PLC0415
        from engine.gboh.grid import HexMap  # noqa: PLC0415 - a flat-top map, as in GBoH
        from engine.toy.system import SIDES, TARGET  # noqa: PLC0415

        track = HexMap(TARGET + 1, len(SIDES))
        grid = offset_columns(
            track, str, lambda h: (h.col, h.row), (1, 1), (track.last_col, track.last_row)
        )
        pos = view.get("pos") or {}
        counters = tuple(
            Counter(
                f"{min(int(pos.get(s, 0)), TARGET) + 1:02d}{row:02d}",
                s,
                s[0].upper(),
                int(pos.get(s, 0)),
                TARGET,
                symbol="circle",
            )
            for row, s in enumerate(SIDES, 1)
        )
        sides = view.get("sides") or {}
        bands = tuple(
            SideBand(
                s,
                s.title(),
                str((sides.get(s) or {}).get("army", s.title())),
                score=int(pos.get(s, 0)),
                goal=TARGET,
                score_word="squares",
            )
            for s in SIDES
        )
        columns = tuple(
            Label((grid.centre(f"{c:02d}01")[0], 0.0), str(c - 1)) for c in range(1, TARGET + 2)
        )
        rows = tuple(
            Label((0.0, grid.centre(f"01{r:02d}")[1]), s[0].upper()) for r, s in enumerate(SIDES, 1)
        )
        pic = Picture(
            size=grid.size,
            hexes=cells(grid),
            sides=bands,
            top=SIDES[0],
            bottom=SIDES[1],
            columns=columns,
            rows=rows,
            counters=counters,
            legend=("Counters: each side's square on the track, 0 to 25.",),
            title=f"Race, turn {view.get('turn', '')}",
            viewer=viewer or "",
        )
        return half_turn(pic) if viewer == SIDES[0] else pic


PROVIDERS: dict[str, object] = {
    "autoplay": _AutoPlayer(),
    "scenarios": _Scenarios(),
    "rules-help": _RulesHelp(),
    "picture": _Picture(),
}
