"""bench/bot_strength.py in miniature: it plays, resumes and prints Wilson intervals."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "bot_strength.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bot_strength", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bot_strength"] = module
    spec.loader.exec_module(module)
    return module


def test_a_tiny_strength_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = _bench()
    out = tmp_path / "strength.jsonl"
    args = [
        "--games",
        "1",
        "--scenarios",
        "toy-race",
        "--pairings",
        "bot:1-random,greedy-random",
        "--out",
        str(out),
    ]
    assert bench.main(args) == 0
    table = capsys.readouterr().out
    assert "| bot:1-random | **all** | 2 |" in table
    assert "| greedy-random | toy/race A=south | 1 |" in table
    assert len(out.read_text().splitlines()) == 4
    assert bench.main(args) == 0  # resumed: nothing played again
    assert len(out.read_text().splitlines()) == 4


def test_wilson_interval() -> None:
    bench = _bench()
    lo, hi = bench.wilson(150, 200)
    assert (round(lo, 3), round(hi, 3)) == (0.686, 0.805)
    assert bench.wilson(0, 0) == (0.0, 1.0)


def test_shards_play_the_same_games_as_one_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _bench()
    run = ["--games", "2", "--scenarios", "toy-race", "--pairings", "bot:1-random"]
    whole, one, two = (tmp_path / f"{n}.jsonl" for n in ("whole", "one", "two"))
    assert bench.main([*run, "--out", str(whole)]) == 0
    assert bench.main([*run, "--out", str(one), "--shard", "0/2"]) == 0
    assert bench.main([*run, "--out", str(two), "--shard", "1/2"]) == 0
    capsys.readouterr()

    def games(*outs: Path) -> dict[str, object]:
        return {k: r["winner"] for o in outs for k, r in bench._done(o).items()}

    assert len(games(one)) == len(games(two)) == 2
    assert games(one, two) == games(whole)
    assert bench.main(["--table", "--out", str(one), "--out", str(two)]) == 0
    assert "| bot:1-random | **all** | 4 |" in capsys.readouterr().out
