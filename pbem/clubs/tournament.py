"""Swiss tournaments over the store: entries, rounds of games, scoring, the bracket.

The rules are those of :mod:`pbem.clubs.swiss`. Here they meet the store:

- :func:`create_tournament`, :func:`enter` (also after the start: a late
  entry is paired from the next round, with no points for the rounds
  missed), :func:`drop` (not paired from the next round on);
- :func:`start` plans the rounds (by the convention unless the organiser
  set a number) and starts round 1;
- a round: every pairing's two games (sides swapped) are created in one
  transaction and start together; the scenario is the organiser's, rotating
  through the list given when there are several; a bye is scored at once;
- :func:`on_game_end` (the game-end hook) scores a pairing when its second
  game ends, and when the round's last pairing is scored mails results and
  the next pairings (or the bracket, or the final result);
- :func:`round_deadline` (the daemon's sweep): at the round deadline every
  game still running is adjudicated by the banners as they stand (more
  banners wins, equal is a draw) and ended, which scores the round.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from sqlmodel import Session, col, select

from pbem.clubs import swiss
from pbem.clubs.clubs import (
    ClubError,
    JoinSigner,
    get_club,
    require_member,
    resolve_scenario,
    rules_of,
    start_club_game,
)
from pbem.clubs.models import ClubGame, Tournament, TournamentEntry, TournamentPairing
from pbem.clubs.reliability import reliability
from pbem.clubs.results import banners_of, outcome_of
from pbem.clubs.standings import mail_members
from pbem.deadlines import cancel_deadlines
from pbem.pipeline import listeners
from pbem.pipeline.games import GameContext, append_events, load_game
from pbem.pipeline.joins import joined_sides
from pbem.pipeline.systems import resolve_system
from pbem.pipeline.turns import RESULT, Env, finish_game
from pbem.store import GameStatus, Player

__all__ = [
    "create_tournament",
    "drop",
    "enter",
    "on_game_end",
    "played",
    "round_deadline",
    "start",
    "swiss_standings",
]

JOINS: dict[str, JoinSigner] = {}
"""Tournament id -> a signer of join statements (tests and scripted players only)."""


def _get(session: Session, tid: str) -> Tournament:
    t = session.get(Tournament, tid)
    if t is None:
        raise ClubError(f"no tournament called {tid!r}")
    return t


def create_tournament(
    session: Session,
    club_id: str,
    tid: str,
    name: str,
    scenarios: list[str],
    *,
    now: datetime,
    rounds: int = 0,
    top: int = 8,
    round_days: int = 14,
    min_reliability: int | None = None,
) -> Tournament:
    """Create a tournament open for entries, played on ``scenarios`` (rotating per round)."""
    club = get_club(session, club_id)
    if session.get(Tournament, tid) is not None:
        raise ClubError(f"a tournament called {tid} already exists")
    if not scenarios:
        raise ClubError("name at least one scenario")
    refs = [resolve_scenario(s) for s in scenarios]
    systems = {r.system for r in refs}
    if len(systems) != 1:
        raise ClubError(f"the scenarios are of different systems: {', '.join(sorted(systems))}")
    if top < 2 or top & (top - 1):
        raise ClubError(f"--top {top}: the bracket takes 2, 4, 8, 16 ... players")
    t = Tournament(
        id=tid,
        club_id=club.id,
        name=name or tid,
        system=refs[0].system,
        scenarios_json=json.dumps(scenarios),
        rounds=rounds,
        top=top,
        round_days=round_days,
        min_reliability=rules_of(club).min_reliability
        if min_reliability is None
        else min_reliability,
        created_at=now,
    )
    session.add(t)
    session.flush()
    return t


def entries(session: Session, tid: str) -> list[TournamentEntry]:
    """The tournament's entries in entry order."""
    return list(
        session.exec(
            select(TournamentEntry)
            .where(col(TournamentEntry.tournament_id) == tid)
            .order_by(col(TournamentEntry.seed), col(TournamentEntry.id))
        ).all()
    )


