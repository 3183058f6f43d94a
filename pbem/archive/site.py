"""``pbem archive build DIR``: write the public archive as a static site, incrementally.

Layout of ``DIR`` (every link relative, so any static host or a plain
``file://`` folder serves it)::

    index.html               every game by date, and links by club/system/scenario/player
    dice.html                the dice fairness of everything, by system and by club
    games/<id>/index.html    the replay, one step per epoch (board, orders, events, dice)
    games/<id>/audit.html    commitment, joins, every reveal, verdict, the game's fairness
    games/<id>/board-<e>.png, faces.png, luck.png
    games/<id>/<id>.audit.json   the audit record, once the game is over
    systems/ clubs/ scenarios/ players/ <slug>.html   the groups' games and dice
    manifest.json            what was built from what (for incremental rebuilds)

Incremental: each game's fingerprint (:func:`pbem.archive.collect.list_games`)
is kept in ``manifest.json`` with the files it produced and its dice tally.
A game whose fingerprint is unchanged is not read or drawn again; the indexes
and group pages are recomputed from the manifest's tallies and written only
where their bytes changed. So after one game ends, a rebuild writes that
game's pages and the index pages, nothing else.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from sqlmodel import Session

from engine.core.api import GameSystem
from pbem.archive import pages
from pbem.archive.collect import GameInfo, Step, game_steps, game_tally, list_games
from pbem.archive.gameaudit import audit_context
from pbem.archive.hooks import ArchivePage, club_pages
from pbem.archive.plots import faces_png, luck_png
from pbem.archive.stats import Report, Tally, ThrowScore, report
from pbem.pipeline.systems import resolve_system
from pbem.render.templating import templates_dir
from pbem.server_key import ServerKey
from pbem.store import Store, read_session

__all__ = ["ARCHIVE_VERSION", "BuildReport", "build_site", "tally_from_json", "tally_to_json"]

ARCHIVE_VERSION = 1
"""Bumped when the archive's pages change shape: every game is rebuilt."""

MANIFEST = "manifest.json"


@dataclass
class BuildReport:
    """What a build did: games drawn anew, games kept as they were, files written."""

    built: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    unchanged: int = 0

    def describe(self) -> str:
        """One line for the terminal."""
        return (
            f"{len(self.built)} games built, {len(self.kept)} unchanged, "
            f"{len(self.removed)} removed; {len(self.written)} files written, "
            f"{self.unchanged} left as they were"
        )


class _Writer:
    """Writes a file only when its bytes change (so unchanged pages keep their mtime)."""

    def __init__(self, root: Path, rep: BuildReport, drawn: Mapping[str, str]) -> None:
        self.root = root
        self.rep = rep
        self.drawn_before = drawn
        self.drawn: dict[str, str] = {}

    def picture(self, rel: str, inputs: object, draw: Callable[[], bytes]) -> str:
        """Write a plot, drawn only when its ``inputs`` changed since the last build."""
        key = hashlib.sha256(json.dumps(inputs, sort_keys=True, default=str).encode()).hexdigest()
        self.drawn[rel] = key
        if self.drawn_before.get(rel) == key and (self.root / rel).is_file():
            self.rep.unchanged += 1
            return rel
        return self.put(rel, draw())

    def put(self, rel: str, data: bytes | str) -> str:
        raw = data.encode("utf-8") if isinstance(data, str) else data
        path = self.root / rel
        if path.is_file() and path.read_bytes() == raw:
            self.rep.unchanged += 1
            return rel
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(raw)
        tmp.replace(path)
        self.rep.written.append(rel)
        return rel


def tally_to_json(t: Tally) -> dict[str, Any]:
    """A tally as JSON (the manifest keeps each game's)."""
    return {
        "faces": {d: list(f) for d, f in t.faces.items()},
        "counts": {d: dict(sorted(c.items())) for d, c in t.counts.items()},
        "throws": [[x.dice, x.hits, x.chance] for x in t.throws],
    }


