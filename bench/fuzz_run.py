"""Drive the fuzz tests with a million (or more) generated inputs and record the result.

Each ``tests/test_fuzz_*.py`` module lists its pure targets in
``FUZZ_TARGETS`` (hypothesis ``@given`` tests that need no fixture). This
script feeds them random byte buffers through hypothesis's
``fuzz_one_input`` (no shrinking, no example database: one generated input
per buffer, as a fuzzer would), spread over ``--jobs`` processes, and counts
inputs, time and failures per target. A failure prints the target, the
exception and the buffer (hex) to replay it::

    python bench/fuzz_run.py --total 1000000 --jobs 2
    python bench/fuzz_run.py --total 20000            # a quick run

The pytest run uses the same tests with ``PBEM_FUZZ_EXAMPLES`` examples each
(150 by default; the pipeline variant with the store is in pytest only).
Results: ``bench/results/fuzz.json``.
"""

from __future__ import annotations

import argparse
import importlib
import multiprocessing
import random
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from benchkit import Progress, machine, save_json, today  # noqa: E402

MODULES = ["test_fuzz_orders", "test_fuzz_sshsig", "test_fuzz_mime", "test_fuzz_scenario"]
CHUNK = 500


def targets() -> list[tuple[str, str]]:
    out = []
    for name in MODULES:
        module = importlib.import_module(name)
        out += [(name, fn.__name__) for fn in module.FUZZ_TARGETS]
    return out


def run_chunk(job: tuple[str, str, int, int]) -> dict[str, object]:
    """Run ``count`` inputs of one target from ``seed``; return counts and failures."""
    module_name, fn_name, seed, count = job
    fn = getattr(importlib.import_module(module_name), fn_name)
    rnd = random.Random(seed)
    ran = invalid = 0
    failures = []
    start = time.perf_counter()
    for _ in range(count):
        buffer = rnd.randbytes(rnd.choice((64, 256, 1024, 4096)))
        try:
            used = fn.hypothesis.fuzz_one_input(buffer)
        except Exception as exc:
            failures.append(
                {
                    "error": f"{type(exc).__name__}: {exc}"[:500],
                    "trace": traceback.format_exc()[-2000:],
                    "buffer": buffer.hex(),
                }
            )
            ran += 1
            continue
        if used is None:
            invalid += 1
        else:
            ran += 1
    return {
        "target": f"{module_name}.{fn_name}",
        "ran": ran,
        "invalid": invalid,
        "failures": failures,
        "seconds": time.perf_counter() - start,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--total", type=int, default=1_000_000, help="inputs over all targets")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    all_targets = targets()
    per_target = args.total // len(all_targets) + 1
    jobs = []
    for t, (module_name, fn_name) in enumerate(all_targets):
        for c in range(0, per_target, CHUNK):
            seed = args.seed * 1_000_003 + t * 10_007 + c
            jobs.append((module_name, fn_name, seed, min(CHUNK, per_target - c)))
    random.Random(args.seed).shuffle(jobs)  # mix slow and fast targets in every process
    totals: dict[str, dict[str, object]] = {}
    bar = Progress("fuzz inputs", per_target * len(all_targets))
    start = time.monotonic()
    done = 0
    with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
        for result in pool.imap_unordered(run_chunk, jobs):
            entry = totals.setdefault(
                str(result["target"]), {"ran": 0, "invalid": 0, "failures": [], "cpu_s": 0.0}
            )
            entry["ran"] = int(entry["ran"]) + int(result["ran"])  # type: ignore[call-overload]
            entry["invalid"] = int(entry["invalid"]) + int(result["invalid"])  # type: ignore[call-overload]
            entry["cpu_s"] = float(entry["cpu_s"]) + float(result["seconds"])  # type: ignore[arg-type]
            entry["failures"] += result["failures"]  # type: ignore[operator]
            done += int(result["ran"]) + int(result["invalid"])  # type: ignore[call-overload]
            bar.update(done)
            if totals and done % (CHUNK * 100) < CHUNK:  # a partial record on long runs
                save_json("fuzz-partial.json", {"date": today(), "done": done, "targets": totals})
    bar.close()
    wall = time.monotonic() - start
    ran = sum(int(e["ran"]) for e in totals.values())  # type: ignore[call-overload]
    failures = sum(len(e["failures"]) for e in totals.values())  # type: ignore[arg-type]
    save_json(
        "fuzz.json",
        {
            "machine": machine(),
            "date": today(),
            "args": vars(args),
            "inputs_run": ran,
            "failures": failures,
            "wall_s": wall,
            "targets": totals,
        },
    )
    print(f"machine: {machine()}\ndate: {today()}\n")
    print("| target | inputs run | rejected buffers | failures | CPU s |")
    print("|---|---|---|---|---|")
    for name, e in sorted(totals.items()):
        print(
            f"| {name} | {e['ran']} | {e['invalid']} | {len(e['failures'])} | "  # type: ignore[arg-type]
            f"{float(e['cpu_s']):.0f} |"  # type: ignore[arg-type]
        )
    print(
        f"\n{ran} inputs run in {wall:.0f} s wall with {args.jobs} processes; {failures} failures"
    )
    for name, e in totals.items():
        for f in e["failures"][:3]:  # type: ignore[index]
            print(f"\nFAIL {name}: {f['error']}\n{f['trace']}\nbuffer: {f['buffer'][:200]}...")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
