"""``pbem scenario list|validate|show``: the bundled battles and scenario files."""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from engine.core.capabilities import AUTOPLAY, find
from engine.systems import get_system
from pbem.commands._shared import err, out
from pbem.render.ascii import render_ascii
from pbem.render.picture import position_picture
from pbem.render.png import render_png
from pbem.scenarios import (
    Scenario,
    ScenarioError,
    find_scenario,
    list_scenarios,
    load_file,
    scenario_details,
    validate_file,
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``pbem scenario`` and its sub-commands."""
    cmd = sub.add_parser(
        "scenario",
        help="list, validate and show scenario files",
        description="Work with scenario files (docs/scenarios.md).",
    )
    verbs = cmd.add_subparsers(dest="verb", metavar="VERB", required=True)
    ls = verbs.add_parser("list", help="list the bundled scenarios")
    ls.add_argument("--dir", type=Path, default=None, help="scenario directory to list")
    ls.set_defaults(func=_list)
    val = verbs.add_parser(
        "validate",
        help="check scenario files; exit 1 on any problem",
        description="Print FILE:LINE: message for every problem; exit 1 if there is any.",
    )
    val.add_argument("files", nargs="+", type=Path, metavar="FILE")
    val.add_argument("--no-engine", action="store_true", help="skip the engine's own loader checks")
    val.set_defaults(func=_validate)
    show = verbs.add_parser("show", help="draw a scenario as text (and PNG)")
    show.add_argument("scenario", metavar="FILE", help="a file, or a bundled id such as 007")
    show.add_argument("--png", type=Path, default=None, metavar="OUT.png", help="also draw a PNG")
    show.set_defaults(func=_show)
    bal = verbs.add_parser(
        "balance",
        help="play random legal games of each scenario and count who wins",
        description="Random legal play (the system's autoplayer) on the committed dice stream; "
        "a rough balance check, not a measure of skill.",
    )
    bal.add_argument("scenarios", nargs="*", metavar="SCENARIO", help="default: all bundled")
    bal.add_argument(
        "--system", default=None, metavar="NAME", help="only the bundled scenarios of one system"
    )
    bal.add_argument("--games", type=int, default=50, help="games per scenario (50)")
    bal.add_argument("--seed", default="balance", help="seed text (same seed, same games)")
    bal.add_argument("--max-turns", type=int, default=200, help="stop a game after N turns")
    bal.set_defaults(func=_balance)


def _list(args: argparse.Namespace) -> int:
    scenarios = list_scenarios(args.dir)
    if not scenarios:
        err("no scenarios found")
        return 1
    rows = [("ID", "NAME", "YEAR", "ARMIES (north v south)", "BANNERS", "FIRST")]
    for s in scenarios:
        armies = " v ".join(s.sides.values())
        rows.append((s.id, s.name, s.year, armies, s.goal, s.first or "-"))  # "": rolled
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        out("  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip())
    return 0


def _validate(args: argparse.Namespace) -> int:
    bad = 0
    for path in args.files:
        problems = validate_file(path, engine=not args.no_engine)
        for p in problems:
            out(f"{path}:{p.line}: {p.message}")
        if problems:
            bad += 1
        else:
            out(f"{path}: ok")
    if bad:
        err(f"{bad} of {len(args.files)} file(s) have problems")
    return 1 if bad else 0


def _show(args: argparse.Namespace) -> int:
    try:
        path = find_scenario(args.scenario)
        scenario = load_file(path)
    except (FileNotFoundError, ScenarioError) as exc:
        err(str(exc))
        return 1
    text = path.read_text(encoding="utf-8")
    view = position_picture(text)
    head = f"{scenario.name} ({scenario.year}) [{scenario.id}]"
    out("\n".join([head, render_ascii(view).rstrip("\n"), *scenario_details(scenario, text)]))
    if args.png is not None:
        args.png.write_bytes(render_png(view))
        out(f"wrote {args.png}")
    return 0


def play_balance(
    scenario: Scenario,
    games: int,
    seed: str,
    max_turns: int = 200,
    stuck: list[str] | None = None,
) -> Counter[str]:
    """Play ``games`` random legal games; count results (each side, draw, unfinished).

    A game the autoplayer cannot go on with (no orders the referee accepts: an engine gap)
    counts as unfinished; its seed and the reason are appended to ``stuck``.
    """
    if scenario.path is None:
        raise ValueError("the scenario has no file")
    system = get_system(scenario.system)
    player = find(system, AUTOPLAY)
    if player is None:
        raise NotImplementedError(f"system {system.name!r} has no autoplayer")
    text = scenario.path.read_text(encoding="utf-8")
    results: Counter[str] = Counter()
    for i in range(games):
        start = system.load_position(text)
        game_seed = f"{seed}|{scenario.id}|{i}"
        try:
            final = player.play_game(start, game_seed.encode(), max_turns)
        except NotImplementedError:
            raise
        except RuntimeError as exc:  # the autoplayer found no accepted orders
            results["unfinished"] += 1
            if stuck is not None:
                stuck.append(f"game {i} (seed {game_seed!r}): {exc}")
            continue
        prompt = system.prompt(final)
        results[str(prompt.result) if prompt.kind == "over" else "unfinished"] += 1
    return results


def _wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a win share: what a club's results can be compared with."""
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _balance(args: argparse.Namespace) -> int:
    try:
        chosen = [load_file(find_scenario(ref)) for ref in args.scenarios] or list_scenarios()
    except (FileNotFoundError, ScenarioError) as exc:
        err(str(exc))
        return 1
    if args.system is not None:
        chosen = [s for s in chosen if s.system == args.system]
        if not chosen:
            err(f"no scenario of system {args.system!r} (pbem systems lists the systems)")
            return 1
    if not args.scenarios and args.system is None:
        # Every bundled battle: a system that cannot play random games yet is skipped, not fatal.
        silent = sorted({s.system for s in chosen if find(get_system(s.system), AUTOPLAY) is None})
        for name in silent:
            err(f"skipping the {name} scenarios: the system offers no autoplayer yet")
        chosen = [s for s in chosen if s.system not in silent]
    header = ""
    for s in chosen:
        a, b = list(s.sides)[:2]  # the first two sides: every bundled system has two
        head = (
            f"ID                        GAMES  {a.upper():>5}  {b.upper():>5}  DRAW  UNFINISHED  "
            f"{a.upper()}% (95% CI)   FIRST  FIRST%"
        )
        if head != header:
            out(head)
            header = head
        stuck: list[str] = []
        try:
            r = play_balance(s, args.games, args.seed, args.max_turns, stuck)
        except NotImplementedError as exc:
            err(f"the engine cannot play games yet: {exc}")
            return 1
        for line in stuck:
            err(f"{s.id}: stopped, counted unfinished: {line}")
        decided = r[a] + r[b]
        if decided:
            lo, hi = _wilson(r[a], decided)
            pct = f"{100 * r[a] / decided:5.1f} ({100 * lo:4.1f}-{100 * hi:5.1f})"
            first = f"{100 * r[s.first] / decided:6.1f}" if s.first in r else f"{'-':>6}"
        else:
            pct, first = f"{'-':>20}", f"{'-':>6}"
        out(
            f"{s.id:<25} {args.games:>5}  {r[a]:>5}  {r[b]:>5}  {r['draw']:>4}"
            f"  {r['unfinished']:>10}  {pct}   {s.first or '-':<5}  {first}"
        )
    return 0
