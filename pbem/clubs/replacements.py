"""Replacement players: a seat whose player is gone is offered, and a member takes it by mail.

A seat is offered (:func:`offer_seat`) when its player missed the club's
``replace_after`` deadlines in a row (:mod:`pbem.clubs.hooks`), or by an
admin (``pbem club offer-seat GAME SIDE``, for a player who resigned from
the club or said he is gone). The open call goes by mail to every member of
the game's club who does not play the game, with the statement to sign::

    game <game id>
    command replace
    side <side>
    nonce <a one-time word>

The replacement signs it with his **own** registered key (namespace
``pbem-orders``) and mails it to the game. Like a join
(:mod:`pbem.pipeline.joins`), the statement names the game and the seat and
is acted on once (the one replay cache, :class:`~pbem.store.SignedStatement`);
the first valid statement takes the seat. The seat then belongs to the
replacement: his key signs the orders from the next epoch on, the pending
deadline starts afresh for him, and the game's log gets a ``pbem.replaced``
event naming the side, both players, the new key and the first epoch he
plays, so the record shows who played which turns.
"""

from __future__ import annotations

from dataclasses import replace

from sqlmodel import col, select

from pbem.clubs.models import ClubGame, ClubMember, SeatOffer
from pbem.clubs.signed import Replayed, remember_once
from pbem.clubs.standings import mail_members
from pbem.deadlines import set_prompt_deadlines
from pbem.orders_text import SignedOrders, verify_orders
from pbem.pipeline import mailkinds
from pbem.pipeline.games import GameContext, append_events, current_key, load_game
from pbem.pipeline.inbound import Inbound
from pbem.pipeline.steps import Outcome
from pbem.pipeline.turns import Env
from pbem.sshsig import SshSigError
from pbem.statements import StatementError, fresh_nonce, parse_statement
from pbem.store import DeadlineKind, GameStatus, InboxMessage, Player, Seat

__all__ = ["ReplaceRefused", "handle_replace", "offer_seat", "take_seat"]


