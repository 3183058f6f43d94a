"""engine.core.playout: games played by actions reach the same states as games played by mail.

The property: random games played through a system's playout (actions applied
directly) and through the mail path (the action's text checked by
``parse_orders``, then ``resolve``), with the same committed dice per epoch,
pass through byte-identical states, epoch by epoch, for every registered
system. The fast stream is deterministic; a determinized state keeps what
the side sees and never depends on how the hidden cards lay.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engine.core.capabilities import PLAYOUT, find
from engine.core.playout import FastRandomness, Playout, playout_for
from engine.dice import EpochDice, HashChain, hash_orders
from engine.systems import SYSTEMS, get_system

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
GAMES: list[tuple[str, str]] = [
    ("cca", "cca/001-akragas.toml"),
    ("cca", "cca/007-cannae.toml"),
    ("ccn", "ccn/001-rolica.toml"),
    ("toy", "toy/race.toml"),
    ("cof", "cof/000-teaching.toml"),
]


def _new_game(system: Any, scenario: str, seed: bytes) -> tuple[Any, HashChain]:
    deck = HashChain(hashlib.sha256(b"deck|" + seed).digest(), 64)
    setup = EpochDice("g", 0, None, hashlib.sha256(b"").digest(), deck=deck)
    position = system.load_position((SCENARIOS / scenario).read_text(encoding="utf-8"))
    return system.new_game(position, None, setup), deck


def _both_ways(name: str, scenario: str, seed: bytes, epochs: int) -> int:
    """Play one random game both ways; return how many epochs matched."""
    system = get_system(name)
    po = playout_for(system)
    state, deck = _new_game(system, scenario, seed)
    ps = po.start(state)
    assert system.to_json(po.game_state(ps)) == system.to_json(state)
    dice_chain = HashChain(hashlib.sha256(b"dice|" + seed).digest(), epochs + 1)
    choices = FastRandomness(seed)
    shuffles = 1
    for epoch in range(1, epochs + 1):
        if po.is_over(ps):
            assert system.prompt(state).kind == "over"
            assert po.result(ps) == system.prompt(state).result
            break
        side = po.to_act(ps)
        assert side == system.prompt(state).side
        action = po.random_action(ps, choices)
        assert action.side == side
        text = po.text(ps, action)
        sub = system.parse_orders(state, side, text)  # the mail path accepts it

        def dice(shuffles: int = shuffles, text: str = text, epoch: int = epoch) -> EpochDice:
            return EpochDice(
                "g", epoch, dice_chain.key(epoch), hash_orders(text.encode()),
                deck=deck, shuffles_before=shuffles,
            )  # fmt: skip

        mail_rng = dice()
        state = system.resolve(state, sub, mail_rng).state
        ps = po.apply(ps, action, dice())
        shuffles = mail_rng.shuffles_done
        assert system.to_json(po.game_state(ps)) == system.to_json(state), f"epoch {epoch}"
    return epoch


@pytest.mark.parametrize(("name", "scenario"), GAMES, ids=[g[1] for g in GAMES])
def test_playout_and_mail_path_reach_the_same_states(name: str, scenario: str) -> None:
    for i in range(2):
        assert _both_ways(name, scenario, f"prop-{i}".encode(), 400) > 5


def test_every_registered_system_has_a_playout() -> None:
    for name in SYSTEMS:
        po = playout_for(get_system(name))
        assert isinstance(po, Playout)
    assert find(get_system("cca"), PLAYOUT) is not None


def test_a_rollout_ends_the_game_and_names_the_winner() -> None:
    system = get_system("cca")
    po = playout_for(system)
    state, _ = _new_game(system, "cca/001-akragas.toml", b"r")
    final = po.rollout(po.start(state), FastRandomness(1), 2000)
    assert po.is_over(final)
    assert po.result(final) in ("north", "south", "draw")
    assert po.to_act(final) is None


def test_legal_actions_answer_every_question_and_sample_orders() -> None:
    system = get_system("cca")
    po = playout_for(system)
    state, _ = _new_game(system, "cca/001-akragas.toml", b"q")
    ps = po.start(state)
    rng = FastRandomness(2)
    acts = po.legal_actions(ps, rng, limit=6)
    assert 1 <= len(acts) <= 6
    assert len(set(acts)) == len(acts)
    for a in acts:
        system.parse_orders(state, a.side, po.text(ps, a))
    for _ in range(300):  # find a question
        if po.question(ps) is not None or po.is_over(ps):
            break
        ps = po.apply(ps, po.random_action(ps, rng), rng)
    q = po.question(ps)
    if q is not None:
        answers = po.legal_actions(ps, rng)
        assert {a.side for a in answers} == {q.side}
        assert all(a.kind == "answer" for a in answers)
        assert len(answers) == len(q.answers)


def test_the_fast_stream_is_deterministic_and_fair() -> None:
    a, b = FastRandomness(b"s"), FastRandomness(b"s")
    assert [a.below(6) for _ in range(100)] == [b.below(6) for _ in range(100)]
    assert FastRandomness(b"t").below(1 << 30) != FastRandomness(b"s").below(1 << 30)
    r = FastRandomness(3)
    counts = Counter(r.below(6) for _ in range(60_000))
    assert set(counts) == set(range(6))
    assert all(9_000 < c < 11_000 for c in counts.values())
    assert sorted(FastRandomness(4).permutation(20)) == list(range(20))


def _hands(data: dict[str, Any]) -> dict[str, list[str]]:
    if "hands" in data:
        return dict(data["hands"])
    return {k: v["hand"] for k, v in data["sides"].items()}


def _hidden(data: dict[str, Any], side: str) -> Counter[str]:
    other = [v for k, v in _hands(data).items() if k != side]
    return Counter([*data["deck"], *(c for v in other for c in v)])


@pytest.mark.parametrize("name", ["cca", "toy"])
def test_determinize_keeps_what_the_side_sees_and_ignores_where_hidden_cards_lie(
    name: str,
) -> None:
    system = get_system(name)
    po = playout_for(system)
    scenario = dict(GAMES)[name] if name != "cca" else "cca/001-akragas.toml"
    state, _ = _new_game(system, scenario, b"d")
    side = system.sides[0]
    before = json.loads(system.to_json(state))
    got = json.loads(
        system.to_json(po.game_state(po.determinize(po.start(state), side, FastRandomness(5))))
    )
    assert system.player_view(system.from_json(json.dumps(got)), side) == system.player_view(
        state, side
    )
    assert _hands(got)[side] == _hands(before)[side]
    assert _hidden(got, side) == _hidden(before, side)
    # Another arrangement of the same hidden cards: the same determinization.
    swapped = json.loads(json.dumps(before))
    other = next(k for k in _hands(swapped) if k != side)
    hand = swapped["hands"][other] if "hands" in swapped else swapped["sides"][other]["hand"]
    pool = [*swapped["deck"], *hand][::-1]
    hand[:] = pool[: len(hand)]
    swapped["deck"] = pool[len(hand) :]
    alt = po.start(system.from_json(json.dumps(swapped)))
    again = po.game_state(po.determinize(alt, side, FastRandomness(5)))
    assert system.to_json(again) == system.to_json(system.from_json(json.dumps(got)))


TURNS = [
    ("cca", "cca/001-akragas.toml"),
    ("cca", "cca/007-cannae.toml"),
    ("ccn", "ccn/001-rolica.toml"),
]


@pytest.mark.parametrize(("name", "scenario"), TURNS, ids=[t[1] for t in TURNS])
def test_a_playout_turn_mailed_action_by_action_reaches_the_same_state(
    name: str, scenario: str
) -> None:
    """A whole turn played at once, its questions answered on the spot (no replay; for
    Ancients, planned while it is played), gives the state that mailing its orders and
    then its answers gives, every epoch's dice from one stream."""
    system = get_system(name)
    po: Any = playout_for(system)
    for i in range(3):
        seed = f"turn-{i}".encode()
        state, _ = _new_game(system, scenario, seed)
        ps = po.start(state)
        choices, dice_p, dice_m = FastRandomness(seed), FastRandomness(b"d"), FastRandomness(b"d")
        answers = 0
        for _ in range(200):
            if po.is_over(ps):
                break
            ps, actions = po.play_turn(ps, choices, dice_p)
            assert actions[0].kind == "orders" or system.prompt(state).kind == "question"
            for a in actions:
                sub = system.parse_orders(state, a.side, po.text(ps, a))
                state = system.resolve(state, sub, dice_m).state
                answers += a.kind == "answer"
            assert system.to_json(po.game_state(ps)) == system.to_json(state)
        assert po.is_over(ps) and system.prompt(state).kind == "over"
        assert answers > 0


