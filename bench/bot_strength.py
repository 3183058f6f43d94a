"""How strong the bot is, measured: win rates with 95 % Wilson intervals per pairing.

Each pairing ``A-B`` plays ``--games`` games on each side of each scenario
(A north then A south), so a pairing's total is ``games x 2 x scenarios``.
Players: ``random``, ``greedy`` (one ply) and ``bot:N`` (engine/bot, level N).
Games are played by :func:`engine.bot.match.play_match` on simulated dice,
with seeds fixed by the pairing, scenario, side and game number: a rerun
replays the same games. A game cut off at ``--max-epochs`` counts as a draw.
Players play on the engine's fast playout (``engine.core.playout``), or with
``--text`` on the mail path's text (how the bot played before it landed).
A draw scores one half.

Results are appended game by game to ``--out`` (JSON lines), and a rerun
skips the games already there, so a long run can be stopped and resumed;
``--table`` prints the Markdown table of what the file holds. ``--shard I/N``
plays only the game numbers ``g`` with ``g % N == I`` (each on every
scenario and side), so N processes with their own ``--out`` files share one
run; each game's seed is fixed by its key, so the games are the same however
the run is split, and ``--table`` with several ``--out`` reads them together.

    python bench/bot_strength.py --games 34 --scenarios 001,002,003 \\
        --pairings bot:2-random,bot:2-greedy,bot:2-bot:1,bot:3-bot:2
    python bench/bot_strength.py --table
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.bot import make_player  # noqa: E402
from engine.bot.match import play_match  # noqa: E402
from engine.bot.rng import seed_of  # noqa: E402
from engine.systems import get_system  # noqa: E402
from pbem.scenarios import find_scenario, load_text  # noqa: E402

DEFAULT_OUT = ROOT / "bench" / "results" / "bot-strength.jsonl"
DEFAULT_PAIRINGS = "bot:2-random,bot:2-greedy,bot:2-bot:1,bot:3-bot:2"


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a rate ``score / n``."""
    if n == 0:
        return 0.0, 1.0
    p = score / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _done(out: Path) -> dict[str, dict[str, object]]:
    if not out.exists():
        return {}
    rows = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    return {str(r["key"]): r for r in rows}


def play(args: argparse.Namespace) -> None:
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = _done(out)
    scenarios = []
    for ref in args.scenarios.split(","):
        path = find_scenario(ref.strip())
        text = path.read_text(encoding="utf-8")
        system = get_system(load_text(text).system)
        scenarios.append((path.stem, system, system.load_position(text)))
    pairings = [p.strip() for p in args.pairings.split(",") if p.strip()]
    shard, _, shards = args.shard.partition("/")
    for game in range(int(shard), args.games, int(shards or 1)):
        for pairing in pairings:
            a, _, b = pairing.partition("-")
            for name, system, position in scenarios:
                for a_side in system.sides:
                    key = f"{pairing}|{system.name}/{name}|{a_side}|{game}"
                    if key in done:
                        continue
                    seed = seed_of("bot-strength", key)
                    b_side = next(s for s in system.sides if s != a_side)
                    fast = not args.text
                    players = {
                        a_side: make_player(a, seed, fast=fast),
                        b_side: make_player(b, seed + 1, fast=fast),
                    }
                    t0 = time.process_time()
                    res = play_match(system, position, players, seed, max_epochs=args.max_epochs)
                    score = 0.5 if res.winner in (None, "draw") else float(res.winner == a_side)
                    row = {
                        "key": key,
                        "pairing": pairing,
                        "scenario": f"{system.name}/{name}",
                        "a_side": a_side,
                        "game": game,
                        "winner": res.winner,
                        "a_score": score,
                        "epochs": res.epochs,
                        "cpu_s": round(time.process_time() - t0, 3),
                    }
                    with out.open("a", encoding="utf-8") as f:
                        f.write(json.dumps(row) + "\n")
                    done[key] = row


def table(outs: Sequence[Path]) -> str:
    """The Markdown table of the games in ``outs``: one row per pairing, then per scenario side."""
    rows = list({k: r for out in outs for k, r in _done(out).items()}.values())
    lines = [
        "| pairing (A-B) | where | games | A wins | draws | A score | 95 % CI | CPU s/game |",
        "|---|---|---|---|---|---|---|---|",
    ]
    pairings = list(dict.fromkeys(str(r["pairing"]) for r in rows))
    for pairing in pairings:
        mine = [r for r in rows if r["pairing"] == pairing]
        groups: list[tuple[str, Sequence[dict[str, object]]]] = [("**all**", mine)]
        for where in dict.fromkeys(f"{r['scenario']} A={r['a_side']}" for r in mine):
            groups.append((where, [r for r in mine if f"{r['scenario']} A={r['a_side']}" == where]))
        for where, group in groups:
            n = len(group)
            score = sum(float(str(r["a_score"])) for r in group)
            wins = sum(1 for r in group if float(str(r["a_score"])) == 1.0)
            draws = sum(1 for r in group if float(str(r["a_score"])) == 0.5)
            lo, hi = wilson(score, n)
            cpu = sum(float(str(r["cpu_s"])) for r in group) / max(n, 1)
            lines.append(
                f"| {pairing} | {where} | {n} | {wins} | {draws} | {score / n:.0%} | "
                f"{lo:.0%}-{hi:.0%} | {cpu:.1f} |"
            )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=34, help="games per pairing, scenario and side")
    ap.add_argument(
        "--scenarios", default="cca-001-akragas,cca-002-crimissos-river,cca-003-bagradas"
    )
    ap.add_argument("--pairings", default=DEFAULT_PAIRINGS)
    ap.add_argument("--max-epochs", type=int, default=300)
    ap.add_argument(
        "--out",
        action="append",
        help=f"results file (default {DEFAULT_OUT.relative_to(ROOT)}); several for --table",
    )
    ap.add_argument("--shard", default="0/1", help="I/N: play the game numbers g with g %% N == I")
    ap.add_argument("--table", action="store_true", help="only print the table of --out")
    ap.add_argument(
        "--text",
        action="store_true",
        help="players on the mail path's text (engine.bot.adapter.TextPlayout), not the "
        "engine's fast playout",
    )
    args = ap.parse_args(argv)
    outs = [Path(o) for o in args.out or [DEFAULT_OUT]]
    if not args.table:
        if len(outs) != 1:
            ap.error("play into one --out file (several only with --table)")
        args.out = outs[0]
        play(args)
    sys.stdout.write(table(outs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
