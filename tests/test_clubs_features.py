"""Club ladders and ratings, reliability, replacement players, campaigns, calendars, CLI.

Each test drives real toy games in the store through the referee's paths:
joins signed by the players' keys, the game-end path, the deadline sweep,
mails through the inbox processor. Time moves only with the injected clock.
"""

from __future__ import annotations

import email
import email.policy
import json
from datetime import timedelta
from pathlib import Path

import pytest
from club_kit import CLUB, ClubKit, body_of, make_club, signed_mail
from sqlmodel import col, select

from pbem.clock import FakeClock
from pbem.clubs import api, campaign, clubs, ladder
from pbem.clubs.clubs import ClubError
from pbem.clubs.jobs import club_sweep, feeds_dir
from pbem.clubs.models import ChallengeStatus, MissedDeadline, SeatOffer
from pbem.clubs.ratings import history, rating
from pbem.clubs.reliability import reliability
from pbem.config import Config
from pbem.deadlines import sweep
from pbem.pipeline.games import load_game
from pbem.pipeline.timing import configure, fire_deadline
from pbem.pipeline.turns import Env
from pbem.store import Event, InboxStatus, Store


def _env(kit: ClubKit, body: object) -> object:
    return kit.env_run(body)  # type: ignore[arg-type]


def _set_rules(kit: ClubKit, **rules: str) -> None:
    def body(env: Env) -> None:
        club = clubs.get_club(env.session, CLUB)
        for k, v in rules.items():
            clubs.set_rule(env.session, club, k, v)

    _env(kit, body)


def test_ladder_challenge_rules_and_ratings_with_deviation(
    store: Store, config: Config, clock: FakeClock, tmp_path: Path
) -> None:
    kit = make_club(store, config, clock, tmp_path, 4)
    _set_rules(kit, challenge_range="2", max_open="1")
    m = kit.members

    def refused(env: Env) -> str:
        with pytest.raises(ClubError) as exc:
            ladder.challenge(
                env.session, CLUB, m[3].id, m[0].id, scenario=kit.scenario, now=clock.now()
            )
        return str(exc.value)

    # Place 4 may challenge places 2 and 3, not place 1.
    assert "places 2 to 3" in _env(kit, refused)  # type: ignore[operator]

    def challenge(env: Env) -> int:
        c = ladder.challenge(
            env.session, CLUB, m[3].id, m[1].id, scenario=kit.scenario, now=clock.now()
        )
        with pytest.raises(ClubError, match="max_open"):
            ladder.challenge(
                env.session, CLUB, m[2].id, m[1].id, scenario=kit.scenario, now=clock.now()
            )
        ladder.accept(env, c.id or 0, m[1].id, joins=kit.signer())
        return c.id or 0

    cid = _env(kit, challenge)
    (gid,) = kit.running_games()
    kit.finish(gid, lambda seats: "north")  # the challenger (north) wins
    with store.transaction() as s:
        winner, loser = rating(s, CLUB, "toy", m[3].id), rating(s, CLUB, "toy", m[1].id)
        assert winner.mu > 25 > loser.mu
        assert winner.sigma < 25 / 3 and winner.text().count("±") == 1
        assert [p.game_id for p in history(s, CLUB, "toy", m[3].id)] == [gid]
        row = s.get(ladder.LadderChallenge, cid)
        assert row is not None and row.status == ChallengeStatus.DONE
        table = ladder.ladder_table(s, CLUB)
        assert table[0].player_id == m[3].id  # the only rated winner is first
    # An unrated friendly game changes no rating.

    def friendly(env: Env) -> str:
        club = clubs.get_club(env.session, CLUB)
        ref = clubs.resolve_scenario(kit.scenario)
        ctx = clubs.start_club_game(
            env,
            club,
            ref,
            {"north": m[0].id, "south": m[2].id},
            kind="friendly",
            rated=False,
            joins=kit.signer(),
        )
        return ctx.id

    fid = _env(kit, friendly)
    kit.finish(str(fid), lambda seats: "south")
    with store.transaction() as s:
        assert rating(s, CLUB, "toy", m[2].id).games == 0


