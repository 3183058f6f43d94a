"""Complete random games per CPU-second, every system: the mail path against the playout.

Two ways to play a complete random game from a bundled scenario, measured in
the same process, rounds alternating (the machine is shared, so only a
comparison inside one run means anything):

- ``mail``: what ``bench/engine_bench.py`` measures (issue 19's "before"):
  the system's random player writes orders as text, the engine checks them
  and resolves them with the committed dice stream (``EpochDice`` on a hash
  chain): ``engine.cc.autoplay.play_random_game`` for the C&C systems, the
  autoplayer's ``play_game`` for the others.
- ``playout``: the system's playout (:mod:`engine.core.playout`): random
  actions applied directly, the fast stream (``FastRandomness``) for choices
  and dice, from the dealt game to its end (a whole turn at a time where the
  playout offers ``play_turn``; "epochs" counts its orders and answers).

    python bench/playout_bench.py --games 20 --rounds 3
    python bench/playout_bench.py --systems cca --scenarios cca/001,cca/007 --modes mail
    python bench/playout_bench.py --scenarios cof/000,cof/001,cof/002 --modes mail --name cof_mail

``--modes mail`` imports nothing of the playout, so
``PYTHONPATH=<older tree> python bench/playout_bench.py --modes mail`` measures
an older engine. ``--before <older tree>`` does the whole comparison in one
run: each round runs that tree's mail path, then this tree's mail path and
playout, each in a fresh process (the trees alternate), and prints the
previous figure beside the new ones. Results: ``bench/results/playout.json``.

    python bench/playout_bench.py --before /path/to/main --games 10 --rounds 3

``--before-mode playout`` measures the older tree's playout instead (a system
whose playout got faster, e.g. one that had only the generic playout over its
autoplayer).
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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from benchkit import machine, save_json, today  # noqa: E402

from engine.systems import get_system  # noqa: E402

DEFAULT = "cca/001,cca/007,cca/015,ccn/001,toy/race,cof/000,cof/001,cof/002"


def _scenario(ref: str) -> tuple[str, Path]:
    system, _, stem = ref.partition("/")
    found = sorted((ROOT / "scenarios" / system).glob(f"{stem}*.toml"))
    if not found:
        raise SystemExit(f"no scenario {ref!r} under scenarios/{system}")
    return system, found[0]


def _mail_game(name: str, system: Any, position: Any, seed: bytes) -> tuple[Any, int]:
    """One random game by the mail path; (final state, epochs)."""
    if name in ("cca", "ccn"):
        from engine.cc.autoplay import play_random_game  # noqa: PLC0415

        if name == "cca":
            from engine.cca.autoplay import _Random  # noqa: PLC0415

            rules: Any = _Random()
        else:
            from engine.ccn.autoplay import RULES as rules  # noqa: PLC0415

        state, steps = play_random_game(rules, system, position, seed, 200)
        return state, len(steps)
    if name == "cof":  # its random game reports the orders it mailed: one an epoch
        from engine.cof.autoplay import play_random_game as play_cof  # noqa: PLC0415

        final, texts = play_cof(system, position, seed, 200)
        return final, len(texts)
    from engine.core.capabilities import AUTOPLAY, find  # noqa: PLC0415

    auto = find(system, AUTOPLAY)
    assert auto is not None
    state = auto.play_game(position, seed, 200)
    return state, int(state.get("turn", 0)) if isinstance(state, dict) else 0


def _playout_game(system: Any, position: Any, seed: bytes) -> tuple[Any, int]:
    """One random game by the playout; (final state, epochs)."""
    from engine.core.playout import FastRandomness, playout_for  # noqa: PLC0415
    from engine.dice import EpochDice, HashChain  # noqa: PLC0415

    po = playout_for(system)
    deck = HashChain(hashlib.sha256(b"deck|" + seed).digest(), 8)
    dealt = system.new_game(position, None, EpochDice("g", 0, None, b"\0" * 32, deck=deck))
    rng = FastRandomness(seed)
    ps = po.start(dealt)
    turn = getattr(po, "play_turn", None)
    epochs = 0
    while not po.is_over(ps) and epochs < 2400:
        if turn is not None:  # a whole turn at once: its questions answered on the spot
            ps, done = turn(ps, rng)
            epochs += len(done)
        else:
            ps = po.apply(ps, po.random_action(ps, rng), rng)
            epochs += 1
    return po.game_state(ps), epochs


def _compare(args: argparse.Namespace) -> None:
    """``--before TREE``: the trees alternate, each run in a fresh process; one table."""
    runs: dict[str, list[dict[str, Any]]] = {"before": [], "now": []}
    for rnd in range(args.rounds):
        for label, tree, modes in (
            ("before", args.before, args.before_mode),
            ("now", str(ROOT), "mail,playout"),
        ):
            name = f"_{label}-{rnd}"
            env = {**os.environ, "PYTHONPATH": tree}
            cmd = [sys.executable, __file__, "--games", str(args.games), "--rounds", "1",
                   "--scenarios", args.scenarios, "--modes", modes, "--name", name]  # fmt: skip
            subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
            path = ROOT / "bench" / "results" / f"{name}.json"
            runs[label].append(json.loads(path.read_text(encoding="utf-8")))
            path.unlink()
    rows = []
    for i, first in enumerate(runs["now"][0]["rows"]):

        def rates(label: str, mode: str, i: int = i) -> list[float]:
            return [r["rows"][i][mode]["rounds"][0] for r in runs[label]]

        before = rates("before", args.before_mode)
        mail, play = rates("now", "mail"), rates("now", "playout")
        rows.append({
            "system": first["system"], "scenario": first["scenario"],
            "before_mail": before, "mail": mail, "playout": play,
            "epochs_per_game": {
                "before_mail": runs["before"][0]["rows"][i][args.before_mode]["epochs_per_game"],
                "mail": first["mail"]["epochs_per_game"],
                "playout": first["playout"]["epochs_per_game"],
            },
            "speed_up": statistics.median(play) / statistics.median(before),
        })  # fmt: skip
    save_json(
        f"{args.name}.json",
        {"machine": machine(), "date": today(), "args": vars(args), "rows": rows},
    )
    print(f"machine: {machine()}\ndate: {today()}\n")
    print(f"| system | scenario | before: {args.before_mode} (rounds) | median "
          "| now: mail path (rounds) "
          "| median | playout (rounds) | median | playout / before |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        cells = " | ".join(
            f"{', '.join(f'{x:.1f}' for x in r[k])} | {statistics.median(r[k]):.1f}"
            for k in ("before_mail", "mail", "playout")
        )
        print(f"| {r['system']} | {r['scenario']} | {cells} | {r['speed_up']:.1f}x |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20, help="games per scenario, mode, round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--scenarios", default=DEFAULT, help="system/scenario-prefix, ...")
    parser.add_argument("--modes", default="mail,playout")
    parser.add_argument("--name", default="playout", help="results file name")
    parser.add_argument("--before", help="an older tree: compare its mail path, alternating")
    parser.add_argument(
        "--before-mode", default="mail", choices=("mail", "playout"),
        help="what to measure in the older tree: its mail path, or its playout",
    )  # fmt: skip
    args = parser.parse_args()
    if args.before:
        _compare(args)
        return
    modes = args.modes.split(",")
    rows = []
    for ref in args.scenarios.split(","):
        name, path = _scenario(ref)
        system = get_system(name)
        position = system.load_position(path.read_text(encoding="utf-8"))
        rates: dict[str, list[float]] = {m: [] for m in modes}
        epochs: dict[str, int] = dict.fromkeys(modes, 0)
        over: dict[str, int] = dict.fromkeys(modes, 0)
        for rnd in range(args.rounds):
            for mode in modes:
                cpu = 0.0
                for g in range(args.games):
                    seed = f"bench-{rnd}-{g}".encode()
                    c0 = time.process_time()
                    if mode == "mail":
                        final, n = _mail_game(name, system, position, seed)
                    else:
                        final, n = _playout_game(system, position, seed)
                    cpu += time.process_time() - c0
                    epochs[mode] += n
                    over[mode] += system.prompt(final).kind == "over"
                rates[mode].append(args.games / cpu)
                print(f"{path.stem} {mode} round {rnd + 1}: {rates[mode][-1]:.2f} games/CPU-s",
                      file=sys.stderr)  # fmt: skip
        total = args.games * args.rounds
        rows.append(
            {
                "system": name,
                "scenario": path.stem,
                **{
                    mode: {
                        "rounds": rates[mode],
                        "median": statistics.median(rates[mode]),
                        "epochs_per_game": epochs[mode] / total,
                        "ended": over[mode],
                        "games": total,
                    }
                    for mode in modes
                },
            }
        )
    save_json(
        f"{args.name}.json",
        {"machine": machine(), "date": today(), "args": vars(args), "rows": rows},
    )
    print(f"machine: {machine()}\ndate: {today()}\n")
    head = " | ".join(f"{m}: games per CPU-second (rounds) | {m} median | {m} epochs/game"
                      for m in modes)  # fmt: skip
    print(f"| system | scenario | {head} |" + (" speed-up |" if len(modes) == 2 else ""))
    print("|---|---|" + "---|---|---|" * len(modes) + ("---|" if len(modes) == 2 else ""))
    for r in rows:
        cells = " | ".join(
            f"{', '.join(f'{x:.1f}' for x in r[m]['rounds'])} | {r[m]['median']:.1f} | "
            f"{r[m]['epochs_per_game']:.0f}"
            for m in modes
        )
        tail = ""
        if len(modes) == 2:
            tail = f" {r[modes[1]]['median'] / r[modes[0]]['median']:.1f}x |"
        print(f"| {r['system']} | {r['scenario']} | {cells} |{tail}")


if __name__ == "__main__":
    main()