def enter(session: Session, tid: str, player_id: int, now: datetime) -> TournamentEntry:
    """Enter a member; after the start the entry plays from the next round."""
    t = _get(session, tid)
    if t.status not in ("entry", "swiss"):
        raise ClubError(f"{tid} takes no more entries ({t.status})")
    require_member(session, t.club_id, player_id)
    if t.min_reliability:
        score = reliability(session, player_id, now)
        if score.score < t.min_reliability:
            raise ClubError(
                f"{tid} needs a reliability of {t.min_reliability}; yours is {score.score}"
            )
    existing = session.exec(
        select(TournamentEntry)
        .where(col(TournamentEntry.tournament_id) == tid)
        .where(col(TournamentEntry.player_id) == player_id)
    ).first()
    if existing is not None:
        if not existing.dropped:
            raise ClubError(f"you are already entered in {tid}")
        existing.dropped = False
        existing.entered_round = t.round + 1
        session.add(existing)
        return existing
    row = TournamentEntry(
        tournament_id=tid,
        player_id=player_id,
        entered_round=t.round + 1,
        seed=len(entries(session, tid)) + 1,
    )
    session.add(row)
    session.flush()
    return row


def drop(session: Session, tid: str, player_id: int) -> None:
    """Drop a player: not paired from the next round on (games running go on)."""
    t = _get(session, tid)
    row = session.exec(
        select(TournamentEntry)
        .where(col(TournamentEntry.tournament_id) == tid)
        .where(col(TournamentEntry.player_id) == player_id)
    ).first()
    if row is None or row.dropped:
        raise ClubError(f"you are not entered in {t.id}")
    row.dropped = True
    session.add(row)


def pairings(session: Session, tid: str, rnd: int | None = None) -> list[TournamentPairing]:
    """The tournament's pairings (of one round if given), in round and table order."""
    q = select(TournamentPairing).where(col(TournamentPairing.tournament_id) == tid)
    if rnd is not None:
        q = q.where(col(TournamentPairing.round) == rnd)
    return list(
        session.exec(q.order_by(col(TournamentPairing.round), col(TournamentPairing.table))).all()
    )


def played(session: Session, tid: str, stage: str = "swiss") -> list[swiss.Played]:
    """The scored pairings of a stage, as :mod:`pbem.clubs.swiss` reads them."""
    return [
        swiss.Played(p.a_id, p.b_id, p.points_a, p.points_b, p.banners_a, p.banners_b)
        for p in pairings(session, tid)
        if p.done and p.stage == stage
    ]


def swiss_standings(session: Session, tid: str) -> list[swiss.Standing]:
    """The Swiss standings of every entrant (dropped players included, ranked as scored)."""
    rows = entries(session, tid)
    return swiss.standings(
        [e.player_id for e in rows], played(session, tid), {e.player_id: e.seed for e in rows}
    )


def start(env: Env, tid: str) -> Tournament:
    """Close entries, plan the rounds and start round 1."""
    t = _get(env.session, tid)
    if t.status != "entry":
        raise ClubError(f"{tid} has already started")
    n = len([e for e in entries(env.session, tid) if not e.dropped])
    if n < 2:
        raise ClubError(f"{tid} has {n} entries: at least 2 are needed")
    t.rounds = t.rounds or swiss.rounds_for(n)
    t.status = "swiss"
    env.session.add(t)
    _start_round(env, t)
    return t


def _scenario(t: Tournament, rnd: int) -> str:
    refs: list[str] = json.loads(t.scenarios_json)
    return refs[(rnd - 1) % len(refs)]


def _start_round(env: Env, t: Tournament) -> None:
    """Pair the next round (Swiss or bracket) and start all its games together."""
    session = env.session
    t.round += 1
    t.round_deadline = env.clock.now() + timedelta(days=t.round_days)
    session.add(t)
    if t.status == "swiss":
        table = swiss_standings(session, t.id)
        active = {
            e.player_id
            for e in entries(session, t.id)
            if not e.dropped and e.entered_round <= t.round
        }
        ranked = [s.player for s in table if s.player in active]
        byes = {s.player: s.byes for s in table}
        pairs = swiss.pair_round(ranked, played(session, t.id), byes)
        stage = "swiss"
    else:
        pairs = _bracket_round(session, t)
        stage = "bracket"
    scenario = resolve_scenario(_scenario(t, t.round))
    club = get_club(session, t.club_id)
    first, second = resolve_system(t.system).sides[:2]
    for p in pairs:
        row = TournamentPairing(
            tournament_id=t.id,
            round=t.round,
            stage=stage,
            table=p.table,
            a_id=p.a,
            b_id=p.b,
            scenario_id=scenario.id,
        )
        session.add(row)
        session.flush()
        if p.b is None:
            row.points_a, row.done = swiss.BYE, True
            continue
        # Both games are named on the pairing first: they start together
        # (pbem.clubs.hooks.start_together) once every seat of both has joined.
        row.game_a = f"{t.id[:30]}-r{t.round}t{p.table}a"
        row.game_b = f"{t.id[:30]}-r{t.round}t{p.table}b"
        session.add(row)
        session.flush()
        for gid, (x, y) in ((row.game_a, (p.a, p.b)), (row.game_b, (p.b, p.a))):
            start_club_game(
                env,
                club,
                scenario,
                {first: x, second: y},
                kind="tournament",
                ref=f"{t.id}/{row.id}",
                game_id=gid,
                joins=JOINS.get(t.id),
            )
    session.flush()
    _mail_round(env, t)


