"""The bot's decisions do not change when its search is made faster (issue 19).

A few decisions of every player (random, greedy, the bot at levels 1-4) on
positions of Ancients, Napoleonics and the race (not Chariots of Fire: its rules
change under it this session, and its search shares none of what was sped up),
compared with the decisions recorded from the code
before the search was sped up (``tests/golden/bot_decisions.json``): the same
seed and position must give byte-identical orders, explanation and estimate,
so the games already recorded in ``bench/results/bot-strength-v2.jsonl`` stay
valid. Record again (only when a change of decisions is intended) with::

    python -m tests.test_bot_decisions --record
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from engine.bot import make_player
from engine.bot.adapter import random_rollout
from engine.bot.fast import FastPlayout
from engine.bot.rng import SimRng, seed_of
from engine.core.api import GameSystem
from engine.core.playout import FastRandomness, TextPlayout
from engine.systems import get_system

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "bot_decisions.json"


@dataclass(frozen=True)
class Case:
    """``player`` (``random``, ``greedy``, ``bot:N``) decides after ``epochs`` random
    decisions from the start of ``scenario`` (``question``: then on until a question waits)."""

    scenario: str
    epochs: int
    player: str
    question: bool = False

    @property
    def name(self) -> str:
        q = "+question" if self.question else ""
        return f"{self.scenario}@{self.epochs}{q}:{self.player}"


CASES = (
    Case("cca/001-akragas", 0, "bot:1"),
    Case("cca/001-akragas", 0, "bot:2"),
    Case("cca/001-akragas", 0, "bot:4"),
    Case("cca/001-akragas", 9, "bot:3"),
    Case("cca/001-akragas", 9, "greedy"),
    Case("cca/001-akragas", 9, "random"),
    Case("cca/001-akragas", 4, "bot:2", question=True),
    Case("cca/001-akragas", 4, "bot:3", question=True),
    Case("cca/003-bagradas", 12, "bot:2"),
    Case("ccn/001-rolica", 6, "bot:2"),
    Case("toy/race", 0, "bot:1"),
    Case("toy/race", 3, "bot:2"),
    Case("toy/race", 5, "bot:3"),
    Case("toy/race", 2, "bot:4"),
)


def _position(case: Case) -> tuple[GameSystem, Any, str]:
    """The case's game: random play (seeded by the scenario) from the start."""
    path = ROOT / "scenarios" / f"{case.scenario}.toml"
    system = get_system(case.scenario.split("/")[0])
    position = system.load_position(path.read_text(encoding="utf-8"))
    dice = SimRng(seed_of("bot decisions", case.scenario))
    state = system.new_game(position, None, dice)
    mover = make_player("random", 3)
    done = 0
    while True:
        p = system.prompt(state)
        if p.kind == "over":
            raise AssertionError(f"{case.name}: the game ended before the position")
        side = p.question.side if p.question is not None else p.side
        assert side is not None
        if done >= case.epochs and (not case.question or p.question is not None):
            return system, state, side
        text = mover.decide(system, state, side).text
        state = system.resolve(state, system.parse_orders(state, side, text), dice).state
        done += 1


def decide(case: Case) -> dict[str, Any]:
    """What ``case``'s player decides, as recorded in the golden file."""
    system, state, side = _position(case)
    d = make_player(case.player, 17).decide(system, state, side)
    return {
        "position": hashlib.sha256(system.to_json(state).encode()).hexdigest()[:16],
        "side": d.side,
        "text": d.text,
        "explanation": d.explanation,
        "estimate": repr(d.estimate),
        "playouts": d.playouts,
    }


def _golden() -> dict[str, Any]:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_decision_is_the_one_recorded_before_the_search_was_sped_up(case: Case) -> None:
    """Same seed, same position: byte-identical orders, explanation and estimate."""
    want = _golden()[case.name]
    got = decide(case)
    assert got["position"] == want["position"], "the position itself changed (random play)"
    assert got == want


def _record() -> None:
    out: dict[str, Any] = {}
    for case in CASES:
        t0 = time.process_time()
        out[case.name] = decide(case)
        sys.stderr.write(f"{case.name}: {time.process_time() - t0:.2f} s\n")
    GOLDEN.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit("usage: python -m tests.test_bot_decisions --record")
    _record()


@pytest.mark.parametrize("scenario", ["cca/001-akragas", "ccn/001-rolica"])
def test_a_rollout_answering_questions_on_the_spot_reaches_the_state_pausing_reaches(
    scenario: str,
) -> None:
    """The bot's imagined games answer a turn's questions as they arise (no pause, no replay
    of the turn): same draws, same states as random actions applied one by one, a game
    stopping on a question included; and a determinization dealt on the state equals the
    one dealt through its JSON."""
    paused = 0
    for epochs in (2, 5, 9):
        system, state, side = _position(Case(scenario, epochs, "random"))
        game = FastPlayout(system)
        view = game.view(state, side)
        direct = game.po.determinize(view, side, FastRandomness(epochs))
        by_json = TextPlayout.determinize(game.po, view, side, FastRandomness(epochs))  # type: ignore[arg-type]
        assert system.to_json(direct) == system.to_json(by_json)
        for k in range(3):
            start = game.sample(view, side, SimRng(k))
            for horizon in (1, 3, 8):
                slow, fast = SimRng(horizon + 10 * k), SimRng(horizon + 10 * k)
                a = random_rollout(game, start, slow, horizon)
                b = game.rollout(start, fast, horizon)
                assert system.to_json(a) == system.to_json(b)
                assert slow.next64() == fast.next64()
                paused += a.pending is not None
    assert paused  # some imagined games stopped on a question