class ReplaceRefused(ValueError):
    """A replacement statement was refused (``code`` names why)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _open_offer(env: Env, game_id: str, side: str) -> SeatOffer | None:
    return env.session.exec(
        select(SeatOffer)
        .where(col(SeatOffer.game_id) == game_id)
        .where(col(SeatOffer.side) == side)
        .where(col(SeatOffer.status) == "open")
    ).first()


def offer_seat(
    env: Env, ctx: GameContext, side: str, *, reason: str, quiet: bool = False
) -> SeatOffer | None:
    """Offer ``side``'s seat of a club game to the club's other members (once while open).

    ``quiet``: an offer already open is no error (the deadline sweep offers
    again at every miss). Raises ``ValueError`` for a game that is no club game.
    """
    session = env.session
    cg = session.get(ClubGame, ctx.id)
    if cg is None:
        raise ValueError(f"{ctx.id} is no club game: only club games offer seats")
    if ctx.game.status not in (GameStatus.ACTIVE, GameStatus.PAUSED):
        raise ValueError(f"{ctx.id} is {ctx.game.status}: no seat to offer")
    if side not in ctx.seats:
        raise ValueError(f"{ctx.id} has no side {side!r}")
    existing = _open_offer(env, ctx.id, side)
    if existing is not None:
        if quiet:
            return existing
        raise ValueError(f"the seat {side} of {ctx.id} is already offered")
    old = ctx.seats[side].player
    assert old.id is not None
    offer = SeatOffer(
        game_id=ctx.id,
        side=side,
        reason=reason[:200],
        old_player_id=old.id,
        created_at=env.clock.now(),
    )
    session.add(offer)
    session.flush()
    playing = {s.player.id for s in ctx.seats.values()}
    members = session.exec(
        select(ClubMember.player_id)
        .where(col(ClubMember.club_id) == cg.club_id)
        .where(col(ClubMember.active).is_(True))
    ).all()
    body = (
        f"A seat is open in game {ctx.id} ({ctx.game.scenario_id}, {ctx.game.system}): "
        f"{side}, because {reason}.\n\n"
        "To take it, mail the game this statement, signed with your own key "
        "(namespace pbem-orders, docs/signing.md):\n\n"
        f"game {ctx.id}\ncommand replace\nside {side}\n"
        f"nonce {fresh_nonce(f'{ctx.id}|{side}|{offer.id}')}\n\n"
        f"(send it to {env.mailer.game_address(ctx.id)}). The first valid statement takes the "
        "seat; you then play on from the current turn.\n"
    )
    mail_members(
        env,
        [p for p in members if p not in playing],
        subject=f"[{ctx.id}] Replacement wanted: {side}",
        body=body,
        kind="seat-offer",
        version=f"{ctx.id}-{offer.id}",
    )
    return offer


def take_seat(env: Env, ctx: GameContext, player: Player, found: SignedOrders) -> GameContext:
    """Give the offered seat to ``player`` if ``found`` is his valid replace statement."""
    session = env.session
    assert player.id is not None
    key = current_key(session, player.id)
    if key is None:
        raise ReplaceRefused("no-key", "register your public key with the club first")
    try:
        verified = verify_orders(found, key)
        st = parse_statement(verified.text)
    except SshSigError as exc:
        raise ReplaceRefused(exc.code, f"the statement's signature: {exc}") from exc
    except StatementError as exc:
        raise ReplaceRefused(exc.code, str(exc)) from exc
    if verified.unsigned_lines:
        raise ReplaceRefused("unsigned-lines", "sign the whole statement")
    side = st.get("side")
    if st.get("game") != ctx.id or st.command is None or st.command[0] != "replace":
        raise ReplaceRefused(
            "bad-replace", f"the statement must say 'game {ctx.id}' and 'command replace'"
        )
    if not st.get("nonce"):
        raise ReplaceRefused("no-nonce", "add a 'nonce <one-time word>' line")
    if ctx.game.status not in (GameStatus.ACTIVE, GameStatus.PAUSED):
        raise ReplaceRefused("game-over", f"{ctx.id} is {ctx.game.status}: no seat to take")
    now = env.clock.now()
    offer = _open_offer(env, ctx.id, side)
    if offer is None:
        raise ReplaceRefused("no-offer", f"no seat {side!r} of {ctx.id} is offered")
    if player.id in {s.player.id for s in ctx.seats.values()}:
        raise ReplaceRefused("already-playing", f"you already play in {ctx.id}")
    cg = session.get(ClubGame, ctx.id)
    member = session.exec(
        select(ClubMember.id)
        .where(col(ClubMember.club_id) == (cg.club_id if cg else ""))
        .where(col(ClubMember.player_id) == player.id)
        .where(col(ClubMember.active).is_(True))
    ).first()
    if member is None:
        raise ReplaceRefused("not-member", "only members of the game's club may take the seat")
    signer = key.fingerprint()
    try:
        remember_once(
            session, signer=signer, text=verified.text, scope=ctx.id, nonce=st.get("nonce"), now=now
        )
    except Replayed as exc:
        raise ReplaceRefused(exc.code, str(exc)) from exc
    seat = session.exec(
        select(Seat).where(col(Seat.game_id) == ctx.id).where(col(Seat.side) == side)
    ).one()
    old = ctx.seats[side].player
    seat.player_id = player.id
    session.add(seat)
    offer.status, offer.new_player_id = "taken", player.id
    offer.from_epoch, offer.taken_at = ctx.game.epoch + 1, now
    session.add(offer)
    append_events(
        session,
        ctx.id,
        ctx.game.epoch,
        [
            (
                "pbem.replaced",
                {
                    "side": side,
                    "old": old.email,
                    "new": player.email,
                    "key": signer,
                    "public_key": key.openssh(),
                    "from_epoch": ctx.game.epoch + 1,
                    "statement": verified.text,
                    "signed": verified.signed_bytes.decode("utf-8", "replace"),
                    "signature": found.signature,
                },
            )
        ],
        env.clock,
    )
    session.flush()
    fresh = load_game(session, ctx.id)
    assert fresh is not None
    _restart_clock(env, fresh, side)
    return fresh


def _restart_clock(env: Env, ctx: GameContext, side: str) -> None:
    """Clear the seat's misses, give the replacement a fresh period, and tell everyone."""
    ctx.options = replace(ctx.options, runtime=ctx.options.runtime.cleared(side))
    ctx.game.options_json = ctx.options.dumps()
    env.session.add(ctx.game)
    prompt = ctx.prompt()
    seat = ctx.seats[side]
    settings = ctx.options.settings
    lines = [f"You now play {side} in {ctx.id} (you replace the previous player).", ""]
    lines += [env.mailer.ascii_board(ctx, side)]
    if prompt.side == side and ctx.game.status == GameStatus.ACTIVE:
        due = set_prompt_deadlines(
            env.session,
            ctx.game,
            kind=DeadlineKind.TURN,
            side=side,
            player_id=seat.player.id,
            period=settings.turn_time,
            grace=settings.grace,
            reminders=settings.reminders,
            now=env.clock.now(),
        )
        lines += ["", mailkinds.deadline_text(due, seat.player.time_zone), "", "Your orders:"]
        lines += ["", env.mailer.template(ctx, side)]
    for s in ctx.seats:
        mailkinds.send_notice(
            env.mailer,
            ctx,
            s,
            kind="replaced",
            version=f"{side}-{ctx.game.epoch}",
            subject=f"{side} has a new player",
            body="\n".join(lines) + "\n"
            if s == side
            else f"{seat.player.name} now plays {side}; the game goes on.\n",
        )


def handle_replace(
    env: Env, row: InboxMessage, mail: Inbound, ctx: GameContext, found: SignedOrders | None
) -> Outcome:
    """Answer a ``command replace`` mail from a registered player."""
    player = env.session.exec(select(Player).where(col(Player.email) == mail.sender)).first()
    assert player is not None  # the processor routes only registered players here
    try:
        if found is None:
            raise ReplaceRefused("unsigned", "sign the replace statement with your key")
        fresh = take_seat(env, ctx, player, found)
    except ReplaceRefused as exc:
        env.mailer.queue_player_note(
            player.email,
            f"[{ctx.id}] Replacement refused",
            f"Your statement to take a seat in {ctx.id} was refused ({exc.code}): {exc}\n",
            kind="replace-refused",
            version=row.id or 0,
            in_reply_to=mail.message_id,
        )
        return Outcome.refused(f"replace refused ({exc.code}): {exc}", ctx.id)
    side = next(s for s, seat in fresh.seats.items() if seat.player.id == player.id)
    return Outcome.done(f"{mail.sender} replaces the player of {side} in {ctx.id}", ctx.id)