def tally_from_json(data: Mapping[str, Any]) -> Tally:
    """Read back :func:`tally_to_json`."""
    t = Tally()
    for d, f in (data.get("faces") or {}).items():
        t.faces[str(d)] = tuple(str(x) for x in f)
    for d, c in (data.get("counts") or {}).items():
        t.counts[str(d)] = Counter({str(k): int(v) for k, v in c.items()})
    t.throws = [ThrowScore(int(a), int(b), float(c)) for a, b, c in data.get("throws") or []]
    return t


def _salt(running_delay: int | None, server_key: ServerKey | None) -> str:
    h = hashlib.sha256(f"archive {ARCHIVE_VERSION} delay {running_delay}".encode())
    if server_key is not None:
        h.update(server_key.public_key.openssh().encode("utf-8"))
    folder = templates_dir() / "archive"
    for path in sorted(folder.glob("*")):
        h.update(path.name.encode("utf-8") + b"\0" + path.read_bytes())
    return h.hexdigest()


def _load_manifest(out: Path) -> dict[str, Any]:
    try:
        data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"version": ARCHIVE_VERSION, "games": {}}
    if not isinstance(data, dict) or data.get("version") != ARCHIVE_VERSION:
        return {"version": ARCHIVE_VERSION, "games": {}}
    return data


def build_site(
    store: Store,
    out: Path,
    *,
    server_key: ServerKey | None,
    running_delay: int | None = None,
    force: bool = False,
) -> BuildReport:
    """Build (or bring up to date) the archive in ``out``; see the module docstring.

    ``running_delay``: show running games too, ``N`` epochs behind their play
    (None: finished games only). ``server_key`` signs the audit records the
    game pages publish and check (without it the pages say the record could
    not be built). ``force`` rebuilds every game.
    """
    out.mkdir(parents=True, exist_ok=True)
    rep = BuildReport()
    manifest = _load_manifest(out)
    w = _Writer(out, rep, manifest.get("plots", {}))
    old: dict[str, Any] = manifest.get("games", {})
    salt = _salt(running_delay, server_key)
    new: dict[str, Any] = {}
    with read_session(store) as session:
        games = list_games(session, running_delay=running_delay, salt=salt)
        for g in games:
            entry = old.get(g.id)
            if (
                not force
                and entry is not None
                and entry.get("fingerprint") == g.fingerprint
                and all((out / f).is_file() for f in entry.get("files", []))
            ):
                new[g.id] = entry
                rep.kept.append(g.id)
                continue
            # Files an older build wrote and this one may not (fewer epochs shown).
            stale = set(entry.get("files", [])) if entry is not None else set()
            new[g.id] = _build_game(session, w, g, server_key)
            for rel in stale - set(new[g.id]["files"]):
                (out / rel).unlink(missing_ok=True)
            rep.built.append(g.id)
        extra = club_pages(session)
    for gone in sorted(set(old) - set(new)):
        shutil.rmtree(out / "games" / gone, ignore_errors=True)
        rep.removed.append(gone)
    _build_indexes(w, games, new, extra, running_delay)
    data = {"version": ARCHIVE_VERSION, "games": new, "plots": w.drawn}
    w.put(MANIFEST, json.dumps(data, indent=1) + "\n")
    return rep


def _boards(
    system: GameSystem, g: GameInfo, steps: list[Step], first: str | None
) -> dict[int, bytes]:
    from pbem.render import NoPicture, picture_of  # noqa: PLC0415 - pillow is slow to import
    from pbem.render.png import render_png  # noqa: PLC0415

    out: dict[int, bytes] = {}
    todo: list[tuple[int, str | None, tuple[Mapping[str, Any], ...]]] = [(0, first, ())]
    todo += [(s.epoch, s.state_json, s.events) for s in steps]
    for epoch, state_json, events in todo:
        if state_json is None:
            continue
        try:
            view = system.public_view(system.from_json(state_json))
            out[epoch] = render_png(picture_of(system, view, events, None))
        except NoPicture:
            return {}
    return out