def test_unanswered_challenge_expires_as_a_missed_deadline(
    store: Store, config: Config, clock: FakeClock, tmp_path: Path
) -> None:
    kit = make_club(store, config, clock, tmp_path, 3)
    m = kit.members
    _env(
        kit,
        lambda env: ladder.challenge(
            env.session, CLUB, m[1].id, m[0].id, scenario=kit.scenario, now=clock.now()
        ),
    )
    clock.advance(timedelta(days=6))
    assert club_sweep(store, config, clock)["expired"] == 0
    clock.advance(timedelta(days=1, seconds=1))
    assert club_sweep(store, config, clock)["expired"] == 1
    with store.transaction() as s:
        misses = s.exec(select(MissedDeadline)).all()
        assert [(x.player_id, x.excused) for x in misses] == [(m[0].id, "")]
        assert reliability(s, m[0].id, clock.now()).unexcused_recent == 1


def _club_game(kit: ClubKit, north: int, south: int) -> str:
    def body(env: Env) -> str:
        club = clubs.get_club(env.session, CLUB)
        ctx = clubs.start_club_game(
            env,
            club,
            clubs.resolve_scenario(kit.scenario),
            {"north": kit.members[north].id, "south": kit.members[south].id},
            kind="friendly",
            joins=kit.signer(),
        )
        return ctx.id

    return str(_env(kit, body))


def test_missed_deadlines_reliability_and_a_replacement_by_signed_mail(
    store: Store, config: Config, clock: FakeClock, tmp_path: Path
) -> None:
    kit = make_club(store, config, clock, tmp_path, 4)
    _set_rules(kit, turn_time="48h", replace_after="2", excused_misses="1")
    configure(config, None)
    gid = _club_game(kit, 0, 1)
    # North (member 0) lets two turn deadlines pass.
    clock.advance(timedelta(hours=49))
    assert sweep(store, clock, fire_deadline).missed == 1
    clock.advance(timedelta(hours=49))
    assert sweep(store, clock, fire_deadline).missed == 1
    with store.transaction() as s:
        misses = s.exec(select(MissedDeadline).order_by(col(MissedDeadline.id))).all()
        assert [x.excused for x in misses] == ["allowance", ""]  # one excused per game
        rel = reliability(s, kit.members[0].id, clock.now())
        assert (rel.misses, rel.excused, rel.unexcused_recent) == (2, 1, 1)
        assert rel.score < 100
        offer = s.exec(select(SeatOffer)).one()
        assert (offer.side, offer.status) == ("north", "open")
    calls = [r for r in kit.outbox() if r.kind == "seat-offer"]
    # The open call goes to the members who do not play the game.
    assert sorted(r.recipient for r in calls) == [kit.members[2].email, kit.members[3].email]
    assert "command replace" in body_of(calls[0])
    # Member 2 takes the seat with his own key.
    new = kit.members[2]
    to = f"pbem+{gid}@game.test"
    text = f"game {gid}\ncommand replace\nside north\nnonce take-seat-0001\n"
    i = kit.deliver(signed_mail(new.email, text, new.key, to), to)
    assert kit.inbox(i).status == InboxStatus.PROCESSED, kit.inbox(i).outcome
    # Member 3 is too late: the seat is taken.
    late = kit.members[3]
    j = kit.deliver(signed_mail(late.email, text.replace("0001", "0002"), late.key, to), to)
    assert kit.inbox(j).status == InboxStatus.REFUSED and "no-offer" in kit.inbox(j).outcome
    with store.transaction() as s:
        ctx = load_game(s, gid)
        assert ctx is not None and ctx.seats["north"].player.email == new.email
        ev = s.exec(select(Event).where(col(Event.kind) == "pbem.replaced")).one()
        payload = json.loads(ev.payload_json)
        assert (payload["old"], payload["new"], payload["side"]) == (
            kit.members[0].email,
            new.email,
            "north",
        )
        assert payload["from_epoch"] == ctx.game.epoch + 1
    # The replacement got the board and the orders template; he plays on with his key.
    note = [r for r in kit.outbox() if r.kind == "replaced" and r.recipient == new.email]
    assert note and "Your orders:" in body_of(note[0])
    with store.transaction() as s:
        ctx = load_game(s, gid)
        assert ctx is not None
        hand = ctx.state["hands"]["north"]
        turn = ctx.state["turn"]
    orders = f"game {gid}\nturn {turn}\nside north\ncard {hand[0]}\n"
    k = kit.deliver(signed_mail(new.email, orders, new.key, to, f"[{gid}] orders"), to)
    assert kit.inbox(k).status == InboxStatus.PROCESSED, kit.inbox(k).outcome


CAMPAIGN = """
name = "Two battles"
sides = ["red", "blue"]
start = "first"

[battles.first]
scenario = "{scenario}"
sides = {{ red = "north", blue = "south" }}
win_points = 3
next = {{ red = "second", blue = "second", draw = "second" }}

[battles.second]
scenario = "{scenario}"
sides = {{ red = "south", blue = "north" }}
win_points = 5
"""


