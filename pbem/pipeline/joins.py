"""Seats and joins: one single-use invite token per seat, each player's signed nonce.

A game is created in status ``setup`` with its two hash chains committed
(docs/audit.md, protocol v2). Every seat then needs a **join statement**
signed by the player who takes it (the header syntax of every statement,
``word: value``; the colon may be left out, as joins issued before the audit
format 3 did)::

    game: <id>
    command: join
    side: <side>
    token: <the seat's invite token>      (only for a seat created without a key)
    nonce: <64 lowercase hex digits: 32 fresh random bytes>

Lines outside the signature are ignored and quoted back to the player
("ignored: outside your signature"), as for every other statement.

The token of a seat works once: the first valid join binds the seat to the
key that signed it; any other use is refused with the reason. The nonces of
all seats enter every roll and shuffle of the game (the join message ``J``
of :func:`engine.dice.join_message`), so the referee, who committed to its
chains before any nonce existed, cannot grind a seed that favours a side.
When the last seat has joined, the engine deals the game (the setup
shuffle) and the game starts.

Hot-seat and demo games sign the statements on the players' behalf
(:func:`join_statement`, :func:`record_join`).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlmodel import Session, col, select

from engine.core.capabilities import DEAL, find
from engine.dice import EpochDice
from pbem import sshsig
from pbem.audit import statement_lines
from pbem.orders_text import SignedOrders, verify_orders
from pbem.pipeline import listeners, mailkinds
from pbem.pipeline.games import (
    DICE_LOG,
    SETUP_HASH,
    GameContext,
    GameError,
    add_key,
    append_events,
    chains,
    dice_log_payload,
    game_join,
    load_game,
    with_game_id,
)
from pbem.pipeline.inbound import Inbound
from pbem.pipeline.steps import Outcome, Step
from pbem.pipeline.turns import Env, start_game
from pbem.sshsig import SshSigError, SshSignature
from pbem.store import GameStatus, InboxMessage, SeatJoin, Snapshot
from pbem.tablefile import carry_tables

__all__ = [
    "NONCE_HELP",
    "JoinRefused",
    "SignedJoin",
    "handle_join",
    "join_statement",
    "new_token",
    "parse_statement",
    "record_join",
    "send_invitations",
    "sign_joins",
]

NONCE = re.compile(r"^[0-9a-f]{64}$")
NONCE_HELP = "32 random bytes as 64 lowercase hex digits, e.g. from 'openssl rand -hex 32'"


class JoinRefused(ValueError):
    """A join statement was refused; ``code`` names why, the message says it to the player."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class SignedJoin:
    """A join statement as signed: the canonical text and its armored SSHSIG block."""

    text: str
    signature: str


def new_token() -> str:
    """Draw a seat's invite token (72 random bits, URL-safe)."""
    return secrets.token_urlsafe(12)


