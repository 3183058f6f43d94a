"""``pbem systems``: the game systems installed, with versions and what each offers."""

from __future__ import annotations

import argparse
import json
from typing import Any

from engine.core.capabilities import offered
from engine.systems import get_system, list_systems
from pbem.commands._shared import err, out


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``pbem systems``."""
    cmd = sub.add_parser(
        "systems",
        help="list the game systems installed, with versions",
        description="List every game system pbem can referee: built in, or added by an "
        "installed package through the 'pbem.systems' entry points "
        "(docs/adding-a-system.md).",
    )
    cmd.add_argument("--json", action="store_true", help="print JSON")
    cmd.set_defaults(func=run)


def describe() -> list[dict[str, Any]]:
    """One dict per system: name, version, title, sides, dice, capabilities, origin (or error)."""
    rows: list[dict[str, Any]] = []
    for entry in list_systems():
        row: dict[str, Any] = {"name": entry.name, "origin": entry.origin, "target": entry.target}
        try:
            system = get_system(entry.name)
            row |= {
                "version": system.version,
                "title": system.title,
                "sides": list(system.sides),
                "dice": {name: list(d.faces) for name, d in system.dice.items()},
                "capabilities": list(offered(system)),
            }
        except Exception as exc:  # a broken plug-in is listed with why, never hides the rest
            row["error"] = f"{type(exc).__name__}: {exc}"
        rows.append(row)
    return rows


def run(args: argparse.Namespace) -> int:
    """Print the systems; exit 1 if one of them cannot be loaded."""
    rows = describe()
    if args.json:
        out(json.dumps(rows, indent=2))
    else:
        for r in rows:
            if "error" in r:
                err(f"{r['name']:6} cannot be loaded ({r['origin']}, {r['target']}): {r['error']}")
                continue
            out(f"{r['name']:6} {r['version']:>4}  {r['title']} ({r['origin']})")
            out(f"       sides: {', '.join(r['sides'])}")
            dice = "; ".join(f"{n} {' '.join(f)}" for n, f in r["dice"].items())
            out(f"       dice: {dice}")
            out(f"       offers: {', '.join(r['capabilities']) or 'nothing optional'}")
    return 1 if any("error" in r for r in rows) else 0
