"""Read what the archive shows of each game from the store (in the caller's session).

:func:`list_games` gives every game's public facts (:class:`GameInfo`):
system, scenario, players by name, club, dates, result, and a fingerprint
that changes whenever anything the game's pages show changes.
:func:`game_steps` gives the steps of a replay (:class:`Step`, one per
epoch): the board after it, the engine's events, the dice, the orders hash
and revealed key, and the signed orders text — the text only once the game is
over, since a running game's page shows only what both players know.
:func:`game_tally` counts a game's dice for the fairness report.

Nothing here reads :class:`~pbem.store.GameSecret`; the game system is found
through the registry (:func:`pbem.pipeline.systems.resolve_system`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from engine.core.api import GameSystem
from engine.core.capabilities import DICE_LUCK, find
from pbem.archive.hooks import club_of_games, club_running_delays
from pbem.archive.stats import Tally
from pbem.pipeline.games import ACCEPTED, DICE_LOG, TOLD_KINDS, played_by_referee
from pbem.pipeline.systems import resolve_system
from pbem.store import DiceEpoch, Event, Game, GameStatus, Player, Seat, Snapshot

__all__ = [
    "GameInfo",
    "Step",
    "game_info",
    "game_steps",
    "game_tally",
    "list_games",
    "running_delay_of",
    "shown_epochs",
]

RESULT = "pbem.result"  # the event finish_game appends (pbem.pipeline.turns.RESULT)
OVER = (GameStatus.FINISHED, GameStatus.ABANDONED)


@dataclass(frozen=True)
class GameInfo:
    """What an index lists of one game."""

    id: str
    system: str
    title: str
    scenario: str
    status: str
    created: datetime
    updated: datetime
    players: dict[str, tuple[int, str]]
    """side -> (player id, name shown); never an address."""
    club: tuple[str, str] | None
    """(club id, club name), when the game is a club's."""
    result: str
    epochs: int
    """Epochs resolved in the store."""
    shown: int
    """Epochs the archive shows (all of a finished game; fewer for a delayed running one)."""
    fingerprint: str

    @property
    def over(self) -> bool:
        """The game has ended: everything may be shown."""
        return self.status in OVER


@dataclass(frozen=True)
class Step:
    """One epoch of a replay."""

    epoch: int
    turn: int
    side: str
    source: str
    orders: str
    """The signed orders text ('' while the game runs)."""
    orders_hash: str
    key: str
    rolls: tuple[Mapping[str, Any], ...]
    events: tuple[Mapping[str, Any], ...]
    """The engine's events (what happened on the board)."""
    state_json: str | None
    """The state after the epoch (its snapshot), for the board picture."""
    when: datetime | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    told: tuple[Mapping[str, Any], ...] = ()
    """What the referee told of the epoch beside the engine's events: who played it
    (the bot of a bot's seat, the autopilot for a player who missed the deadline)."""

    @property
    def own_orders(self) -> bool:
        """The side's own orders opened the epoch (not a referee's default or the autopilot)."""
        return not played_by_referee(self.source)


def shown_epochs(status: str, epochs: int, delay: int | None) -> int:
    """How many epochs a page may show: all once over; ``epochs - delay`` while running.

    ``delay`` None: running games are not shown at all (0).
    """
    if status in OVER:
        return epochs
    if delay is None or status == GameStatus.SETUP:
        return 0
    return max(0, epochs - delay)


def _names(session: Session, game_id: str) -> dict[str, tuple[int, str]]:
    out: dict[str, tuple[int, str]] = {}
    for seat in session.exec(select(Seat).where(col(Seat.game_id) == game_id)).all():
        player = session.get(Player, seat.player_id)
        if player is None or player.id is None:  # pragma: no cover - foreign keys forbid it
            continue
        out[seat.side] = (player.id, player.name.strip() or f"player {player.id}")
    return out


def running_delay_of(
    game_id: str, operator: int | None, clubs: Mapping[str, int | None]
) -> int | None:
    """The delay (epochs) a running game is published with; None: not published.

    A club game follows its club's ``archive_running_delay`` rule (None: never
    while running); the operator's ``operator`` delay, when given, is a floor
    (a club may wait longer, never less). A game outside clubs follows
    ``operator`` alone.
    """
    if game_id not in clubs:
        return operator
    own = clubs[game_id]
    if own is None:
        return None
    return max(own, operator or 0)


def list_games(
    session: Session,
    *,
    running_delay: int | None = None,
    salt: str = "",
    club_rules: bool = True,
) -> list[GameInfo]:
    """Every game the archive shows, oldest first.

    Finished (and abandoned) games always; running ones with the delay
    :func:`running_delay_of` gives from the operator's ``running_delay`` (in
    epochs) and, for club games, the club's rule (``club_rules`` False: the
    operator's delay for every game, e.g. the referee's own reports).
    ``salt`` enters every fingerprint (the archive's templates and version),
    so a new look rebuilds every page.
    """
    clubs = club_of_games(session)
    delays = club_running_delays(session) if club_rules else {}
    out = []
    for game in session.exec(select(Game).order_by(col(Game.created_at), col(Game.id))).all():
        delay = running_delay_of(game.id, running_delay, delays)
        shown = shown_epochs(game.status, game.epoch, delay)
        if game.status not in OVER and shown == 0:
            continue
        out.append(_info(session, game, shown, clubs.get(game.id), salt))
    return out


def game_info(session: Session, game_id: str) -> GameInfo | None:
    """One game's facts, every epoch shown (the referee's own view: reports, the end mail)."""
    game = session.get(Game, game_id)
    if game is None:
        return None
    return _info(session, game, game.epoch, club_of_games(session).get(game_id), "")


