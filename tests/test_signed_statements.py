"""Act only on signed text; every signed statement says what it is and where it belongs.

Issue 11 ("commands taken from text nobody signed"), docs/signing.md ("What
you sign") and docs/security.md. Every case goes through the real entry point
(``store_message`` then the pipeline's ``Processor``) on a started toy game.
"""

from __future__ import annotations

import pytest
from pipeline_kit import (
    GAME,
    NORTH,
    SOUTH,
    Kit,
    answer,
    body_of,
    command,
    make_kit,
    orders,
    sign_text,
)
from pipeline_kit import mail as make_mail
from sqlmodel import col, func, select

from pbem.pipeline.timing import configure
from pbem.statements import CHECK_NAMESPACE, StatementError, parse_statement
from pbem.store import Absence, GameStatus, InboxStatus, OutboxMessage, SignedStatement


@pytest.fixture
def kit(store, config, clock) -> Kit:  # type: ignore[no-untyped-def]
    configure(config, None)
    return make_kit(store, config, clock)


def _send(kit: Kit, raw: bytes) -> tuple[str, str, list[OutboxMessage]]:
    return kit.send(raw)


def _wrapped(kit: Kit, side: str, signed: str, above: str = "", below: str = "", **kw) -> bytes:  # type: ignore[no-untyped-def]
    """A mail whose body is ``above`` (unsigned), ``signed`` + its block, then ``below``."""
    ns = kw.pop("namespace", None)
    canon, block = sign_text(signed, kit.keys[side], *([ns] if ns else []))
    body = above + canon + block + below
    return make_mail(NORTH if side == "north" else SOUTH, body, **kw)


def _quoting(out: list[OutboxMessage]) -> list[OutboxMessage]:
    """The replies that quote ignored lines (a note of its own, or an acknowledgement)."""
    return [m for m in out if m.kind in ("ignored", "accepted") and "outside your" in body_of(m)]


def _absences(kit: Kit) -> int:
    with kit.store.transaction() as s:
        return int(s.exec(select(func.count()).select_from(Absence)).one())


@pytest.mark.parametrize(
    "unsigned",
    [
        "command resign\n",
        "command draw propose\n",
        f"game {GAME}\ncommand absence 2026-01-02 2026-02-27\n",
    ],
)
def test_unsigned_lines_above_signed_orders_are_never_acted_on(kit: Kit, unsigned: str) -> None:
    raw = _wrapped(kit, "north", orders(kit, "north"), above=unsigned + "\n")
    status, outcome, out = _send(kit, raw)
    # The signed orders (and only they) were acted on.
    assert status == InboxStatus.PROCESSED, outcome
    assert "orders of north" in outcome
    assert kit.game().status == GameStatus.ACTIVE
    assert kit.game().epoch == 1
    assert _absences(kit) == 0
    with kit.store.transaction() as s:
        g = s.get(type(kit.game()), GAME)
        assert g is not None and "north" not in g.options_json.split('"draw_offer"')[1][:12]
    notes = _quoting(out)
    assert [m.recipient for m in notes] == [NORTH]
    text = " ".join(body_of(notes[0]).split())
    assert "ignored: outside your signature" in text
    assert unsigned.splitlines()[-1] in text


def test_unsigned_command_below_the_signature_is_ignored_and_said(kit: Kit) -> None:
    raw = _wrapped(kit, "north", orders(kit, "north"), below="\ncommand resign\nAnn\n")
    status, outcome, out = _send(kit, raw)
    assert status == InboxStatus.PROCESSED, outcome
    assert kit.game().status == GameStatus.ACTIVE
    text = body_of(_quoting(out)[0])
    assert "> command resign" in text and "> Ann" in text


def test_a_signed_command_is_carried_out_and_the_unsigned_greeting_quoted(kit: Kit) -> None:
    raw = _wrapped(kit, "north", command("resign"), above="Hi Bob, sorry!\n\n")
    status, outcome, out = _send(kit, raw)
    assert status == InboxStatus.PROCESSED and "resigned" in outcome
    assert kit.game().status == GameStatus.FINISHED
    note = _quoting(out)[0]
    assert note.recipient == NORTH and "> Hi Bob, sorry!" in body_of(note)


def test_a_refusal_quotes_the_unsigned_lines_too(kit: Kit) -> None:
    raw = _wrapped(kit, "north", orders(kit, "north", turn=9), above="command resign\n\n")
    status, outcome, out = _send(kit, raw)
    assert status == InboxStatus.REFUSED and "wrong-turn" in outcome
    body = " ".join(body_of(out[0]).split())
    assert 'ignored: outside your signature: "command resign"' in body
    assert kit.game().status == GameStatus.ACTIVE


