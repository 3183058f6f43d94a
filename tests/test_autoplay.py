"""engine.cca.autoplay: random orders the engine accepts, legal answers, reproducible games."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from engine.cca.autoplay import (
    choice_stream,
    play_random_game,
    random_answer,
    random_orders,
    random_submission,
)
from engine.core.api import Question
from engine.dice import EpochDice, HashChain
from engine.systems import get_system

SYSTEM = get_system("cca")
SCENARIOS = sorted((Path(__file__).parent.parent / "scenarios" / "cca").glob("*.toml"))


def _start(path: Path, seed: bytes) -> object:
    deck = HashChain(hashlib.sha256(seed).digest(), 8)
    setup = EpochDice("t", 0, None, hashlib.sha256(b"").digest(), deck=deck)
    return SYSTEM.new_game(SYSTEM.load_position(path.read_text(encoding="utf-8")), None, setup)


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_random_orders_are_accepted(path: Path) -> None:
    """Orders written by autoplay pass the engine's whole-submission check."""
    for i in range(4):
        state = _start(path, bytes([i]))
        side = SYSTEM.prompt(state).side
        assert side is not None
        text = random_orders(SYSTEM, state, side, choice_stream(path.name.encode() + bytes([i])))
        sub = SYSTEM.parse_orders(state, side, text)
        assert sub.card in state.sides[side].hand  # type: ignore[attr-defined]


def test_random_answer_is_one_of_the_answers() -> None:
    q = Question("evade-1", "north", "evade?", ("evade", "stand"), "stand")
    rng = choice_stream(b"answers")
    got = {random_answer(q, rng) for _ in range(60)}
    assert got == {"evade", "stand"}


def test_choice_stream_is_deterministic() -> None:
    a = [
        random_answer(Question("q", "s", "?", tuple("abcdef"), "a"), choice_stream(b"x"))
        for _ in range(5)
    ]
    b = [
        random_answer(Question("q", "s", "?", tuple("abcdef"), "a"), choice_stream(b"x"))
        for _ in range(5)
    ]
    assert a == b


def test_random_submission_answers_pending_questions() -> None:
    """When the turn waits for a question, autoplay answers it (as the asked side)."""
    state = _start(SCENARIOS[0], b"q")
    rng = choice_stream(b"q")
    for epoch in range(1, 60):
        side, text = random_submission(SYSTEM, state, rng)
        p = SYSTEM.prompt(state)
        if p.kind == "question":
            assert p.question is not None and side == p.question.side
            assert "answer " in text
            return
        sub = SYSTEM.parse_orders(state, side, text)
        state = SYSTEM.resolve(state, sub, choice_stream(b"dice" + bytes([epoch]))).state
        if SYSTEM.prompt(state).kind == "over":
            break
    pytest.skip("no question came up in this game")


def test_play_random_game_with_any_randomness() -> None:
    """play_random_game takes a dice factory: here a plain seeded stream per epoch."""
    final, steps = play_random_game(
        SYSTEM,
        SYSTEM.load_position(SCENARIOS[0].read_text()),
        b"any",
        300,
        dice=lambda epoch, text: choice_stream(f"dice-{epoch}".encode()),
    )
    assert final.result in ("north", "south", "draw")
    assert steps and steps[0].kind == "orders" and steps[0].epoch == 1