def _build_game(
    session: Session, w: _Writer, g: GameInfo, server_key: ServerKey | None
) -> dict[str, Any]:
    system = resolve_system(g.system)
    steps = game_steps(session, g)
    base = f"games/{g.id}"
    files: list[str] = []
    root = "../../"
    first = _first_state(session, g)
    boards = {}
    for epoch, png in _boards(system, g, steps, first).items():
        files.append(w.put(f"{base}/board-{epoch}.png", png))
        boards[epoch] = f"board-{epoch}.png"
    whole, sides = game_tally(system, steps)
    rep = report(f"{g.id}", whole)
    side_reps = {
        s: report(f"{g.id}, {s} ({g.players.get(s, (0, s))[1]})", t) for s, t in sides.items()
    }
    files.append(w.put(f"{base}/faces.png", faces_png(rep.faces, g.id)))
    files.append(
        w.put(f"{base}/luck.png", luck_png({s: r.luck for s, r in side_reps.items()}, g.id))
    )
    ctx = audit_context(session, g, server_key)
    record_file = ""
    if ctx.record is not None and g.over:
        record_file = f"{g.id}.audit.json"
        files.append(w.put(f"{base}/{record_file}", pages.record_json(ctx.record)))
    hidden = ""
    if not g.over:
        hidden = (
            f"This game is still running: the archive shows its first {g.shown} of {g.epochs} "
            "epochs, and only what both players already know (no hand, no orders text)."
        )
    row = pages.game_row(g)
    files.append(
        w.put(
            f"{base}/index.html",
            pages.render(
                "replay.html.j2",
                root,
                f"{g.id}: replay",
                g=row,
                status_text=pages.status_words(g),
                steps=pages.replay_steps(g, steps, boards),
                record_file=record_file,
                hidden_note=hidden,
            ),
        )
    )
    files.append(
        w.put(
            f"{base}/audit.html",
            pages.render(
                "audit.html.j2",
                root,
                f"{g.id}: audit",
                record_file=record_file,
                hidden_note=hidden,
                rep=pages.fairness_view(rep),
                faces_png="faces.png",
                luck_png="luck.png",
                sides=[
                    {"title": r.title, "rep": pages.fairness_view(r)}
                    for _, r in sorted(side_reps.items())
                ],
                **ctx.view(g),
            ),
        )
    )
    return {
        "fingerprint": g.fingerprint,
        "files": files,
        "tally": tally_to_json(whole),
        "sides": {s: tally_to_json(t) for s, t in sides.items()},
        "verdict": ctx.verdict,
    }


def _first_state(session: Session, g: GameInfo) -> str | None:
    from sqlmodel import col, select  # noqa: PLC0415

    from pbem.store import Game, Snapshot  # noqa: PLC0415

    game = session.get(Game, g.id)
    if game is None:
        return None
    version = game.state_version - game.epoch
    return session.exec(
        select(Snapshot.state_json)
        .where(col(Snapshot.game_id) == g.id)
        .where(col(Snapshot.version) == version)
    ).first()


@dataclass
class _Group:
    kind: str
    slug: str
    name: str
    games: list[GameInfo] = field(default_factory=list)
    tally: Tally = field(default_factory=Tally)


def _group(groups: dict[str, _Group], kind: str, key: str, name: str) -> _Group:
    if key not in groups:
        groups[key] = _Group(kind, pages.slug(key), name)
    return groups[key]


