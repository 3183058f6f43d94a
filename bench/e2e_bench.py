"""End to end through real sockets: signed orders over SMTP to ``pbem serve``, results out.

This script is the load process. It starts an SMTP sink (the players' mail
server and the referee's smarthost), writes a temp config, runs
``pbem serve`` as a subprocess, creates ``--games`` C&C Ancients games
between scripted players with their own keys, then keeps every game busy:
as soon as a game's epoch moves, its player builds random legal orders
(``engine.cca.autoplay``, seeded per game and epoch), signs them (SSHSIG) and
sends them over SMTP. Many concurrent games keep the daemon saturated while
every mail stays legal.

Turnaround per accepted mail comes from the daemon's own timestamps: inbox
``received_at`` (the message committed, just before the ``250`` after DATA)
to ``processed_at`` (the turn, its events and its result mails committed in
one transaction), and to the last of its result mails' ``sent_at`` (handed
to the sink). Throughput is processed mails per second over the run.

    python bench/e2e_bench.py                       # SQLite and PostgreSQL
    python bench/e2e_bench.py --db sqlite --orders 300 --games 20
    python bench/e2e_bench.py --db postgresql --workers 1,2,4   # several workers

PostgreSQL needs the Debian package ``postgresql`` (the script runs
``scripts/test-postgres``, which starts a throwaway server on loopback and
stops it at the end; with ``--install`` it apt-get installs the package).
Result mail goes to the daemon's Maildir by default (``--outbox sink``: over
SMTP to a sink in this process, which then shares the load's CPU).
Results: ``bench/results/e2e.json``, ``e2e-latency.png``, ``e2e-throughput.png``.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from benchkit import (  # noqa: E402
    RESULTS,
    Progress,
    machine,
    per_second,
    percentile,
    plot_bars,
    plot_lines,
    save_json,
    today,
)
from fault_kit import (  # noqa: E402
    REFEREE,
    ReadStore,
    Serve,
    Sink,
    create_games,
    game_epochs,
    orders_mail,
    send_until_accepted,
    summary,
    wait_settled,
    write_config,
)

from pbem.config import load_config  # noqa: E402
from pbem.store import GameStatus, Store, migrate  # noqa: E402


def start_postgres(install: bool) -> str:
    """Start a throwaway PostgreSQL server (scripts/test-postgres); return its URL."""
    if not list(Path("/usr/lib/postgresql").glob("*/bin/initdb")):
        if not install:
            raise SystemExit(
                "PostgreSQL is not installed: apt-get install postgresql (or --install)"
            )
        subprocess.run(["apt-get", "install", "-y", "-qq", "postgresql"], check=True)
    out = subprocess.run(
        [str(ROOT / "scripts" / "test-postgres"), "start"],
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip()


def stop_postgres(url: str) -> None:
    subprocess.run([str(ROOT / "scripts" / "test-postgres"), "stop", url], check=False)


REDO_MARKS = ("redone under the write lock", "optimistic attempt lost the lock")
"""How the daemon's log says a mail was worked out twice (this tree's words, and older ones)."""


def redos(log: Path) -> int:
    """Count the mails the daemon worked out a second time, from its log."""
    text = log.read_text(errors="replace") if log.exists() else ""
    return sum(text.count(mark) for mark in REDO_MARKS)


def run(backend: str, args: argparse.Namespace, workers: int = 1) -> dict[str, object]:
    """Run one load against one backend with ``workers`` processes; return its figures."""
    work = Path(tempfile.mkdtemp(prefix=f"pbem-e2e-{backend}-"))
    pg_url = start_postgres(args.install) if backend == "postgresql" else ""
    stack = contextlib.ExitStack()
    try:
        sink_cm = Sink() if args.outbox == "sink" else contextlib.nullcontext(None)
        with sink_cm as sink:
            cfg = write_config(work, sink_port=sink.port if sink else 0, db_url=pg_url)
            config = load_config(str(cfg))
            migrate(config.database_url)
            store = Store(config.database_url)
            sys.stderr.write(f"[{backend}] creating {args.games} games...\n")
            games = create_games(store, cfg, args.games)
            store.dispose()
            store = ReadStore(config.database_url)  # the load only reads
            serve = Serve(cfg, work / "serve.log", workers=workers)
            serve.start()
            stack.callback(serve.stop)
            wait_settled(store, sink, timeout=300)  # the opening mails, before the clock starts
            base = len(summary(store).inbox)
            rss = [serve.rss_kib()]
            sent_for: dict[str, int] = {}
            in_flight: set[str] = set()
            lock = threading.Lock()
            sent = [0]
            acks: list[float] = []

            def play(game_id: str, epoch: int) -> None:
                game = by_id[game_id]
                try:
                    mail = orders_mail(store, game)
                    if mail is not None and mail.epoch == epoch:
                        t = time.perf_counter()
                        send_until_accepted(serve.listener, mail.sender, REFEREE, mail.raw)
                        with lock:
                            acks.append((time.perf_counter() - t) * 1000)
                            sent[0] += 1
                finally:
                    with lock:
                        in_flight.discard(game_id)

            by_id = {g.game_id: g for g in games}
            bar = Progress(f"[{backend}] orders", args.orders)
            start = time.monotonic()
            with ThreadPoolExecutor(args.senders) as pool:
                while sent[0] < args.orders and time.monotonic() - start < args.duration:
                    epochs = game_epochs(store)
                    for gid, (epoch, status) in epochs.items():
                        if status != GameStatus.ACTIVE or sent_for.get(gid) == epoch:
                            continue
                        with lock:
                            if gid in in_flight or sent[0] + len(in_flight) >= args.orders:
                                continue
                            in_flight.add(gid)
                        sent_for[gid] = epoch
                        pool.submit(play, gid, epoch)
                    bar.update(sent[0])
                    if int(time.monotonic() - start) % 5 == 0:
                        rss.append(serve.rss_kib())
                    time.sleep(0.005)
            bar.close()
            wait_settled(store, sink, timeout=300)
            rss.append(serve.rss_kib())
            serve.stop()
            s = summary(store)
            store.dispose()
            redone = redos(work / "serve.log")
    finally:
        stack.close()
        if pg_url:
            stop_postgres(pg_url)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    orders = [r for r in s.inbox[base:] if r.status == "processed"]
    refused = [r for r in s.inbox[base:] if r.status != "processed"]
    last_sent: dict[int, float] = {}
    for row in s.outbox:
        if row.inbox_id is not None and row.sent_at is not None:
            t = row.sent_at.timestamp()
            last_sent[row.inbox_id] = max(last_sent.get(row.inbox_id, 0.0), t)
    commit = [
        (r.processed_at.timestamp() - r.received_at.timestamp()) * 1000
        for r in orders
        if r.processed_at
    ]
    deliver = [
        (last_sent[r.id] - r.received_at.timestamp()) * 1000 for r in orders if r.id in last_sent
    ]
    t0 = min(r.received_at.timestamp() for r in orders)
    t1 = max(r.processed_at.timestamp() for r in orders if r.processed_at)
    result = {
        "backend": backend if workers == 1 else f"{backend} x{workers}",
        "workers": workers,
        "games": args.games,
        "sent": sent[0],
        "orders": len(orders),
        "refused": len(refused),
        "redone": redone,
        "mails_out": len(s.outbox),
        "seconds": t1 - t0,
        "orders_per_s": len(orders) / (t1 - t0),
        "ack_ms": {q: percentile(acks, q) for q in (50, 95, 99)},
        "commit_ms": {q: percentile(commit, q) for q in (50, 95, 99)},
        "delivered_ms": {q: percentile(deliver, q) for q in (50, 95, 99)},
        "rss_mib": {"start": rss[0] / 1024, "max": max(rss) / 1024},
        "throughput": per_second(
            [r.processed_at.timestamp() for r in orders if r.processed_at], t0
        ),
    }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--orders", type=int, default=600, help="orders mails per backend")
    parser.add_argument("--duration", type=float, default=300, help="cap in seconds per backend")
    parser.add_argument("--senders", type=int, default=4, help="concurrent SMTP clients")
    parser.add_argument(
        "--outbox",
        choices=["maildir", "sink"],
        default="maildir",
        help="where result mail goes: the daemon's Maildir, or SMTP to a sink in this process",
    )
    parser.add_argument(
        "--install", action="store_true", help="apt-get install postgresql if absent"
    )
    parser.add_argument(
        "--workers",
        default="1",
        help="worker counts for the PostgreSQL runs, comma-separated (pbem serve --workers N)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temp directories")
    parser.add_argument("--name", default="e2e", help="results file names: NAME.json, NAME-*.png")
    args = parser.parse_args()
    backends = ["sqlite", "postgresql"] if args.db == "both" else [args.db]
    counts = [int(n) for n in args.workers.split(",")]
    results = [run(b, args, n) for b in backends for n in (counts if b == "postgresql" else [1])]
    save_json(
        f"{args.name}.json",
        {"machine": machine(), "date": today(), "args": vars(args), "runs": results},
    )
    plot_bars(
        RESULTS / f"{args.name}-latency.png",
        f"pbem serve, {args.games} games: seconds per orders mail",
        {
            f"{r['backend']} {label}": {f"p{q}": v / 1000 for q, v in r[key].items()}  # type: ignore[union-attr]
            for r in results
            for label, key in (("250", "ack_ms"), ("commit", "commit_ms"), ("out", "delivered_ms"))
        },
        ylabel="s",
    )
    plot_lines(
        RESULTS / f"{args.name}-throughput.png",
        f"pbem serve, {args.games} games: orders processed per second",
        {str(r["backend"]): r["throughput"] for r in results},  # type: ignore[misc]
        xlabel="seconds since the first orders mail",
        ylabel="orders/s",
    )
    print(f"machine: {machine()}\ndate: {today()}\n")
    print(
        "| backend | games | orders | orders/s | SMTP 250 p50 / p95 / p99 ms "
        "| commit p50 / p95 / p99 ms | delivered p50 / p95 / p99 ms | daemon RSS MiB | redone |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        m = r["rss_mib"]

        def trio(key: str, r: dict[str, object] = r) -> str:
            v = r[key]
            return " / ".join(f"{v[q]:.0f}" for q in (50, 95, 99))  # type: ignore[index]

        print(
            f"| {r['backend']} | {r['games']} | {r['orders']} ({r['refused']} refused) | "
            f"{r['orders_per_s']:.1f} | {trio('ack_ms')} | {trio('commit_ms')} | "
            f"{trio('delivered_ms')} | {m['start']:.0f} → {m['max']:.0f} | "  # type: ignore[index]
            f"{r['redone']} |"
        )


if __name__ == "__main__":
    main()
