"""Random complete C&C Napoleonics games: invariants after every step (ccn.md §7, §10, §21, §25).

Random legal orders and answers (engine.ccn.autoplay over engine.cc.autoplay) are played with
the committed dice stream (EpochDice) on every bundled Napoleonics scenario and on a small
mixed-arms battle of the test kit. After every resolved epoch: one unit and one leader per
hex, blocks within 1..starting strength, banners equal to eliminations, leaders killed and
objective banners, the 70 cards conserved (hands, square charts, deck, discard), each square
with exactly one card on its owner's chart and at most 4, a stable canonical JSON form, and
views that hide the other hand. Every game ends within the turn cap. The normal run plays a
reduced number of games; the ``slow`` run plays 2,000.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from ccn_kit import position

from engine.cc.autoplay import Step, play_random_game
from engine.ccn.autoplay import RULES
from engine.ccn.cards import DECK
from engine.ccn.state import MAX_SQUARES, SIDES, State
from engine.ccn.system import SYSTEM

SCENARIOS = sorted((Path(__file__).parent.parent / "scenarios" / "ccn").glob("*.toml"))
TURN_CAP = 300
NORMAL_GAMES = 40
SLOW_GAMES = 2000


def _kit_battle() -> State:
    units = ["S E2 GB LN", "S F2 GB LN", "S G2 GB LT", "S H2 GB FA", "S D2 GB HC", "S I2 GB LC",
             "S F1 GB HA", "S G1 GB RI", "N E8 FR LN", "N F8 FR LN", "N G8 FR LT", "N H8 FR FA",
             "N D8 FR CU", "N I8 FR LC", "N F9 FR GR", "N G9 FR HA"]  # fmt: skip
    s = position(*units, leaders=["S F2 Wellesley", "N F8 Delaborde"],
                 terrain={"E5": "woods", "G5": "hill", "H5": "town", "F6": "ford"})  # fmt: skip
    cards = list(s.deck) + [c for side in SIDES for c in s.sides[side].hand]
    s = s.with_side("south", hand=()).with_side("north", hand=())
    return replace(s, deck=tuple(cards), deck_random=True)


def _starts() -> list[State]:
    out = [_kit_battle()]
    for path in SCENARIOS:
        out.append(SYSTEM.load_position(path.read_text(encoding="utf-8")))
    return out


class Tracker:
    """Follows one game and checks the invariants after each step."""

    def __init__(self, start: State) -> None:
        self.owner = {u.id: u.side for u in start.units}
        self.full = {u.id: u.full for u in start.units}
        self.leader_side = {ld.name: ld.side for ld in start.leaders}
        self.eliminated: Counter[str] = Counter()
        self.killed: Counter[str] = Counter()
        self.steps = 0

    def __call__(self, state: State, step: Step) -> None:
        self.steps += 1
        for e in step.events:
            if e.kind == "eliminated":
                self.eliminated[self.owner[str(e.data["unit"])]] += 1
            elif e.kind == "leader-killed":
                self.killed[self.leader_side[str(e.data["leader"])]] += 1
        check_state(state, self, step)


def check_state(state: State, tr: Tracker, step: Step) -> None:
    where = f"step {step.epoch} ({step.side} {step.kind}): {step.text!r}"
    hexes = [u.hex for u in state.units if u.hex is not None]
    assert len(hexes) == len(set(hexes)), f"two units share a hex after {where}"
    lhexes = [ld.hex for ld in state.leaders if ld.hex is not None]
    assert len(lhexes) == len(set(lhexes)), f"two leaders share a hex after {where}"
    for u in state.units:
        if u.hex is None:
            assert u.blocks == 0 and not u.square, f"{u.id} off the board with blocks {where}"
        else:
            assert 1 <= u.blocks <= tr.full[u.id], f"{u.id} has {u.blocks} blocks after {where}"
            assert u.hex in state.board
    for side in SIDES:
        foe = "north" if side == "south" else "south"
        sd = state.sides[side]
        units = [b for b in sd.banners if not b.startswith(("leader:", "objective:"))]
        leaders = [b for b in sd.banners if b.startswith("leader:")]
        assert len(units) == tr.eliminated[foe], f"{side} unit banners wrong after {where}"
        assert len(leaders) == tr.killed[foe], f"{side} leader banners wrong after {where}"
        squares = [u.id for u in state.units if u.side == side and u.square]
        assert sorted(squares) == sorted(uid for uid, _ in sd.squares), f"squares {where}"
        assert len(sd.squares) <= MAX_SQUARES
    cards = list(state.deck) + list(state.discard)
    for side in SIDES:
        cards += list(state.sides[side].hand) + [c for _, c in state.sides[side].squares]
    assert Counter(cards) == Counter(DECK), f"the 70 cards are not conserved after {where}"
    assert SYSTEM.from_json(SYSTEM.to_json(state)) == state
    view = SYSTEM.player_view(state, "south")
    assert "hand" not in view["sides"]["north"]
    assert json.dumps(view).count("pbem-state") == 0


def play(start: State, seed: bytes) -> tuple[Any, list[Step], Tracker]:
    tracker = Tracker(start)
    final, steps = play_random_game(RULES, SYSTEM, start, seed, TURN_CAP, on_step=tracker)
    return final, steps, tracker


def _run(count: int) -> None:
    starts = _starts()
    results: Counter[str] = Counter()
    for i in range(count):
        final, steps, tr = play(starts[i % len(starts)], f"game-{i}".encode())
        assert final.result is not None, f"game-{i}: no result in {TURN_CAP} turns"
        assert SYSTEM.prompt(final).kind == "over"
        assert tr.steps == len(steps) > 0
        results[final.result] += 1
    assert sum(results.values()) == count


def test_random_games_keep_the_invariants() -> None:
    """A reduced set of complete random games, every start at least once."""
    _run(NORMAL_GAMES)


@pytest.mark.slow
def test_many_random_games_keep_the_invariants(request: pytest.FixtureRequest) -> None:
    """2,000 complete random games with the committed dice stream."""
    marks = str(request.config.getoption("markexpr") or "")
    if "slow" not in marks or "not slow" in marks:
        pytest.skip("2,000 games: run with pytest -m slow")
    _run(SLOW_GAMES)


def test_same_seed_same_game() -> None:
    """A random game is a pure function of the seed: same steps, same final state."""
    a, sa, _ = play(_kit_battle(), b"repeat")
    b, sb, _ = play(_kit_battle(), b"repeat")
    assert [s.text for s in sa] == [s.text for s in sb]
    assert SYSTEM.to_json(a) == SYSTEM.to_json(b)
