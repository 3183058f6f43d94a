"""Build the mails players receive (design.md §5): text + HTML, inline PNG board, SVG.

Each function takes one frozen input from :mod:`pbem.mailviews.model` and
builds a :class:`pbem.mailviews.mime.Mime` (:func:`build`, what the pipeline
queues: written straight to bytes) or an ``EmailMessage`` read back from those
bytes (:func:`compose` and the ``*_mail`` functions): ``multipart/mixed`` holding a
``multipart/related`` (``multipart/alternative`` text + HTML, then the board
PNG referenced by ``cid:``), the board SVG and, when the envelope has a
signer, ``pbem.txt.sig`` (the server's signature of the text part, namespace
``pbem-mail``). Headers are deterministic: the caller's Message-ID, one
thread per game. The outbox adds ``Date``. Nothing here touches the network,
the store or the clock.
"""

from __future__ import annotations

import hashlib
from email.headerregistry import Address
from email.message import EmailMessage
from typing import Any

from pbem.mailviews.format import (
    card_dicts,
    deadline_text,
    error_dicts,
    narrative_dicts,
    side_label,
)
from pbem.mailviews.mime import Mime, bytes_part, multipart, text_part
from pbem.mailviews.model import (
    Envelope,
    GameEnd,
    GameStart,
    MissedTurn,
    OrdersRejected,
    QuestionMail,
    Reminder,
    TurnMail,
)
from pbem.orders_text import canonicalize
from pbem.render.bundle import RenderedBoard
from pbem.render.png import board_size, display_size
from pbem.render.templating import environment, wrap

__all__ = [
    "MAX_MAIL_BYTES",
    "MailInput",
    "build",
    "compose",
    "game_end_mail",
    "game_start_mail",
    "missed_turn_mail",
    "question_mail",
    "rejection_mail",
    "reminder_mail",
    "turn_mail",
]

MailInput = GameStart | TurnMail | QuestionMail | OrdersRejected | Reminder | MissedTurn | GameEnd

MAX_MAIL_BYTES = 300_000
"""Budget for one mail with a full board (tested)."""

SIGN_ORDERS = "ssh-keygen -Y sign -f ~/.ssh/id_ed25519 -n pbem-orders orders.txt"


def _common(env: Envelope) -> dict[str, Any]:
    r = env.recipient
    return {
        "game_id": env.game_id,
        "scenario": env.scenario,
        "turn": env.turn,
        "name": r.name,
        "side": r.side,
        "sign_command": SIGN_ORDERS,
        "signed": env.signer is not None,
    }


def _board(board: RenderedBoard, cid: str) -> dict[str, Any]:
    if board.radius is None:
        w, h = display_size(board.picture)
    else:  # a small picture (an overview) is shown pixel for pixel
        w, h = board_size(board.picture, board.radius)
    return {
        "ascii": board.ascii.rstrip("\n"),
        "cid": cid,
        "width": w,
        "height": h,
        "top": side_label(board.picture, board.picture.top),
        "bottom": side_label(board.picture, board.picture.bottom),
        # more pictures of the board (an overview), inline after it
        "others": [
            {**_board(other, f"{name}.{cid}"), "name": name} for name, other in board.others
        ],
    }


def _cid(env: Envelope) -> str:
    digest = hashlib.sha256(env.message_id.encode("utf-8")).hexdigest()[:16]
    return f"board.{digest}@pbem"


def _render(kind: str, ctx: dict[str, Any]) -> tuple[str, str]:
    jenv = environment()
    text = jenv.get_template(f"mail/{kind}.txt.j2").render(**ctx)
    html = jenv.get_template(f"mail/{kind}.html.j2").render(**ctx)
    return canonicalize(text), html


def fit_template(text: str, width: int = 76) -> str:
    """Wrap long comment lines of an orders template; order lines are never touched."""
    out: list[str] = []
    for line in text.rstrip("\n").split("\n"):
        if len(line) > width and line.lstrip().startswith("#"):
            out.append(wrap(line, width, "#   ", ""))
        else:
            out.append(line)
    return "\n".join(out)