def _info(
    session: Session, game: Game, shown: int, club: tuple[str, str] | None, salt: str
) -> GameInfo:
    try:
        title = resolve_system(game.system).title
    except (KeyError, ValueError):
        title = game.system
    result = ""
    row = session.exec(
        select(Event.payload_json)
        .where(col(Event.game_id) == game.id)
        .where(col(Event.kind) == RESULT)
    ).first()
    if row is not None:
        data = json.loads(row)
        result = f"{data.get('result', '')}" + (
            f" ({data['reason']})" if data.get("reason") else ""
        )
    players = _names(session, game.id)
    basis = json.dumps(
        [game.id, game.status, game.state_version, game.epoch, game.updated_at.isoformat(),
         shown, club, sorted(players.items()), result, salt],
        default=str,
    )  # fmt: skip
    return GameInfo(
        id=game.id,
        system=game.system,
        title=title,
        scenario=game.scenario_id,
        status=game.status,
        created=game.created_at,
        updated=game.updated_at,
        players=players,
        club=club,
        result=result,
        epochs=game.epoch,
        shown=shown,
        fingerprint=hashlib.sha256(basis.encode("utf-8")).hexdigest(),
    )


def _events_by_epoch(session: Session, game_id: str, upto: int) -> dict[int, list[Event]]:
    rows = session.exec(
        select(Event)
        .where(col(Event.game_id) == game_id)
        .where(col(Event.epoch) <= upto)
        .order_by(col(Event.seq))
    ).all()
    out: dict[int, list[Event]] = {}
    for row in rows:
        out.setdefault(row.epoch, []).append(row)
    return out


def game_steps(session: Session, info: GameInfo) -> list[Step]:
    """The replay steps 1 .. ``info.shown`` of a game (see the module docstring)."""
    game = session.get(Game, info.id)
    if game is None:
        return []
    system = resolve_system(game.system)
    by_epoch = _events_by_epoch(session, game.id, info.shown)
    keys = {
        e.epoch: e
        for e in session.exec(select(DiceEpoch).where(col(DiceEpoch.game_id) == game.id)).all()
    }
    snaps = {
        s.version: s.state_json
        for s in session.exec(select(Snapshot).where(col(Snapshot.game_id) == game.id)).all()
    }
    offset = game.state_version - game.epoch  # versions bumped before the first epoch
    steps = []
    for epoch in range(1, info.shown + 1):
        rows = by_epoch.get(epoch, [])
        accepted: dict[str, Any] = {}
        rolls: list[Mapping[str, Any]] = []
        events: list[Mapping[str, Any]] = []
        told: list[Mapping[str, Any]] = []
        for row in rows:
            payload = json.loads(row.payload_json)
            if row.kind == ACCEPTED:
                accepted = payload
            elif row.kind == DICE_LOG:
                rolls = list(payload.get("rolls", []))
            elif row.kind in TOLD_KINDS:
                told.append(payload)
            elif not row.kind.startswith("pbem."):
                events.append(payload)
        before = snaps.get(offset + epoch - 1)
        turn = 0
        if before is not None:
            turn = _turn(system, before)
        key_row = keys.get(epoch)
        signed = accepted.get("signed") or {}
        steps.append(
            Step(
                epoch=epoch,
                turn=turn,
                side=str(accepted.get("side", "")),
                source=str(accepted.get("source", "")),
                orders=str(signed.get("text") or accepted.get("orders", "")) if info.over else "",
                orders_hash=str(accepted.get("orders_hash", "")),
                key=(key_row.revealed_key or "") if key_row is not None else "",
                rolls=tuple(rolls),
                events=tuple(events),
                state_json=snaps.get(offset + epoch),
                when=rows[0].created_at if rows else None,
                told=tuple(told),
            )
        )
    return steps


def _turn(system: GameSystem, state_json: str) -> int:
    try:
        return int(system.prompt(system.from_json(state_json)).turn)
    except Exception:  # an old or foreign state: the step shows no turn number
        return 0


def game_tally(system: GameSystem, steps: Sequence[Step]) -> tuple[Tally, dict[str, Tally]]:
    """Count the dice of ``steps``: the whole game's, and each side's.

    A side's face counts are the dice rolled in the epochs its own signed
    orders opened (the orders hash keys them): not those of a turn the
    autopilot played for it, nor of a default the referee applied (the whole
    game's counts have them). Its luck is the hit-or-miss throws it made,
    wherever they fell (the system's ``dice-luck`` says who threw what).
    """
    luck = find(system, DICE_LUCK)
    whole = Tally()
    sides: dict[str, Tally] = {s: Tally() for s in system.sides}
    for die_name, kind in sorted(system.dice.items()):
        whole.faces.setdefault(die_name, kind.faces)
        for t in sides.values():
            t.faces.setdefault(die_name, kind.faces)
    for step in steps:
        for roll in step.rolls:
            name = str(roll.get("die", ""))
            die = system.dice.get(name)
            if die is None:
                continue
            face = str(roll.get("face", ""))
            whole.add_roll(name, die.faces, face)
            if step.own_orders:
                sides.setdefault(step.side, Tally()).add_roll(name, die.faces, face)
        if luck is None:
            continue
        for throw in luck.throws(step.events):
            thrown = system.dice.get(throw.die)
            size = len(thrown.faces) if thrown is not None else 0
            whole.add_throw(throw.faces, throw.hit_faces, size)
            sides.setdefault(throw.side, Tally()).add_throw(throw.faces, throw.hit_faces, size)
    return whole, {s: t for s, t in sides.items() if s}