def _build_indexes(
    w: _Writer,
    games: list[GameInfo],
    built: Mapping[str, Any],
    extra: Iterable[ArchivePage],
    running_delay: int | None,
) -> None:
    systems: dict[str, _Group] = {}
    clubs: dict[str, _Group] = {}
    scenarios: dict[str, _Group] = {}
    players: dict[str, _Group] = {}
    for g in games:
        entry = built.get(g.id, {})
        whole = tally_from_json(entry.get("tally", {}))
        sg = _group(systems, "system", g.system, g.title)
        sg.slug = g.system
        sg.games.append(g)
        sg.tally.merge(whole)
        _group(scenarios, "scenario", g.scenario, g.scenario).games.append(g)
        if g.club:
            cg = _group(clubs, "club", g.club[0], g.club[1])
            cg.games.append(g)
            cg.tally.merge(whole)
        for side, (pid, name) in sorted(g.players.items()):
            pg = _group(players, "player", f"p{pid}", name)
            pg.slug = f"p{pid}"
            pg.games.append(g)
            pg.tally.merge(tally_from_json(entry.get("sides", {}).get(side, {})))
    w.put("style.css", (templates_dir() / "archive" / "style.css").read_bytes())
    w.put("replay.js", (templates_dir() / "archive" / "replay.js").read_bytes())
    dice_groups = []
    for folder, groups, intro in (
        ("systems", systems, "Every game of the system {name} in this archive."),
        ("clubs", clubs, "Every game of the club {name} in this archive."),
        ("scenarios", scenarios, "Every game of the scenario {name} in this archive."),
        ("players", players, "Every game {name} played in this archive."),
    ):
        for grp in sorted(groups.values(), key=lambda x: x.slug):
            rep_view: dict[str, Any] | None = None
            faces = luck = ""
            rep: Report | None = None
            if grp.kind != "scenario":
                rep = report(grp.name, grp.tally)
                inputs = [grp.name, tally_to_json(grp.tally), ARCHIVE_VERSION]
                faces = w.picture(
                    f"{folder}/{grp.slug}-faces.png",
                    inputs,
                    partial(faces_png, rep.faces, grp.name),
                )
                luck = w.picture(
                    f"{folder}/{grp.slug}-luck.png",
                    inputs,
                    partial(luck_png, {grp.name: rep.luck}, grp.name),
                )
                rep_view = pages.fairness_view(rep)
            rows = [
                pages.game_row(g) for g in sorted(grp.games, key=lambda x: x.updated, reverse=True)
            ]
            what = f"the games of {grp.name}"
            dice_intro = (
                f"The dice {grp.name} rolled on their own orders, and their hit-or-miss throws."
                if grp.kind == "player"
                else f"Every die rolled in {what}."
            )
            w.put(
                f"{folder}/{grp.slug}.html",
                pages.render(
                    "group.html.j2",
                    "../",
                    f"{grp.kind.capitalize()}: {grp.name}",
                    intro=intro.format(name=grp.name),
                    games=rows,
                    rep=rep_view,
                    faces_png=faces.removeprefix(f"{folder}/"),
                    luck_png=luck.removeprefix(f"{folder}/"),
                    what=what,
                    dice_intro=dice_intro,
                ),
            )
            if rep is not None and grp.kind in ("system", "club"):
                dice_groups.append(
                    {
                        "anchor": f"{grp.kind}-{grp.slug}",
                        "title": f"{grp.kind.capitalize()}: {grp.name}",
                        "rep": rep_view,
                        "faces_png": faces,
                        "luck_png": luck,
                        "what": what,
                    }
                )
    extra = list(extra)
    for page in extra:
        w.put(f"clubs/{page.path}", pages.render("page.html.j2", "../", page.title, body=page.body))
    w.put("dice.html", pages.render("dice.html.j2", "", "Dice fairness", groups=dice_groups))
    months: dict[str, list[GameInfo]] = {}
    for g in sorted(games, key=lambda x: x.updated, reverse=True):
        months.setdefault(f"{g.updated:%Y-%m}", []).append(g)
    w.put(
        "index.html",
        pages.render(
            "index.html.j2",
            "",
            "Game archive",
            delay=running_delay,
            months=[
                {
                    "key": k,
                    "name": f"{games_of[0].updated:%B %Y}",
                    "games": [pages.game_row(g) for g in games_of],
                }
                for k, games_of in months.items()
            ],
            clubs=_links(clubs),
            systems=_links(systems),
            scenarios=_links(scenarios),
            players=_links(players, by_name=True),
            extra=[{"path": p.path, "title": p.title} for p in extra],
        ),
    )


def _links(groups: Mapping[str, _Group], by_name: bool = False) -> list[dict[str, str]]:
    """The index's links to a kind of group, by slug (or by name)."""
    ordered = sorted(groups.values(), key=lambda x: x.name if by_name else x.slug)
    return [{"slug": grp.slug, "name": grp.name} for grp in ordered]
