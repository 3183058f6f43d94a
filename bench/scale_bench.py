"""Scale: a store with 100,000 games against an empty one (turn latency, daemon RSS, start).

The synthetic games copy one real game: a C&C Ancients game (Akragas) played
``--epochs`` epochs through the real pipeline in a template store. Game
number ``i`` gets the template's history up to epoch ``i % (epochs + 1)``:
its state JSON is the real mid-game state of that epoch, with every event,
snapshot, dice epoch and deadline the pipeline wrote until then, two players
with keys, seats and secrets. Rows are bulk-inserted with ``sqlite3``
``executemany`` in one transaction (``synchronous=OFF`` only while loading).
The mail tables are not copied: a turn mail carries its board (PNG + SVG,
~125 KB), so 100,000 games' mail history would be hundreds of GB; pbem
reads inbox and outbox rows by status indexes, not by game.

Then, on the big store and on an empty one, the same measurements:

- per-turn latency in-process (``store_message`` + ``Processor.process``) for
  ``--live`` fresh games x ``--rounds`` rounds;
- ``pbem serve`` as a subprocess: time until it listens, its RSS after start,
  after its first sweeps (the clubs' sweep writes the calendar feed of every
  player of an active game: 200,000 at 100,000 games; the deadlines and the
  outbox are swept too) and after ``--live`` turns delivered over SMTP, and
  its peak RSS over all of it (``VmHWM``).

``--no-history`` copies each game's current state only (no events, snapshots
or dice epochs): the daemon reads no history outside a turn, so its RSS is
measured on a store of 100,000 games in about a minute of loading instead of
several (~1 GB instead of ~7 GB).

    python bench/scale_bench.py                      # 100,000 games (~8 GB, minutes)
    python bench/scale_bench.py --no-history         # 100,000 games, current states only
    python bench/scale_bench.py --games 2000         # a quick look

Results: ``bench/results/scale.json`` and a table on stdout.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from benchkit import Progress, machine, percentile, save_json, today  # noqa: E402
from fault_kit import (  # noqa: E402
    REFEREE,
    ReadStore,
    Serve,
    create_games,
    orders_mail,
    send_until_accepted,
    wait_settled,
    write_config,
)

from pbem.clock import SystemClock  # noqa: E402
from pbem.config import load_config  # noqa: E402
from pbem.mailin.accept import store_message  # noqa: E402
from pbem.pipeline import Processor, load_server_key  # noqa: E402
from pbem.store import Store, migrate  # noqa: E402

TEMPLATE_ID = "g00000"  # create_games' first id


def build_template(directory: Path, epochs: int) -> Path:
    """Play one real game ``epochs`` epochs through the pipeline; return its SQLite file."""
    cfg = write_config(directory, sink_port=0)
    config = load_config(str(cfg))
    migrate(config.database_url)
    store = Store(config.database_url)
    (game,) = create_games(store, cfg, 1)
    clock = SystemClock()
    proc = Processor(config, store, clock, server_key=load_server_key(config.server_key_path))
    for _ in range(epochs):
        mail = orders_mail(store, game)
        if mail is None:
            break
        acc = store_message(store, mail.raw, source="smtp", clock=clock, envelope_to=[REFEREE])
        proc.process(acc.inbox_id)
    store.dispose()
    return Path(config.database_url.removeprefix("sqlite:///"))


HISTORY = ("snapshots", "events", "dice_epochs")
"""The tables holding a game's history (``--no-history`` leaves them empty)."""


