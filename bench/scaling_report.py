"""Issue 20's figures in one command: workers, the floor, turnaround idle and busy, RSS at scale.

Runs, one after the other (each a subprocess of this Python, on a machine
with nothing else running: the figures are only as good as the quiet):

1. ``pipeline_bench.py``: pbem's CPU per orders mail against the serial
   floor measured in the same run (two commits, one SSHSIG verification,
   one engine resolution, one board render), and their ratio;
2. ``e2e_bench.py`` busy: ``--games`` games kept busy by 4 SMTP clients, on
   SQLite with one worker and on PostgreSQL with each of ``--workers``;
3. ``e2e_bench.py`` idle: one game, one mail at a time, both databases;
4. ``scale_bench.py``: the daemon's RSS (after start, after the clubs' first
   sweep, after turns, and its peak) with ``--scale-games`` games in the store.

Then it prints the tables bench/README.md needs (orders/s per worker count and
database, the 2-worker/1-worker ratio, the floor and pbem's share of it, p50
and p99 turnaround idle and busy and their ratio, RSS at scale) and writes
them to ``bench/results/scaling-report.json``.

    python bench/scaling_report.py                    # the full run (about an hour)
    python bench/scaling_report.py --quick            # a smoke run (minutes; figures meaningless)
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from benchkit import RESULTS, machine, save_json, today  # noqa: E402


def bench(script: str, *args: str) -> None:
    """Run ``bench/<script>`` with ``args``; stop everything if it fails."""
    command = [sys.executable, str(ROOT / "bench" / script), *args]
    sys.stderr.write("$ " + " ".join(command[1:]) + "\n")
    subprocess.run(command, check=True, cwd=ROOT)


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((RESULTS / f"{name}.json").read_text(encoding="utf-8"))
    return data


def report(prefix: str) -> dict[str, Any]:
    """Gather the runs' JSON files into the figures the README shows."""
    pipeline = load(f"{prefix}-pipeline")
    busy = load(f"{prefix}-busy")["runs"]
    idle = load(f"{prefix}-idle")["runs"]
    scale = load(f"{prefix}-scale")
    rate = {r["backend"]: r["orders_per_s"] for r in busy}
    one_pg, two_pg = rate.get("postgresql"), rate.get("postgresql x2")
    turnaround = {
        f"{r['backend']} {label}": {
            "commit_p50_ms": r["commit_ms"]["50"],  # JSON keys are strings
            "commit_p99_ms": r["commit_ms"]["99"],
        }
        for label, runs in (("busy", busy), ("idle", idle))
        for r in runs
    }
    ratios = {
        r["backend"]: turnaround[f"{r['backend']} busy"]["commit_p50_ms"]
        / turnaround[f"{r['backend']} idle"]["commit_p50_ms"]
        for r in idle
        if f"{r['backend']} busy" in turnaround
    }
    return {
        "machine": machine(),
        "date": today(),
        "orders_per_s": rate,
        "two_workers_over_one": (two_pg / one_pg) if one_pg and two_pg else None,
        "floor_per_s": pipeline["serial_bound_per_s"],
        "pbem_per_core_per_s": pipeline["pipeline"]["orders_per_s"],
        "ratio_to_floor": pipeline["ratio_to_serial_bound"],
        "turnaround": turnaround,
        "busy_over_idle_p50": ratios,
        "rss_mib": {"games": scale["args"]["games"], **scale["big"]["rss_mib"]},
    }


def show(r: dict[str, Any]) -> None:
    print(f"machine: {r['machine']}\ndate: {r['date']}\n")
    print("| run | orders/s |")
    print("|---|---|")
    for name, value in r["orders_per_s"].items():
        print(f"| {name} | {value:.1f} |")
    two = r["two_workers_over_one"]
    print(f"\n2 workers / 1 worker on PostgreSQL: {two:.2f}x" if two else "")
    print(
        f"floor {r['floor_per_s']:.1f} orders/s per core; pbem {r['pbem_per_core_per_s']:.1f} "
        f"per core = {r['ratio_to_floor']:.1%} of the floor\n"
    )
    print("| run | commit p50 ms | commit p99 ms |")
    print("|---|---|---|")
    for name, t in r["turnaround"].items():
        print(f"| {name} | {t['commit_p50_ms']:.0f} | {t['commit_p99_ms']:.0f} |")
    for name, ratio in r["busy_over_idle_p50"].items():
        print(f"\n{name}: busy p50 / idle p50 = {ratio:.2f}")
    rss = r["rss_mib"]
    print(
        f"\nRSS with {rss['games']:,} games: {rss['start']:.0f} MiB after start, "
        f"{rss['after_sweep']:.0f} after the clubs' sweep, {rss['after_turns']:.0f} after turns, "
        f"peak {rss['peak']:.0f} MiB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", default="1,2,4", help="PostgreSQL worker counts")
    parser.add_argument("--games", type=int, default=4, help="busy games")
    parser.add_argument("--orders", type=int, default=200, help="orders mails per busy run")
    parser.add_argument("--idle-orders", type=int, default=40)
    parser.add_argument("--scale-games", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true", help="a smoke run: tiny sizes")
    parser.add_argument("--name", default="scaling", help="prefix of the results files")
    parser.add_argument("--report-only", action="store_true", help="only gather existing results")
    args = parser.parse_args()
    if args.quick:
        args.orders, args.idle_orders, args.scale_games = 12, 4, 500
    p = args.name
    if not args.report_only:
        if args.quick:
            bench(
                "pipeline_bench.py",
                "--games",
                "2",
                "--rounds",
                "1",
                "--commits",
                "50",
                "--verifies",
                "50",
                "--states",
                "4",
            )
        else:
            bench("pipeline_bench.py", "--games", "8", "--rounds", "4")
        shutil.copyfile(RESULTS / "pipeline.json", RESULTS / f"{p}-pipeline.json")
        bench(
            "e2e_bench.py",
            "--name",
            f"{p}-busy",
            "--db",
            "both",
            "--workers",
            args.workers,
            "--games",
            str(args.games),
            "--orders",
            str(args.orders),
        )
        bench(
            "e2e_bench.py",
            "--name",
            f"{p}-idle",
            "--db",
            "both",
            "--games",
            "1",
            "--senders",
            "1",
            "--orders",
            str(args.idle_orders),
        )
        scale = ["--games", str(args.scale_games), "--no-history", "--name", f"{p}-scale"]
        if args.quick:
            scale += ["--epochs", "2", "--live", "1", "--rounds", "1"]
        bench("scale_bench.py", *scale)
    result = report(p)
    save_json(f"{p}-report.json", result)
    show(result)


if __name__ == "__main__":
    main()