def _bracket_round(session: Session, t: Tournament) -> list[swiss.Pairing]:
    bracket = [p for p in pairings(session, t.id) if p.stage == "bracket"]
    if not bracket:
        seeded = [s.player for s in swiss_standings(session, t.id) if _active(session, t, s.player)]
        size = 1
        while size * 2 <= min(t.top, len(seeded)):
            size *= 2
        return swiss.bracket_pairs(seeded[:size])
    last = max(p.round for p in bracket)
    winners = [p.winner_id for p in bracket if p.round == last]
    rank = {s.player: s.rank for s in swiss_standings(session, t.id)}
    out = []
    for p in swiss.next_bracket([w for w in winners if w is not None]):
        # The higher seed is A: a drawn bracket pairing goes to A.
        a, b = sorted((p.a, p.b or p.a), key=lambda x: rank.get(x, 1 << 30))
        out.append(swiss.Pairing(a, b, p.table))
    return out


def _active(session: Session, t: Tournament, player_id: int) -> bool:
    return any(e.player_id == player_id and not e.dropped for e in entries(session, t.id))


def _score(session: Session, row: TournamentPairing, t: Tournament) -> bool:
    """Score a pairing if its two games have ended; return whether it is scored."""
    first, second = resolve_system(t.system).sides[:2]
    games = []
    for gid, a_side, b_side in ((row.game_a, first, second), (row.game_b, second, first)):
        cg = session.get(ClubGame, gid) if gid else None
        if cg is None or cg.ended_at is None:
            return False
        banners = json.loads(cg.scores_json)
        games.append(
            swiss.GameScore(
                outcome_of(cg.result, a_side),
                int(banners.get(a_side, 0)),
                int(banners.get(b_side, 0)),
            )
        )
    res = swiss.score_pairing(games)
    row.points_a, row.points_b = res.points_a, res.points_b
    row.banners_a, row.banners_b = res.banners_a, res.banners_b
    if row.stage == "bracket":
        # A drawn bracket pairing goes to the higher seed: A (bracket pairs list it first).
        row.winner_id = row.b_id if res.winner == "b" else row.a_id
    row.done = True
    session.add(row)
    return True


def on_game_end(env: Env, cg: ClubGame) -> None:
    """Score the pairing of a tournament game that ended; move the tournament on if due."""
    tid, _, pid = cg.ref.partition("/")
    session = env.session
    t = session.get(Tournament, tid)
    row = session.get(TournamentPairing, int(pid)) if pid.isdigit() else None
    if t is None or row is None or row.done:
        return
    if not _score(session, row, t):
        return
    session.flush()
    if all(p.done for p in pairings(session, t.id, t.round)):
        _advance(env, t)


def _advance(env: Env, t: Tournament) -> None:
    """The round is complete: mail the results; start the next round, bracket or finish."""
    session = env.session
    if t.status == "swiss" and t.round < t.rounds:
        _start_round(env, t)
        return
    if t.status == "swiss":
        t.status = "bracket"
        if min(t.top, len([e for e in entries(session, t.id) if not e.dropped])) < 2:
            _finish(env, t)
            return
        _start_round(env, t)
        return
    current = pairings(session, t.id, t.round)
    if len(current) == 1:
        _finish(env, t)
        return
    _start_round(env, t)


def _finish(env: Env, t: Tournament) -> None:
    t.status = "finished"
    t.round_deadline = None
    env.session.add(t)
    _mail_round(env, t)


