"""Adversarial mail: each attack is refused with its reason, moves no game, mails no stranger.

Design §2 invariants 3 and 4. Every case goes through the real entry point
(``store_message`` then the pipeline's ``Processor``) on a started game, and
checks three things: the inbox row is ``refused`` (or deduplicated) with the
reason's code in its outcome; the game's state, epoch, version and events
are unchanged; every mail queued in reply goes to a player of the game or
the operator (never to an address the attacker chose).

The hidden-information part plays a real C&C Ancients game (its cards have
names, its deck is a hash chain) and throws the same attacks at it, then
reads every outgoing mail for the other player's hand, the deck order, the
secret seeds and every unrevealed dice or deck key (computed from the
store's secrets table).
"""

from __future__ import annotations

import base64
import email.policy
from collections.abc import Callable
from dataclasses import replace
from email.message import EmailMessage
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from pipeline_kit import GAME, NORTH, SOUTH, Kit, mail, make_kit, orders, sign_text
from sqlmodel import col, func, select

from engine.dice import HashChain
from pbem.mailin.accept import store_message
from pbem.pipeline.processor import Processor
from pbem.store import Event, Game, GameSecret, InboxMessage, OutboxMessage, Store

OPERATOR = "op@club.test"
ATTACKER = "mallory@evil.test"


@pytest.fixture
def kit(store, config, clock):  # type: ignore[no-untyped-def]
    small = replace(config, limits=replace(config.limits, max_message_size=200_000))
    return make_kit(store, small, clock)


def _fingerprint(store: Store) -> list[tuple[str, int, int, str, int]]:
    with store.transaction() as s:
        games = s.exec(select(Game).order_by(col(Game.id))).all()
        out = []
        for g in games:
            events = s.exec(select(func.count()).where(col(Event.game_id) == g.id)).one()
            out.append((g.id, g.epoch, g.state_version, g.state_json, int(events)))
        return out


def _attack(kit: Kit, raw: bytes) -> tuple[InboxMessage | None, list[OutboxMessage]]:
    """Deliver ``raw``; return its inbox row (None if deduplicated) and the mail it caused."""
    before = kit.last_id()
    state = _fingerprint(kit.store)
    acc = store_message(
        kit.store, raw, source="smtp", clock=kit.clock, envelope_to=[f"pbem+{GAME}@game.test"]
    )
    kit.process_all()
    assert _fingerprint(kit.store) == state, "an attack changed a game"
    new = kit.new_mail(before)
    for row in new:
        assert row.recipient in {NORTH, SOUTH, OPERATOR}, f"mail to {row.recipient}"
        out = email.message_from_bytes(row.raw, policy=email.policy.default)
        for name in ("To", "Cc", "Bcc", "Reply-To", "From", "Sender"):
            for value in out.get_all(name, []):
                assert "evil.test" not in str(value) and "victim" not in str(value), name
    if acc.duplicate:
        return None, new
    row = kit.inbox(acc.inbox_id)
    # Over the mail budget: refused unread and set aside for the operator.
    assert row.status in ("refused", "set-aside"), (row.status, row.outcome)
    return row, new


def _raw(msg: EmailMessage) -> bytes:
    return msg.as_bytes(policy=email.policy.SMTP)


def test_forged_signature_is_refused(kit: Kit) -> None:
    row, new = _attack(kit, mail(NORTH, orders(kit, "north"), key=Ed25519PrivateKey.generate()))
    assert row is not None and "wrong-key" in row.outcome
    assert [m.recipient for m in new] == [NORTH]


def test_signed_text_altered_after_signing_is_refused(kit: Kit) -> None:
    hand = kit.state()["hands"]["north"]
    # A hand may hold two copies of a card: alter to a *different* code.
    other = next(c for c in hand if c != hand[0])
    canon, sig = sign_text(orders(kit, "north", hand[0]), kit.keys["north"])
    altered = canon.replace(f"card {hand[0]}", f"card {other}")
    assert altered != canon
    row, new = _attack(kit, mail(NORTH, altered + sig))
    assert row is not None and "bad-signature" in row.outcome
    assert [m.recipient for m in new] == [NORTH]


@pytest.mark.parametrize(
    ("make", "code"),
    [
        (lambda kit: orders(kit, "north", game="race-2"), "wrong-game"),
        (lambda kit: orders(kit, "north", turn=7), "wrong-turn"),
    ],
    ids=["another-game", "another-turn"],
)
def test_valid_signature_on_other_orders_is_refused(
    kit: Kit, make: Callable[[Kit], str], code: str
) -> None:
    row, new = _attack(kit, mail(NORTH, make(kit), key=kit.keys["north"]))
    assert row is not None and code in row.outcome
    assert {m.recipient for m in new} <= {NORTH}