def _message(
    env: Envelope,
    subject: str,
    kind: str,
    ctx: dict[str, Any],
    board: RenderedBoard | None = None,
    *,
    files: tuple[tuple[str, bytes], ...] = (),
    images: tuple[tuple[str, bytes], ...] = (),
) -> Mime:
    cid = _cid(env)
    ctx = {**_common(env), **ctx, "board": _board(board, cid) if board else None}
    text, html = _render(kind, ctx)
    headers: list[tuple[str, str | bytes]] = [
        ("MIME-Version", "1.0"),
        ("Subject", f"[{env.game_id}] Turn {env.turn}: {subject}"),
        ("From", env.sender),
        ("To", str(Address(display_name=env.recipient.name, addr_spec=env.recipient.address))),
        ("Message-ID", env.message_id),
    ]
    # One thread per game: every mail refers to the game's first mail (never to itself).
    refs = [x for x in (env.thread_root, env.in_reply_to) if x and x != env.message_id]
    if refs:
        headers.append(("In-Reply-To", refs[-1]))
        headers.append(("References", " ".join(dict.fromkeys(refs))))
    headers += [
        ("Auto-Submitted", "auto-generated"),
        ("X-Pbem-Game", env.game_id),
        ("X-Pbem-Turn", str(env.turn)),
    ]
    # Boundaries derive from the Message-ID, so the same mail is the same bytes.
    tag = hashlib.sha256(env.message_id.encode("utf-8")).hexdigest()[:24]
    body = multipart(
        "alternative", f"alt-{tag}", [text_part(text, "plain"), text_part(html, "html")]
    )
    if board is None:
        msg = multipart("mixed", f"mix-{tag}", [body], headers=headers)
    else:
        image = bytes_part(
            board.png,
            "image",
            "png",
            disposition="inline",
            filename=f"board-turn-{env.turn}.png",
            cid=f"<{cid}>",
        )
        others = [
            bytes_part(
                other.png,
                "image",
                "png",
                disposition="inline",
                filename=f"{name}-turn-{env.turn}.png",
                cid=f"<{name}.{cid}>",
            )
            for name, other in board.others
        ]
        related = multipart(
            "related",
            f"rel-{tag}",
            [body, image, *others],
            params=(("type", "multipart/alternative"),),
        )
        msg = multipart("mixed", f"mix-{tag}", [related], headers=headers)
        msg.add_attachment(
            board.svg.encode("utf-8"),
            maintype="image",
            subtype="svg+xml",
            filename=f"board-turn-{env.turn}.svg",
        )
    for filename, data in files:
        msg.add_attachment(data.decode("utf-8"), subtype="plain", filename=filename)
    for filename, data in images:
        msg.add_attachment(data, maintype="image", subtype="png", filename=filename)
    if env.signer is not None:
        msg.add_attachment(
            env.signer(text).encode("ascii"),
            maintype="application",
            subtype="octet-stream",
            filename="pbem.txt.sig",
        )
    return msg


def _army(board: RenderedBoard, side: str) -> str:
    return side_label(board.picture, side)


def _game_start_mail(m: GameStart) -> Mime:
    """Announce a game: players, scenario, key fingerprints, commitments, how to sign."""
    env = m.env
    mover = m.env.recipient.side == m.first_side
    first = _army(m.board, m.first_side)
    ctx = {
        "players": [
            {
                "name": p.name,
                "side": p.side,
                "army": p.army,
                "fingerprint": p.key_fingerprint,
            }
            for p in m.players
        ],
        "army": _army(m.board, env.recipient.side),
        "first": first,
        "mover": mover,
        "dice_commitment": m.dice_commitment,
        "deck_commitment": m.deck_commitment,
        "tables_sha256": m.tables_sha256,
        "options": m.options,
        "server_fingerprint": m.server_fingerprint,
        "server_allowed_signers": m.server_allowed_signers,
        "hand": card_dicts(m.hand),
        "deadline": deadline_text(m.deadline, env.recipient.tz),
        "orders_template": fit_template(m.orders_template),
        "standing": m.standing.strip("\n"),
        "standing_help": list(m.standing_help),
    }
    subject = (
        "game starts, your orders due" if mover else f"game starts, {m.first_side} moves first"
    )
    signers = (("allowed_signers", (m.server_allowed_signers.strip() + "\n").encode("utf-8")),)
    return _message(env, subject, "game_start", ctx, m.board, files=signers)


def _turn_mail(m: TurnMail) -> Mime:
    """Report a turn to one player; the player to move gets an orders template to sign."""
    env = m.env
    mover = env.recipient.side == m.to_move
    to_move = _army(m.board, m.to_move)
    ctx = {
        "mover": mover,
        "to_move": to_move,
        "army": _army(m.board, env.recipient.side),
        "narrative": narrative_dicts(m.narrative),
        "hand": card_dicts(m.hand),
        "dice": {
            "epoch": m.dice.epoch,
            "key": m.dice.key,
            "previous": m.dice.epoch - 1,
            "dice_commitment": m.dice.dice_commitment,
            "deck_commitment": m.dice.deck_commitment,
            "orders": [{"epoch": e, "side": s, "hash": h} for e, s, h in m.dice.orders],
        },
        "deadline": deadline_text(m.deadline, env.recipient.tz),
        "orders_template": fit_template(m.orders_template),
    }
    subject = "your orders due" if mover else f"{m.to_move} to move, nothing due from you"
    return _message(env, subject, "turn", ctx, m.board)


def _question_mail(m: QuestionMail) -> Mime:
    """Ask the deciding player a mid-turn question with its legal answers and default."""
    env = m.env
    q = m.question
    ctx = {
        "army": _army(m.board, env.recipient.side),
        "question": q.text,
        "answers": list(q.answers),
        "default": q.default,
        "deadline": deadline_text(q.deadline, env.recipient.tz),
        "narrative": narrative_dicts(m.narrative),
        "hand": card_dicts(m.hand),
        "orders_template": fit_template(m.orders_template)
        or f"game {env.game_id}\nturn {env.turn}\nside {env.recipient.side}\nanswer {q.default}",
    }
    return _message(env, "your answer due", "question", ctx, m.board)


