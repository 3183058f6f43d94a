"""``pbem club``, ``pbem ladder`` and ``pbem tournament``: the operator's side of clubs.

Each command runs in one store transaction and calls the same functions as
the signed mail commands (:mod:`pbem.clubs.mailcmd`); mails it causes are
queued and sent by the running daemon. docs/clubs.md is the reference.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from pbem.clock import SystemClock
from pbem.clubs import api, campaign, clubs, ladder, tournament
from pbem.clubs.clubs import ClubError
from pbem.clubs.rules import RULE_HELP, RuleError
from pbem.commands._shared import add_config_argument, err, out
from pbem.commands.game import EX_USAGE, with_store
from pbem.config import Config
from pbem.pipeline import load_server_key
from pbem.pipeline.games import GameError, add_key, find_or_add_player, load_game
from pbem.pipeline.mails import Mailer
from pbem.pipeline.turns import Env
from pbem.sshsig import SshPublicKey, SshSigError
from pbem.store import Player, Store

Action = Callable[[Env, argparse.Namespace], str]


def _run(action: Action) -> Callable[[argparse.Namespace], int]:
    """Run ``action(env, args)`` in one transaction; print its text or the error."""

    @with_store
    def run(args: argparse.Namespace, config: Config, store: Store) -> int:
        try:
            text = _in_transaction(config, store, args, action)
        except (ClubError, RuleError, GameError, ValueError, OSError, SshSigError) as exc:
            err(f"pbem {args.command}: {exc}")
            return EX_USAGE
        if text:
            out(text)
        return 0

    return run


def _in_transaction(config: Config, store: Store, args: argparse.Namespace, action: Action) -> str:
    clock = SystemClock()
    key = load_server_key(config.server_key_path)
    with store.transaction() as session:
        return action(Env(session, config, clock, Mailer(session, config, clock, key)), args)


def _player(env: Env, email: str) -> int:
    p = clubs.player_by_email(env.session, email)
    assert p.id is not None
    return p.id


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``pbem club``, ``pbem ladder`` and ``pbem tournament``."""
    _register_club(sub)
    _register_ladder(sub)
    _register_tournament(sub)


# --- pbem club ------------------------------------------------------------------


