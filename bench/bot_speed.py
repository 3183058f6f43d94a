"""CPU seconds per bot decision, this tree against an older one, in one run (issue 19).

Each match plays the first ``--decisions`` decisions of a game between two
players (``bot:4-bot:3`` ...) on a bundled scenario, with the seeds
``bench/bot_strength.py`` gives that game, and times each player's decisions
(``time.process_time``). Every tree runs in a fresh process, the trees
alternating round by round (the machine is shared: only a comparison inside
one run means anything). The script imports nothing of the engine itself:
the child process puts the tree it measures first on ``sys.path``, so an
older tree is measured with its own engine and bot.

Each tree's decisions (orders, explanation, estimate) are hashed: the table
says whether the trees decided alike, byte for byte.

    python bench/bot_speed.py --before /path/to/older/tree --rounds 2
    python bench/bot_speed.py --matches bot:4-bot:3@001,bot:3-bot:2@002 --decisions 6
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MATCHES = "bot:4-bot:3@001,bot:4-bot:3@002,bot:4-bot:3@003,bot:3-bot:2@001,bot:3-bot:2@003"


def child(tree: str, matches: str, decisions: int) -> dict[str, Any]:
    """Play ``matches`` with the engine of ``tree``: CPU per level, decisions, digest."""
    sys.path.insert(0, tree)
    from engine.bot import make_player  # noqa: PLC0415
    from engine.bot.match import play_match  # noqa: PLC0415
    from engine.bot.rng import seed_of  # noqa: PLC0415
    from engine.systems import get_system  # noqa: PLC0415
    from pbem.scenarios import find_scenario, load_text  # noqa: PLC0415

    cpu: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    digest = hashlib.sha256()

    class Timed:
        def __init__(self, player: Any) -> None:
            self.player = player
            self.name = player.name

        def decide(self, system: Any, state: Any, side: str) -> Any:
            t0 = time.process_time()
            d = self.player.decide(system, state, side)
            cpu[self.name] += time.process_time() - t0
            count[self.name] += 1
            digest.update(repr((d.side, d.text, d.explanation, d.estimate)).encode())
            return d

    for match in matches.split(","):
        pairing, _, ref = match.partition("@")
        a, _, b = pairing.partition("-")
        text = find_scenario(ref).read_text(encoding="utf-8")
        system = get_system(load_text(text).system)
        position = system.load_position(text)
        a_side, b_side = system.sides[0], system.sides[1]
        key = f"{pairing}|{system.name}/{find_scenario(ref).stem}|{a_side}|0"
        seed = seed_of("bot-strength", key)
        players = {a_side: Timed(make_player(a, seed)), b_side: Timed(make_player(b, seed + 1))}
        play_match(system, position, players, seed, max_epochs=decisions)
    return {
        "tree": tree,
        "cpu": dict(cpu),
        "decisions": dict(count),
        "digest": digest.hexdigest()[:16],
    }


def _run(tree: str, args: argparse.Namespace) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", tree, "--matches", args.matches]
    cmd += ["--decisions", str(args.decisions)]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out)  # type: ignore[no-any-return]


def compare(args: argparse.Namespace) -> str:
    """Alternate the trees for ``--rounds`` rounds; the Markdown table of the figures."""
    trees = [("before", args.before), ("now", str(ROOT))] if args.before else [("now", str(ROOT))]
    runs: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in range(args.rounds):
        for label, tree in trees if r % 2 == 0 else trees[::-1]:
            res = _run(tree, args)
            runs[label].append(res)
            sys.stderr.write(f"round {r + 1} {label}: {json.dumps(res)}\n")
    levels = sorted({lvl for rs in runs.values() for res in rs for lvl in res["cpu"]})
    lines = [
        "| tree | player | decisions | CPU s per decision (rounds) | median | decisions' digest |",
        "|---|---|---|---|---|---|",
    ]
    medians: dict[tuple[str, str], float] = {}
    for label, _ in trees:
        for lvl in levels:
            per = [res["cpu"][lvl] / res["decisions"][lvl] for res in runs[label]]
            medians[label, lvl] = statistics.median(per)
            digests = ", ".join(sorted({res["digest"] for res in runs[label]}))
            n = runs[label][0]["decisions"][lvl]
            rounds = " / ".join(f"{x:.2f}" for x in per)
            lines.append(
                f"| {label} | {lvl} | {n} | {rounds} | {medians[label, lvl]:.2f} | {digests} |"
            )
    if args.before:
        for lvl in levels:
            gain = medians["before", lvl] / medians["now", lvl]
            lines.append(f"| now / before | {lvl} | | | {gain:.2f}x faster | |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", help="an older tree, measured alternately with this one")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--matches", default=DEFAULT_MATCHES, help="PAIRING@SCENARIO,...")
    ap.add_argument("--decisions", type=int, default=8, help="decisions played per match")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        sys.stdout.write(json.dumps(child(args.child, args.matches, args.decisions)) + "\n")
        return 0
    sys.stdout.write(compare(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
