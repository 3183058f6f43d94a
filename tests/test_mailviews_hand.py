"""Hidden stays hidden (design.md §2.3): a mail carries only its recipient's hand."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.mailviews.compose import compose
from pbem.mailviews.model import (
    Card,
    DiceReveal,
    Envelope,
    GameStart,
    Player,
    Question,
    QuestionMail,
    Recipient,
    Reminder,
    TurnMail,
)
from pbem.render.bundle import RenderedBoard, render_board
from pbem.render.sample import sample_picture as sample_view

DEADLINE = datetime(2026, 11, 23, 17, 0, tzinfo=UTC)


@cache
def board() -> RenderedBoard:
    return render_board(sample_view())


# Card fields are random tokens, distinct between the two players, so "appears
# in the mail" is a plain substring test.
token = st.text("ABCDEFGHJKLMNPQRSTUVWXYZ", min_size=10, max_size=14)
card = st.builds(
    lambda a, b, c: Card("C" + a[:4], "Name" + b, "Text " + c + " rules."), token, token, token
)
hands = st.tuples(st.lists(card, max_size=7), st.lists(card, max_size=7)).filter(
    lambda h: (
        not {x for c in h[0] for x in (c.code, c.name, c.text)}
        & {x for c in h[1] for x in (c.code, c.name, c.text)}
    )
)


def mails_for(side: str, hand: tuple[Card, ...]) -> list[object]:
    e = Envelope(
        "g7", "Cannae", 4, Recipient("P", f"{side}@example.org", "UTC", side),
        "pbem@club.example", f"<g7.{side}@club.example>",
    )  # fmt: skip
    dice = DiceReveal(3, "a" * 64, "b" * 64, "c" * 64)
    q = Question("Evade?", ("evade", "stand"), "stand", DEADLINE)
    players = (Player("P", side, "Roman", "SHA256:x"),)
    return [
        TurnMail(e, side, (), board(), hand, dice, DEADLINE, "game g7\n"),
        TurnMail(e, "north" if side == "south" else "south", (), board(), hand, dice, DEADLINE, ""),
        QuestionMail(e, q, (), board(), hand),
        Reminder(e, DEADLINE, "game g7\n", hand),
        GameStart(
            e, players, side, "b" * 64, "c" * 64, "SHA256:s", "s k", board(), hand, DEADLINE, ""
        ),
    ]


def everything_in(m: object) -> str:
    """Every header and every readable part (text, the SVG board); not the PNG's base64,
    whose letters can spell a short card code by chance."""
    msg = compose(m)  # type: ignore[arg-type]
    out: list[str] = []
    for p in msg.walk():
        out += [f"{k}: {v}" for k, v in p.items()]
        if p.get_content_maintype() == "text":
            out.append(str(p.get_content()))
        elif p.get_content_type() == "image/svg+xml":
            out.append(p.get_content().decode("utf-8"))
        elif p.get_content_maintype() == "application":
            out.append(p.get_content().decode("ascii", "replace"))
    return "\n".join(out)


@settings(max_examples=25, deadline=None)
@given(hands)
def test_a_mail_shows_its_recipients_hand_and_never_the_other_one(
    h: tuple[list[Card], list[Card]],
) -> None:
    south, north = tuple(h[0]), tuple(h[1])
    for mine, theirs, side in ((south, north, "south"), (north, south, "north")):
        for m in mails_for(side, mine):
            blob = everything_in(m)
            for c in mine:
                assert c.name in blob and c.text in blob
            for c in theirs:
                assert c.code not in blob and c.name not in blob and c.text not in blob