def _waiting_for_an_answer(name: str, scenario: str, seed: bytes) -> tuple[Any, Any, Any]:
    """A new game played at random (the mail path's pauses kept) until a question waits."""
    system = get_system(name)
    po = playout_for(system)
    state, _ = _new_game(system, scenario, seed)
    ps = po.start(state)
    rng = FastRandomness(seed)
    for _ in range(400):
        if po.question(ps) is not None:
            return system, po, ps
        assert not po.is_over(ps)
        ps = po.apply(ps, po.random_action(ps, rng), rng)
    raise AssertionError("no question in 400 epochs")


def _pending_start(data: dict[str, Any]) -> dict[str, Any]:
    start = json.loads(data["pending"]["start"])
    assert isinstance(start, dict)
    return start


@pytest.mark.parametrize(("name", "scenario"), TURNS[1:], ids=[t[1] for t in TURNS[1:]])
def test_determinize_a_turn_waiting_for_an_answer_keeps_the_view_and_the_replay(
    name: str, scenario: str
) -> None:
    """A bot asked a question mid-turn samples the hidden cards: its masked view stays as it
    is, the turn kept for the replay (the start of the turn) is dealt the same new cards, and
    the answer is accepted and resolved on the sampled state."""
    system, po, ps = _waiting_for_an_answer(name, scenario, b"ask")
    q = po.question(ps)
    assert q is not None
    state = po.game_state(ps)
    before = json.loads(system.to_json(state))
    for side in system.sides:
        got_ps = po.determinize(ps, side, FastRandomness(7))
        got_state = po.game_state(got_ps)
        got = json.loads(system.to_json(got_state))
        assert system.player_view(got_state, side) == system.player_view(state, side)
        assert _hands(got)[side] == _hands(before)[side]
        assert _hidden(got, side) == _hidden(before, side)
        asked = po.question(got_ps)  # (an Ancients state's JSON keeps no step or label)
        assert asked is not None
        assert (asked.id, asked.side, asked.answers, asked.default) == (
            q.id, q.side, q.answers, q.default
        )  # fmt: skip
        # The turn's start, replayed when the answer comes, holds the new deal: the same
        # deck, and every other hand as now plus at most the card played this turn.
        start = _pending_start(got)
        assert start["deck"] == got["deck"]
        for other, hand in _hands(got).items():
            kept = Counter(start["sides"][other]["hand"])
            kept.subtract(Counter(hand))
            assert all(n >= 0 for n in kept.values()) and sum(kept.values()) <= 1
        # Where the hidden cards lay does not matter: another deal of them, determinized
        # with the same stream, gives the same state.
        shuffled = po.determinize(ps, side, FastRandomness(8))
        again = po.determinize(shuffled, side, FastRandomness(7))
        assert system.to_json(po.game_state(again)) == system.to_json(got_state)
        # The sampled state goes on: the question's answer resolves (the replay draws the
        # new cards), as a search would play it.
        answer = next(a for a in po.legal_actions(got_ps, FastRandomness(9)) if a.side == q.side)
        after = po.apply(got_ps, answer, FastRandomness(10))
        assert po.turn(after) >= po.turn(got_ps)


def test_a_chariots_of_fire_determinization_hides_only_the_other_standing_orders() -> None:
    """Nothing is hidden on a GBoH map but the standing orders: a bot's sampled state is the
    state with the other side's standing orders blanked (the defaults play for them)."""
    system = get_system("cof")
    po = playout_for(system)
    state, _ = _new_game(system, "cof/000-teaching.toml", b"c")
    side, other = system.sides
    state.sides[other].standing = "trump: never\n"
    got = po.determinize(po.start(state), side, FastRandomness(1))
    assert got.sides[other].standing == ""
    assert got.sides[side].standing == state.sides[side].standing
    assert system.player_view(got, side) == system.player_view(state, side)