def test_campaign_starts_the_next_battle_and_mails_its_state(
    store: Store, config: Config, clock: FakeClock, tmp_path: Path
) -> None:
    kit = make_club(store, config, clock, tmp_path, 2)
    spec = CAMPAIGN.format(scenario=kit.scenario)
    campaign.JOINS["camp"] = kit.signer()
    players = {"red": kit.members[0].id, "blue": kit.members[1].id}
    _env(kit, lambda env: campaign.create_campaign(env, CLUB, "camp", spec, players))
    (first,) = kit.running_games()
    kit.finish(first, lambda seats: "north")  # red wins the first battle
    (second,) = kit.running_games()
    assert second == "camp-b2"
    with store.transaction() as s:
        ctx = load_game(s, second)
        assert ctx is not None and ctx.seats["south"].player.id == kit.members[0].id  # red swapped
    kit.finish(second, lambda seats: "north")  # blue (north now) wins the second
    with store.transaction() as s:
        view = api.campaign_view(s, "camp")
    assert view.status == "finished"
    assert dict(view.points) == {"red": 3, "blue": 5}
    states = [r for r in kit.outbox() if r.kind == "campaign"]
    assert len(states) == 4  # two players, after each battle
    assert "Next battle: second" in body_of(states[0])


def test_campaign_file_problems_are_all_named() -> None:
    bad = "\n".join(
        [
            'sides = ["a", "b"]',
            'start = "x"',
            "[battles.y]",
            'scenario = "s"',
            'sides = { a = "north", b = "south" }',
            'next = { a = "z" }',
            "wobble = 1",
        ]
    )
    with pytest.raises(ClubError) as exc:
        campaign.load_spec(bad)
    text = str(exc.value)
    for problem in ("'start' must name a battle", "unknown keys wobble", "'z' is no battle"):
        assert problem in text
    with pytest.raises(ClubError, match="'sides' must list"):
        campaign.load_spec('sides = ["a"]\nstart = "y"\n[battles.y]\nscenario = "s"\n')


def test_turn_mails_carry_the_deadline_as_ics_and_feeds_are_written(
    store: Store, config: Config, clock: FakeClock, tmp_path: Path
) -> None:
    kit = make_club(store, config, clock, tmp_path, 2)
    with store.transaction() as s:
        p = clubs.player_by_email(s, kit.members[0].email)
        p.time_zone = "Europe/Paris"
        s.add(p)
    _club_game(kit, 0, 1)
    start = [r for r in kit.outbox() if r.kind == "start" and r.recipient == kit.members[0].email]
    msg = email.message_from_bytes(start[0].raw, policy=email.policy.default)
    ics = [part for part in msg.walk() if part.get_filename() == "deadline.ics"]
    assert len(ics) == 1
    text = ics[0].get_payload(decode=True).decode()
    assert "TZID=Europe/Paris" in text and "BEGIN:VEVENT" in text
    done = club_sweep(store, config, clock)
    assert done["feeds"] == 2
    feeds = list(feeds_dir(config).glob("*.ics"))
    # North must move: his feed has the deadline; south's has none yet.
    assert sorted(f.read_bytes().count(b"BEGIN:VEVENT") for f in feeds) == [0, 1]
    # The weekly standings went once this week, and not again on the next sweep.
    assert done["standings"] == 2
    assert club_sweep(store, config, clock)["standings"] == 0


