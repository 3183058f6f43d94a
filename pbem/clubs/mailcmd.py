"""Club commands by mail: the same actions as ``pbem club``, signed by a member or an admin.

A mail is a club mail when it is sent to the club's plus-address
(``pbem+club-<id>@...``) or its text has a ``club: <id>`` line (and no
``game`` line). Its statement (docs/clubs.md, "By mail")::

    club: ancients
    nonce: 20260701-093000
    command challenge bob@example.org cca-007-cannae

``standings``, ``profile`` and ``help`` may come unsigned (they answer the
sender, a member, at his address on record); every other command is signed
(namespace ``pbem-orders``) with the sender's registered key and acted on
once (:mod:`pbem.clubs.signed`). Admin commands need the key of an admin.
Every refusal is answered with the reason.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from pbem.clubs import ladder, tournament
from pbem.clubs.api import profile
from pbem.clubs.clubs import (
    ClubError,
    add_member,
    get_club,
    is_admin,
    member_ids,
    player_by_email,
    remove_member,
    rules_of,
    set_rule,
)
from pbem.clubs.models import Club
from pbem.clubs.reliability import excuse
from pbem.clubs.replacements import offer_seat
from pbem.clubs.rules import RuleError
from pbem.clubs.signed import Replayed, remember_once
from pbem.clubs.standings import standings_mail
from pbem.orders_text import VerifiedOrders
from pbem.pipeline.games import current_key, load_game
from pbem.pipeline.inbound import Inbound
from pbem.pipeline.steps import Outcome
from pbem.pipeline.turns import Env
from pbem.statements import StatementError, parse_statement
from pbem.store import InboxMessage, Player

__all__ = ["CLUB_HELP", "club_of", "handle_club_mail"]

UNSIGNED = ("help", "standings", "profile")
MEMBER = ("challenge", "accept", "decline", "enter", "drop")
ADMIN = ("member", "rules", "start", "offer-seat", "excuse")

CLUB_HELP = """Club commands (one 'command <name>' line, with 'club: <club id>'):

  command help                          this text
  command standings                     the ladder and your rating history (PNG)
  command profile                       your profile: key, time zone, reliability, ratings
signed with your key, with a one-time 'nonce: <word>' line:
  command challenge EMAIL SCENARIO      challenge a member on the ladder
  command accept ID | decline ID        answer a challenge
  command enter TOURNAMENT | drop TOURNAMENT