def _rejection_mail(m: OrdersRejected) -> Mime:
    """Reply to refused orders: quote each bad line with its number, say why, list what is legal.

    It says what is still due and by when; it asks to resend only when the
    game waits for the recipient (never what was accepted before).
    """
    env = m.env
    mine = m.due_from is None or m.due_from == env.recipient.side
    ctx = {
        "errors": error_dicts(m.errors),
        "received_subject": m.received_subject,
        "deadline": deadline_text(m.deadline, env.recipient.tz) if m.deadline else None,
        "resend": mine,
        "due_from": m.due_from or "",
        "due_what": m.due_what,
    }
    subject = f"refused, your {m.due_what} still due" if mine else "refused, nothing due from you"
    return _message(env, subject, "rejected", ctx)


def _reminder_mail(m: Reminder) -> Mime:
    """Remind a player that orders are due, with the deadline in their time zone."""
    env = m.env
    ctx = {
        "deadline": deadline_text(m.deadline, env.recipient.tz),
        "orders_template": fit_template(m.orders_template),
        "hand": card_dicts(m.hand),
    }
    return _message(env, "reminder, your orders due", "reminder", ctx)


def _missed_turn_mail(m: MissedTurn) -> Mime:
    """Tell a player a deadline passed and what the referee did."""
    env = m.env
    mine = env.recipient.side == m.missed_side
    ctx = {
        "mine": mine,
        "missed_side": m.missed_side,
        "action": m.action,
        "next_deadline": (
            deadline_text(m.next_deadline, env.recipient.tz) if m.next_deadline else None
        ),
    }
    who = "you" if mine else m.missed_side.capitalize()
    return _message(env, f"deadline missed by {who}", "missed_turn", ctx)


def _game_end_mail(m: GameEnd) -> Mime:
    """Close a game: result, every key revealed, audit summary and how to verify it."""
    env = m.env
    ctx = {
        "result": m.result,
        "winner": _army(m.board, m.winner) if m.winner else None,
        "won": m.winner == env.recipient.side,
        "narrative": narrative_dicts(m.narrative),
        "dice_seed": m.dice_seed,
        "deck_seed": m.deck_seed,
        "dice_commitment": m.dice_commitment,
        "deck_commitment": m.deck_commitment,
        "audit_summary": list(m.audit_summary),
        "audit_file": m.audit_file,
        "audit_attached": bool(m.audit_record),
        "score": m.score,
        "fairness": list(m.fairness),
        "fairness_files": [name for name, _ in m.images],
    }
    if m.winner is None:
        outcome = "a draw"
    else:
        outcome = "you won" if m.winner == env.recipient.side else "you lost"
    subject = f"game over, {outcome}" + (f" ({m.reason})" if m.reason else "")
    files = ((m.audit_file, m.audit_record.encode("utf-8")),) if m.audit_record else ()
    return _message(env, subject, "game_end", ctx, m.board, files=files, images=m.images)


def build(m: MailInput) -> Mime:
    """Build the mail for any input kind, ready to write as bytes."""
    match m:
        case GameStart():
            return _game_start_mail(m)
        case TurnMail():
            return _turn_mail(m)
        case QuestionMail():
            return _question_mail(m)
        case OrdersRejected():
            return _rejection_mail(m)
        case Reminder():
            return _reminder_mail(m)
        case MissedTurn():
            return _missed_turn_mail(m)
        case GameEnd():
            return _game_end_mail(m)


def compose(m: MailInput) -> EmailMessage:
    """The mail for any input kind, as the standard library reads it back."""
    return build(m).message()


def game_start_mail(m: GameStart) -> EmailMessage:
    """See :func:`_game_start_mail` (the mail read back by the standard library)."""
    return _game_start_mail(m).message()


def turn_mail(m: TurnMail) -> EmailMessage:
    """See :func:`_turn_mail` (the mail read back by the standard library)."""
    return _turn_mail(m).message()


def question_mail(m: QuestionMail) -> EmailMessage:
    """See :func:`_question_mail` (the mail read back by the standard library)."""
    return _question_mail(m).message()


def rejection_mail(m: OrdersRejected) -> EmailMessage:
    """See :func:`_rejection_mail` (the mail read back by the standard library)."""
    return _rejection_mail(m).message()


def reminder_mail(m: Reminder) -> EmailMessage:
    """See :func:`_reminder_mail` (the mail read back by the standard library)."""
    return _reminder_mail(m).message()


def missed_turn_mail(m: MissedTurn) -> EmailMessage:
    """See :func:`_missed_turn_mail` (the mail read back by the standard library)."""
    return _missed_turn_mail(m).message()


def game_end_mail(m: GameEnd) -> EmailMessage:
    """See :func:`_game_end_mail` (the mail read back by the standard library)."""
    return _game_end_mail(m).message()
