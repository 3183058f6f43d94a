"""Small Napoleonics positions for rules and turn tests (no scenario file needed).

``position("S C3 GB LN", "N C5 FR LC", leaders=["S C3 Wellesley"], hands=...)`` builds a
started :class:`engine.ccn.state.State`: units as ``"<side letter> <hex> <nation> <type>
[blocks]"``, leaders ``"<side letter> <hex> <name>"``, terrain ``{hex: code}``, hands per side
(the rest of the 70 cards is the deck, in table order), south to move, both sides on
:data:`~engine.ccn.policy.AUTO_STANDING` (no question unless a test sets one). :func:`play` checks
and resolves a turn on it with scripted dice.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace

from engine.ccn.cards import DECK
from engine.ccn.policy import AUTO_STANDING
from engine.ccn.setup import new_game
from engine.ccn.state import Leader, SideState, State, Unit
from engine.ccn.strength import start_blocks
from engine.ccn.work import bundled_tables
from engine.core.api import Event
from engine.hexgrid import Hex
from engine.randomness import ScriptedDice

SIDE = {"S": "south", "N": "north"}


def position(
    *units: str,
    leaders: Sequence[str] = (),
    terrain: Mapping[str, str] | None = None,
    hands: Mapping[str, Sequence[str]] | None = None,
    banners: int = 5,
    to_move: str = "south",
) -> State:
    t = bundled_tables()
    us: list[Unit] = []
    for i, spec in enumerate(units, 1):
        parts = spec.split()
        side, hx, nation, kind = SIDE[parts[0]], parts[1], parts[2], parts[3]
        full = start_blocks(t, nation, kind)
        blocks = int(parts[4]) if len(parts) > 4 else full
        us.append(Unit(f"{side[0]}{i}", side, nation, kind, Hex.parse(hx), blocks, full))
    lds = [
        Leader(" ".join(p.split()[2:]), SIDE[p.split()[0]], Hex.parse(p.split()[1]))
        for p in leaders
    ]
    hands = hands or {"south": ("attack_centre", "probe_centre", "scout_centre", "forward",
                                "probe_left"),
                      "north": ("attack_centre", "probe_centre", "probe_right", "forward",
                                "probe_left")}  # fmt: skip
    deck = list(DECK)
    for c in Counter(c for h in hands.values() for c in h).elements():
        deck.remove(c)
    sides = {
        s: SideState(army=s, nation="GB" if s == "south" else "FR", colour="", command=len(h),
                     banners_needed=banners, hand=tuple(h), standing=AUTO_STANDING)
        for s, h in hands.items()
    }  # fmt: skip
    state = State(
        game_id="t",
        name="test",
        units=tuple(us),
        leaders=tuple(lds),
        sides=sides,
        terrain=tuple(sorted((Hex.parse(h), c) for h, c in (terrain or {}).items())),
        deck=tuple(deck),
        deck_random=False,
        to_move=to_move,
    )
    return replace(new_game(state), deck=tuple(deck))


def play(
    state: State, text: str, dice: list[str], fill: str = "INF", side: str = "south"
) -> tuple[State, list[Event]]:
    """Check and resolve ``text`` for ``side`` with ``dice`` first, then ``fill`` faces (for
    rolls such as leader checks the test does not look at)."""
    from engine.ccn.system import SYSTEM

    sub = SYSTEM.parse_orders(state, side, text)
    res = SYSTEM.resolve(state, sub, ScriptedDice(dice + [fill] * 40))
    return res.state, list(res.events)