admins only (signed with an admin's key):
  command member add EMAIL | member remove EMAIL
  command rules KEY=VALUE ...           change the club's rules
  command start TOURNAMENT              close entries and start round 1
  command offer-seat GAME SIDE          offer a seat to a replacement
  command excuse MISS-ID                excuse a missed deadline
Reference: docs/clubs.md.
"""

_CLUB_TAG = re.compile(r"^club-([a-z0-9][a-z0-9-]{0,39})$")


def own_club_probe(mail: Inbound) -> Any:
    """The scalar subquery: the club whose own address is among the mail's recipients.

    None without recipients. The processor asks it in the same query as the
    game (:func:`pbem.pipeline.games.load_game`) and hands the answer to
    :func:`club_of`.
    """
    if not mail.recipients:
        return None
    return (
        select(Club.id)
        .where(col(Club.address).in_([r.lower() for r in mail.recipients]))
        .limit(1)
        .scalar_subquery()
    )


def club_of(
    mail: Inbound,
    text: str,
    address: str,
    session: Session,
    *,
    own: str | None = None,
    own_asked: bool = False,
) -> str | None:
    """The club a mail is for, or None.

    The club's own address (``pbem club create --address``), its
    plus-address ``club-<id>``, or a ``club`` line in a text without a
    ``game`` line. ``own_asked``: ``own`` is already the answer of
    :func:`own_club_probe` (not read again).
    """
    local, _, domain = address.lower().partition("@")
    if mail.recipients:
        if not own_asked:
            own = session.exec(
                select(Club.id).where(col(Club.address).in_([r.lower() for r in mail.recipients]))
            ).first()
        if own is not None:
            return own
    for rcpt in mail.recipients:
        r_local, _, r_domain = rcpt.partition("@")
        base, plus, tag = r_local.partition("+")
        found = _CLUB_TAG.match(tag) if plus and base == local and r_domain == domain else None
        if found:
            return found.group(1)
    try:
        st = parse_statement(text)
    except StatementError:
        return None
    return st.get("club").lower() or None if not st.get("game") else None


def _reply(
    env: Env, player: Player, row: InboxMessage, mail: Inbound, *, subject: str, body: str
) -> None:
    env.mailer.queue_player_note(
        player.email,
        subject,
        body,
        kind="club-reply",
        version=row.id or 0,
        in_reply_to=mail.message_id,
    )


def handle_club_mail(
    env: Env,
    row: InboxMessage,
    mail: Inbound,
    player: Player,
    *,
    club_id: str,
    text: str,
    verified: VerifiedOrders | None,
    error: Exception | None = None,
) -> Outcome:
    """Carry out a club mail's command for a registered player; reply with what happened."""
    session = env.session
    assert player.id is not None
    try:
        if error is not None:
            raise ClubError(f"the signature: {error}")
        club = get_club(session, club_id)
        if player.id not in member_ids(session, club.id):
            raise ClubError(f"you are not a member of {club.id}")
        st = parse_statement(text, verified.namespace if verified is not None else "pbem-orders")
        if st.command is None:
            raise ClubError("the mail holds no 'command <name>' line (send 'command help')")
        name, args = st.command
        if verified is None and name not in UNSIGNED:
            raise ClubError(f"'{name}' must be signed with your key (docs/signing.md)")
        if verified is not None:
            key = current_key(session, player.id)
            if key is None or key != verified.signer:
                raise ClubError("the statement is not signed with your registered key")
            if st.get("club").lower() != club.id:
                raise ClubError(f"a signed club command names its club: add 'club: {club.id}'")
            if not st.get("nonce"):
                raise ClubError("a signed club command carries a one-time 'nonce: <word>' line")
            if name in ADMIN and not is_admin(session, club.id, key.fingerprint()):
                raise ClubError(f"'{name}' is for the admins of {club.id}")
            remember_once(
                session,
                signer=key.fingerprint(),
                text=verified.text,
                scope=f"club:{club.id}",
                nonce=st.get("nonce"),
                now=env.clock.now(),
                inbox_id=row.id,
            )
        done = _run(env, club.id, player, name, args)
    except (ClubError, RuleError, StatementError, Replayed, ValueError) as exc:
        _reply(
            env,
            player,
            row,
            mail,
            subject=f"[club-{club_id}] Refused",
            body=f"Refused: {exc}\n\n{CLUB_HELP}",
        )
        return Outcome.refused(f"club {club_id}: {exc}")
    if done:
        _reply(env, player, row, mail, subject=f"[club-{club_id}] Done", body=done + "\n")
    return Outcome.done(f"club {club_id}: {name} by {player.email}")


def _run(env: Env, club_id: str, player: Player, name: str, args: str) -> str:
    """Carry out one checked command; return the reply ("" when a mail of its own went)."""
    session, now = env.session, env.clock.now()
    assert player.id is not None
    words = args.split()
    if name == "help":
        return CLUB_HELP
    if name == "standings":
        standings_mail(env, club_id, player_id=player.id)
        return ""
    if name == "profile":
        return profile_text(env, player.id, now)
    if name == "challenge":
        if len(words) != 2:
            raise ClubError("write 'command challenge EMAIL SCENARIO'")
        other = player_by_email(session, words[0])
        assert other.id is not None
        c = ladder.challenge(session, club_id, player.id, other.id, scenario=words[1], now=now)
        return f"Challenge {c.id} sent to {other.name}; answer by {c.answer_by:%Y-%m-%d %H:%M} UTC."
    if name in ("accept", "decline"):
        if len(words) != 1 or not words[0].isdigit():
            raise ClubError(f"write 'command {name} CHALLENGE-ID'")
        if name == "accept":
            c = ladder.accept(env, int(words[0]), player.id)
            return f"Challenge {c.id} accepted: game {c.game_id} (join it from its invitation)."
        ladder.decline(session, int(words[0]), player.id)
        return f"Challenge {words[0]} declined."
    if name in ("enter", "drop"):
        if len(words) != 1:
            raise ClubError(f"write 'command {name} TOURNAMENT'")
        if name == "enter":
            tournament.enter(session, words[0], player.id, now)
            return f"You are entered in {words[0]}."
        tournament.drop(session, words[0], player.id)
        return f"You dropped from {words[0]}: you are not paired from the next round on."
    return _admin(env, club_id, name, words)


def _admin(env: Env, club_id: str, name: str, words: list[str]) -> str:
    session = env.session
    club = get_club(session, club_id)
    if name == "member" and len(words) == 2 and words[0] in ("add", "remove"):
        who = player_by_email(session, words[1])
        if words[0] == "add":
            add_member(session, club, who, env.clock)
            return f"{who.email} is a member of {club_id}."
        remove_member(session, club, who)
        return f"{who.email} left {club_id}."
    if name == "rules":
        for item in words:
            key, eq, value = item.partition("=")
            if not eq:
                raise ClubError(f"{item!r}: write KEY=VALUE")
            set_rule(session, club, key, value)
        return "The rules are now:\n" + "\n".join(rules_of(club).lines())
    if name == "start" and len(words) == 1:
        t = tournament.start(env, words[0])
        return f"{t.id} started: {t.rounds} Swiss rounds, then the top {t.top}."
    if name == "offer-seat" and len(words) == 2:
        ctx = load_game(session, words[0])
        if ctx is None:
            raise ClubError(f"no game {words[0]}")
        offer_seat(env, ctx, words[1], reason="the club's admin offered it")
        return f"The seat {words[1]} of {words[0]} is offered to the members."
    if name == "excuse" and len(words) == 1 and words[0].isdigit():
        excuse(session, int(words[0]))
        return f"Missed deadline {words[0]} is excused."
    raise ClubError(f"'{name} {' '.join(words)}' is not a club command")


def profile_text(env: Env, player_id: int, now: datetime) -> str:
    """A player's profile as text."""
    p = profile(env.session, player_id, now)
    lines = [
        f"{p.name} <{p.email}>",
        f"key: {p.key_fingerprint or '(none registered)'}",
        f"time zone: {p.time_zone}",
        f"reliability: {p.reliability} ({p.missed} missed deadlines in a year, "
        f"{p.excused} excused)",
        "away: " + (", ".join(f"{a:%Y-%m-%d} to {b:%Y-%m-%d}" for a, b in p.away) or "no"),
        "clubs: " + (", ".join(p.clubs) or "none"),
    ]
    lines += [
        f"rating in {r.club_id} ({r.system}): {r.mu:.1f} ± {r.sigma:.1f}, {r.games} games"
        for r in p.ratings
    ]
    return "\n".join(lines)
