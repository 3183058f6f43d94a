"""The pipeline against the machine's irreducible costs, measured in the same run.

Every accepted orders mail needs, at the least:

1. two SQLite commits on the store's disk: the inbox row before ``250``, and
   the one transaction that moves the game (design invariant 1);
2. one SSHSIG (Ed25519) verification of the signed orders;
3. one engine resolution (parse + validate + resolve with the committed dice);
4. one board render (PNG + SVG + ASCII). Since each side sees the board from its
   own edge (issue 14) a C&C turn draws one per side: the bound "with two boards"
   counts the second one too.

Times are CPU times (``time.process_time``; everything here runs in one
thread), so other jobs on the machine do not inflate them; wall times are
shown too. Model: a referee that did nothing else, on one core, could at best process
``1 / (2 t_commit + t_verify + t_resolve + t_render)`` orders per second (the
**serial bound**, which is the one that applies to pbem: one worker, one
transaction at a time, by design). With the four steps pipelined on enough
cores the **slowest step** would bound it: ``min(commits/s / 2, verifies/s,
resolutions/s, renders/s)`` (the **pipelined bound**). pbem's ratio to the
serial bound says how much its own work (MIME, templates, mail composition,
ORM, events, snapshots, outbox rows) costs on top of the irreducible parts.

The pipeline figure is in-process (no sockets): orders mails for ``--games``
C&C Ancients games are stored with ``store_message`` and processed with the
pipeline's ``Processor``, the same code ``pbem serve`` runs, on a SQLite file
in the same temp directory as the commit measurement.

    python bench/pipeline_bench.py [--games 20 --rounds 5]

Results: ``bench/results/pipeline.json`` and a table on stdout.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from benchkit import (  # noqa: E402
    RESULTS,
    Progress,
    machine,
    percentile,
    plot_bars,
    save_json,
    today,
)
from fault_kit import create_games, orders_mail, write_config  # noqa: E402

from engine.cca.autoplay import choice_stream, play_random_game, random_submission  # noqa: E402
from engine.dice import EpochDice, HashChain  # noqa: E402
from engine.systems import get_system  # noqa: E402
from pbem import sshsig  # noqa: E402
from pbem.clock import SystemClock  # noqa: E402
from pbem.config import load_config  # noqa: E402
from pbem.mailin.accept import store_message  # noqa: E402
from pbem.pipeline import Processor, load_server_key  # noqa: E402
from pbem.render import picture_of, render_board  # noqa: E402
from pbem.scenarios import find_scenario  # noqa: E402
from pbem.store import Store, migrate  # noqa: E402

CPU: dict[int, float] = {}  # id(list of wall samples) -> total CPU seconds of those calls


def timed(fn, n: int, label: str) -> list[float]:  # type: ignore[no-untyped-def]
    """Call ``fn(i)`` ``n`` times; return the wall seconds of each call (CPU total in ``CPU``)."""
    bar = Progress(label, n)
    out = []
    cpu = 0.0
    for i in range(n):
        c = time.process_time()
        t = time.perf_counter()
        fn(i)
        out.append(time.perf_counter() - t)
        cpu += time.process_time() - c
        bar.update(i + 1)
    bar.close()
    CPU[id(out)] = cpu
    return out


def bench_commits(directory: Path, n: int, synchronous: str = "NORMAL") -> list[float]:
    """Commit one ~2 KB row per transaction with pbem's SQLite settings (WAL, NORMAL, IMMEDIATE).

    ``synchronous=FULL`` (an fsync of the WAL at every commit) is measured
    too, for comparison: pbem uses NORMAL, which survives a crash of the
    process but may lose the last commits on a power cut or kernel crash.
    """
    path = directory / f"commits-{synchronous}.sqlite3"
    con = sqlite3.connect(path, isolation_level=None)
    for pragma in (
        "PRAGMA busy_timeout = 5000",
        "PRAGMA foreign_keys = ON",
        "PRAGMA journal_mode = WAL",
        f"PRAGMA synchronous = {synchronous}",
    ):
        con.execute(pragma)
    con.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)")
    body = os.urandom(2048)

    def one(_: int) -> None:
        con.execute("BEGIN IMMEDIATE")
        con.execute("INSERT INTO t (body) VALUES (?)", (body,))
        con.execute("COMMIT")

    try:
        return timed(one, n, f"sqlite commits ({synchronous})")
    finally:
        con.close()


def bench_verify(n: int) -> list[float]:
    """Verify one signed orders text (Ed25519 SSHSIG, namespace pbem-orders)."""
    key = sshsig.generate_private_key()
    pub = sshsig.public_key_of(key)
    text = b"game g1\nturn 3\nside north\ncard Order Three Units Center\norder E5 F5 G5\n"
    sig = sshsig.sign(text, key)
    return timed(lambda _: sshsig.verify(text, sig, [pub]), n, "sshsig verify")


def mid_game_states(count: int) -> list[object]:
    """Play random Akragas games and keep ``count`` states spread over them."""

    system = get_system("cca")
    position = system.load_position(find_scenario("001").read_text(encoding="utf-8"))
    states: list[object] = []
    seed = 0
    while len(states) < count:
        seed += 1
        play_random_game(
            system,
            position,
            str(seed).encode(),
            max_turns=60,
            on_step=lambda state, step: states.append(state),
        )
    step = max(len(states) // count, 1)
    return states[::step][:count]


def bench_resolve(states: list[object]) -> list[float]:
    """Parse, validate and resolve one random legal submission per state, with committed dice."""

    system = get_system("cca")
    live = [s for s in states if system.prompt(s).kind != "over"]
    texts = []
    for i, state in enumerate(live):
        side, text = random_submission(system, state, choice_stream(str(i).encode(), "bench"))
        texts.append((side, text))
    deck = HashChain(hashlib.sha256(b"deck").digest(), 512)
    key = hashlib.sha256(b"key").digest()

    def one(i: int) -> None:
        state = live[i]
        side, text = texts[i]
        submission = system.parse_orders(state, side, text)
        dice = EpochDice("bench", 1, key, hashlib.sha256(text.encode()).digest(), deck=deck)
        system.resolve(state, submission, dice)

    return timed(one, len(live), "engine resolve")


def bench_render(states: list[object]) -> list[float]:
    """Render the public board as the pipeline does (PNG + SVG + ASCII)."""

    system = get_system("cca")
    views = [picture_of(system, system.public_view(s)) for s in states]
    render_board(views[0])  # the terrain base image is built once per map
    return timed(lambda i: render_board(views[i]), len(views), "board render")


def bench_pipeline(directory: Path, games: int, rounds: int) -> tuple[list[float], list[float]]:
    """Store and process ``rounds`` orders mails per game; return (store, process) seconds."""
    cfg = write_config(directory / "pipeline", sink_port=1)
    config = load_config(str(cfg))
    migrate(config.database_url)
    store = Store(config.database_url)
    clock = SystemClock()
    sys.stderr.write(f"creating {games} games...\n")
    load = create_games(store, cfg, games)
    processor = Processor(config, store, clock, server_key=load_server_key(config.server_key_path))
    stored: list[float] = []
    processed: list[float] = []
    cpu = 0.0
    bar = Progress("pipeline", games * rounds)
    for _ in range(rounds):
        for game in load:
            mail = orders_mail(store, game)
            if mail is None:
                continue
            COUNTING[0] = True
            c = time.process_time()
            t = time.perf_counter()
            acc = store_message(
                store, mail.raw, source="smtp", clock=clock, envelope_to=[config.mail.address]
            )
            stored.append(time.perf_counter() - t)
            t = time.perf_counter()
            processor.process(acc.inbox_id)
            processed.append(time.perf_counter() - t)
            cpu += time.process_time() - c
            COUNTING[0] = False
            bar.update(len(processed))
    bar.close()
    store.dispose()
    CPU[id(stored)] = cpu
    return stored, processed


STEPS: dict[str, float] = {}  # step -> CPU seconds spent in it (``--steps``)
COUNTING = [False]  # only while an orders mail is stored and processed


def count_steps() -> None:
    """Time the pipeline's main steps with ``process_time`` (no profiler: it distorts)."""
    import importlib  # noqa: PLC0415

    def wrap(owner: object, name: str, step: str) -> None:
        real = getattr(owner, name)

        def timed_step(*args, **kwargs):  # type: ignore[no-untyped-def]
            if not COUNTING[0]:
                return real(*args, **kwargs)
            c = time.process_time()
            try:
                return real(*args, **kwargs)
            finally:
                STEPS[step] = STEPS.get(step, 0.0) + time.process_time() - c

        setattr(owner, name, timed_step)

    mails = importlib.import_module("pbem.pipeline.mails")
    processor = importlib.import_module("pbem.pipeline.processor")
    wrap(mails.Mailer, "board", "boards: pictures, PNG, SVG, ASCII")
    wrap(mails, "build", "mails: templates and MIME")
    wrap(processor.Processor, "_read", "reading the incoming mail (worker)")
    wrap(processor.Processor, "_verify", "signature check")
    wrap(type(get_system("cca")), "resolve", "engine resolution")
    wrap(sys.modules[__name__], "store_message", "storing the incoming mail (listener)")


