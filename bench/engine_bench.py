"""The engine alone: complete random C&C games per second per core (Ancients, Napoleonics).

Each game starts from a bundled scenario and is played to its end (or
``--max-turns``) by ``engine.cca.autoplay.play_random_game``: random legal
orders for both sides, answers to every question, the committed dice stream
(``EpochDice`` on a hash chain) as the referee uses it. No I/O, no store, no
mail: what one core can resolve. CPU time (``time.process_time``) is the
per-core cost; wall time is shown too (other jobs share the machine).

    python bench/engine_bench.py --games 40 [--scenarios 001,007]
    python bench/engine_bench.py --system ccn --games 30 --scenarios ccn-001-rolica

The time inside ``system.resolve`` (one resolution: a turn or an answer)
and inside ``system.parse_orders`` (checking a submission; autoplay checks
several drafts per turn) is measured separately, so the per-resolution cost
is visible apart from the random players' own work.

Board rendering has its own script: ``bench/render_bench.py``.
Results: ``bench/results/engine.json`` (Napoleonics: ``engine-ccn.json``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from benchkit import Progress, machine, percentile, save_json, today  # noqa: E402

from engine.cc.autoplay import play_random_game as cc_play  # noqa: E402
from engine.cca.autoplay import play_random_game  # noqa: E402
from engine.ccn.autoplay import RULES as CCN_RULES  # noqa: E402
from engine.systems import get_system  # noqa: E402
from pbem.scenarios import find_scenario  # noqa: E402


class Timed:
    """The system with CPU time spent in ``resolve`` and ``parse_orders`` counted."""

    def __init__(self, system: Any) -> None:
        self._system = system
        self.resolve_s: list[float] = []
        self.check_s: list[float] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._system, name)

    def resolve(self, *args: Any) -> Any:
        t = time.process_time()
        try:
            return self._system.resolve(*args)
        finally:
            self.resolve_s.append(time.process_time() - t)

    def parse_orders(self, *args: Any) -> Any:
        t = time.process_time()
        try:
            return self._system.parse_orders(*args)
        finally:
            self.check_s.append(time.process_time() - t)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games per scenario")
    parser.add_argument("--scenarios", default="001,007")
    parser.add_argument("--max-turns", type=int, default=200)
    parser.add_argument("--system", default="cca", choices=("cca", "ccn"))
    args = parser.parse_args()
    system = get_system(args.system)

    def play(sysm: Any, pos: Any, seed: bytes, max_turns: int) -> Any:
        if args.system == "ccn":
            return cc_play(CCN_RULES, sysm, pos, seed, max_turns)
        return play_random_game(sysm, pos, seed, max_turns=max_turns)

    rows = []
    for ref in args.scenarios.split(","):
        path = find_scenario(ref)
        position = system.load_position(path.read_text(encoding="utf-8"))
        timed = Timed(system)
        cpu: list[float] = []
        wall: list[float] = []
        epochs = finished = 0
        bar = Progress(f"random games {path.stem}", args.games)
        for seed in range(args.games):
            c0, w0 = time.process_time(), time.perf_counter()
            state, steps = play(timed, position, f"bench-{seed}".encode(), args.max_turns)
            cpu.append(time.process_time() - c0)
            wall.append(time.perf_counter() - w0)
            epochs += len(steps)
            finished += system.prompt(state).kind == "over"
            bar.update(seed + 1)
        bar.close()
        rows.append(
            {
                "scenario": path.stem,
                "games": args.games,
                "finished": finished,
                "epochs_per_game": epochs / args.games,
                "games_per_cpu_s": args.games / sum(cpu),
                "epochs_per_cpu_s": epochs / sum(cpu),
                "cpu_s_per_game_median": percentile(cpu, 50),
                "wall_s_per_game_median": percentile(wall, 50),
                "resolve_ms_median": 1000 * percentile(timed.resolve_s, 50),
                "resolve_ms_p95": 1000 * percentile(timed.resolve_s, 95),
                "check_ms_median": 1000 * percentile(timed.check_s, 50),
            }
        )
    save_json(
        "engine.json" if args.system == "cca" else f"engine-{args.system}.json",
        {"machine": machine(), "date": today(), "args": vars(args), "rows": rows},
    )
    print(f"machine: {machine()}\ndate: {today()}\n")
    print(
        "| scenario | games (ended) | epochs/game | games per CPU-second | epochs per CPU-second "
        "| CPU s/game (median) | wall s/game (median) | resolve ms (median / p95) "
        "| check ms (median) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['scenario']} | {r['games']} ({r['finished']}) | {r['epochs_per_game']:.0f} | "
            f"{r['games_per_cpu_s']:.2f} | {r['epochs_per_cpu_s']:.0f} | "
            f"{r['cpu_s_per_game_median']:.2f} | {r['wall_s_per_game_median']:.2f} | "
            f"{r['resolve_ms_median']:.1f} / {r['resolve_ms_p95']:.1f} | "
            f"{r['check_ms_median']:.1f} |"
        )


if __name__ == "__main__":
    main()
