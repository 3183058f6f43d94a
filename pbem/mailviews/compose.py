"""Build the mails players receive (design.md §5): text + HTML, inline PNG board, SVG.

Each function takes one frozen input from :mod:`pbem.mailviews.model` and
returns an ``EmailMessage`` with deterministic headers (the caller's
Message-ID), threaded on the game's first mail. Nothing here touches the
network, the store or the clock.
"""

from __future__ import annotations

from email.message import EmailMessage

from pbem.mailviews.model import (
    GameEnd,
    GameStart,
    MissedTurn,
    OrdersRejected,
    QuestionMail,
    Reminder,
    TurnMail,
)

__all__ = [
    "MailInput",
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


def game_start_mail(m: GameStart) -> EmailMessage:
    """Announce a game: players, scenario, key fingerprints, commitments, how to sign."""
    raise NotImplementedError


def turn_mail(m: TurnMail) -> EmailMessage:
    """Report a turn to one player; the player to move gets an orders template to sign."""
    raise NotImplementedError


def question_mail(m: QuestionMail) -> EmailMessage:
    """Ask the deciding player a mid-turn question with its legal answers and default."""
    raise NotImplementedError


def rejection_mail(m: OrdersRejected) -> EmailMessage:
    """Reply to refused orders: quote each bad line with its number, say why, list what is legal."""
    raise NotImplementedError


def reminder_mail(m: Reminder) -> EmailMessage:
    """Remind a player that orders are due, with the deadline in their time zone."""
    raise NotImplementedError


def missed_turn_mail(m: MissedTurn) -> EmailMessage:
    """Tell a player a deadline passed and what the referee did."""
    raise NotImplementedError


def game_end_mail(m: GameEnd) -> EmailMessage:
    """Close a game: result, every key revealed, audit summary and how to verify it."""
    raise NotImplementedError


def compose(m: MailInput) -> EmailMessage:
    """Build the mail for any input kind."""
    match m:
        case GameStart():
            return game_start_mail(m)
        case TurnMail():
            return turn_mail(m)
        case QuestionMail():
            return question_mail(m)
        case OrdersRejected():
            return rejection_mail(m)
        case Reminder():
            return reminder_mail(m)
        case MissedTurn():
            return missed_turn_mail(m)
        case GameEnd():
            return game_end_mail(m)
