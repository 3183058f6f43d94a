"""Swiss tournaments over the store: 9 and 20 players end to end, with scripted results.

Every game is a real toy game in the store: created per pairing (two games,
sides swapped), joined by each player's signed statement, ended through the
referee's game-end path (:func:`pbem.pipeline.turns.finish_game`), which
scores the pairing and starts the next round.
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from pathlib import Path

import test_store_migrations
from club_kit import CLUB, ClubKit, make_club
from sqlmodel import col, select

from pbem.clock import FakeClock
from pbem.clubs import api, tournament
from pbem.clubs.models import ClubGame, TournamentPairing
from pbem.clubs.ratings import ratings
from pbem.config import Config
from pbem.store import Game, GameStatus, Seat, Store

pg_url = test_store_migrations.pg_url  # the PostgreSQL fixture (skips without PBEM_TEST_PG_URL)


def _stronger(seats: dict[str, int]) -> str:
    """The player with the lower id wins; every 7th meeting is drawn."""
    north, south = seats["north"], seats["south"]
    if (north * 31 + south * 17) % 7 == 0:
        return "draw"
    return "north" if north < south else "south"


def _create(kit: ClubKit, tid: str, n: int, **kw: object) -> None:
    tournament.JOINS[tid] = kit.signer()

    def body(env: object) -> None:
        from pbem.pipeline.turns import Env

        assert isinstance(env, Env)
        tournament.create_tournament(
            env.session, CLUB, tid, "Open", [kit.scenario], now=kit.clock.now(), **kw
        )
        for m in kit.members[:n]:
            tournament.enter(env.session, tid, m.id, kit.clock.now())
        tournament.start(env, tid)

    kit.env_run(body)


def _play_out(kit: ClubKit, tid: str, limit: int = 400) -> int:
    games = 0
    for _ in range(limit):
        running = kit.running_games()
        if not running:
            break
        for gid in running:
            kit.finish(gid, _stronger)
            games += 1
    return games


def _view(kit: ClubKit, tid: str) -> api.TournamentView:
    with kit.store.transaction() as s:
        return api.tournament_view(s, tid)


def _check_event(view: api.TournamentView, n: int, rounds: int, top: int) -> None:
    swiss_rounds = [p for p in view.pairings if p.stage == "swiss"]
    assert {p.round for p in swiss_rounds} == set(range(1, rounds + 1))
    met: set[frozenset[str]] = set()
    for r in range(1, rounds + 1):
        pairs = [p for p in swiss_rounds if p.round == r]
        seen = Counter(x for p in pairs for x in (p.a, p.b) if x)
        assert len(seen) == n and set(seen.values()) == {1}, f"round {r}"
        assert sum(1 for p in pairs if not p.b) == n % 2
        for p in pairs:
            assert p.done
            if p.b:
                assert len(p.games) == 2  # two games, sides swapped
                assert frozenset((p.a, p.b)) not in met
                met.add(frozenset((p.a, p.b)))
    bracket = [p for p in view.pairings if p.stage == "bracket"]
    assert len(bracket) == top - 1
    assert view.status == "finished"
    # Seeds 1 v top, ... from the final Swiss standings.
    first = [p for p in bracket if p.round == rounds + 1]
    names = [s.name for s in view.standings]
    assert (first[0].a, first[0].b) == (names[0], names[top - 1])


def test_nine_player_swiss_with_bye_and_top_eight(
    store: Store, config: Config, clock: FakeClock, tmp_path: Path
) -> None:
    kit = make_club(store, config, clock, tmp_path, 9)
    _create(kit, "open9", 9)
    games = _play_out(kit, "open9")
    view = _view(kit, "open9")
    # 9 players: 4 rounds (8-16), 4 pairings + a bye each round, then 4 + 2 + 1 bracket pairings.
    assert view.rounds == 4
    _check_event(view, 9, 4, 8)
    assert games == 4 * 4 * 2 + 7 * 2
    byes = [p.a for p in view.pairings if not p.b]
    assert len(byes) == 4 and len(set(byes)) == 4
    # Byes scored a pairing won (2 points) each.
    with store.transaction() as s:
        rows = s.exec(select(TournamentPairing).where(col(TournamentPairing.b_id).is_(None))).all()
        assert {r.points_a for r in rows} == {2.0}
    # Every player's sides are balanced: as many games north as south.
    with store.transaction() as s:
        seats = s.exec(select(Seat)).all()
    sides = Counter((st.player_id, st.side) for st in seats)
    for m in kit.members:
        assert sides[m.id, "north"] == sides[m.id, "south"]
    # Player 00 (id lowest) beats everyone: first in the standings, winner of the bracket.
    assert view.standings[0].name == "Player 00"
    final = [p for p in view.pairings if p.stage == "bracket"][-1]
    assert final.winner == "Player 00"


def test_twenty_player_swiss_five_rounds_ratings_and_restart(
    store: Store, config: Config, clock: FakeClock, tmp_path: Path, db_url: str
) -> None:
    kit = make_club(store, config, clock, tmp_path, 20)
    _create(kit, "open20", 20, top=8)
    # Play round 1 and 2, then "restart": a new Store on the same database.
    for _ in range(2):
        for gid in kit.running_games():
            kit.finish(gid, _stronger)
    kit.store.dispose()
    kit.store = Store(db_url, busy_timeout_ms=200)
    before = _view(kit, "open20")
    assert before.round == 3 and before.status == "swiss"
    assert sum(1 for p in before.pairings if p.done) == 20
    _play_out(kit, "open20")
    view = _view(kit, "open20")
    assert view.rounds == 5  # 17-48 players
    _check_event(view, 20, 5, 8)
    # Every game was rated: the strongest player is first, with a smaller deviation
    # than a new player's (25/3).
    with kit.store.transaction() as s:
        table = ratings(s, CLUB, "toy")
        assert table[0].player_id == kit.members[0].id
        assert all(r.sigma < 25 / 3 for r in table)
        ended = s.exec(select(ClubGame).where(col(ClubGame.ended_at).is_not(None))).all()
        assert len(ended) == 5 * 10 * 2 + 7 * 2
    kit.store.dispose()


def test_late_entry_and_drop(
    store: Store, config: Config, clock: FakeClock, tmp_path: Path
) -> None:
    kit = make_club(store, config, clock, tmp_path, 10)
    _create(kit, "late", 8, rounds=3, top=2)

    def change(env: object) -> None:
        from pbem.pipeline.turns import Env

        assert isinstance(env, Env)
        tournament.enter(env.session, "late", kit.members[8].id, kit.clock.now())
        tournament.drop(env.session, "late", kit.members[7].id)

    kit.env_run(change)
    for gid in kit.running_games():
        kit.finish(gid, _stronger)
    view = _view(kit, "late")
    r2 = [p for p in view.pairings if p.round == 2]
    paired = {x for p in r2 for x in (p.a, p.b) if x}
    assert "Player 08" in paired and "Player 07" not in paired
    late = next(s for s in view.standings if s.name == "Player 08")
    assert late.played == 0 and late.points == 0
    assert next(s for s in view.standings if s.name == "Player 07").dropped


def test_round_deadline_adjudicates_the_games_still_running(
    store: Store, config: Config, clock: FakeClock, tmp_path: Path
) -> None:
    kit = make_club(store, config, clock, tmp_path, 4)
    _create(kit, "dl", 4, rounds=2, top=2, round_days=7)
    running = kit.running_games()
    kit.finish(running[0], _stronger)  # one game ends in time, three do not
    clock.advance(timedelta(days=6))
    assert kit.env_run(lambda env: tournament.round_deadline(env, "dl")) == 0  # type: ignore[arg-type]
    clock.advance(timedelta(days=1, minutes=1))
    assert kit.env_run(lambda env: tournament.round_deadline(env, "dl")) == 3  # type: ignore[arg-type]
    view = _view(kit, "dl")
    assert view.round == 2
    assert all(p.done for p in view.pairings if p.round == 1)
    with store.transaction() as s:
        games = {g.id: g for g in s.exec(select(Game)).all()}
        # Toy games show no banners: an adjudicated game with equal banners is a draw.
        assert sum(1 for g in running[1:] if games[g].status == GameStatus.FINISHED) == 3
        adjudicated = s.get(ClubGame, running[1])
        assert adjudicated is not None and adjudicated.result == "draw"


def test_a_pairings_two_games_start_together(
    store: Store, config: Config, clock: FakeClock, tmp_path: Path
) -> None:
    from pbem.pipeline.games import load_game
    from pbem.pipeline.joins import record_join
    from pbem.pipeline.turns import Env

    kit = make_club(store, config, clock, tmp_path, 2)
    tournament.JOINS.pop("pair", None)  # the players join by themselves, game by game

    def create(env: Env) -> None:
        tournament.create_tournament(
            env.session, CLUB, "pair", "Pair", [kit.scenario], now=clock.now(), rounds=1, top=2
        )
        for m in kit.members:
            tournament.enter(env.session, "pair", m.id, clock.now())
        tournament.start(env, "pair")

    kit.env_run(create)  # type: ignore[arg-type]
    games = ("pair-r1t1a", "pair-r1t1b")

    def join(gid: str) -> None:
        def body(env: Env) -> None:
            ctx = load_game(env.session, gid)
            assert ctx is not None
            seats = {s: seat.player.id or 0 for s, seat in ctx.seats.items()}
            for side, signed in kit.signer()(gid, seats).items():
                ctx = record_join(env, ctx, side, signed)

        kit.env_run(body)  # type: ignore[arg-type]

    def status() -> list[str]:
        with store.transaction() as s:
            return [s.get(Game, g).status for g in games]  # type: ignore[union-attr]

    join(games[0])
    assert status() == [GameStatus.SETUP, GameStatus.SETUP]  # every seat joined; it waits
    join(games[1])
    assert status() == [GameStatus.ACTIVE, GameStatus.ACTIVE]


def test_swiss_and_bracket_on_postgresql(
    pg_url: str, config: Config, clock: FakeClock, tmp_path: Path
) -> None:
    from pbem.store import migrate

    migrate(pg_url)
    kit = make_club(Store(pg_url), config, clock, tmp_path, 9)
    _create(kit, "pg9", 9, rounds=2, top=4)
    _play_out(kit, "pg9")
    view = _view(kit, "pg9")
    assert view.status == "finished" and len(view.pairings) == 2 * 5 + 3
    kit.store.dispose()


def test_a_player_who_never_joins_loses_at_the_round_deadline(
    store: Store, config: Config, clock: FakeClock, tmp_path: Path
) -> None:
    from pbem.pipeline.games import load_game
    from pbem.pipeline.joins import record_join
    from pbem.pipeline.turns import Env

    kit = make_club(store, config, clock, tmp_path, 2)
    tournament.JOINS.pop("nj", None)

    def create(env: Env) -> None:
        tournament.create_tournament(
            env.session, CLUB, "nj", "NJ", [kit.scenario], now=clock.now(), rounds=1, top=2
        )
        for m in kit.members:
            tournament.enter(env.session, "nj", m.id, clock.now())
        tournament.start(env, "nj")

    kit.env_run(create)  # type: ignore[arg-type]
    first = kit.members[0]

    def join_first(env: Env) -> None:
        for gid in ("nj-r1t1a", "nj-r1t1b"):
            ctx = load_game(env.session, gid)
            assert ctx is not None
            side = next(s for s, seat in ctx.seats.items() if seat.player.id == first.id)
            signed = kit.signer()(gid, {side: first.id})[side]
            record_join(env, ctx, side, signed)

    kit.env_run(join_first)  # type: ignore[arg-type]
    clock.advance(timedelta(days=15))
    assert kit.env_run(lambda env: tournament.round_deadline(env, "nj")) == 2  # type: ignore[arg-type]
    view = _view(kit, "nj")
    (pairing,) = [p for p in view.pairings if p.stage == "swiss"]
    winner_points = pairing.points_a if pairing.a == first.name else pairing.points_b
    assert pairing.done and winner_points == 2.0
    with store.transaction() as s:
        assert s.get(Game, "nj-r1t1a").status == GameStatus.ABANDONED  # type: ignore[union-attr]
