"""Seats and joins (issue 11): one single-use invite token per seat, mailed to its invitee;
every player's signed nonce collected before the first shuffle; a failed join says why."""

from __future__ import annotations

import re

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from pipeline_kit import GAME, NORTH, SOUTH, Kit, body_of, mail, make_kit, sign_text
from sqlmodel import col, select

from pbem import sshsig
from pbem.pipeline.games import DICE_LOG
from pbem.pipeline.joins import join_statement
from pbem.pipeline.timing import configure
from pbem.store import Event, GameStatus, InboxStatus, OutboxMessage, SeatJoin


def _one(kit: Kit, raw: bytes) -> tuple[str, str, list[OutboxMessage]]:
    before = kit.last_id()
    i = kit.deliver(raw)
    kit.process_all()
    row = kit.inbox(i)
    return row.status, row.outcome, kit.new_mail(before)


def _seat(kit: Kit, side: str) -> SeatJoin:
    with kit.store.transaction() as s:
        row = s.exec(
            select(SeatJoin).where(col(SeatJoin.game_id) == GAME).where(col(SeatJoin.side) == side)
        ).one()
        s.expunge(row)
        return row


@pytest.fixture
def invited(store, config, clock) -> Kit:
    """A toy game created with no keys: each seat has its own invite token."""
    configure(config, None)
    return make_kit(store, config, clock, keyed=False)


def test_each_invitee_is_mailed_the_token_of_their_own_seat(invited: Kit) -> None:
    tokens = invited.tokens
    assert set(tokens) == {"north", "south"} and tokens["north"] != tokens["south"]
    invites = {m.recipient: body_of(m) for m in invited.outbox()}
    assert set(invites) == {NORTH, SOUTH}
    assert tokens["north"] in invites[NORTH] and tokens["south"] not in invites[NORTH]
    assert tokens["south"] in invites[SOUTH] and tokens["north"] not in invites[SOUTH]
    # The referee committed to its dice before anyone joined, and says so.
    assert invited.game().dice_commitment in invites[NORTH]
    assert invited.game().status == GameStatus.SETUP


def test_a_token_takes_one_seat_for_one_key_and_a_second_use_is_refused(invited: Kit) -> None:
    first = join_statement(GAME, "north", token=invited.tokens["north"])
    status, outcome, out = _one(invited, mail(NORTH, first, key=invited.keys["north"]))
    assert status == InboxStatus.PROCESSED, outcome
    assert [m.recipient for m in out] == [NORTH]
    bound = _seat(invited, "north").key_fingerprint
    assert bound == sshsig.public_key_of(invited.keys["north"]).fingerprint()
    # The same token again, with another key (someone who read the invitation): refused.
    other = Ed25519PrivateKey.generate()
    again = join_statement(GAME, "north", token=invited.tokens["north"])
    status, outcome, out = _one(invited, mail(NORTH, again, key=other))
    assert status == InboxStatus.REFUSED and outcome.startswith("token-used"), outcome
    assert "already taken by key" in body_of(out[0]) and "works only once" in body_of(out[0])
    assert _seat(invited, "north").key_fingerprint == bound
    # Joining again with the same key (a new nonce) changes nothing, and says so.
    again = join_statement(GAME, "north", token=invited.tokens["north"])
    status, outcome, _ = _one(invited, mail(NORTH, again, key=invited.keys["north"]))
    assert status == InboxStatus.REFUSED and outcome.startswith("already-joined"), outcome


def test_one_seats_token_does_not_open_the_other_seat(invited: Kit) -> None:
    wrong = join_statement(GAME, "south", token=invited.tokens["north"])
    status, outcome, out = _one(invited, mail(SOUTH, wrong, key=invited.keys["south"]))
    assert status == InboxStatus.REFUSED and outcome.startswith("bad-token"), outcome
    assert "not the invite token of seat south" in body_of(out[0])
    assert _seat(invited, "south").key_fingerprint == ""


def test_a_stranger_with_a_token_takes_no_seat(invited: Kit) -> None:
    stolen = join_statement(GAME, "north", token=invited.tokens["north"])
    status, _, out = _one(invited, mail("eve@evil.test", stolen, key=Ed25519PrivateKey.generate()))
    assert status == InboxStatus.REFUSED
    assert [m.recipient for m in out] == ["eve@evil.test"] and GAME not in body_of(out[0])
    assert _seat(invited, "north").key_fingerprint == ""