def summary(samples: list[float]) -> dict[str, float]:
    """Wall median/p95 and the mean CPU time per call (the figure the model uses)."""
    ms = [s * 1000 for s in samples]
    cpu_ms = 1000 * CPU.get(id(samples), float("nan")) / max(len(ms), 1)
    return {
        "n": len(ms),
        "median_ms": percentile(ms, 50),
        "p95_ms": percentile(ms, 95),
        "cpu_ms": cpu_ms,
        "per_s": 1000 / cpu_ms,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--commits", type=int, default=3000)
    parser.add_argument("--verifies", type=int, default=3000)
    parser.add_argument("--states", type=int, default=200)
    parser.add_argument(
        "--steps", action="store_true", help="also say where pbem's CPU per mail goes"
    )
    args = parser.parse_args()
    directory = Path(tempfile.mkdtemp(prefix="pbem-pipeline-bench-"))
    cpu0 = time.process_time()
    parts = {
        "sqlite commit": summary(bench_commits(directory, args.commits)),
        "sshsig verify": summary(bench_verify(args.verifies)),
    }
    states = mid_game_states(args.states)
    parts["engine resolution"] = summary(bench_resolve(states))
    full = summary(bench_commits(directory, max(args.commits // 10, 10), "FULL"))
    parts["board render"] = summary(bench_render(states[: max(args.states // 2, 1)]))
    if args.steps:
        count_steps()
    stored, processed = bench_pipeline(directory, args.games, args.rounds)
    cpu = time.process_time() - cpu0
    parts_extra = {"sqlite commit, synchronous=FULL (not pbem's setting)": full}
    serial_ms = (
        2 * parts["sqlite commit"]["cpu_ms"]
        + parts["sshsig verify"]["cpu_ms"]
        + parts["engine resolution"]["cpu_ms"]
        + parts["board render"]["cpu_ms"]
    )
    # Since issue 14 each side sees the board from its own edge: a C&C turn draws two.
    sided_ms = serial_ms + parts["board render"]["cpu_ms"]
    pipelined = min(
        parts["sqlite commit"]["per_s"] / 2,
        parts["sshsig verify"]["per_s"],
        parts["engine resolution"]["per_s"],
        parts["board render"]["per_s"],
    )
    per_order = [a + b for a, b in zip(stored, processed, strict=True)]
    pbem_cpu_ms = 1000 * CPU[id(stored)] / len(per_order)
    pbem_rate = 1000 / pbem_cpu_ms
    result = {
        "machine": machine(),
        "date": today(),
        "args": vars(args),
        "parts": parts,
        "extra": parts_extra,
        "pipeline": {
            "store": summary(stored),
            "process": summary(processed),
            "orders_per_s": pbem_rate,
            "cpu_ms": pbem_cpu_ms,
            "wall_orders_per_s": len(per_order) / sum(per_order),
            "mean_ms": 1000 * sum(per_order) / len(per_order),
        },
        "serial_bound_per_s": 1000 / serial_ms,
        "pipelined_bound_per_s": pipelined,
        "ratio_to_serial_bound": pbem_rate / (1000 / serial_ms),
        "serial_bound_two_boards_per_s": 1000 / sided_ms,
        "ratio_to_serial_bound_two_boards": pbem_rate / (1000 / sided_ms),
        "cpu_s": cpu,
    }
    save_json("pipeline.json", result)
    plot_bars(
        RESULTS / "pipeline-cpu.png",
        "CPU ms per orders mail: the irreducible steps and pbem",
        {
            "2 commits": {"CPU ms": 2 * parts["sqlite commit"]["cpu_ms"]},
            "verify": {"CPU ms": parts["sshsig verify"]["cpu_ms"]},
            "resolve": {"CPU ms": parts["engine resolution"]["cpu_ms"]},
            "render": {"CPU ms": parts["board render"]["cpu_ms"]},
            "sum (bound)": {"CPU ms": serial_ms},
            "pbem": {"CPU ms": pbem_cpu_ms},
        },
        ylabel="ms",
    )
    print(f"machine: {result['machine']}\ndate: {result['date']}\n")
    print("| step | CPU per call | per CPU-second | wall median | wall p95 |")
    print("|---|---|---|---|---|")
    for name, p in parts.items():
        print(
            f"| {name} | {p['cpu_ms']:.3f} ms | {p['per_s']:.0f} | {p['median_ms']:.3f} ms "
            f"| {p['p95_ms']:.3f} ms |"
        )
    for name, p in parts_extra.items():
        print(
            f"| {name} | {p['cpu_ms']:.3f} ms | ({1000 / p['median_ms']:.0f}/s wall) | "
            f"{p['median_ms']:.3f} ms | {p['p95_ms']:.3f} ms |"
        )
    pl = result["pipeline"]
    print(
        f"| pbem: store + process one orders mail | {pl['cpu_ms']:.1f} ms | "  # type: ignore[index]
        f"{pbem_rate:.1f} | {pl['mean_ms']:.1f} ms (mean) | |"  # type: ignore[index]
    )
    print()
    print(f"serial bound:    {1000 / serial_ms:.1f} orders/s per core ({serial_ms:.2f} ms CPU)")
    print(
        f"  with two boards: {1000 / sided_ms:.1f} orders/s per core ({sided_ms:.2f} ms CPU; "
        "one board per side, as a C&C turn draws them)"
    )
    print(f"pipelined bound: {pipelined:.1f} orders/s (the slowest step, one core each)")
    print(
        f"pbem:            {pbem_rate:.1f} orders/s per core = "
        f"{result['ratio_to_serial_bound']:.1%} of the serial bound ({len(per_order)} orders; "
        f"wall {pl['wall_orders_per_s']:.1f}/s on this shared machine)"  # type: ignore[index]
    )
    two = result["ratio_to_serial_bound_two_boards"]
    print(f"                 {two:.1%} of the bound with two boards")
    if STEPS:
        print("\n| step | CPU per orders mail |\n|---|---|")
        for step, seconds in sorted(STEPS.items(), key=lambda kv: -kv[1]):
            print(f"| {step} | {1000 * seconds / len(per_order):.1f} ms |")
        rest = pbem_cpu_ms - 1000 * sum(STEPS.values()) / len(per_order)
        print(f"| the rest: SQL and ORM, events, deadlines, hands, outbox rows | {rest:.1f} ms |")


if __name__ == "__main__":
    main()