def token_hash(token: str) -> str:
    """Return the stored form of a token: SHA-256 of its UTF-8 bytes, hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def join_statement(game_id: str, side: str, *, token: str = "", nonce: bytes | None = None) -> str:
    """Return a join statement to sign, with a fresh nonce unless one is given."""
    nonce = secrets.token_bytes(32) if nonce is None else nonce
    lines = [f"game: {game_id}", "command: join", f"side: {side}"]
    if token:
        lines.append(f"token: {token}")
    lines.append(f"nonce: {nonce.hex()}")
    return "\n".join(lines) + "\n"


def sign_joins(game_id: str, keys: Mapping[str, Ed25519PrivateKey]) -> dict[str, SignedJoin]:
    """Sign a join statement with a fresh nonce for each side whose private key is held.

    For games whose players' keys the caller holds (the demo's scripted players,
    tests): what each player would sign and mail.
    """
    out = {}
    for side, key in keys.items():
        text = join_statement(game_id, side)
        out[side] = SignedJoin(text, sshsig.sign(text.encode("utf-8"), key))
    return out


def parse_statement(text: str) -> dict[str, str]:
    """Return the ``game``, ``command``, ``side``, ``token`` and ``nonce`` lines of a statement.

    Read exactly as the verifiers read it (``word: value``, the colon optional).
    Raises :class:`JoinRefused` for a line given twice (a statement means one thing).
    """
    lines = statement_lines(text)
    if lines is None:
        raise JoinRefused("bad-join", "a line of the statement is given twice")
    return lines


def add_seat_joins(
    session: Session, game_id: str, seats: Sequence[tuple[str, str, bool]]
) -> dict[str, str]:
    """Create one join row per ``(side, invitee, keyed)``; return the tokens of keyless seats."""
    tokens: dict[str, str] = {}
    for side, invitee, keyed in seats:
        token = "" if keyed else new_token()
        if token:
            tokens[side] = token
        session.add(
            SeatJoin(
                game_id=game_id,
                side=side,
                invitee=invitee,
                token_hash=token_hash(token) if token else "",
            )
        )
    session.flush()
    return tokens


def _row(session: Session, game_id: str, side: str) -> SeatJoin | None:
    return session.exec(
        select(SeatJoin).where(col(SeatJoin.game_id) == game_id).where(col(SeatJoin.side) == side)
    ).first()


def record_join(
    env: Env, ctx: GameContext, side: str, signed: SignedJoin, *, sender: str = ""
) -> GameContext:
    """Check a signed join for ``side`` and bind the seat; start the game when all joined.

    ``sender``: the address the join came from ("" when the operator or a
    hot-seat game records it). Returns the game as it now stands. Raises
    :class:`JoinRefused` with the reason when the statement is refused.
    """
    session = env.session
    if ctx.game.status != GameStatus.SETUP:
        raise JoinRefused(
            "already-started", f"game {ctx.id} has already started; a join changes nothing now"
        )
    row = _row(session, ctx.id, side)
    if row is None:
        raise JoinRefused(
            "bad-side",
            f"game {ctx.id} has no seat {side!r}; its seats are " + ", ".join(sorted(ctx.seats)),
        )
    # A seat created with its player's key takes only that key; an invited seat
    # takes the key that signs the first valid join with its token.
    seat_key = ctx.seats[side].key if side in ctx.seats and not row.token_hash else None
    try:
        armor = SshSignature.from_armor(signed.signature)
        found = SignedOrders(signed.text, signed.signature, "inline")
        verified = verify_orders(found, seat_key or armor.public_key)
    except SshSigError as exc:
        if seat_key is not None:
            raise JoinRefused(
                "wrong-key",
                f"the join for {side} must be signed with the key registered for you "
                f"({seat_key.fingerprint()}): {exc}",
            ) from exc
        raise JoinRefused("bad-signature", f"the join statement's signature: {exc}") from exc
    text = verified.text  # lines outside the signature are never read (handle_join quotes them)
    head = parse_statement(text)
    _check_head(ctx, side, head, row)
    key = verified.signer
    nonce = head["nonce"]
    if row.key_fingerprint:
        if row.key_fingerprint == key.fingerprint():
            raise JoinRefused(
                "already-joined",
                f"you already joined {ctx.id} as {side} (your first nonce stands); nothing changed",
            )
        raise JoinRefused(
            "token-used",
            f"the seat {side} of {ctx.id} was already taken by key {row.key_fingerprint}"
            + ("; its invite token works only once" if row.token_hash else "")
            + ". Ask the operator if this is wrong",
        )
    if sender and row.invitee and sender.strip().lower() != row.invitee:
        raise JoinRefused(
            "not-invited",
            f"the seat {side} of {ctx.id} was offered to another address; "
            "join from the address the invitation was sent to",
        )
    taken = session.exec(
        select(SeatJoin).where(col(SeatJoin.game_id) == ctx.id).where(col(SeatJoin.nonce) == nonce)
    ).first()
    if taken is not None:
        raise JoinRefused("nonce-reused", "this nonce is already used in this game: draw a new one")
    row.key_fingerprint = key.fingerprint()
    row.public_key = key.openssh()
    row.nonce = nonce
    row.statement = text
    row.signature = signed.signature
    row.joined_at = env.clock.now()
    session.add(row)
    if side in ctx.seats and ctx.seats[side].key is None:
        add_key(session, ctx.seats[side].player, key, env.clock, note=f"joined {ctx.id}")
    append_events(
        session,
        ctx.id,
        0,
        [("pbem.joined", {"side": side, "key": key.fingerprint(), "nonce": nonce})],
        env.clock,
    )
    session.flush()
    fresh = load_game(session, ctx.id)
    assert fresh is not None
    rows = session.exec(select(SeatJoin).where(col(SeatJoin.game_id) == ctx.id)).all()
    if all(r.nonce for r in rows):
        # Linked games (a tournament pairing's two games) start together, when all have joined.
        for gid in listeners.start_group(session, ctx.id):
            game = fresh if gid == ctx.id else load_game(session, gid)
            assert game is not None
            _deal(env, game)
            start_game(env, game)
    return fresh


def _check_head(ctx: GameContext, side: str, head: Mapping[str, str], row: SeatJoin) -> None:
    if head.get("game", "") != ctx.id:
        raise JoinRefused("wrong-game", f"the statement must name the game: 'game: {ctx.id}'")
    if head.get("command", "") != "join":
        raise JoinRefused("bad-join", "the statement must say 'command: join'")
    if head.get("side", "") != side:
        raise JoinRefused("bad-side", f"the statement must name the seat: 'side: {side}'")
    if row.token_hash:
        token = head.get("token", "")
        if not token:
            raise JoinRefused("no-token", "add the line 'token: <your invite token>'")
        if not hmac.compare_digest(token_hash(token), row.token_hash):
            raise JoinRefused(
                "bad-token", f"this is not the invite token of seat {side} in {ctx.id}"
            )
    nonce = head.get("nonce", "")
    if not NONCE.match(nonce):
        raise JoinRefused("bad-nonce", f"add the line 'nonce: <{NONCE_HELP}>'")


def _deal(env: Env, ctx: GameContext) -> None:
    """Deal the game now that every nonce is known: the setup epoch's shuffle."""
    session = env.session
    _, deck_chain = chains(session, ctx.id)
    setup = EpochDice(ctx.id, 0, None, SETUP_HASH, deck=deck_chain, join=game_join(session, ctx))
    try:
        # The tables the game was created with (a club's file, docs/tables.md) stay its own.
        position = carry_tables(
            ctx.system, ctx.system.load_position(ctx.game.setup_text), ctx.state
        )
        dealer = find(ctx.system, DEAL)
        if dealer is None:  # a system without cards
            state, cards = ctx.system.new_game(position, ctx.options.engine, setup), None
        else:
            cards = dealer.deal(position, ctx.options.engine, setup)
            state = cards.state
    except ValueError as exc:  # pragma: no cover - the same text was accepted at creation
        raise GameError(f"the engine refused the game: {exc}") from exc
    ctx.state = with_game_id(ctx.system, state, ctx.id)
    game = ctx.game
    game.state_json = ctx.system.to_json(ctx.state)
    game.setup_text = ""
    game.updated_at = env.clock.now()
    session.add(game)
    session.add(
        Snapshot(game_id=ctx.id, version=0, state_json=game.state_json, created_at=game.updated_at)
    )
    payload = (
        dice_log_payload(setup, "setup")
        if cards is None
        else dice_log_payload(setup, "setup", cards.moves, cards.setup)
    )
    append_events(session, ctx.id, 0, [(DICE_LOG, payload)], env.clock)


