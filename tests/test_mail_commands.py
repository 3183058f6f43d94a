"""Commands by mail (docs/mail-commands.md): help, status, standing, answer, resign, draw,
absence, timezone, join."""

from __future__ import annotations

from datetime import timedelta

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from pipeline_kit import GAME, NORTH, SOUTH, Kit, answer, body_of, command, mail, make_kit

from pbem.pipeline.games import load_game
from pbem.pipeline.timing import configure
from pbem.store import Game, GameStatus, InboxStatus


@pytest.fixture
def kit(store, config, clock) -> Kit:
    configure(config, None)
    return make_kit(store, config, clock)


def _one(kit: Kit, raw: bytes) -> tuple[str, str, list]:
    return kit.send(raw)


def test_help_and_status_need_no_signature(kit: Kit) -> None:
    status, _, out = _one(kit, mail(SOUTH, "command help\n"))
    assert status == InboxStatus.PROCESSED
    assert [m.recipient for m in out] == [SOUTH]
    assert "command resign" in body_of(out[0])
    status, _, out = _one(kit, mail(SOUTH, "", subject=f"[{GAME}] status"))
    assert status == InboxStatus.PROCESSED
    hand = kit.state()["hands"]["south"]
    assert all(c in body_of(out[0]) for c in hand)
    assert [m.recipient for m in out] == [SOUTH]


def test_state_changing_commands_must_be_signed_and_name_the_game(kit: Kit) -> None:
    status, outcome, _ = _one(kit, mail(NORTH, f"game {GAME}\ncommand resign\n"))
    assert status == InboxStatus.REFUSED and "unsigned" in outcome
    status, outcome, _ = _one(kit, mail(NORTH, "command resign\n", key=kit.keys["north"]))
    assert status == InboxStatus.REFUSED and "game" in outcome
    assert kit.game().status == GameStatus.ACTIVE


def test_resign_ends_the_game_for_the_opponent(kit: Kit) -> None:
    status, _, out = _one(kit, mail(NORTH, command("resign"), key=kit.keys["north"]))
    assert status == InboxStatus.PROCESSED
    assert kit.game().status == GameStatus.FINISHED
    assert sorted(m.recipient for m in out) == [NORTH, SOUTH]
    assert all("south" in body_of(m) for m in out)


def test_standing_orders_change_and_bad_lines_are_quoted(kit: Kit) -> None:
    text = command("standing") + "block: always\n"
    status, _, _ = _one(kit, mail(SOUTH, text, key=kit.keys["south"]))
    assert status == InboxStatus.PROCESSED
    assert "block: always" in kit.state()["sides"]["south"]["standing"]
    bad = command("standing") + "block: sometimes\n"
    status, outcome, out = _one(kit, mail(SOUTH, bad, key=kit.keys["south"]))
    assert status == InboxStatus.REFUSED
    assert "block: sometimes" in body_of(out[0])
    # The same signed command again changes nothing.
    status, outcome, _ = _one(kit, mail(SOUTH, text, key=kit.keys["south"], subject="again"))
    assert status == InboxStatus.REFUSED and "duplicate" in outcome


def test_answer_command(kit: Kit) -> None:
    kit.set_hand("north", ["9", "2", "3"])
    _one(kit, mail(NORTH, f"game {GAME}\nturn 1\nside north\ncard 9\n", key=kit.keys["north"]))
    text = answer(kit, "south", "allow", command_line=True)
    status, outcome, _ = _one(kit, mail(SOUTH, text, key=kit.keys["south"]))
    assert status == InboxStatus.PROCESSED, outcome
    assert kit.game().epoch == 2 and kit.state()["pending"] is None


def test_draw_propose_then_accept(kit: Kit) -> None:
    status, _, out = _one(kit, mail(NORTH, command("draw propose"), key=kit.keys["north"]))
    assert status == InboxStatus.PROCESSED
    assert sorted(m.recipient for m in out) == [NORTH, SOUTH]
    status, _, _ = _one(kit, mail(NORTH, command("draw accept"), key=kit.keys["north"]))
    assert status == InboxStatus.REFUSED  # one cannot accept one's own offer
    status, _, _ = _one(kit, mail(SOUTH, command("draw accept"), key=kit.keys["south"]))
    assert status == InboxStatus.PROCESSED
    assert kit.game().status == GameStatus.FINISHED


def test_absence_pushes_the_pending_deadline_back(kit: Kit, clock) -> None:
    due = kit.turn_due
    first = due()
    # Ann (Europe/Paris) is away on 2 January, a whole day in her time zone.
    text = command("absence 2026-01-02 2026-01-02 family")
    status, outcome, out = _one(kit, mail(NORTH, text, key=kit.keys["north"]))
    assert status == InboxStatus.PROCESSED, outcome
    assert due() - first == timedelta(hours=24)
    assert "moved" in body_of(out[0])


def test_timezone(kit: Kit) -> None:
    text = command("timezone America/New_York")
    status, _, out = _one(kit, mail(SOUTH, text, key=kit.keys["south"]))
    assert status == InboxStatus.PROCESSED
    assert "America/New_York" in body_of(out[0])
    status, _, _ = _one(kit, mail(SOUTH, command("timezone Mars/Olympus"), key=kit.keys["south"]))
    assert status == InboxStatus.REFUSED


def test_unknown_command_lists_the_commands(kit: Kit) -> None:
    status, _, out = _one(kit, mail(SOUTH, f"game {GAME}\ncommand dance\n"))
    assert status == InboxStatus.REFUSED
    assert "resign" in body_of(out[0])


def test_join_with_invite_token_then_game_starts(store, config, clock) -> None:
    configure(config, None)
    kit = make_kit(store, config, clock, keyed=False)
    with store.transaction() as s:
        ctx = load_game(s, GAME)
        assert ctx is not None
        token = ctx.options.settings.invite_token
    assert token and kit.game().status == GameStatus.SETUP
    # A wrong token from a stranger gets only the generic note.
    status, _, out = _one(
        kit,
        mail(
            "eve@evil.test",
            f"game {GAME}\ncommand join\ntoken nope\n",
            key=Ed25519PrivateKey.generate(),
        ),
    )
    assert status == InboxStatus.REFUSED and GAME not in body_of(out[0])
    for side, who in (("north", NORTH), ("south", SOUTH)):
        text = f"game {GAME}\ncommand join\ntoken {token}\nside {side}\n"
        status, outcome, out = _one(kit, mail(who, text, key=kit.keys[side]))
        assert status == InboxStatus.PROCESSED, outcome
    with store.transaction() as s:
        assert s.get(Game, GAME).status == GameStatus.ACTIVE  # type: ignore[union-attr]
    # The game-start mails went out after the second join.
    assert {m.recipient for m in out} == {NORTH, SOUTH}