def test_replay_of_an_accepted_mail_changes_nothing(kit: Kit) -> None:
    raw = mail(NORTH, orders(kit, "north", _low_card(kit, "north")), key=kit.keys["north"])
    kit.deliver(raw)
    kit.process_all()
    assert kit.game().epoch == 1
    row, new = _attack(kit, raw)  # the very same message again
    assert row is None and new == []
    # The same signed text under a new Message-ID and another subject.
    again = raw.replace(b"Message-ID: <", b"Message-ID: <replay.").replace(b"orders", b"again", 1)
    row, _ = _attack(kit, again)
    assert row is not None


def test_non_player_with_a_players_from_is_refused_and_not_answered_elsewhere(kit: Kit) -> None:
    stranger = Ed25519PrivateKey.generate()
    canon, sig = sign_text(orders(kit, "north"), stranger)
    msg = EmailMessage()
    msg["From"] = NORTH
    msg["Reply-To"] = ATTACKER
    msg["Sender"] = ATTACKER
    msg["To"] = f"pbem+{GAME}@game.test"
    msg["Cc"] = f"victim@else.test, {ATTACKER}"
    msg["Subject"] = f"[{GAME}] orders"
    msg["Message-ID"] = "<forged-from@evil.test>"
    msg.set_content(canon + sig)
    row, new = _attack(kit, _raw(msg))
    assert row is not None and "wrong-key" in row.outcome
    assert [m.recipient for m in new] == [NORTH]


@pytest.mark.parametrize(
    "subject",
    [
        b"[race-1] hi\r\nBcc: victim@else.test",
        b"[race-1] =?utf-8?q?hi=0D=0ABcc:_victim@else.test?=",
        b"[race-1] =?utf-8?b?" + base64.b64encode(b"x\r\nBcc: victim@else.test") + b"?=",
        b"=?iso-8859-1?q?=5Brace-1=5D_=0ATo:_victim@else.test?=",
    ],
    ids=["crlf", "q-encoded", "b-encoded", "latin1"],
)
def test_header_injection_in_subject_goes_nowhere(kit: Kit, subject: bytes) -> None:
    raw = mail(NORTH, orders(kit, "north"), key=Ed25519PrivateKey.generate(), subject="SUBJ")
    raw = raw.replace(b"Subject: SUBJ", b"Subject: " + subject)
    row, new = _attack(kit, raw)
    assert row is not None
    for m in new:
        head = m.raw.split(b"\r\n\r\n", 1)[0]
        assert b"\nBcc:" not in head and b"\nbcc:" not in head.lower()
        assert b"victim" not in head


def test_oversized_body_and_attachment_are_refused(kit: Kit) -> None:
    big_body = mail(NORTH, orders(kit, "north") + "x" * 80 + "\n" * 1, key=kit.keys["north"])
    big_body = big_body.replace(b"\r\n-----BEGIN", b"\r\n" + b"y" * 76 * 3000 + b"\r\n-----BEGIN")
    row, _ = _attack(kit, big_body)
    assert row is not None and "oversized" in row.outcome
    canon, sig = sign_text(orders(kit, "north"), kit.keys["north"])
    msg = EmailMessage()
    msg["From"] = NORTH
    msg["To"] = f"pbem+{GAME}@game.test"
    msg["Subject"] = f"[{GAME}] orders"
    msg["Message-ID"] = "<attach@client.test>"
    msg.set_content("see attachments")
    msg.add_attachment(canon.encode(), maintype="text", subtype="plain", filename="orders.txt")
    msg.add_attachment(sig.encode(), maintype="text", subtype="plain", filename="orders.txt.sig")
    msg.add_attachment(b"\0" * 300_000, maintype="application", subtype="octet-stream")
    row, _ = _attack(kit, _raw(msg))
    assert row is not None and "oversized" in row.outcome


@pytest.mark.parametrize("depth", [60, 2000])
def test_deeply_nested_mime_is_refused(kit: Kit, depth: int) -> None:
    canon, sig = sign_text(orders(kit, "north"), Ed25519PrivateKey.generate())
    head = (
        f"From: {NORTH}\r\nTo: pbem+{GAME}@game.test\r\nSubject: [{GAME}] nest\r\n"
        f"Message-ID: <nest{depth}@client.test>\r\nMIME-Version: 1.0\r\n"
    )
    body = "Content-Type: text/plain\r\n\r\n" + (canon + sig).replace("\n", "\r\n")
    for level in range(depth):
        b = f"b{level}"
        body = (
            f'Content-Type: multipart/mixed; boundary="{b}"\r\n\r\n--{b}\r\n{body}\r\n--{b}--\r\n'
        )
    row, new = _attack(kit, (head + body).encode())
    assert row is not None
    assert {m.recipient for m in new} <= {NORTH}