def round_deadline(env: Env, tid: str) -> int:
    """Adjudicate and end every game of the current round still running; return how many."""
    session = env.session
    t = _get(session, tid)
    if t.status not in ("swiss", "bracket") or t.round_deadline is None:
        return 0
    if env.clock.now() < t.round_deadline:
        return 0
    done = 0
    rnd = t.round
    for row in pairings(session, t.id, rnd):
        for gid in (row.game_a, row.game_b):
            ctx = load_game(session, gid) if gid else None
            if ctx is None or ctx.game.status not in (
                GameStatus.ACTIVE,
                GameStatus.PAUSED,
                GameStatus.SETUP,
            ):
                continue
            if ctx.game.status == GameStatus.SETUP:
                _forfeit_unjoined(env, ctx, row)
                done += 1
                continue
            banners = banners_of(ctx)
            first, second = ctx.system.sides[:2]
            result = (
                first
                if banners[first] > banners[second]
                else second
                if banners[second] > banners[first]
                else "draw"
            )
            finish_game(env, ctx, result, (), reason="adjudicated at the round deadline")
            done += 1
        if _get(session, tid).round != rnd:
            break  # the last adjudication scored the round and started the next
    return done


def _forfeit_unjoined(env: Env, ctx: GameContext, row: TournamentPairing) -> None:
    """A game not started by the round deadline: the player who did not join loses it.

    A player counts as joined only if he joined both games of the pairing
    (they start together, so one joined game alone does not start). One
    player joined, the other not: the first wins; neither: a draw. The game
    never dealt, so it has no dice to reveal: it is marked abandoned with
    its result, and scored like any other.
    """
    complete: set[int] = set()
    for player in (row.a_id, row.b_id):
        seats = []
        for gid in (row.game_a, row.game_b):
            game = load_game(env.session, gid) if gid else None
            if game is None:
                continue
            joins = joined_sides(env.session, game.id)
            seats += [
                bool(joins[s].nonce)
                for s, seat in game.seats.items()
                if seat.player.id == player and s in joins
            ]
        if seats and all(seats):
            assert player is not None
            complete.add(player)
    winners = [s for s, seat in ctx.seats.items() if seat.player.id in complete]
    result = winners[0] if len(winners) == 1 else "draw"
    ctx.game.status = GameStatus.ABANDONED
    ctx.game.updated_at = env.clock.now()
    env.session.add(ctx.game)
    cancel_deadlines(env.session, ctx.id, env.clock.now())
    reason = "not every player joined by the round deadline"
    append_events(
        env.session, ctx.id, 0, [(RESULT, {"result": result, "reason": reason})], env.clock
    )
    listeners.game_ended(env, ctx, result)


def _mail_round(env: Env, t: Tournament) -> None:
    """Mail every entrant the standings and (unless finished) the new round's pairings."""
    session = env.session
    names = {p.id: p.name or p.email for p in session.exec(select(Player)).all()}
    lines = [
        f"{t.name}: " + (f"round {t.round} ({t.status})" if t.status != "finished" else "final")
    ]
    lines += ["", "Standings (points, banners, Strength of Opposition):"]
    for s in swiss_standings(session, t.id):
        name = names.get(s.player, "?")
        lines.append(f"  {s.rank:>3}. {name:<24} {s.points:>5.1f} {s.banners:>4} {s.sos:>6.1f}")
    if t.status == "finished":
        final = [p for p in pairings(session, t.id) if p.stage == "bracket"]
        if final:
            champion = final[-1].winner_id
            lines += ["", f"Winner of the bracket: {names.get(champion or 0, '?')}"]
    else:
        lines += ["", f"Round {t.round} pairings (two games each, sides swapped):"]
        for p in pairings(session, t.id, t.round):
            if p.b_id is None:
                lines.append(f"  table {p.table}: {names.get(p.a_id, '?')} has a bye")
            else:
                lines.append(
                    f"  table {p.table}: {names.get(p.a_id, '?')} v {names.get(p.b_id, '?')}"
                    f"  games {p.game_a}, {p.game_b}"
                )
        if t.round_deadline is not None:
            lines += ["", f"Round deadline: {t.round_deadline:%Y-%m-%d %H:%M} UTC"]
    players = [e.player_id for e in entries(session, t.id)]
    mail_members(
        env,
        players,
        subject=f"[{t.id}] "
        + ("Final standings" if t.status == "finished" else f"Round {t.round}"),
        body="\n".join(lines) + "\n",
        kind="tournament",
        version=f"{t.id}-{t.round}-{t.status}",
    )