def test_cli_club_ladder_tournament(
    tmp_path: Path, free_port: object, capsys: pytest.CaptureFixture[str]
) -> None:
    from club_kit import SCENARIO
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from engine.toy import SYSTEM
    from pbem import sshsig
    from pbem.cli import main
    from pbem.pipeline.systems import register_system

    register_system(SYSTEM)
    cfg = tmp_path / "pbem.toml"
    cfg.write_text(
        f'data_dir = "{tmp_path / "data"}"\n[mail]\naddress = "pbem@game.test"\n'
        'operator = "op@game.test"\n'
    )
    scenario = tmp_path / "toy.toml"
    scenario.write_text(SCENARIO)
    c = ["--config", str(cfg)]
    assert main(["club", *c, "create", "cli", "--name", "CLI club", "--system", "toy"]) == 0
    for i in range(4):
        pub = tmp_path / f"k{i}.pub"
        pub.write_text(sshsig.public_key_of(Ed25519PrivateKey.generate()).openssh() + "\n")
        args = ["club", *c, "member", "add", "cli", f"m{i}@cli.test", "--key", str(pub)]
        assert main([*args, *(["--admin"] if i == 0 else [])]) == 0
    assert main(["club", *c, "rules", "cli", "turn_time=5d", "max_open=3"]) == 0
    assert "turn_time = 5d" in capsys.readouterr().out
    # A bad rule is refused with the legal values, and nothing changes.
    assert main(["club", *c, "rules", "cli", "max_open=99"]) == 64
    assert "from 1 to 20" in capsys.readouterr().err
    assert main(["tournament", *c, "create", "cli", "t", "--scenario", str(scenario)]) == 0
    for i in range(4):
        assert main(["tournament", *c, "enter", "t", f"m{i}@cli.test"]) == 0
    assert main(["tournament", *c, "start", "t"]) == 0
    capsys.readouterr()
    assert main(["tournament", *c, "show", "t"]) == 0
    shown = capsys.readouterr().out
    assert "round 1 of 3" in shown and shown.count("swiss r1") == 2
    assert main(["tournament", *c, "show", "t", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "swiss"
    assert (
        main(["ladder", *c, "challenge", "cli", "m3@cli.test", "m2@cli.test", str(scenario)]) == 0
    )
    assert main(["ladder", *c, "show", "cli"]) == 0
    assert "unrated" in capsys.readouterr().out
    assert main(["club", *c, "profile", "m1@cli.test"]) == 0
    assert "reliability: 100" in capsys.readouterr().out
    assert main(["club", *c, "show", "cli"]) == 0
    assert "admins: m0@cli.test" in capsys.readouterr().out


def test_profile_view(store: Store, config: Config, clock: FakeClock, tmp_path: Path) -> None:
    kit = make_club(store, config, clock, tmp_path, 2)
    with store.transaction() as s:
        p = api.profile(s, kit.members[1].id, clock.now())
    assert p.clubs == (CLUB,) and p.reliability == 100 and p.key_fingerprint.startswith("SHA256:")


def test_daemon_runs_the_clubs_sweep_at_start(
    db_url: str, config: Config, clock: FakeClock, tmp_path: Path
) -> None:
    import asyncio

    from pbem.daemon import EXTENSIONS, Daemon

    assert "pbem.clubs.jobs" in EXTENSIONS
    kit = make_club(Store(db_url, busy_timeout_ms=10_000), config, clock, tmp_path, 2)
    daemon = Daemon(config, clock=clock, store=kit.store, extensions=EXTENSIONS)

    async def main() -> None:
        await daemon.start()
        try:
            for _ in range(1000):
                if len([r for r in kit.outbox() if r.kind == "standings"]) == 2:
                    break
                await asyncio.sleep(0.01)
        finally:
            await daemon.stop()

    asyncio.run(main())
    weekly = [r for r in kit.outbox() if r.kind == "standings"]
    assert sorted(r.recipient for r in weekly) == sorted(m.email for m in kit.members)
    kit.store.dispose()


def test_a_club_plays_its_own_rules_tables(
    store: Store, config: Config, clock: FakeClock, tmp_path: Path
) -> None:
    """docs/tables.md: a club's table file is checked against its system and played with."""
    from test_club_tables import club as club_tables

    from pbem.pipeline.games import load_game
    from pbem.tablefile import tables_sha256

    kit = make_club(store, config, clock, tmp_path, 2, system="cca")
    good = tmp_path / "house.toml"
    good.write_text(club_tables(units__MI=("melee", "2")), encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text("system = 'cca'\n[units.MI]\nmelee = 'x'\n", encoding="utf-8")
    with pytest.raises(ClubError, match="tables: "):
        _set_rules(kit, tables=str(bad))
    _set_rules(kit, tables=str(good))

    def start(env: Env) -> str:
        club = clubs.get_club(env.session, CLUB)
        ref = clubs.resolve_scenario("cca-001-akragas")
        ctx = clubs.start_club_game(
            env,
            club,
            ref,
            {"north": kit.members[0].id, "south": kit.members[1].id},
            kind="friendly",
            joins=kit.signer(),
        )
        return ctx.id

    gid = str(_env(kit, start))
    with store.transaction() as s:
        ctx = load_game(s, gid)
        assert ctx is not None
        import hashlib

        sha = hashlib.sha256(good.read_bytes()).hexdigest()
        assert tables_sha256(ctx.system, ctx.state) == sha