@pytest.mark.parametrize(
    ("charset", "mangle"),
    [
        ("x-no-such-charset", True),
        ("utf-8", True),
        ("utf-7", True),
        ("us-ascii", True),
        ("utf\x008", True),
    ],
    ids=["unknown", "invalid-utf8", "utf7-junk", "ascii-8bit", "nul-in-name"],
)
def test_invalid_charsets_are_refused(kit: Kit, charset: str, mangle: bool) -> None:
    canon, sig = sign_text(orders(kit, "north"), kit.keys["north"])
    body = (canon + sig).replace("\n", "\r\n").encode()
    if mangle:
        body = body.replace(b"side north", b"side \xff\xfe\xc3north")
    raw = (
        f"From: {NORTH}\r\nTo: pbem+{GAME}@game.test\r\nSubject: [{GAME}] cs\r\n"
        f"Message-ID: <cs-{charset}-{mangle}@client.test>\r\nMIME-Version: 1.0\r\n"
        f'Content-Type: text/plain; charset="{charset}"\r\n'
        "Content-Transfer-Encoding: 8bit\r\n\r\n"
    ).encode() + body
    row, new = _attack(kit, raw)
    assert row is not None
    assert any(code in row.outcome for code in ("bad-encoding", "bad-signature")), row.outcome
    assert {m.recipient for m in new} <= {NORTH}


def test_utf7_lone_surrogate_in_the_orders_is_refused(kit: Kit) -> None:
    """UTF-7 decodes "+2AI-" to a lone surrogate; that once crashed processing."""
    canon, sig = sign_text(orders(kit, "north"), kit.keys["north"])
    raw = (
        f"From: {NORTH}\r\nTo: pbem+{GAME}@game.test\r\nSubject: [{GAME}] u7\r\n"
        "Message-ID: <utf7@client.test>\r\nMIME-Version: 1.0\r\n"
        "Content-Type: text/plain; charset=utf-7\r\n\r\n"
    ).encode() + (canon + "x +2AI-\n" + sig).replace("\n", "\r\n").encode()
    row, new = _attack(kit, raw)
    assert row is not None
    assert [m.recipient for m in new] == [NORTH]


def test_mislabelled_charset_reads_utf8_and_the_signature_decides(kit: Kit) -> None:
    """An unknown charset label on valid UTF-8 falls back to UTF-8 (orders_text.decode_text)."""
    canon, sig = sign_text(orders(kit, "north", _low_card(kit, "north")), kit.keys["north"])
    raw = (
        f"From: {NORTH}\r\nTo: pbem+{GAME}@game.test\r\nSubject: [{GAME}] cs\r\n"
        "Message-ID: <mislabelled@client.test>\r\nMIME-Version: 1.0\r\n"
        'Content-Type: text/plain; charset="x-no-such-charset"\r\n\r\n'
    ).encode() + (canon + sig).replace("\n", "\r\n").encode()
    kit.deliver(raw)
    kit.process_all()
    assert kit.game().epoch == 1


def _low_card(kit: Kit, side: str) -> str:
    """A card below 7, so the turn needs no answer from the other side."""
    hand = kit.state()["hands"][side]
    low = [c for c in hand if int(c) < 7]
    if not low:
        kit.set_hand(side, ["1", *hand[1:]])
        return "1"
    return low[0]


# --- hidden information ------------------------------------------------------


def _secrets(store: Store, game_id: str, epoch: int) -> list[bytes]:
    """Every secret a mail must not carry: seeds, unrevealed dice keys, all deck keys."""
    with store.transaction() as s:
        secret = s.get(GameSecret, game_id)
        assert secret is not None
    dice = HashChain(secret.dice_seed, secret.chain_length)
    deck = HashChain(secret.deck_seed, secret.chain_length)
    raw = [secret.dice_seed, secret.deck_seed]
    raw += [dice.key(e) for e in range(epoch + 1, min(epoch + 40, secret.chain_length) + 1)]
    raw += [deck.key(k) for k in range(1, min(40, secret.chain_length) + 1)]
    out = []
    for b in raw:
        out += [b.hex().encode(), b.hex().upper().encode(), base64.b64encode(b)[:40]]
    return out


def _text_of(row: OutboxMessage) -> bytes:
    """Headers plus every decoded part (so base64 or QP bodies are searched decoded)."""
    msg = email.message_from_bytes(row.raw, policy=email.policy.default)
    parts = [row.raw.split(b"\r\n\r\n", 1)[0]]
    for part in msg.walk():
        if part.is_multipart():
            continue
        payload = part.get_payload(decode=True)
        if isinstance(payload, bytes):
            parts.append(payload)
    return b"\n".join(parts)


