"""``pbem engine resolve|legal|template``: run the rules engine on files (docs/engine-cli.md)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from engine.core.api import OrdersError
from pbem.commands._shared import err, out
from pbem.enginecli import (
    CliError,
    DiceSource,
    check_side,
    legal_report,
    load,
    orders_problems,
    parse_dice,
    resolve_text,
    seed_bytes,
    system_of,
)


def _read(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CliError(f"{what}: cannot read {path}: {exc.strerror}", 1) from exc


def _tables_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tables",
        default=None,
        metavar="FILE",
        help="play on a club's rules tables file (docs/tables.md); the position keeps them",
    )


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``pbem engine`` and its verbs."""
    cmd = sub.add_parser(
        "engine",
        help="resolve orders on a position, list legal moves, print an orders template",
        description="Run the rules engine on files (docs/engine-cli.md).",
    )
    verbs = cmd.add_subparsers(dest="verb", metavar="VERB", required=True)

    res = verbs.add_parser("resolve", help="resolve one turn (and its answers) on a position")
    res.add_argument("--position", type=Path, required=True, metavar="P.toml")
    res.add_argument(
        "--orders",
        type=Path,
        default=None,
        metavar="O.txt",
        help="the orders (leave out when the position waits for an answer: give --answers)",
    )
    res.add_argument(
        "--dice",
        default=None,
        metavar="FACES",
        help='battle-die faces used in order, e.g. "R,F,S,G" (G B R H F S)',
    )
    res.add_argument(
        "--seed",
        default=None,
        metavar="HEX",
        help="without --dice: roll from a committed stream seeded with HEX",
    )
    res.add_argument(
        "--answers",
        type=Path,
        default=None,
        metavar="A.txt",
        help="answers to the questions the turn asks, one per line, in order",
    )
    res.add_argument(
        "--side",
        default=None,
        help="the side giving the orders (default: the side to move)",
    )
    res.add_argument(
        "--standing",
        action="append",
        default=[],
        metavar="SIDE=FILE",
        help="standing orders for SIDE (either side; key: value lines), applied first",
    )
    res.add_argument(
        "--system", default=None, help="game system (default: the position's, else cca)"
    )
    res.add_argument("--json", action="store_true", help="print the JSON report")
    res.add_argument(
        "--write-position",
        type=Path,
        default=None,
        metavar="OUT.toml",
        help="also write the resulting position file",
    )
    _tables_argument(res)
    res.set_defaults(func=_resolve)

    leg = verbs.add_parser("legal", help="playable cards, orderable units, reachable hexes")
    leg.add_argument("--position", type=Path, required=True, metavar="P.toml")
    leg.add_argument("--side", default=None, help="default: the side to act")
    leg.add_argument("--card", default=None, help="movement allowances under this card code")
    leg.add_argument("--seed", default=None, metavar="HEX", help="shuffle a scenario's deck")
    leg.add_argument("--system", default=None, help="default: the position's, else cca")
    leg.add_argument("--json", action="store_true")
    _tables_argument(leg)
    leg.set_defaults(func=_legal)

    tpl = verbs.add_parser("template", help="an orders template for the side to act")
    tpl.add_argument("--position", type=Path, required=True, metavar="P.toml")
    tpl.add_argument("--side", default=None, help="default: the side to act")
    tpl.add_argument("--seed", default=None, metavar="HEX", help="shuffle a scenario's deck")
    tpl.add_argument("--system", default=None, help="default: the position's, else cca")
    _tables_argument(tpl)
    tpl.set_defaults(func=_template)