def bulk_load(template: Path, target: Path, games: int, history: bool = True) -> dict[str, float]:
    """Insert ``games`` synthetic games into the migrated SQLite store ``target``.

    The template store is attached and every table is filled by one
    ``INSERT ... SELECT`` joining a temp table of game numbers, so SQLite
    does the copying in C (about a minute for 100,000 games).
    """
    dst = sqlite3.connect(target, isolation_level=None)
    dst.execute("PRAGMA journal_mode = WAL")
    dst.execute("PRAGMA synchronous = OFF")
    dst.execute("ATTACH DATABASE ? AS t", (str(template),))
    top = dst.execute("select epoch from t.games").fetchone()[0]
    pmin = dst.execute("select min(id) from t.players").fetchone()[0]
    base = 1 + dst.execute("select coalesce(max(id), 0) from main.players").fetchone()[0]
    start = time.perf_counter()
    dst.execute("BEGIN")
    dst.execute("CREATE TEMP TABLE ids (i INTEGER PRIMARY KEY, gid TEXT, k INTEGER)")
    dst.executemany(
        "insert into ids values (?, ?, ?)", ((i, f"s{i:05d}", i % (top + 1)) for i in range(games))
    )
    pid = f"{base} + 2 * ids.i + ({{col}} - {pmin})"
    swap = "replace({col}, '" + TEMPLATE_ID + "', ids.gid)"
    statements = {
        "games": f"""insert into main.games (id, system, scenario_id, status, options_json,
            state_json, state_version, epoch, dice_commitment, deck_commitment, created_at,
            updated_at, dice_protocol, setup_text) select ids.gid, g.system, g.scenario_id,
            g.status, g.options_json, {swap.format(col="s.state_json")}, ids.k, ids.k,
            g.dice_commitment, g.deck_commitment, g.created_at, g.updated_at, g.dice_protocol,
            g.setup_text from ids, t.games g join t.snapshots s on s.version = ids.k""",
        "game_secrets": """insert into main.game_secrets (game_id, dice_seed, deck_seed,
            chain_length) select ids.gid, randomblob(32), randomblob(32), x.chain_length
            from ids, t.game_secrets x""",
        "players": f"""insert into main.players (id, email, name, time_zone, active,
            created_at) select {pid.format(col="p.id")},
            'p' || (p.id - {pmin}) || '.' || ids.gid || '@players.test', p.name, p.time_zone,
            p.active, p.created_at from ids, t.players p""",
        "player_keys": f"""insert into main.player_keys (player_id, public_key, fingerprint,
            added_at, revoked_at, replaced_by_id, note) select {pid.format(col="k.player_id")},
            k.public_key, k.fingerprint, k.added_at, k.revoked_at, null, k.note
            from ids, t.player_keys k""",
        "seats": f"""insert into main.seats (game_id, side, player_id) select ids.gid, x.side,
            {pid.format(col="x.player_id")} from ids, t.seats x""",
        "seat_joins": """insert into main.seat_joins (game_id, side, invitee, token_hash,
            key_fingerprint, public_key, nonce, statement, signature, joined_at) select
            ids.gid, x.side, x.invitee, x.token_hash, x.key_fingerprint, x.public_key, x.nonce,
            x.statement, x.signature, x.joined_at from ids, t.seat_joins x""",
        "snapshots": f"""insert into main.snapshots (game_id, version, state_json, created_at)
            select ids.gid, x.version, {swap.format(col="x.state_json")}, x.created_at
            from ids join t.snapshots x on x.version <= ids.k""",
        "events": f"""insert into main.events (game_id, epoch, seq, kind, payload_json,
            created_at) select ids.gid, x.epoch, x.seq, x.kind,
            {swap.format(col="x.payload_json")}, x.created_at
            from ids join t.events x on x.epoch <= ids.k""",
        "dice_epochs": """insert into main.dice_epochs (game_id, epoch, orders_hash,
            revealed_key, created_at) select ids.gid, x.epoch, x.orders_hash, x.revealed_key,
            x.created_at from ids join t.dice_epochs x on x.epoch <= ids.k""",
        "deadlines": """insert into main.deadlines (game_id, side, kind, due_at, state_version,
            fired, fired_at, created_at) select ids.gid, x.side, x.kind, x.due_at,
            x.state_version, x.state_version < ids.k,
            case when x.state_version < ids.k then x.fired_at end, x.created_at
            from ids join t.deadlines x on x.state_version <= ids.k""",
    }
    if not history:
        for table in HISTORY:
            del statements[table]
    # The rows copied are a finished history: the database's own rules for new
    # rows (a new turn deadline retires the game's earlier ones) stay off meanwhile.
    triggers = dst.execute(
        "select name, sql from main.sqlite_master where type = 'trigger'"
    ).fetchall()
    for name, _ in triggers:
        dst.execute(f"DROP TRIGGER main.{name}")
    bar = Progress("bulk insert tables", len(statements))
    for n, sql in enumerate(statements.values()):
        dst.execute(sql)
        bar.update(n + 1)
    bar.close()
    for _, sql in triggers:
        dst.execute(sql)
    dst.execute("COMMIT")
    dst.execute("DETACH DATABASE t")
    dst.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    seconds = time.perf_counter() - start
    counts = {
        table: dst.execute(f"select count(*) from main.{table}").fetchone()[0]
        for table in statements
    }
    dst.close()
    return {"seconds": seconds, **counts}