def send_invitations(env: Env, ctx: GameContext, tokens: Mapping[str, str]) -> None:
    """Mail every seat that has not joined its join statement to sign (with its token)."""
    rows = env.session.exec(select(SeatJoin).where(col(SeatJoin.game_id) == ctx.id)).all()
    for row in rows:
        if row.nonce or row.side not in ctx.seats:
            continue
        token = tokens.get(row.side, "")
        body = [
            f"You are invited to play {row.side} in game {ctx.id} ({ctx.game.scenario_id}).",
            "",
            "The referee has committed to its dice and deck before anyone joined:",
            f"  dice commitment (s_0): {ctx.game.dice_commitment}",
            f"  deck commitment (d_0): {ctx.game.deck_commitment}",
            "",
            "Join by replying with this statement, filled in and signed with the key you",
            "will play with (namespace pbem-orders, see docs/signing.md):",
            "",
            f"game: {ctx.id}",
            "command: join",
            f"side: {row.side}",
            *([f"token: {token}"] if token else []),
            "nonce: <your nonce>",
            "",
            f"Your nonce is {NONCE_HELP}; 'pbem join-statement {ctx.id} {row.side}"
            + (f" --token {token}" if token else "")
            + "' prints the statement with a fresh one. It enters every die and every shuffle",
            "of the game, so nobody, the referee included, can choose them (docs/audit.md).",
        ]
        if token:
            body += [
                "",
                "The token works once: the first signed join takes the seat for its key.",
            ]
        mailkinds.send_notice(
            env.mailer,
            ctx,
            row.side,
            kind="invite",
            version=0,
            subject=f"Join game {ctx.id} as {row.side}",
            body="\n".join(body) + "\n",
        )