def _register_club(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("club", help="clubs: members, rules, profiles, club games, campaigns")
    add_config_argument(parser)
    cmd = parser.add_subparsers(dest="club_command", required=True)
    p = cmd.add_parser("create", help="create a club")
    p.add_argument("club")
    p.add_argument("--name", default="")
    p.add_argument("--system", required=True, help="the club's default game system")
    p.add_argument("--address", default="", help="its own address (default pbem+club-<id>@...)")
    p.set_defaults(func=_run(_create))
    p = cmd.add_parser("show", help="a club's rules and members")
    p.add_argument("club")
    p.set_defaults(func=_run(_show))
    p = cmd.add_parser("member", help="add or remove a member (an admin by his key)")
    p.add_argument("action", choices=("add", "remove"))
    p.add_argument("club")
    p.add_argument("email")
    p.add_argument("--name", default="")
    p.add_argument("--key", type=Path, help="the member's public key file (registers it)")
    p.add_argument("--tz", default="UTC", help="a new player's time zone")
    p.add_argument("--admin", action="store_true", help="an admin (signs club commands)")
    p.set_defaults(func=_run(_member))
    p = cmd.add_parser("rules", help="show or change the club's rules (KEY=VALUE ...)")
    p.add_argument("club")
    p.add_argument("set", nargs="*", metavar="KEY=VALUE", help=", ".join(sorted(RULE_HELP)))
    p.set_defaults(func=_run(_rules))
    p = cmd.add_parser("profile", help="a player's profile across clubs")
    p.add_argument("email")
    p.set_defaults(func=_run(_profile))
    p = cmd.add_parser("game", help="start a club game (rated unless --unrated)")
    p.add_argument("club")
    p.add_argument("scenario")
    p.add_argument("--seat", action="append", default=[], metavar="SIDE=EMAIL")
    p.add_argument("--unrated", action="store_true")
    p.set_defaults(func=_run(_game))
    p = cmd.add_parser("offer-seat", help="offer a club game's seat to a replacement player")
    p.add_argument("game")
    p.add_argument("side")
    p.add_argument("--reason", default="the player left")
    p.set_defaults(func=_run(_offer))
    p = cmd.add_parser("excuse", help="excuse a missed deadline (reliability)")
    p.add_argument("miss", type=int)
    p.set_defaults(func=_run(_excuse))
    p = cmd.add_parser("campaign", help="start or show a campaign of linked battles")
    p.add_argument("action", choices=("start", "show"))
    p.add_argument("campaign")
    p.add_argument("--club", default="")
    p.add_argument("--file", type=Path, help="the campaign's TOML file (start)")
    p.add_argument("--player", action="append", default=[], metavar="SIDE=EMAIL")
    p.set_defaults(func=_run(_campaign))
    p = cmd.add_parser("calendar", help="a player's deadline feed (iCalendar)")
    p.add_argument("email")
    p.add_argument("--out", type=Path, help="write it here (default: print it)")
    p.set_defaults(func=_run(_calendar))
    p = cmd.add_parser("sweep", help="run the clubs' sweep once now (the daemon does it)")
    p.set_defaults(func=_run(_sweep))


def _create(env: Env, args: argparse.Namespace) -> str:
    c = clubs.create_club(
        env.session, args.club, args.name, args.system, env.clock, address=args.address
    )
    return f"created club {c.id} ({c.name}), system {c.system}"


def _show(env: Env, args: argparse.Namespace) -> str:
    v = api.club_view(env.session, args.club)
    lines = [f"{v.id}: {v.name} ({v.system})", "rules:", *(f"  {r}" for r in v.rules)]
    lines += ["members: " + (", ".join(v.members) or "none")]
    lines += ["admins: " + (", ".join(v.admins) or "none")]
    return "\n".join(lines)


def _member(env: Env, args: argparse.Namespace) -> str:
    club = clubs.get_club(env.session, args.club)
    if args.action == "remove":
        clubs.remove_member(env.session, club, clubs.player_by_email(env.session, args.email))
        return f"{args.email} left {club.id}"
    player: Player = find_or_add_player(env.session, args.email, args.name, env.clock, args.tz)
    if args.key is not None:
        key = SshPublicKey.parse(args.key.read_text(encoding="utf-8"))
        if not key.is_ed25519:
            raise ClubError("only Ed25519 keys are accepted")
        add_key(env.session, player, key, env.clock, note=f"club {club.id}")
        env.session.flush()
    clubs.add_member(env.session, club, player, env.clock, admin=args.admin)
    return f"{player.email} is a{'n admin and' if args.admin else ''} member of {club.id}"


def _rules(env: Env, args: argparse.Namespace) -> str:
    club = clubs.get_club(env.session, args.club)
    for item in args.set:
        key, eq, value = item.partition("=")
        if not eq:
            raise ClubError(f"{item!r}: write KEY=VALUE")
        clubs.set_rule(env.session, club, key, value)
    return "\n".join(clubs.rules_of(club).lines())


def _profile(env: Env, args: argparse.Namespace) -> str:
    from pbem.clubs.mailcmd import profile_text  # noqa: PLC0415

    return profile_text(env, _player(env, args.email), env.clock.now())


def _pairs(items: list[str], what: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for item in items:
        side, eq, email = item.partition("=")
        if not eq or not side or side in found:
            raise ClubError(f"{what} {item!r}: write SIDE=EMAIL, each side once")
        found[side] = email
    return found


def _game(env: Env, args: argparse.Namespace) -> str:
    club = clubs.get_club(env.session, args.club)
    seats = {s: _player(env, e) for s, e in _pairs(args.seat, "--seat").items()}
    ctx = clubs.start_club_game(
        env,
        club,
        clubs.resolve_scenario(args.scenario),
        seats,
        kind="friendly",
        rated=False if args.unrated else None,
    )
    rated = "unrated" if args.unrated else "rated per the club"
    return f"created {ctx.id} ({rated}); invitations queued"


def _offer(env: Env, args: argparse.Namespace) -> str:
    from pbem.clubs.replacements import offer_seat  # noqa: PLC0415

    ctx = load_game(env.session, args.game)
    if ctx is None:
        raise ClubError(f"no game {args.game}")
    offer_seat(env, ctx, args.side, reason=args.reason)
    return f"the seat {args.side} of {args.game} is offered to the club's members"


def _excuse(env: Env, args: argparse.Namespace) -> str:
    from pbem.clubs.reliability import excuse  # noqa: PLC0415

    row = excuse(env.session, args.miss)
    return f"missed deadline {row.id} ({row.game_id}, {row.due_at:%Y-%m-%d %H:%M}) excused"


def _campaign(env: Env, args: argparse.Namespace) -> str:
    if args.action == "start":
        if args.file is None or not args.club:
            raise ClubError("start needs --club and --file")
        players = {s: _player(env, e) for s, e in _pairs(args.player, "--player").items()}
        c = campaign.create_campaign(
            env, args.club, args.campaign, args.file.read_text(encoding="utf-8"), players
        )
        return f"campaign {c.id} started; its first battle's invitations are queued"
    v = api.campaign_view(env.session, args.campaign)
    lines = [f"{v.id}: {v.name} ({v.status}); battle now: {v.battle or '-'}"]
    lines += [f"  {side}: {name}" for side, name in v.players]
    lines += [f"  {side}: {pts} points" for side, pts in v.points]
    lines += [f"  {x}" for x in v.log]
    return "\n".join(lines)


def _calendar(env: Env, args: argparse.Namespace) -> str:
    from pbem.calendar import feed_name, player_feed  # noqa: PLC0415
    from pbem.clubs.jobs import feeds_dir  # noqa: PLC0415

    player = clubs.player_by_email(env.session, args.email)
    data = player_feed(env.session, player, env.mailer.domain)
    if args.out is None:
        return data.decode("utf-8")
    args.out.write_bytes(data)
    where = feeds_dir(env.config) / feed_name(player.email)
    return f"wrote {args.out}; the daemon keeps {where} up to date"


def _sweep(env: Env, args: argparse.Namespace) -> str:
    from pbem.clubs.jobs import sweep_in  # noqa: PLC0415

    done = sweep_in(env)
    return ", ".join(f"{v} {k}" for k, v in done.items())


# --- pbem ladder ------------------------------------------------------------------


def _register_ladder(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("ladder", help="a club's ladder: standings and challenges")
    add_config_argument(parser)
    cmd = parser.add_subparsers(dest="ladder_command", required=True)
    p = cmd.add_parser("show", help="the ladder (ratings with their deviation)")
    p.add_argument("club")
    p.set_defaults(func=_run(_ladder_show))
    p = cmd.add_parser("challenge", help="record a challenge")
    p.add_argument("club")
    p.add_argument("challenger")
    p.add_argument("defender")
    p.add_argument("scenario")
    p.set_defaults(func=_run(_challenge))
    for name in ("accept", "decline"):
        p = cmd.add_parser(name, help=f"{name} a challenge for its defender")
        p.add_argument("challenge", type=int)
        p.set_defaults(func=_run(_answer), answer=name)
    p = cmd.add_parser("standings", help="mail the standings (to one member, or to all)")
    p.add_argument("club")
    p.add_argument("--to", default="", metavar="EMAIL")
    p.set_defaults(func=_run(_standings))


def _ladder_show(env: Env, args: argparse.Namespace) -> str:
    from pbem.clubs.standings import standings_text  # noqa: PLC0415

    return standings_text(env, args.club)[0]


def _challenge(env: Env, args: argparse.Namespace) -> str:
    c = ladder.challenge(
        env.session,
        args.club,
        _player(env, args.challenger),
        _player(env, args.defender),
        scenario=args.scenario,
        now=env.clock.now(),
    )
    return f"challenge {c.id}: answer by {c.answer_by:%Y-%m-%d %H:%M} UTC"


def _answer(env: Env, args: argparse.Namespace) -> str:
    from pbem.clubs.models import LadderChallenge  # noqa: PLC0415

    row = env.session.get(LadderChallenge, args.challenge)
    if row is None:
        raise ClubError(f"no challenge {args.challenge}")
    if args.answer == "decline":
        ladder.decline(env.session, row.id or 0, row.defender_id)
        return f"challenge {row.id} declined"
    ladder.accept(env, row.id or 0, row.defender_id)
    return f"challenge {row.id} accepted: game {row.game_id}"


def _standings(env: Env, args: argparse.Namespace) -> str:
    from pbem.clubs.standings import standings_mail  # noqa: PLC0415

    who = _player(env, args.to) if args.to else None
    n = standings_mail(env, args.club, player_id=who)
    return f"standings queued for {n} member(s)"


# --- pbem tournament -----------------------------------------------------------------


def _register_tournament(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("tournament", help="Swiss tournaments with a bracket")
    add_config_argument(parser)
    cmd = parser.add_subparsers(dest="tournament_command", required=True)
    p = cmd.add_parser("create", help="create a tournament open for entries")
    p.add_argument("club")
    p.add_argument("tournament")
    p.add_argument("--name", default="")
    p.add_argument(
        "--scenario", action="append", required=True, help="repeat: one per round, rotating"
    )
    p.add_argument("--rounds", type=int, default=0, help="Swiss rounds (default: by entries)")
    p.add_argument("--top", type=int, default=8, help="players in the bracket (2, 4, 8 ...)")
    p.add_argument("--round-days", type=int, default=14)
    p.add_argument("--min-reliability", type=int, default=None)
    p.set_defaults(func=_run(_t_create))
    for name, helptext in (("enter", "enter a member"), ("drop", "drop a player")):
        p = cmd.add_parser(name, help=helptext)
        p.add_argument("tournament")
        p.add_argument("email")
        p.set_defaults(func=_run(_t_entry), entry=name)
    p = cmd.add_parser("start", help="close entries and start round 1")
    p.add_argument("tournament")
    p.set_defaults(func=_run(_t_start))
    p = cmd.add_parser("show", help="standings and pairings")
    p.add_argument("tournament")
    p.add_argument("--json", action="store_true", help="the read API's view as JSON")
    p.set_defaults(func=_run(_t_show))
    p = cmd.add_parser("deadline", help="adjudicate the round now if its deadline passed")
    p.add_argument("tournament")
    p.set_defaults(func=_run(_t_deadline))


def _t_create(env: Env, args: argparse.Namespace) -> str:
    t = tournament.create_tournament(
        env.session,
        args.club,
        args.tournament,
        args.name,
        args.scenario,
        now=env.clock.now(),
        rounds=args.rounds,
        top=args.top,
        round_days=args.round_days,
        min_reliability=args.min_reliability,
    )
    return f"tournament {t.id} ({t.system}) open for entries"


def _t_entry(env: Env, args: argparse.Namespace) -> str:
    pid = _player(env, args.email)
    if args.entry == "enter":
        tournament.enter(env.session, args.tournament, pid, env.clock.now())
        return f"{args.email} entered {args.tournament}"
    tournament.drop(env.session, args.tournament, pid)
    return f"{args.email} dropped from {args.tournament}"


def _t_start(env: Env, args: argparse.Namespace) -> str:
    t = tournament.start(env, args.tournament)
    return f"{t.id}: round 1 of {t.rounds} started (then the top {t.top})"


def _t_show(env: Env, args: argparse.Namespace) -> str:
    v = api.tournament_view(env.session, args.tournament)
    if args.json:
        import dataclasses  # noqa: PLC0415

        return json.dumps(dataclasses.asdict(v), default=str, indent=1)
    lines = [f"{v.id}: {v.name} ({v.system}), {v.status}, round {v.round} of {v.rounds}"]
    lines += ["rank  player                    points banners    SoS"]
    lines += [
        f"{s.rank:>4}  {s.name[:24]:<24} {s.points:>6.1f} {s.banners:>7} {s.sos:>6.1f}"
        + ("  (dropped)" if s.dropped else "")
        for s in v.standings
    ]
    for p in v.pairings:
        score = f"{p.points_a:g}-{p.points_b:g}" if p.done else "playing"
        who = f"{p.a} v {p.b}" if p.b else f"{p.a} (bye)"
        lines.append(f"  {p.stage} r{p.round} t{p.table}: {who}  {score}  {' '.join(p.games)}")
    return "\n".join(lines)


def _t_deadline(env: Env, args: argparse.Namespace) -> str:
    n = tournament.round_deadline(env, args.tournament)
    return f"{n} game(s) adjudicated"
