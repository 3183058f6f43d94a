"""The bot by mail (issue 19): a whole game against it, and the autopilot at a deadline.

Loopback only: mails are stored and processed in-process, the clock is a
FakeClock, and the bot plays when the deadline sweep finds its seat due.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from pipeline_kit import (
    GAME,
    NORTH,
    SOUTH,
    Kit,
    body_of,
    command,
    mail,
    make_kit,
    orders,
    second_game,
)
from sqlmodel import col, select

from engine.bot.draws import answer_draw
from engine.toy import SYSTEM
from pbem import sshsig
from pbem.audit import check_record, parse_record
from pbem.audit_schema import AuditMismatch
from pbem.deadlines import sweep
from pbem.mailin.accept import store_message
from pbem.pipeline import bots
from pbem.pipeline.admin import audit_record, create_and_start
from pbem.pipeline.bots import bot_join, bot_seat
from pbem.pipeline.games import NewSeat
from pbem.pipeline.joins import sign_joins
from pbem.pipeline.processor import Processor
from pbem.pipeline.settings import GameOptions, GameSettings
from pbem.pipeline.systems import register_system
from pbem.pipeline.timing import configure, fire_deadline
from pbem.server_key import ServerKey
from pbem.store import Event, Game, GameStatus

ROOT = Path(__file__).resolve().parent.parent
OTHER = "race-2"
CID = "cid@north.test"
H = timedelta(hours=1)


def _bot_game(store: Any, config: Any, clock: Any) -> tuple[Kit, ServerKey]:
    """A toy race: Ann (north, her own key) against the bot at level 1 (south)."""
    register_system(SYSTEM)
    server_key = ServerKey.load_or_create(config.server_key_path)
    configure(config, server_key)
    keys = {"north": Ed25519PrivateKey.generate()}
    seats = [
        NewSeat("north", "Ann", NORTH, sshsig.public_key_of(keys["north"]), "Europe/Paris"),
        bot_seat("south", 1, server_key),
    ]
    ctx = create_and_start(
        store,
        config,
        clock,
        game_id=GAME,
        system_name="toy",
        scenario_id="toy-race",
        scenario_text='first = "north"\n',
        seats=seats,
        settings=GameSettings(turn_time=48 * H, bots=(("south", 1),)),
        server_key=server_key,
        joins={**sign_joins(GAME, keys), "south": bot_join(GAME, "south", server_key)},
    )
    assert ctx.game.status == GameStatus.ACTIVE
    processor = Processor(config, store, clock, server_key=server_key)
    return Kit(store, config, clock, keys, processor), server_key


def _ann_acts(kit: Kit) -> None:
    st = kit.state()
    if st["pending"] is not None:
        text = f"game {GAME}\nturn {st['turn']}\nside north\n"
        text += f"question: {st['pending']['id']}\nstate: {kit.game().state_version}\n"
        text += "answer block\n"
    else:
        text = orders(kit, "north", max(st["hands"]["north"]))
    status, outcome, _ = kit.send(mail(NORTH, text, key=kit.keys["north"]))
    assert status == "processed", outcome


def _verify(tmp_path: Path, record: dict[str, Any]) -> str:
    path = tmp_path / "GAME_AUDIT.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    outs = []
    for script in (ROOT / "verify_dice.py", ROOT / "tests" / "independent_verifier" / "verify.py"):
        proc = subprocess.run(
            [sys.executable, "-I", str(script), str(path)],
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
        outs.append(proc.stdout.strip() + proc.stderr.strip())
    return "\n".join(outs)


def test_a_whole_game_against_the_bot_by_mail_audits_like_any_other(
    store: Any, config: Any, clock: Any, tmp_path: Path
) -> None:
    kit, server_key = _bot_game(store, config, clock)
    bot_turns = 0
    for _ in range(60):
        if kit.game().status != GameStatus.ACTIVE:
            break
        side = kit.state()["pending"]["side"] if kit.state()["pending"] else kit.state()["to_move"]
        if side == "north":
            _ann_acts(kit)
        else:
            bot_turns += sweep(kit.store, clock, fire_deadline).bots
    assert kit.game().status == GameStatus.FINISHED
    assert bot_turns >= 2
    mails = kit.outbox()
    assert mails and all(m.recipient == NORTH for m in mails)  # nothing is mailed to the bot
    turn_mails = [body_of(m) for m in mails if m.kind == "turn"]
    assert any("south (bot:1): south plays card" in " ".join(b.split()) for b in turn_mails)

    with kit.store.transaction() as s:
        accepted = [
            json.loads(e.payload_json)
            for e in s.exec(select(Event).where(col(Event.kind) == "pbem.accepted")).all()
        ]
    by_bot = [a for a in accepted if a["side"] == "south"]
    assert by_bot and all(a["source"] == "bot:1" and a["signed"] for a in by_bot)

    record = json.loads(json.dumps(audit_record(kit.store, GAME, server_key)))
    summary = check_record(parse_record(record))
    assert summary.orders == len(accepted)  # every epoch's orders signed, the bot's too
    assert all(e["orders"] is not None for e in record["epochs"])
    said = _verify(tmp_path, record)
    assert said.splitlines()[0] == summary.describe()
    assert said.splitlines()[1].startswith("OK")


def test_the_bot_seat_cannot_be_spoofed_by_a_mail_from_its_address(
    store: Any, config: Any, clock: Any
) -> None:
    kit, _ = _bot_game(store, config, clock)
    _ann_acts(kit)  # now south (the bot) must act
    forged = mail("bot-1@bot.invalid", orders(kit, "south"), key=Ed25519PrivateKey.generate())
    status, _, _ = kit.send(forged)
    assert status != "processed"
    assert kit.game().epoch == 1  # only Ann's orders were resolved


@pytest.fixture
def autopilot_kit(store: Any, config: Any, clock: Any) -> Kit:
    configure(config, ServerKey.load_or_create(config.server_key_path))
    settings = GameSettings(
        turn_time=48 * H, reminders=(), missed_turn="autopilot", autopilot_level=1
    )
    return make_kit(store, config, clock, settings)


def test_the_autopilot_plays_a_missed_turn_and_says_so(
    autopilot_kit: Kit, clock: Any, tmp_path: Path
) -> None:
    kit = autopilot_kit
    kit.set_hand("north", ["2", "3", "4"])
    before = kit.last_id()
    clock.advance(48 * H)
    report = sweep(kit.store, clock, fire_deadline)
    assert report.defaults == 1 and report.missed == 0
    assert kit.game().epoch == 1 and kit.state()["to_move"] == "south"
    new = kit.new_mail(before)
    missed = [body_of(m) for m in new if m.kind == "missed"]
    assert sorted(m.recipient for m in new if m.kind == "missed") == [NORTH, SOUTH]
    assert "the autopilot (bot level 1) played turn 1 for north" in " ".join(missed[0].split())
    assert "command autopilot off" in " ".join(missed[0].split())
    turn = " ".join(body_of(next(m for m in new if m.kind == "turn")).split())
    assert "the autopilot (bot:1) played the turn: north plays card" in turn
    with kit.store.transaction() as s:
        [acc] = [
            json.loads(e.payload_json)
            for e in s.exec(select(Event).where(col(Event.kind) == "pbem.accepted")).all()
        ]
    assert acc["source"] == "autopilot bot:1" and acc["signed"] is None
    assert "# played by the autopilot (bot:1) at the deadline" in acc["orders"]
    server_key = ServerKey.load_or_create(kit.config.server_key_path)
    record = json.loads(json.dumps(audit_record(kit.store, GAME, server_key)))
    [epoch] = record["epochs"]
    assert epoch["orders"] is None and epoch["autopilot"]["text"] == acc["orders"]
    assert check_record(parse_record(record)).epochs == 1
    assert all(v.startswith("OK") for v in _verify(tmp_path, record).splitlines())
    record["epochs"][0]["autopilot"]["text"] = acc["orders"].replace("card", "card ")
    with pytest.raises(AuditMismatch, match="autopilot's orders do not hash"):
        check_record(parse_record(record))
    verdicts = _verify(tmp_path, record).splitlines()
    assert (
        verdicts[0] == "FAIL epoch 1: the autopilot's orders do not hash to the epoch's orders hash"
    )
    assert verdicts[1] == "BAD Bad: epoch 1: autopilot orders hash"  # the independent verifier


def test_a_player_turns_the_autopilot_off_for_himself(autopilot_kit: Kit, clock: Any) -> None:
    kit = autopilot_kit
    status, outcome, _ = kit.send(mail(NORTH, command("autopilot off"), key=kit.keys["north"]))
    assert status == "processed", outcome
    assert GameOptions.loads(kit.game().options_json).runtime.autopilot_off == ("north",)
    clock.advance(48 * H)
    report = sweep(kit.store, clock, fire_deadline)
    assert (report.missed, report.defaults) == (1, 0)  # the referee waits instead
    assert kit.game().epoch == 0
    status, outcome, _ = kit.send(mail(NORTH, command("autopilot on"), key=kit.keys["north"]))
    assert status == "processed", outcome
    clock.advance(48 * H)
    assert sweep(kit.store, clock, fire_deadline).defaults == 1
    status, _, _ = kit.send(mail(SOUTH, command("autopilot maybe"), key=kit.keys["south"]))
    assert status != "processed"


def _set_pos(kit: Kit, north: int, south: int) -> None:
    """Test set-up: put the racers at these squares (the bot rates its race from them)."""
    with kit.store.transaction() as s:
        g = s.get(Game, GAME)
        assert g is not None
        st = SYSTEM.from_json(g.state_json)
        st["pos"] = {"north": north, "south": south}
        g.state_json = SYSTEM.to_json(st)
        s.add(g)


def test_the_bot_answers_a_draw_offer_by_its_rating_signed_with_the_server_key(
    store: Any, config: Any, clock: Any
) -> None:
    kit, server_key = _bot_game(store, config, clock)
    # Level with Ann: a draw is worth no more than its chances, so it plays on.
    before = kit.last_id()
    status, outcome, _ = kit.send(mail(NORTH, command("draw propose"), key=kit.keys["north"]))
    assert status == "processed" and outcome == "draw declined", outcome
    [told] = [m for m in kit.new_mail(before) if m.recipient == NORTH]
    said = " ".join(body_of(told).split())
    assert "south (bot:1) declined the draw: south rates its position 50%" in said
    assert kit.game().status == GameStatus.ACTIVE
    assert GameOptions.loads(kit.game().options_json).runtime.draw_offer is None
    # Far behind Ann: it takes the draw, and the game ends drawn.
    _set_pos(kit, 9, 1)
    status, outcome, _ = kit.send(mail(NORTH, command("draw propose"), key=kit.keys["north"]))
    assert status == "processed" and outcome == "draw agreed", outcome
    assert kit.game().status == GameStatus.FINISHED
    end = " ".join(body_of(kit.outbox()[-1]).split())
    assert "Result: draw (draw agreed; south (bot:1): south rates its position" in end
    with kit.store.transaction() as s:
        answers = [
            json.loads(e.payload_json)
            for e in s.exec(select(Event).where(col(Event.kind) == "pbem.bot-draw")).all()
        ]
    assert [a["answer"] for a in answers] == ["decline", "accept"]
    for a in answers:  # each answer is a statement signed with the server's key
        assert f"game: {GAME}\n" in a["text"] and f"command draw {a['answer']}\n" in a["text"]
        sshsig.verify(
            a["text"].encode(), a["signature"], server_key.public_key, namespace="pbem-orders"
        )


def test_the_bot_answers_a_draw_offer_the_same_way_from_the_same_view() -> None:
    state = SYSTEM.new_game(SYSTEM.load_position('first = "north"\n'))
    behind = {**state, "pos": {"north": 9, "south": 1}}
    assert answer_draw(SYSTEM, behind, "south").accept
    assert not answer_draw(SYSTEM, behind, "north").accept
    assert answer_draw(SYSTEM, behind, "south") == answer_draw(SYSTEM, behind, "south")


def _game(kit: Kit, game_id: str) -> Game:
    with kit.store.transaction() as s:
        g = s.get(Game, game_id)
        assert g is not None
        return g


def _while_thinking(monkeypatch: pytest.MonkeyPatch, meanwhile: Callable[[Any], None]) -> list[Any]:
    """Run ``meanwhile(state)`` each time the bot searches (before it does); the states."""
    think = bots.decide
    states: list[Any] = []

    def thinking(system: Any, state: Any, *rest: Any) -> Any:
        states.append(state)
        meanwhile(state)
        return think(system, state, *rest)

    monkeypatch.setattr(bots, "decide", thinking)
    return states


def _ann_commands(kit: Kit, words: str) -> Callable[[Any], None]:
    """Ann mails the signed ``command <words>`` (while the bot thinks)."""

    def send(_: Any) -> None:
        status, outcome, _ = kit.send(mail(NORTH, command(words), key=kit.keys["north"]))
        assert status == "processed", outcome

    return send


def cid_orders(kit: Kit, cid: dict[str, Any]) -> int:
    """Cid's signed orders for the other game (:func:`second_game`), received now; the
    inbox id."""
    hand = SYSTEM.from_json(_game(kit, OTHER).state_json)["hands"]["north"]
    raw = mail(
        CID,
        f"game {OTHER}\nturn 1\nside north\ncard {hand[0]}\n",
        key=cid["north"],
        subject=f"[{OTHER}] orders",
        to=f"pbem+{OTHER}@game.test",
    )
    to = [f"pbem+{OTHER}@game.test"]
    return store_message(kit.store, raw, source="smtp", clock=kit.clock, envelope_to=to).inbox_id


def test_another_games_mail_is_processed_while_the_bot_thinks(
    store: Any, config: Any, clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit, _ = _bot_game(store, config, clock)
    cid = second_game(kit, OTHER, CID)
    _ann_acts(kit)  # the bot (south) must act now: its deadline is due
    seen: list[str] = []

    def cid_plays(_: Any) -> None:
        # While the bot searches, Cid's orders for the other game arrive and are
        # resolved: no transaction of the sweep holds the database meanwhile.
        i = cid_orders(kit, cid)
        kit.processor.process(i)
        seen.append(kit.inbox(i).status)

    _while_thinking(monkeypatch, cid_plays)
    report = sweep(kit.store, clock, fire_deadline)
    assert seen == ["processed"]
    assert _game(kit, OTHER).epoch == 1  # Cid's turn was resolved while the bot thought
    assert report.bots == 1 and kit.game().epoch == 2  # then the bot's turn was played


def test_a_bot_decision_is_dropped_when_the_game_moved_while_it_thought(
    store: Any, config: Any, clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit, _ = _bot_game(store, config, clock)
    _ann_acts(kit)
    _while_thinking(monkeypatch, _ann_commands(kit, "resign"))
    report = sweep(kit.store, clock, fire_deadline)
    assert report.bots == 0  # its move is not played on a finished game
    assert kit.game().status == GameStatus.FINISHED and kit.game().epoch == 1


def test_the_autopilot_checks_again_after_thinking_and_waits_if_turned_off_meanwhile(
    autopilot_kit: Kit, clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit = autopilot_kit
    clock.advance(48 * H)
    states = _while_thinking(monkeypatch, _ann_commands(kit, "autopilot off"))
    report = sweep(kit.store, clock, fire_deadline)
    assert len(states) == 1
    assert (report.defaults, report.missed) == (0, 1)  # not played: the referee waits
    assert kit.game().epoch == 0


def test_the_bot_thinks_again_when_its_game_changed_under_the_same_state_version(
    store: Any, config: Any, clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit, _ = _bot_game(store, config, clock)
    _ann_acts(kit)

    def hand_changes(state: Any) -> None:
        if state["hands"]["south"] != ["6", "6", "6"]:  # changed, same state version
            kit.set_hand("south", ["6", "6", "6"])

    states = _while_thinking(monkeypatch, hand_changes)
    report = sweep(kit.store, clock, fire_deadline)
    assert report.bots == 1 and len(states) == 2
    assert states[1]["hands"]["south"] == ["6", "6", "6"]  # played from the game as it is


def test_the_autopilots_turns_are_counted_apart_from_the_players_own(
    autopilot_kit: Kit, clock: Any
) -> None:
    """The autopilot's line tells who played, but is no engine event; the end mail counts
    the epochs it played, and a side's dice-fairness counts only its own orders' dice."""
    from pbem.archive.collect import game_info, game_steps, game_tally
    from pbem.pipeline.systems import resolve_system

    kit = autopilot_kit
    kit.set_hand("north", ["2", "3", "4"])
    clock.advance(48 * H)
    sweep(kit.store, clock, fire_deadline)  # north missed turn 1: the autopilot plays it
    status, outcome, _ = kit.send(mail(SOUTH, orders(kit, "south"), key=kit.keys["south"]))
    assert status == "processed", outcome
    before = kit.last_id()
    status, outcome, _ = kit.send(mail(NORTH, command("resign"), key=kit.keys["north"]))
    assert status == "processed", outcome
    end = " ".join(body_of(next(m for m in kit.new_mail(before) if m.kind == "end")).split())
    assert "2 epochs (1 played by the autopilot), 2 dice rolled" in end

    with kit.store.transaction() as s:
        info = game_info(s, GAME)
        assert info is not None
        steps = game_steps(s, info)
    first, second = steps
    assert [t["kind"] for t in first.told] == ["autopilot"] and not first.own_orders
    assert "autopilot" not in [e["kind"] for e in first.events]  # only the engine's events
    assert [e["kind"] for e in first.events] == ["play", "move"]
    assert second.told == () and second.own_orders
    whole, sides = game_tally(resolve_system("toy"), steps)
    assert sum(whole.counts["d6"].values()) == 2  # the game's dice: both epochs'
    assert sum(sides["north"].counts.get("d6", {}).values()) == 0  # not the autopilot's die
    assert sum(sides["south"].counts["d6"].values()) == 1