def _side_for(ctx: GameContext, head: Mapping[str, str], sender: str) -> str:
    side = head.get("side", "")
    if side:
        return side
    mine = ctx.sides_of(sender)
    return mine[0] if len(mine) == 1 else ""


def _signed_part(found: SignedOrders | None) -> tuple[str, tuple[str, ...]]:
    """The text a join's signature covers and the unsigned lines around it.

    Checked against the key the signature carries (who that must be is
    :func:`record_join`'s business); a signature that checks for no text
    leaves the whole text, and :func:`record_join` refuses it.
    """
    if found is None:
        return "", ()
    try:
        verified = verify_orders(found, SshSignature.from_armor(found.signature).public_key)
    except SshSigError:
        return found.text, ()
    return verified.text, verified.ignored(found)


def handle_join(
    env: Env, row: InboxMessage, mail: Inbound, ctx: GameContext, found: SignedOrders | None
) -> Outcome | None:
    """Answer a ``command join`` mail; None when the sender is no player of the game.

    A sender who is no player (the invite went to another address) gets the
    stranger's rate-limited note from the caller; a player gets the real reason.
    """
    mine = ctx.sides_of(mail.sender)
    if not mine:
        return None
    signed, ignored = _signed_part(found)
    try:
        head = parse_statement(signed)
    except JoinRefused:
        head = {}
    side = _side_for(ctx, head, mail.sender)
    step = Step(env, row, mail, ctx, side if side in mine else mine[0], "", ignored=ignored)
    if found is None:
        return step.refuse(
            "unsigned", "a join must be signed with the key you will play with (docs/signing.md)"
        )
    try:
        fresh = record_join(
            env, ctx, side, SignedJoin(found.text, found.signature), sender=mail.sender
        )
    except JoinRefused as exc:
        return step.refuse(exc.code, str(exc))
    key = fresh.seats[side].key
    fp = key.fingerprint() if key is not None else ""
    Step(env, row, mail, fresh, side, "", ignored=ignored).notice(
        "joined",
        f"You joined as {side}",
        f"You play {side} in {ctx.id} with key {fp}.\n"
        + (
            "Every player has joined: the game begins (see the game-start mail).\n"
            if fresh.game.status == GameStatus.ACTIVE
            else "The game begins when every player has joined.\n"
        ),
    )
    return Outcome.done(f"{mail.sender} joined {ctx.id} as {side}", ctx.id)


def joined_sides(session: Session, game_id: str) -> dict[str, SeatJoin]:
    """Return the game's join rows by side."""
    rows = session.exec(select(SeatJoin).where(col(SeatJoin.game_id) == game_id)).all()
    return {r.side: r for r in rows}
