"""Chained ``pbem engine resolve --seed`` calls roll one game's dice (docs/engine-cli.md).

A seeded call writes where the dice stream stands (``[stream]``: the last
epoch and the deck shuffles) into the position; the next call goes on from
there, so two chained calls give the game the API plays in one process on the
same seed, epoch for epoch.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_engine_cli import ORDERS, POSITION  # the same small battle as the CLI tests

from engine.core.capabilities import AUTOPLAY, find
from engine.systems import get_system
from pbem.cli import main
from pbem.enginecli import DiceSource, load, seed_bytes

SYS = get_system("cca")
SEED = "5eed" * 16


def _api_game(turns: list[str]) -> tuple[object, list[dict[str, object]]]:
    """Play ``turns`` in one process on one seeded stream (what a game by mail does)."""
    src = DiceSource("game", seed=seed_bytes(SEED))
    system, state = load("cca", POSITION, src)
    for text in turns:
        side = system.prompt(state).side
        assert side is not None
        rng = src.next_epoch(text)
        state = system.resolve(state, system.parse_orders(state, side, text), rng).state
        src.after(rng)
    return state, src.log


def test_a_chained_pair_of_seeded_resolves_reproduces_the_api_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    after_one, _ = _api_game([ORDERS])
    player = find(SYS, AUTOPLAY)
    assert player is not None
    turn2 = player.orders(after_one, b"turn two", "north")
    final, log = _api_game([ORDERS, turn2])

    (tmp_path / "p0.toml").write_text(POSITION)
    (tmp_path / "t1.txt").write_text(ORDERS)
    (tmp_path / "t2.txt").write_text(turn2)
    reports = []
    for n, orders in ((1, "t1.txt"), (2, "t2.txt")):
        args = ["engine", "resolve", "--position", str(tmp_path / f"p{n - 1}.toml")]
        args += ["--orders", str(tmp_path / orders), "--seed", SEED, "--json"]
        assert main([*args, "--write-position", str(tmp_path / f"p{n}.toml")]) == 0
        reports.append(json.loads(capsys.readouterr().out))
    # The second call numbers its epoch 2 and rolls the stream's second epoch.
    assert [s["epoch"] for r in reports for s in r["submissions"]] == [1, 2]
    assert reports[1]["dice"]["epochs"] == 2
    assert [*reports[0]["dice"]["log"], *reports[1]["dice"]["log"]] == log
    chained = SYS.load_position((tmp_path / "p2.toml").read_text())
    assert SYS.to_json(SYS.new_game(chained)) == SYS.to_json(final)


def test_a_bad_stream_table_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "p.toml").write_text(POSITION + '\n[stream]\nepoch = "two"\n')
    (tmp_path / "o.txt").write_text(ORDERS)
    args = ["engine", "resolve", "--position", str(tmp_path / "p.toml")]
    assert main([*args, "--orders", str(tmp_path / "o.txt"), "--seed", SEED]) == 1
    assert "[stream] epoch must be a whole number" in capsys.readouterr().err
