"""Random complete Chariots of Fire games: invariants after every step (cof.md §2.6, §6.6, §11).

Random legal orders and answers (engine.cof.autoplay) are played with the committed dice stream
(EpochDice) on the test kit's battle. After every resolved submission: each counter is on the
map in a hex of the map or off it as eliminated/fled; one combat unit a hex, a CH-2 and its
runners excepted (§6.6); every facing a vertex (§6.5); no unit on the map that is not routed
holds hits at or over its TQ (§9.2); routed units are by their side and Engaged units next to an
enemy (§9.4); each side's withdrawal points are the printed TQ of its units off the map plus five
times its OC's Initiative if he died (§11); the activation markers are each in the pool or drawn
once (§5.2); the state survives JSON and the position file unchanged; a reinforcement waits at
its map-edge hex until its turn. Every game ends within its turn limit. The normal run plays a
reduced number of games and the first three turns of Megiddo and of Kadesh; the ``slow`` run
(CI runs it too, ``.ci/run``) plays 1,000 and whole Megiddo and Kadesh games. Some games are
played on the heroic teaching scenario (scenarios/cof/003-heroes-teaching.toml), so that
duels, challenges, Standard capture and aggression reactions come up (cof.md §8.10, §9.6, §10).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from cof_kit import skirmish

from engine.cof.position import load_position, write_position
from engine.cof.scenario import load_scenario
from engine.cof.scenario.spec import CofScenario, CounterSpec
from engine.cof.state import SIDES, CofState, from_scenario, state_to_dict
from engine.cof.system import SYSTEM
from engine.cof.turn import markers
from engine.core.capabilities import AUTOPLAY, find
from engine.dice import EpochDice, HashChain, hash_orders
from engine.gboh.grid import SIDES as HEXSIDES
from engine.gboh.grid import VERTICES

NORMAL_GAMES = 6
HEROIC_GAMES = 2
SLOW_GAMES = 1000
SLOW_HEROIC = 100
SLOW_TURNOVER = 100  # kit games under the optional Chariot Turnover rule (rulebook §6.8)
SLOW_BATTLES = 4
"""Whole Megiddo and Kadesh games, each, in the slow run."""
SHARDS = 2
"""The slow run in this many pytest processes (CI runs them side by side, one a core)."""
TURNS = 12
SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios" / "cof"
HEROIC = SCENARIOS / "003-heroes-teaching.toml"
BATTLES = ("001-megiddo.toml", "002-kadesh.toml")


def check(s: CofState) -> None:
    """Every invariant of the module docstring, on one state."""
    seen: dict[str, list[str]] = {}
    for u in s.units:
        if u.on_map:
            assert u.at in s.grid, u
            seen.setdefault(u.hex, []).append(u.id)
            assert u.facing in (HEXSIDES if u.column else VERTICES), u
            assert u.hits >= 0, u
            if not u.routed:
                assert u.hits < u.tq, f"{u.id} holds {u.hits} hits, TQ {u.tq}, and has not routed"
            if u.engaged:
                assert any(e.at.distance(u.at) == 1 for e in s.live() if e.side != u.side), u
        elif u.status == "arriving":  # a reinforcement waits at its edge hex (§13 [E])
            assert u.arrives >= s.turn and (u.at.col in s.columns or u.at.row in s.rows), u
        else:
            assert u.status in ("eliminated", "fled") and not u.hex, u
    for h, ids in seen.items():
        if len(ids) > 1:
            a, b = (s.unit(i) for i in ids)
            assert len(ids) == 2 and a.stacked_with == b.id, f"{ids} share {h}"
            assert {a.type, b.type} == {"CH2", "RI"}, f"{ids} share {h}"
    for side in SIDES:
        lost = sum(u.tq for u in s.units if u.side == side and u.status in ("eliminated", "fled"))
        oc = [ld for ld in s.leaders if ld.side == side and ld.role == "OC"]
        lost += sum(5 * ld.initiative for ld in oc if ld.status == "killed")
        assert s.sides[side].points == lost, (side, s.sides[side].points, lost)
    every = Counter(s.pool + s.used)
    assert all(n == 1 for n in every.values()), every
    assert set(every) <= {m for side in SIDES for m in markers(s, side)}
    for ld in s.leaders:
        assert ld.on_map == (ld.status == "in"), ld


def heroic() -> CofScenario:
    return load_scenario(HEROIC.read_text(encoding="utf-8"), HEROIC.name)


def battle(name: str, turns: int | None = None) -> CofScenario:
    """A bundled historical battle, cut to ``turns`` when given."""
    path = SCENARIOS / name
    sc = load_scenario(path.read_text(encoding="utf-8"), path.name)
    return replace(sc, turns=turns) if turns else sc


def _late(c: CounterSpec) -> CounterSpec:
    return replace(c, arrives=2, hex=c.hex[:2] + "01") if c.wing == "2" else c


def with_reinforcements(turns: int = TURNS) -> CofScenario:
    """The kit's battle with Egyptian wing 2 (and its commander) arriving on turn 2 at the
    north edge, above where it stood."""
    sc = skirmish(turns)
    leaders = tuple(
        replace(ld, arrives=2, hex=ld.hex[:2] + "01") if ld.wing == "2" else ld for ld in sc.leaders
    )
    return replace(sc, counters=tuple(_late(c) for c in sc.counters), leaders=leaders)


def play(
    seed: bytes,
    turns: int = TURNS,
    scenario: CofScenario | None = None,
    texts: list[str] | None = None,
) -> CofState:
    """One random game, checking every state; returns the last (its orders go to ``texts``)."""
    player = find(SYSTEM, AUTOPLAY)
    assert player is not None
    s = SYSTEM.new_game(from_scenario(scenario or skirmish(turns)))
    dice = HashChain(hashlib.sha256(b"dice|" + seed).digest(), 4000)
    check(s)
    for epoch in range(1, 4000):
        p = SYSTEM.prompt(s)
        if p.kind == "over":
            return s
        assert p.side is not None
        text = player.orders(s, seed + epoch.to_bytes(4, "big"))
        if texts is not None:
            texts.append(text)
        sub = SYSTEM.parse_orders(s, p.side, text)
        rng = EpochDice("cof", epoch, dice.key(epoch), hash_orders(text.encode()))
        s = SYSTEM.resolve(s, sub, rng).state
        check(s)
        if epoch % 25 == 0:
            assert state_to_dict(SYSTEM.from_json(SYSTEM.to_json(s))) == state_to_dict(s)
            assert state_to_dict(load_position(write_position(s))) == state_to_dict(s)
    raise AssertionError(f"the game did not end within {turns} turns")


@pytest.mark.parametrize("n", range(NORMAL_GAMES))
def test_random_games_keep_the_invariants(n: int) -> None:
    end = play(f"cof-{n}".encode())
    assert end.result in ("north", "south", "draw")


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(SHARDS), ids=lambda k: f"shard_{k}")
def test_many_random_games_keep_the_invariants(shard: int, request: pytest.FixtureRequest) -> None:
    """1,000 games of the kit's battle, 100 heroic ones, 100 under the Turnover rule, and
    whole Megiddo and Kadesh games, every state checked; shard ``k`` plays every
    ``SHARDS``-th game from the ``k``-th (CI: ``.ci/run`` runs the shards side by side;
    ``-k shard_0`` picks one)."""
    marks = str(request.config.getoption("-m") or "")
    if "slow" not in marks or "not slow" in marks:
        pytest.skip("1,000 games: run with pytest -m slow")
    mine = range(shard, SLOW_GAMES, SHARDS)
    results = Counter(play(f"cof-slow-{n}".encode()).result for n in mine)
    assert sum(results.values()) == len(mine)
    hero = heroic()
    heroes = Counter(play(f"cof-slow-h{n}".encode(), scenario=hero).result
                     for n in range(shard, SLOW_HEROIC, SHARDS))  # fmt: skip
    assert sum(heroes.values()) == len(range(shard, SLOW_HEROIC, SHARDS))
    rolling = replace(skirmish(TURNS), special_rules=("turnover",))
    for n in range(shard, SLOW_TURNOVER, SHARDS):
        end = play(f"cof-slow-t{n}".encode(), scenario=rolling)
        assert end.result in ("north", "south", "draw")
    for name in BATTLES:
        sc = battle(name)
        for n in range(shard, SLOW_BATTLES, SHARDS):
            end = play(f"cof-slow-{name}-{n}".encode(), scenario=sc)
            assert end.result in ("north", "south", "draw")


@pytest.mark.parametrize("name", BATTLES)
def test_random_historical_battles_keep_the_invariants(name: str) -> None:
    """Megiddo and Kadesh, their first three turns: ground with hills, walls and rivers,
    more wings, Durusha moving on the Momentum marker, the Ne'arin still on their way."""
    end = play(f"cof-battle-{name}".encode(), scenario=battle(name, turns=3))
    assert end.result in ("north", "south", "draw") and end.turn == 3


@pytest.mark.parametrize("n", range(HEROIC_GAMES))
def test_random_heroic_games_keep_the_invariants(n: int) -> None:
    end = play(f"cof-heroic-{n}".encode(), scenario=heroic())
    assert end.result in ("north", "south", "draw")


def test_a_game_with_reinforcements_keeps_the_invariants() -> None:
    end = play(b"cof-late", scenario=with_reinforcements())
    assert end.result in ("north", "south", "draw")
    assert all(u.status != "arriving" for u in end.units)


def test_same_seed_same_game() -> None:
    assert SYSTEM.to_json(play(b"again")) == SYSTEM.to_json(play(b"again"))


@pytest.mark.parametrize("n", range(2))
def test_random_games_with_the_turnover_option_keep_the_invariants(n: int) -> None:
    """The optional Chariot Turnover rule (rulebook §6.8) in play: chariots roll as they turn."""
    sc = replace(skirmish(TURNS), special_rules=("turnover",))
    texts: list[str] = []
    end = play(f"cof-turnover-{n}".encode(), scenario=sc, texts=texts)
    assert end.result in ("north", "south", "draw")
    assert any(" speed " in t for t in texts)  # chariots declare Speeds (§6.81) too