def measure(work: Path, db_path: Path, live: int, rounds: int) -> dict[str, Any]:
    """Per-turn latency in-process, then the daemon's start time and RSS, on ``db_path``."""
    cfg = write_config(work, sink_port=0, db_url=f"sqlite:///{db_path}")
    config = load_config(str(cfg))
    migrate(config.database_url)
    store = Store(config.database_url)
    clock = SystemClock()
    games = create_games(store, cfg, live, prefix="live")
    proc = Processor(config, store, clock, server_key=load_server_key(config.server_key_path))
    turn_ms = []
    bar = Progress(f"turns on {db_path.name}", live * rounds)
    for _ in range(rounds):
        for game in games:
            mail = orders_mail(store, game)
            if mail is None:
                continue
            t = time.perf_counter()
            acc = store_message(store, mail.raw, source="smtp", clock=clock, envelope_to=[REFEREE])
            proc.process(acc.inbox_id)
            turn_ms.append((time.perf_counter() - t) * 1000)
            bar.update(len(turn_ms))
    bar.close()
    store.dispose()
    serve = Serve(cfg, work / "serve.log")
    t = time.perf_counter()
    serve.start(timeout=600)
    start_s = time.perf_counter() - t
    reader = ReadStore(config.database_url)
    try:
        rss_start = serve.rss_kib()
        swept_s = wait_for_log(work / "serve.log", "clubs: {", timeout=1800)
        wait_settled(reader, None, timeout=600)
        rss_swept = serve.rss_kib()
        for game in games:
            mail = orders_mail(reader, game)
            if mail is not None:
                send_until_accepted(serve.listener, mail.sender, REFEREE, mail.raw)
        wait_settled(reader, None, timeout=600)
        rss_after = serve.rss_kib()
        peak = serve.rss_kib("VmHWM")
    finally:
        serve.stop()
        reader.dispose()
    return {
        "db_bytes": db_path.stat().st_size,
        "turn_ms": {
            "p50": percentile(turn_ms, 50),
            "p95": percentile(turn_ms, 95),
            "n": len(turn_ms),
        },
        "serve_start_s": start_s,
        "clubs_sweep_s": swept_s,
        "rss_mib": {
            "start": rss_start / 1024,
            "after_sweep": rss_swept / 1024,
            "after_turns": rss_after / 1024,
            "peak": peak / 1024,
        },
    }


def wait_for_log(path: Path, needle: str, timeout: float) -> float | None:
    """Wait until ``needle`` appears in the log at ``path``; seconds waited (None: timed out)."""
    start = time.perf_counter()
    while time.perf_counter() - start < timeout:
        if path.exists() and needle in path.read_text(errors="replace"):
            return time.perf_counter() - start
        time.sleep(0.5)
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--epochs", type=int, default=16, help="length of the template history")
    parser.add_argument("--live", type=int, default=10, help="fresh games played for latency")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument(
        "--no-history",
        dest="history",
        action="store_false",
        help="copy each game's current state only (no events, snapshots, dice epochs)",
    )
    parser.add_argument("--name", default="scale", help="results file bench/results/NAME.json")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="pbem-scale-"))
    try:
        sys.stderr.write("playing the template game...\n")
        template = build_template(work / "template", args.epochs)
        empty_dir, big_dir = work / "empty", work / "big"
        empty_db, big_db = empty_dir / "pbem.sqlite3", big_dir / "pbem.sqlite3"
        empty_dir.mkdir()
        big_dir.mkdir()
        migrate(f"sqlite:///{empty_db}")
        migrate(f"sqlite:///{big_db}")
        load = bulk_load(template, big_db, args.games, args.history)
        results = {
            "machine": machine(),
            "date": today(),
            "args": vars(args),
            "bulk_load": load,
            "empty": measure(empty_dir, empty_db, args.live, args.rounds),
            "big": measure(big_dir, big_db, args.live, args.rounds),
        }
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    save_json(f"{args.name}.json", results)
    print(f"machine: {results['machine']}\ndate: {results['date']}\n")
    print(
        f"bulk load: {load['games']} games, {load.get('events', 0)} events, "
        f"{load.get('snapshots', 0)} snapshots, {load['deadlines']} deadlines "
        f"in {load['seconds']:.0f} s\n"
    )
    print(
        "| store | size | turn p50 | turn p95 | serve start | clubs' sweep done after "
        "| RSS after start | after the sweep | after turns | peak RSS |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in ("empty", "big"):
        r = results[name]
        rss = r["rss_mib"]
        swept = r["clubs_sweep_s"]
        print(
            f"| {name} | {r['db_bytes'] / 2**20:.0f} MiB | {r['turn_ms']['p50']:.0f} ms | "
            f"{r['turn_ms']['p95']:.0f} ms | {r['serve_start_s']:.1f} s | "
            f"{'-' if swept is None else f'{swept:.1f} s'} | {rss['start']:.0f} MiB | "
            f"{rss['after_sweep']:.0f} MiB | {rss['after_turns']:.0f} MiB | {rss['peak']:.0f} MiB |"
        )


if __name__ == "__main__":
    main()
