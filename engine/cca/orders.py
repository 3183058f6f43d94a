"""The C&C Ancients order language: parse a mailed turn, print it back.

One order per line; ``#`` starts a comment; case and spacing are forgiven.
``parse(text).notation()`` prints the canonical form, and parsing that gives
an equal :class:`Submission` (line numbers are not compared). Syntax only is
checked here; legality is :mod:`engine.cca.validate`'s job. See
``docs/orders.md`` for the language as players see it.

Lines::

    game <id>                   turn <n>                side <north|south>
    card <code or full name>
    order <ref>[, <ref> ...]    # ref: a hex (C4) or "leader <Name>"
    move <ref> to <hex>         # the engine picks the shortest legal path
    move <ref> > <hex> > <hex>  # an explicit path; "off" = leave the board
    enter <TYPE> at <hex>       # bring a reserve unit on (reinforcements)
    enter leader <Name> at <hex>
    fire <hex> at <hex>
    attack <hex> at <hex> [advance|no-advance] [extra <hex>] [bonus <hex>]
                                [bonus-advance|bonus-no-advance]
    answer <text>               # the answer to a question
    standing <policy line>      # change a standing order (engine.cca.policy)
"""

from __future__ import annotations

from engine.cc.orders import OFF, Action, Language, Ref, Submission
from engine.cc.orders import parse_submission as _parse
from engine.cca.cards import CARDS, find_card

__all__ = [
    "LANGUAGE",
    "OFF",
    "Action",
    "Ref",
    "Submission",
    "parse_submission",
]

LANGUAGE = Language({code: c.name for code, c in CARDS.items()}, find_card)
"""The Ancients cards in the shared C&C order language (:mod:`engine.cc.orders`)."""


def parse_submission(text: str) -> Submission:
    """Parse Ancients orders text; raise ``OrdersError`` listing every line not understood."""
    return _parse(text, LANGUAGE)