def test_a_signed_check_draft_wrapped_in_unsigned_lines_never_becomes_orders(kit: Kit) -> None:
    draft = orders(kit, "north") + "command check\n"
    for above in ("command answer\n\n", "", f"game {GAME}\nturn 1\n\n"):
        raw = _wrapped(kit, "north", draft, above=above, namespace=CHECK_NAMESPACE)
        status, outcome, _ = _send(kit, raw)
        assert status == InboxStatus.PROCESSED and outcome.startswith("check north"), outcome
        assert kit.game().epoch == 0
    # A pbem-check signature over plain orders (no command line) is still a draft only.
    raw = _wrapped(kit, "north", orders(kit, "north"), namespace=CHECK_NAMESPACE)
    status, outcome, _ = _send(kit, raw)
    assert outcome.startswith("check north") and kit.game().epoch == 0


def test_a_check_draft_signed_as_orders_is_refused_not_played(kit: Kit) -> None:
    draft = orders(kit, "north") + "command check\n"
    status, outcome, out = _send(kit, _wrapped(kit, "north", draft, above="command answer\n\n"))
    assert status == InboxStatus.REFUSED and "wrong-namespace" in outcome
    assert "pbem-check" in body_of(out[0])
    assert kit.game().epoch == 0


def test_signed_text_is_taken_whole_no_command_line_is_stripped(kit: Kit) -> None:
    kit.set_hand("north", ["9", "2", "3"])
    _send(kit, make_mail(NORTH, orders(kit, "north", "9"), key=kit.keys["north"]))
    assert kit.state()["pending"]["side"] == "south"
    # An answer that also holds a second command is one statement with two meanings: refused.
    text = answer(kit, "south", "allow", command_line=True) + "command resign\n"
    status, outcome, _ = _send(kit, make_mail(SOUTH, text, key=kit.keys["south"]))
    assert status == InboxStatus.REFUSED and "duplicate-header" in outcome
    assert kit.game().status == GameStatus.ACTIVE and kit.game().epoch == 1


def test_answers_are_bound_to_question_and_state(kit: Kit) -> None:
    kit.set_hand("north", ["9", "8", "3"])
    _send(kit, make_mail(NORTH, orders(kit, "north", "9"), key=kit.keys["north"]))
    assert kit.state()["pending"]["side"] == "south"
    good = answer(kit, "south", "allow")
    # No question/state lines: refused with the lines to copy.
    bare = f"game {GAME}\nturn 1\nside south\nanswer allow\n"
    status, outcome, out = _send(kit, make_mail(SOUTH, bare, key=kit.keys["south"]))
    assert status == InboxStatus.REFUSED and "unbound-answer" in outcome
    assert "question: block-1" in body_of(out[0])
    # Another question's id, or an old state version: refused, naming what is expected.
    other = good.replace("question: block-1", "question: block-0")
    status, outcome, _ = _send(kit, make_mail(SOUTH, other, key=kit.keys["south"]))
    assert "wrong-question" in outcome
    version = kit.game().state_version
    old = good.replace(f"state: {version}", f"state: {version - 1}")
    status, outcome, _ = _send(kit, make_mail(SOUTH, old, key=kit.keys["south"]))
    assert "stale" in outcome
    assert kit.game().epoch == 1
    status, outcome, _ = _send(kit, make_mail(SOUTH, good, key=kit.keys["south"]))
    assert status == InboxStatus.PROCESSED, outcome
    assert kit.game().epoch == 2
    # The same answer once the question is settled: a duplicate; and a fresh signature of
    # it (a later question of the same shape would need a new id and state) is stale.
    status, outcome, _ = _send(kit, make_mail(SOUTH, good, key=kit.keys["south"], subject="x"))
    assert status == InboxStatus.REFUSED and "duplicate" in outcome
    again = good + "# resent\n"
    status, outcome, _ = _send(kit, make_mail(SOUTH, again, key=kit.keys["south"]))
    assert status == InboxStatus.REFUSED and "stale" in outcome


def test_the_answer_template_mailed_out_carries_the_binding(kit: Kit) -> None:
    kit.set_hand("north", ["9", "8", "3"])
    _, _, out = _send(kit, make_mail(NORTH, orders(kit, "north", "9"), key=kit.keys["north"]))
    to_south = [m for m in out if m.recipient == SOUTH]
    text = body_of(to_south[0])
    version = kit.game().state_version
    assert "question: block-1" in text and f"state: {version}" in text


