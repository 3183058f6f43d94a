"""engine.bot: a computer player that decides from its side's view only (issue 19)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.bot import Bot, GreedyPlayer, RandomPlayer, make_player, parse_level
from engine.bot.adapter import deal_unseen
from engine.bot.evaluate import evaluate_view
from engine.bot.fast import playout_for
from engine.bot.match import play_match
from engine.bot.rng import SimRng
from engine.core.api import GameSystem
from engine.systems import get_system

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = {
    "cca": ROOT / "scenarios" / "cca" / "001-akragas.toml",
    "ccn": ROOT / "scenarios" / "ccn" / "001-rolica.toml",
    "toy": ROOT / "scenarios" / "toy" / "race.toml",
    "cof": ROOT / "scenarios" / "cof" / "000-teaching.toml",
}


def _start(name: str, seed: int = 1) -> tuple[GameSystem, Any]:
    system = get_system(name)
    position = system.load_position(SCENARIOS[name].read_text(encoding="utf-8"))
    return system, system.new_game(position, None, SimRng(seed))


def _swap_hidden(system: GameSystem, state: Any, side: str) -> Any:
    """The same game with the other side's hand and the deck dealt differently."""
    data = json.loads(system.to_json(state))
    for attempt in range(50):
        other = deal_unseen(json.loads(json.dumps(data)), side, SimRng(attempt))
        if other != data:
            return system.from_json(json.dumps(other))
    raise AssertionError("could not deal the hidden cards differently")


@pytest.mark.parametrize("name", ["cca", "ccn", "toy"])  # the systems with hidden cards
def test_the_bot_never_peeks(name: str) -> None:
    """Two games that differ only in what the bot cannot see get the same move from it."""
    system, real = _start(name)
    side = system.prompt(real).side
    assert side is not None
    other = _swap_hidden(system, real, side)
    assert system.to_json(other) != system.to_json(real)  # the hidden cards differ...
    assert system.to_json(system.masked(other, side)) == system.to_json(system.masked(real, side))
    players = (Bot(1, seed=5), GreedyPlayer(seed=5), RandomPlayer(seed=5))
    for player in (*players, Bot(1, seed=5, fast=False), GreedyPlayer(seed=5, fast=False)):
        a = player.decide(system, real, side)
        b = player.decide(system, other, side)
        assert (a.text, a.explanation) == (b.text, b.explanation), player.name


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_system_gets_legal_orders_and_a_one_line_explanation(name: str) -> None:
    system, state = _start(name)
    side = system.prompt(state).side
    assert side is not None
    decision = Bot(1, seed=3).decide(system, state, side)
    system.parse_orders(state, side, decision.text)  # accepted: no OrdersError
    assert "\n" not in decision.explanation
    assert decision.explanation.startswith(side)
    assert "% win estimate" in decision.explanation
    assert decision.estimate is not None and 0.0 <= decision.estimate <= 1.0


def test_same_seed_same_move_and_the_seed_matters() -> None:
    system, state = _start("cca", seed=9)
    side = system.prompt(state).side
    assert side is not None
    first = Bot(1, seed=11).decide(system, state, side)
    assert Bot(1, seed=11).decide(system, state, side) == first
    others = {Bot(1, seed=s).decide(system, state, side).text for s in range(12, 18)}
    assert len(others | {first.text}) > 1


def test_a_time_limit_is_kept_on_an_injected_clock() -> None:
    system, state = _start("toy")
    side = system.prompt(state).side
    assert side is not None
    ticks = iter(range(1000))
    bot = Bot(4, seed=1, seconds=5.0, clock=lambda: float(next(ticks)))
    decision = bot.decide(system, state, side)
    # The clock reads 0 at the start, then one more before each playout: 4 fit in 5 s.
    assert decision.playouts == 4  # not the 600 of level 4


def test_a_match_is_played_to_the_end_and_replays_the_same() -> None:
    """bench/bot_strength.py measures strength; here: a whole game, twice, identical."""
    system = get_system("toy")
    position = system.load_position(SCENARIOS["toy"].read_text(encoding="utf-8"))
    seen: list[str] = []

    def run() -> Any:
        players = {"north": Bot(1, seed=4), "south": GreedyPlayer(seed=4)}
        return play_match(
            system, position, players, seed=4, on_decision=lambda d: seen.append(d.text)
        )

    first = run()
    assert first.winner in system.sides
    half = list(seen)
    second = run()
    assert system.to_json(second.state) == system.to_json(first.state)
    assert seen == half + half


def test_levels_and_player_names() -> None:
    assert parse_level("bot") == 2
    assert parse_level("bot:3") == 3
    with pytest.raises(ValueError, match="levels 1, 2, 3, 4"):
        parse_level("bot:9")
    with pytest.raises(ValueError, match="bot or bot:LEVEL"):
        parse_level("robot")
    assert make_player("greedy").name == "greedy"
    assert make_player("random").name == "random"
    assert make_player("bot:1").name == "bot:1"


def test_the_evaluation_reads_the_public_view() -> None:
    view = {
        "sides": {
            "north": {"banners": 3, "banners_needed": 5},
            "south": {"banners": 1, "banners_needed": 5},
        },
        "units": [{"side": "north", "blocks": 4}, {"side": "south", "blocks": 2}],
    }
    assert evaluate_view(view, "north") > 0.5 > evaluate_view(view, "south")
    assert evaluate_view(view, "north", result="north") == 1.0
    assert evaluate_view(view, "south", result="north") == 0.0
    assert evaluate_view(view, "north", result="draw") == 0.5


@pytest.mark.parametrize("fast", [True, False], ids=["fast playout", "text"])
def test_a_sampled_deal_keeps_every_pile_size_and_the_own_hand(fast: bool) -> None:
    system, state = _start("ccn")
    game = playout_for(system, fast=fast)
    view = game.view(state, "south")
    sample = json.loads(system.to_json(game.sample(view, "south", SimRng(3))))
    seen = json.loads(system.to_json(view))
    assert sample["sides"]["south"] == seen["sides"]["south"]
    assert len(sample["deck"]) == len(seen["deck"])
    assert len(sample["sides"]["north"]["hand"]) == len(seen["sides"]["north"]["hand"])
    pool = sorted(seen["deck"] + seen["sides"]["north"]["hand"])
    assert sorted(sample["deck"] + sample["sides"]["north"]["hand"]) == pool
