"""The dice-fairness reports of whole groups: per game, per side, per player, club and system.

Used by ``pbem audit stats`` (the terminal), the archive's pages and the
game-end mail. From the store every report has luck too (the engine events
say which throws hit); from an audit record file alone only the faces are
counted (a record logs each die's face and purpose, not what it was aimed at).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from sqlmodel import Session

from pbem.archive.collect import GameInfo, game_info, game_steps, game_tally, list_games
from pbem.archive.plots import faces_png, luck_png
from pbem.archive.stats import Report, Tally, report, report_lines
from pbem.audit import load_json, system_tables
from pbem.pipeline.systems import resolve_system

__all__ = [
    "StatsError",
    "end_mail_report",
    "game_reports",
    "record_reports",
    "store_reports",
]


_NO_LUCK = "a record holds no luck: which faces hit is in the store's game events"


class StatsError(ValueError):
    """A record cannot be read for statistics (the message says which and why)."""


def record_reports(paths: Sequence[Path]) -> list[Report]:
    """Reports of audit record files: each game, each side in it, then each system.

    The record is read tolerantly: only ``game_id``, ``system``,
    ``system_version`` and each epoch's ``side`` and ``rolls`` (``die``,
    ``face``), so records with fields added later still count. Dice are the
    system's own (never the record's ``die_faces``).
    """
    out: list[Report] = []
    systems: dict[str, Tally] = {}
    for path in paths:
        try:
            data = load_json(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise StatsError(f"cannot read {path}: {err}") from err
        if not isinstance(data, dict):
            raise StatsError(f"{path}: not an audit record (not a JSON object)")
        system, version = str(data.get("system", "")), str(data.get("system_version", ""))
        tables = system_tables(system, version)
        if tables is None:
            raise StatsError(f"{path}: game system {system!r} version {version!r} is not audited")
        whole, sides = Tally(), {s: Tally() for s in tables.sides}
        for t in (whole, *sides.values()):
            for name, kind in sorted(tables.dice.items()):
                t.faces[name] = kind.faces
        for epoch in data.get("epochs") or []:
            side = str(epoch.get("side", "")) if isinstance(epoch, dict) else ""
            for roll in (epoch.get("rolls") or []) if isinstance(epoch, dict) else []:
                die = tables.dice.get(str(roll.get("die", "")))
                if die is None:
                    continue
                face = str(roll.get("face", ""))
                whole.add_roll(die.name, die.faces, face)
                if side in sides:
                    sides[side].add_roll(die.name, die.faces, face)
        game = str(data.get("game_id", path.name))
        out.append(report(f"game {game}", whole, _NO_LUCK))
        out += [report(f"game {game}, {s}", t, _NO_LUCK) for s, t in sides.items()]
        systems.setdefault(system, Tally()).merge(whole)
    out += [report(f"system {name}, all games", t, _NO_LUCK) for name, t in sorted(systems.items())]
    return out


def game_reports(session: Session, g: GameInfo) -> tuple[Report, dict[str, Report]]:
    """A game's report and each side's (every epoch shown by ``g``)."""
    system = resolve_system(g.system)
    whole, sides = game_tally(system, game_steps(session, g))
    names = {s: name for s, (_, name) in g.players.items()}
    return report(f"game {g.id}", whole), {
        s: report(f"game {g.id}, {s} ({names.get(s, s)})", t) for s, t in sorted(sides.items())
    }


def store_reports(session: Session, game_ids: Iterable[str] = ()) -> list[Report]:
    """Reports from the store: the games asked for (default every game, running ones whole),
    each side, then each player, club and system over those games."""
    wanted = set(game_ids)
    games = [
        g
        for g in list_games(session, running_delay=0, club_rules=False)
        if not wanted or g.id in wanted
    ]
    missing = wanted - {g.id for g in games}
    if missing:
        raise StatsError(f"no game called {', '.join(sorted(missing))} with dice in the store")
    out: list[Report] = []
    groups: dict[str, Tally] = {}
    for g in games:
        system = resolve_system(g.system)
        whole, sides = game_tally(system, game_steps(session, g))
        out.append(report(f"game {g.id}", whole))
        for side, t in sorted(sides.items()):
            name = g.players.get(side, (0, side))[1]
            out.append(report(f"game {g.id}, {side} ({name})", t))
            groups.setdefault(f"player {name}", Tally()).merge(t)
        if g.club:
            groups.setdefault(f"club {g.club[1]}", Tally()).merge(whole)
        groups.setdefault(f"system {g.system}", Tally()).merge(whole)
    if len(games) > 1:
        out += [report(title, t) for title, t in sorted(groups.items())]
    return out


def end_mail_report(session: Session, game_id: str) -> tuple[list[str], list[tuple[str, bytes]]]:
    """The game-end mail's fairness lines (the game, then each side) and its two plots."""
    g = game_info(session, game_id)
    if g is None:
        return [], []
    whole, sides = game_reports(session, g)
    lines = [line.strip() for rep in (whole, *sides.values()) for line in report_lines(rep)]
    images = [
        (f"{game_id}-dice-faces.png", faces_png(whole.faces, game_id)),
        (f"{game_id}-dice-luck.png", luck_png({s: r.luck for s, r in sides.items()}, game_id)),
    ]
    return lines, images
