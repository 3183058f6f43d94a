"""Clubs and their members: create a club, add members and admins, start club games.

Every function takes the caller's session (one transaction, the caller's)
and raises :class:`ClubError` with a sentence a user can act on. The CLI
(:mod:`pbem.commands.club`) and the signed mail commands
(:mod:`pbem.clubs.mailcmd`) both call these, so the two never differ.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from sqlmodel import Session, col, select

from engine.core.tables import Tables
from engine.systems import is_known
from pbem.clock import Clock
from pbem.clubs.models import Club, ClubGame, ClubMember
from pbem.clubs.rules import ClubRules
from pbem.pipeline.games import GameContext, GameError, NewSeat, create_game, current_key
from pbem.pipeline.joins import SignedJoin, add_seat_joins, record_join, send_invitations
from pbem.pipeline.systems import resolve_system
from pbem.pipeline.turns import Env
from pbem.scenarios import ScenarioError, find_scenario, load_file
from pbem.store import Player, Seat
from pbem.tablefile import TablesFileError, read_tables

__all__ = [
    "CLUB_ID",
    "ClubError",
    "ScenarioRef",
    "add_member",
    "admins",
    "create_club",
    "get_club",
    "is_admin",
    "member_ids",
    "player_by_email",
    "resolve_scenario",
    "rules_of",
    "set_rule",
    "start_club_game",
]

CLUB_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")

JoinSigner = Callable[[str, Mapping[str, int]], Mapping[str, SignedJoin]]
"""Signs each side's join statement for a new game id, given side -> player id (tests)."""


class ClubError(ValueError):
    """A club operation that cannot be done as asked (the message says why)."""


def get_club(session: Session, club_id: str) -> Club:
    """Return the club ``club_id`` or raise :class:`ClubError`."""
    club = session.get(Club, club_id)
    if club is None:
        raise ClubError(f"no club called {club_id!r}")
    return club


def rules_of(club: Club) -> ClubRules:
    """The club's rules."""
    return ClubRules.loads(club.rules_json)


def create_club(
    session: Session, club_id: str, name: str, system: str, clock: Clock, *, address: str = ""
) -> Club:
    """Create a club playing ``system`` by default."""
    if not CLUB_ID.match(club_id):
        raise ClubError(f"club id {club_id!r}: lower-case letters, digits and '-' (at most 40)")
    if session.get(Club, club_id) is not None:
        raise ClubError(f"a club called {club_id} already exists")
    if not is_known(system):
        raise ClubError(f"unknown game system {system!r}")
    club = Club(
        id=club_id,
        name=name or club_id,
        system=system,
        address=address.strip().lower(),
        rules_json=ClubRules().dumps(),
        created_at=clock.now(),
    )
    session.add(club)
    session.flush()
    return club


def set_rule(session: Session, club: Club, key: str, value: str) -> ClubRules:
    """Change one rule of ``club`` (checked, :class:`~pbem.clubs.rules.RuleError` if bad)."""
    rules = rules_of(club).with_value(key, value)
    if key == "tables" and rules.tables:
        _tables(club.system, rules.tables)  # checked against the club system's schema
    club.rules_json = rules.dumps()
    session.add(club)
    return rules


def _tables(system: str, path: str) -> Tables:
    """Read a club's rules tables file for ``system`` (every problem named, as ClubError)."""
    try:
        return read_tables(resolve_system(system), path)
    except TablesFileError as exc:
        raise ClubError(f"tables: {exc}") from exc


def player_by_email(session: Session, email: str) -> Player:
    """Return the registered player with ``email`` or raise :class:`ClubError`."""
    player = session.exec(select(Player).where(col(Player.email) == email.strip().lower())).first()
    if player is None:
        raise ClubError(f"no player with address {email}")
    return player


def add_member(
    session: Session, club: Club, player: Player, clock: Clock, *, admin: bool = False
) -> ClubMember:
    """Add ``player`` to ``club`` (again active if they had left); an admin by their key.

    An admin must have a registered key: admins act by signed mail, and
    their key's fingerprint is what names them.
    """
    assert player.id is not None
    row = session.exec(
        select(ClubMember)
        .where(col(ClubMember.club_id) == club.id)
        .where(col(ClubMember.player_id) == player.id)
    ).first()
    if row is None:
        row = ClubMember(club_id=club.id, player_id=player.id, joined_at=clock.now())
    row.active = True
    if admin:
        key = current_key(session, player.id)
        if key is None:
            raise ClubError(f"{player.email} has no registered key: an admin signs with one")
        row.admin_key = key.fingerprint()
    session.add(row)
    session.flush()
    return row


def remove_member(session: Session, club: Club, player: Player) -> None:
    """Take ``player`` out of ``club`` (his ratings and history stay)."""
    row = session.exec(
        select(ClubMember)
        .where(col(ClubMember.club_id) == club.id)
        .where(col(ClubMember.player_id) == player.id)
    ).first()
    if row is None or not row.active:
        raise ClubError(f"{player.email} is not a member of {club.id}")
    row.active = False
    row.admin_key = ""
    session.add(row)