def test_no_reply_leaks_a_hand_a_future_die_or_the_deck(tmp_path: Path) -> None:
    from fault_kit import create_games, orders_mail, write_config

    from pbem.clock import SystemClock
    from pbem.config import load_config
    from pbem.pipeline import load_server_key
    from pbem.pipeline.games import load_game
    from pbem.store import migrate

    cfg = write_config(tmp_path, sink_port=1)
    config = load_config(str(cfg))
    migrate(config.database_url)
    store = Store(config.database_url)
    clock = SystemClock()
    (game,) = create_games(store, cfg, 1)
    proc = Processor(config, store, clock, server_key=load_server_key(config.server_key_path))
    gid = game.game_id
    address = {side: p.address for side, p in game.players.items()}

    def deliver(raw: bytes) -> None:
        acc = store_message(
            store, raw, source="smtp", clock=clock, envelope_to=[config.mail.address]
        )
        proc.process(acc.inbox_id)

    accepted: list[bytes] = []

    def bad_mails(epoch: int) -> list[bytes]:
        """Every attack above, against the live game, from each side."""
        out = []
        for side, player in game.players.items():
            text = f"game {gid}\nturn 1\nside {side}\ncard No Such Card\n"
            for key, body in (
                (Ed25519PrivateKey.generate(), text),  # forged
                (player.key, text),  # illegal card
                (player.key, text.replace(gid, "other-game")),  # another game
                (player.key, "order everything\n"),  # nonsense
            ):
                canon, sig = sign_text(body, key)
                m = EmailMessage()
                m["From"] = player.address
                m["Reply-To"] = ATTACKER
                m["To"] = f"referee+{gid}@{config.mail_domain}"
                m["Subject"] = f"[{gid}] orders\r\nBcc: {ATTACKER}"[:60].replace("\r\n", " ")
                m["Message-ID"] = f"<bad.{epoch}.{side}.{len(out)}@evil.test>"
                m.set_content(canon + sig)
                out.append(_raw(m))
        for n, old in enumerate(accepted):  # replays of every accepted mail
            out.append(old.replace(b"Message-ID: <", f"Message-ID: <replay{epoch}.{n}.".encode()))
        return out

    checked = 0
    for _ in range(6):  # a few epochs, attacks before each real move
        with store.transaction() as s:
            ctx = load_game(s, gid)
            assert ctx is not None
            epoch = ctx.game.epoch
            hands = {
                side: {
                    str(c.get("name", c)) if isinstance(c, dict) else str(c)
                    for c in ctx.system.player_view(ctx.state, side).get("hand", [])
                }
                for side in address
            }
            deck_json = ctx.system.to_json(ctx.state)
            deck = _deck_patterns(ctx.system, deck_json)
        assert all(hands.values()) and hands["north"] != hands["south"]
        before = _last_outbox_id(store)
        for raw in bad_mails(epoch):
            deliver(raw)
        with store.transaction() as s:
            game_row = s.get(Game, gid)
            assert game_row is not None and game_row.epoch == epoch, "an attack moved the game"
        secrets = _secrets(store, gid, epoch)
        for row in _outbox_after(store, before):
            assert row.recipient in set(address.values()) | {config.mail.operator}
            body = _text_of(row)
            for s in secrets:
                assert s not in body, f"a secret reached {row.recipient}"
            me = next(side for side, a in address.items() if a == row.recipient)
            other = next(side for side in address if side != me)
            for card in hands[other] - hands[me]:
                assert card.encode() not in body, f"{other}'s card {card!r} sent to {me}"
            assert deck_json.encode() not in body
            for pattern in deck:
                assert pattern not in body, f"the deck order reached {me}"
            checked += 1
        good = orders_mail(store, game)
        if good is None:
            break
        before = _last_outbox_id(store)
        deliver(good.raw)
        accepted.append(good.raw)
        secrets = _secrets(store, gid, epoch + 1)
        for row in _outbox_after(store, before):
            body = _text_of(row)
            for s in secrets:
                assert s not in body, "a turn mail carried an unrevealed key"
    assert checked >= 12
    store.dispose()


def _deck_patterns(system: object, state_json: str) -> list[bytes]:
    """The undrawn deck as it could leak: any 6 cards in a row, by code or name, as a list."""
    import json

    codes = [str(c) for c in json.loads(state_json).get("deck", [])]
    assert len(codes) >= 8
    names = [str(system.card_name(c)) for c in codes]  # type: ignore[attr-defined]
    out = []
    for seq in (codes, names):
        for i in range(len(seq) - 5):
            window = seq[i : i + 6]
            out += [", ".join(window).encode(), "\n".join(window).encode()]
            out.append(json.dumps(window)[1:-1].encode())
    return out


def _last_outbox_id(store: Store) -> int:
    with store.transaction() as s:
        return int(s.exec(select(func.max(OutboxMessage.id))).one() or 0)


def _outbox_after(store: Store, after: int) -> list[OutboxMessage]:
    with store.transaction() as s:
        return list(s.exec(select(OutboxMessage).where(col(OutboxMessage.id) > after)).all())