def test_the_replay_cache_keys_on_the_signer(kit: Kit) -> None:
    # Both players sign the very same words: two statements, both carried out.
    same = command("timezone UTC", nonce="same-words-2026")
    status, outcome, _ = _send(kit, make_mail(NORTH, same, key=kit.keys["north"]))
    assert status == InboxStatus.PROCESSED, outcome
    status, outcome, _ = _send(kit, make_mail(SOUTH, same, key=kit.keys["south"]))
    assert status == InboxStatus.PROCESSED, outcome
    # The same signed statement again, from its signer: refused.
    status, outcome, _ = _send(kit, make_mail(SOUTH, same, key=kit.keys["south"], subject="re"))
    assert status == InboxStatus.REFUSED and "duplicate" in outcome
    with kit.store.transaction() as s:
        rows = s.exec(select(SignedStatement).order_by(col(SignedStatement.id))).all()
    assert {r.signer for r in rows} == {
        kit.pub("north").fingerprint(),
        kit.pub("south").fingerprint(),
    }
    assert len({r.digest for r in rows}) == 1


def test_orders_enter_the_same_replay_cache(kit: Kit) -> None:
    text = orders(kit, "north")
    status, outcome, _ = _send(kit, make_mail(NORTH, text, key=kit.keys["north"]))
    assert status == InboxStatus.PROCESSED, outcome
    status, outcome, _ = _send(kit, make_mail(NORTH, text, key=kit.keys["north"], subject="re"))
    assert status == InboxStatus.REFUSED and "duplicate" in outcome
    with kit.store.transaction() as s:
        kinds = s.exec(select(SignedStatement.kind)).all()
    assert kinds == ["orders"]


def test_a_command_needs_a_fresh_nonce(kit: Kit) -> None:
    bare = f"game {GAME}\ncommand timezone UTC\n"
    status, outcome, out = _send(kit, make_mail(NORTH, bare, key=kit.keys["north"]))
    assert status == InboxStatus.REFUSED and "no-nonce" in outcome
    assert "nonce: " in body_of(out[0])
    first = command("timezone UTC", nonce="my-word-0001")
    status, outcome, _ = _send(kit, make_mail(NORTH, first, key=kit.keys["north"]))
    assert status == InboxStatus.PROCESSED, outcome
    reuse = command("timezone Europe/Paris", nonce="my-word-0001")
    status, outcome, _ = _send(kit, make_mail(NORTH, reuse, key=kit.keys["north"]))
    assert status == InboxStatus.REFUSED and "nonce-used" in outcome


def test_a_command_for_another_game_is_refused(kit: Kit) -> None:
    text = command("resign", game="other-game")
    status, outcome, _ = _send(kit, make_mail(NORTH, text, key=kit.keys["north"]))
    assert status == InboxStatus.REFUSED and "wrong-game" in outcome
    assert kit.game().status == GameStatus.ACTIVE


@pytest.mark.parametrize(
    ("turn", "code"),
    [("¹", "bad-header"), ("①", "bad-header"), ("٣", "bad-header"), ("9" * 5000, "bad-header")],
)
def test_odd_turn_numbers_are_refused_with_a_reason(kit: Kit, turn: str, code: str) -> None:
    text = f"game {GAME}\nturn {turn}\nside north\ncard {kit.state()['hands']['north'][0]}\n"
    status, outcome, out = _send(kit, make_mail(NORTH, text, key=kit.keys["north"]))
    assert status == InboxStatus.REFUSED and code in outcome
    assert "ASCII digits" in body_of(out[0])


def test_a_header_key_given_twice_refuses_the_statement(kit: Kit) -> None:
    text = orders(kit, "north") + "game other-game\n"
    status, outcome, _ = _send(kit, make_mail(NORTH, text, key=kit.keys["north"]))
    assert status == InboxStatus.REFUSED and "duplicate-header" in outcome
    assert kit.game().epoch == 0


def test_parse_statement_kinds_and_body() -> None:
    st = parse_statement("game: g-1\nnonce: abcdefgh\ncommand draw accept\n")
    assert st.kind == "command" and st.command == ("draw", "accept")
    assert st.body == "game: g-1\n\n\n"
    assert parse_statement("game g\nturn 3\nquestion: q-1\nstate: 4\nanswer no\n").kind == "answer"
    assert parse_statement("game g\nturn 3\ncard 5\n").kind == "orders"
    assert parse_statement("game g\ncard 5\n", CHECK_NAMESPACE).kind == "check"
    with pytest.raises(StatementError) as exc:
        parse_statement("game g\nnonce: short\ncommand resign\n")
    assert exc.value.code == "bad-header" and exc.value.line == 2