def _resolve(args: argparse.Namespace) -> int:
    try:
        position = _read(args.position, "--position")
        orders = _read(args.orders, "--orders") if args.orders is not None else None
        standing: dict[str, str] = {}
        for item in args.standing:
            who, sep, path = str(item).partition("=")
            if not sep or not path:
                raise CliError(f"--standing {item}: write SIDE=FILE")
            standing[who.strip()] = _read(Path(path), f"--standing {who}")
        answers: list[str] = []
        if args.answers is not None:
            answers = [
                ln.split("#", 1)[0].strip()
                for ln in _read(args.answers, "--answers").splitlines()
                if ln.split("#", 1)[0].strip()
            ]
        name = args.system or system_of(position)
        faces = parse_dice(args.dice, name) if args.dice is not None else None
        seed = seed_bytes(args.seed) if args.seed is not None else None
        report = resolve_text(
            position,
            orders,
            dice_faces=faces,
            seed=seed,
            answers=answers,
            side=args.side,
            system_name=name,
            standing=standing,
            tables=args.tables,
        )
    except CliError as exc:
        err(f"pbem engine resolve: {exc.message}")
        return exc.code
    except OrdersError as exc:
        if args.json:
            out(
                json.dumps(
                    {
                        "format": "pbem-engine-result/1",
                        "error": "orders",
                        "problems": orders_problems(exc),
                    },
                    indent=2,
                )
            )
        else:
            err("orders refused:")
            for p in exc.problems:
                err(f"  {p}")
        return 1
    if args.write_position is not None and report.get("position"):
        args.write_position.write_text(report["position"], encoding="utf-8")
    if args.json:
        out(json.dumps(report, indent=2, sort_keys=False))
    else:
        out(_human(report))
    return 0


def _human(report: dict[str, Any]) -> str:
    lines = []
    for e in report["events"]:
        dice = f"  [{' '.join(e['dice'])}]" if e["dice"] else ""
        lines.append(f"{e['text']}{dice}")
    st = report["state"]
    lines.append("")
    if any(b["needed"] is not None for b in st["banners"].values()):
        for side, b in st["banners"].items():
            lines.append(f"{side}: {b['count']}/{b['needed']} banners")
    else:
        lines.append(st["summary"])
    if st["pending"]:
        q = st["pending"]
        lines.append(
            f"question for {q['side']}: {q['text']} ({', '.join(q['answers'])}; "
            f"default {q['default']})"
        )
    else:
        lines.append(st["prompt"]["text"])
    d = report["dice"]
    if d["source"] == "scripted" and d["unused"]:
        lines.append(f"note: {d['unused']} of the {d['given']} dice given were not used")
    return "\n".join(lines)


def _legal(args: argparse.Namespace) -> int:
    try:
        seed = seed_bytes(args.seed) if args.seed else None
        position = _read(args.position, "--position")
        name = args.system or system_of(position)
        rep = legal_report(position, args.side, args.card, name, seed, args.tables)
    except CliError as exc:
        err(f"pbem engine legal: {exc.message}")
        return exc.code
    if args.json:
        out(json.dumps(rep, indent=2))
        return 0
    out(f"{rep['side']} may play:")
    for c in rep["cards"]:
        units = c.get("units") or []
        out(
            f"  {c.get('code', ''):4} {c.get('name', '')}"
            + (f": {', '.join(units)}" if units else "")
        )
    out("units:")
    for u in rep["units"]:
        if "leader" in u and "type" not in u:
            out(f"  leader {u['leader']} {u['hex']}: reach {' '.join(u['reach']) or '-'}")
            continue
        extra = f" with {u['leader']}" if u.get("leader") else ""
        out(
            f"  {u['hex']} {u['type']}{extra}: reach {' '.join(u['reach']) or '-'}; "
            f"attack {' '.join(u['attack']) or '-'}; fire {' '.join(u['fire']) or '-'}"
        )
    return 0


def _template(args: argparse.Namespace) -> int:
    try:
        position = _read(args.position, "--position")
        system, state = load(
            args.system or system_of(position),
            position,
            DiceSource(
                "game",
                faces=None if args.seed else [],
                seed=seed_bytes(args.seed) if args.seed else None,
            ),
            args.tables,
        )
        check_side(system, args.side)
    except CliError as exc:
        err(f"pbem engine template: {exc.message}")
        return exc.code
    side = args.side or system.prompt(state).side or system.sides[-1]
    try:
        out(system.orders_template(state, side))
    except NotImplementedError as exc:
        err(f"pbem engine template: the engine cannot do this yet ({exc})")
        return 1
    return 0