@pytest.mark.parametrize(
    ("edit", "code", "said"),
    [
        (lambda t: re.sub(r"nonce: .*\n", "", t), "bad-nonce", "openssl rand -hex 32"),
        (lambda t: re.sub(r"nonce: \w+", "nonce: 12ab", t), "bad-nonce", "64 lowercase hex"),
        (lambda t: t.replace("token: ", "tokens: "), "no-token", "token: <your invite token>"),
        (lambda t: t.replace("side: north", "side: west"), "bad-side", "its seats are"),
        (lambda t: t + "nonce: " + "0" * 64 + "\n", "bad-join", "given twice"),
        (lambda t: t + "nonce " + "0" * 64 + "\n", "bad-join", "given twice"),  # old spelling
    ],
)
def test_a_bad_join_is_answered_with_its_real_reason(
    invited: Kit, edit: object, code: str, said: str
) -> None:
    text = edit(join_statement(GAME, "north", token=invited.tokens["north"]))  # type: ignore[operator]
    status, outcome, out = _one(invited, mail(NORTH, text, key=invited.keys["north"]))
    assert status == InboxStatus.REFUSED and outcome.startswith(code), outcome
    assert said in body_of(out[0]) and "Already joined" not in body_of(out[0])


def test_the_deck_is_dealt_only_once_every_nonce_is_in(invited: Kit) -> None:
    def shuffles() -> int:
        with invited.store.transaction() as s:
            return len(
                s.exec(
                    select(Event)
                    .where(col(Event.game_id) == GAME)
                    .where(col(Event.kind) == DICE_LOG)
                ).all()
            )

    assert shuffles() == 0  # created: committed, not dealt
    for side, who in (("north", NORTH), ("south", SOUTH)):
        # Orders before the start are refused with the reason.
        status, outcome, _ = _one(
            invited, mail(who, f"game {GAME}\ncommand resign\n", key=invited.keys[side])
        )
        assert status == InboxStatus.REFUSED
        text = join_statement(GAME, side, token=invited.tokens[side])
        status, outcome, out = _one(invited, mail(who, text, key=invited.keys[side]))
        assert status == InboxStatus.PROCESSED, outcome
    assert shuffles() == 1 and invited.game().status == GameStatus.ACTIVE
    # The second join started the game: the joined note and both game-start mails.
    assert {m.recipient for m in out} == {NORTH, SOUTH}


def test_a_join_after_the_start_says_the_game_has_started(store, config, clock) -> None:
    configure(config, None)
    kit = make_kit(store, config, clock)  # both keys, joins signed on the players' behalf
    assert kit.game().status == GameStatus.ACTIVE
    text = join_statement(GAME, "north")
    status, outcome, out = _one(kit, mail(NORTH, text, key=kit.keys["north"]))
    assert status == InboxStatus.REFUSED and outcome.startswith("already-started"), outcome
    assert "has already started" in body_of(out[0])


def _wrapped_join(kit: Kit, side: str, above: str, below: str = "") -> bytes:
    """A join signed by ``side``'s key with unsigned lines around it."""
    canon, sig = sign_text(join_statement(GAME, side, token=kit.tokens[side]), kit.keys[side])
    return mail(NORTH if side == "north" else SOUTH, above + canon + sig + below)


def test_a_join_wrapped_in_unsigned_lines_takes_the_seat_and_quotes_them(invited: Kit) -> None:
    # Issue 11: a join was refused outright when unsigned lines surrounded it, while
    # every other statement ignores them and says so.
    raw = _wrapped_join(
        invited, "north", above="Hello referee,\nside: south\n\n", below="\nThanks, Ann\n"
    )
    status, outcome, out = _one(invited, raw)
    assert status == InboxStatus.PROCESSED, outcome
    assert _seat(invited, "north").key_fingerprint  # the signed seat, not the unsigned one
    assert _seat(invited, "south").key_fingerprint == ""
    body = " ".join(body_of(out[0]).split())
    assert "You play north" in body
    assert "ignored: outside your signature" in body
    assert "> side: south" in body_of(out[0]) and "> Thanks, Ann" in body_of(out[0])


def test_a_refused_join_quotes_the_unsigned_lines_too(invited: Kit) -> None:
    canon, sig = sign_text(
        join_statement(GAME, "north", token="not-the-token"), invited.keys["north"]
    )
    raw = mail(NORTH, "command resign\n\n" + canon + sig)
    status, outcome, out = _one(invited, raw)
    assert status == InboxStatus.REFUSED and outcome.startswith("bad-token"), outcome
    assert 'ignored: outside your signature: "command resign"' in " ".join(body_of(out[0]).split())


def test_a_join_in_the_old_spelling_still_takes_the_seat(invited: Kit) -> None:
    # docs/signing.md: joins issued before the colon spelling stay valid.
    text = join_statement(GAME, "north", token=invited.tokens["north"]).replace(": ", " ")
    assert "nonce " in text and ":" not in text
    status, outcome, _ = _one(invited, mail(NORTH, text, key=invited.keys["north"]))
    assert status == InboxStatus.PROCESSED, outcome
    assert _seat(invited, "north").nonce in text


def test_pbem_prints_joins_in_the_documented_spelling() -> None:
    text = join_statement(GAME, "north", token="Zq1v7-3xPq0aB2Cd")
    assert [line.split(" ", 1)[0] for line in text.splitlines()] == [
        "game:", "command:", "side:", "token:", "nonce:"
    ]  # fmt: skip