def members(session: Session, club_id: str) -> list[ClubMember]:
    """The club's active members."""
    return list(
        session.exec(
            select(ClubMember)
            .where(col(ClubMember.club_id) == club_id)
            .where(col(ClubMember.active).is_(True))
            .order_by(col(ClubMember.id))
        ).all()
    )


def member_ids(session: Session, club_id: str) -> list[int]:
    """The player ids of the club's active members."""
    return [m.player_id for m in members(session, club_id)]


def admins(session: Session, club_id: str) -> list[ClubMember]:
    """The club's admins."""
    return [m for m in members(session, club_id) if m.admin_key]


def is_admin(session: Session, club_id: str, fingerprint: str) -> bool:
    """Whether the key ``fingerprint`` signs for an admin of the club."""
    return any(m.admin_key == fingerprint for m in admins(session, club_id))


def require_member(session: Session, club_id: str, player_id: int) -> None:
    """Raise :class:`ClubError` unless the player is an active member."""
    if player_id not in member_ids(session, club_id):
        player = session.get(Player, player_id)
        raise ClubError(f"{player.email if player else player_id} is not a member of {club_id}")


@dataclass(frozen=True)
class ScenarioRef:
    """A scenario a club game is played on: its id, system and text."""

    id: str
    system: str
    text: str


def resolve_scenario(ref: str) -> ScenarioRef:
    """Find a scenario by id, number, slug or file (:func:`pbem.scenarios.find_scenario`)."""
    try:
        path = find_scenario(ref)
        scenario = load_file(path)
        return ScenarioRef(scenario.id, scenario.system, path.read_text(encoding="utf-8"))
    except (ScenarioError, FileNotFoundError, OSError) as exc:
        raise ClubError(f"scenario {ref!r}: {exc}") from exc


def _game_id(prefix: str) -> str:
    return f"{prefix[:50]}-{secrets.token_hex(3)}"


def start_club_game(
    env: Env,
    club: Club,
    scenario: ScenarioRef,
    players: Mapping[str, int],
    *,
    kind: str,
    ref: str = "",
    rated: bool | None = None,
    game_id: str | None = None,
    joins: JoinSigner | None = None,
) -> GameContext:
    """Create a club game in the caller's transaction; each player joins by signed mail.

    ``players`` maps each side of the scenario's system to a player id (every
    player needs a registered key). The game gets the club's default
    settings and is recorded as a club game of ``kind`` (rated per the
    club's rules unless ``rated`` says). ``joins`` (tests, scripted players)
    signs each side's join statement for the new game id at once.
    """
    system = resolve_system(scenario.system)
    if set(players) != set(system.sides):
        raise ClubError(f"a {system.name} game needs players for {', '.join(system.sides)}")
    session = env.session
    rules = rules_of(club)
    seats = []
    for side in system.sides:
        player = session.get(Player, players[side])
        if player is None or player.id is None:
            raise ClubError(f"no player {players[side]}")
        key = current_key(session, player.id)
        if key is None:
            raise ClubError(f"{player.email} has no registered key")
        seats.append(NewSeat(side, player.name, player.email, key, player.time_zone))
    gid = game_id or _game_id(f"{club.id}-{scenario.id.split('-')[-1]}")
    # The club's own rules tables, for games of the club's system (docs/tables.md).
    tables = (
        _tables(system.name, rules.tables) if rules.tables and system.name == club.system else None
    )
    try:
        ctx = create_game(
            session,
            game_id=gid,
            system_name=system.name,
            scenario_id=scenario.id,
            scenario_text=scenario.text,
            seats=seats,
            dice_seed=secrets.token_bytes(32),
            deck_seed=secrets.token_bytes(32),
            clock=env.clock,
            settings=rules.settings(),
            tables=tables,
        )
    except GameError as exc:
        raise ClubError(str(exc)) from exc
    session.add(
        ClubGame(
            game_id=gid,
            club_id=club.id,
            rated=rules.rated if rated is None else rated,
            kind=kind,
            ref=ref[:80],
        )
    )
    tokens = add_seat_joins(session, gid, [(s.side, s.email, True) for s in seats])
    signed = joins(gid, dict(players)) if joins is not None else {}
    for side, statement in signed.items():
        ctx = record_join(env, ctx, side, statement)
    if ctx.game.status == "setup":
        send_invitations(env, ctx, tokens)
    return ctx


def seat_players(session: Session, game_id: str, sides: Sequence[str]) -> dict[str, int]:
    """Side -> player id of a game."""
    rows = session.exec(select(Seat).where(col(Seat.game_id) == game_id)).all()
    return {r.side: r.player_id for r in rows if r.side in sides}
