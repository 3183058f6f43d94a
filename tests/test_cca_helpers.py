"""Helpers for C&C Ancients rules tests: build small positions, play turns with forced dice."""

from __future__ import annotations

from collections.abc import Sequence

from engine.cca.state import State
from engine.core.api import Event, Resolution
from engine.randomness import ScriptedDice
from engine.systems import get_system

SYS = get_system("cca")

ENGINE_PICKS = """flags: ignore-all
retreat: auto
leader-evade: auto
rampage: auto
rally: auto
spartacus: auto
"""
"""Standing orders that let the engine pick where a new game asks the owner (paths, flags,
rampage order, Rally and Spartacus dice): tests of a rule then need no answers. A test of a
question passes ``standing`` with ``ask``; ``standing=None`` keeps a new game's defaults."""


def _list(items: Sequence[str]) -> str:
    return "[" + ", ".join(f'"{x}"' for x in items) + "]"


def position(  # noqa: PLR0917
    north: Sequence[str] = (),
    south: Sequence[str] = (),
    north_leaders: Sequence[str] = (),
    south_leaders: Sequence[str] = (),
    terrain: dict[str, Sequence[str]] | None = None,
    south_hand: Sequence[str] = ("3C", "3L", "3R", "LT", "MT", "HT"),
    north_hand: Sequence[str] = ("3C", "3L", "3R", "LT"),
    deck: Sequence[str] = ("2C", "2C", "2L", "2R", "MO", "MT"),
    command: int = 6,
    banners: int = 4,
    options: str = "",
    extra: str = "",
    standing: str | None = "",
) -> State:
    """A small position with South to move (turn 1); standing orders as :data:`ENGINE_PICKS`
    plus ``standing`` (``None``: the defaults of a new game)."""
    ter = "".join(f"{k} = {_list(v)}\n" for k, v in (terrain or {}).items())
    text = f"""format = "pbem-position/1"
system = "cca"
[meta]
id = "t"
name = "test"
[sides.north]
army = "N"
command = {command}
banners = {banners}
units = {_list(north)}
leaders = {_list(north_leaders)}
[sides.south]
army = "S"
command = {command}
banners = {banners}
first = true
units = {_list(south)}
leaders = {_list(south_leaders)}
[terrain]
{ter}
[options]
{options}
[cards]
deck = {_list(deck)}
hands = {{ south = {_list(south_hand)}, north = {_list(north_hand)} }}
{extra}
"""
    st = SYS.new_game(SYS.load_position(text))
    if standing is not None:
        from engine.cca.policy import DEFAULT_STANDING, parse_policy

        pol = parse_policy(DEFAULT_STANDING).merged(parse_policy(ENGINE_PICKS + standing))
        for side in ("north", "south"):
            st = st.with_side(side, standing=pol.text())
    return st


def play(
    state: State, side: str, body: str, dice: str = "", perms: Sequence[Sequence[int]] = ()
) -> Resolution:
    """Parse and resolve ``body`` (header added) with the dice faces in ``dice``."""
    text = f"game {state.game_id}\nturn {state.turn}\n{body}"
    sub = SYS.parse_orders(state, side, text)
    return SYS.resolve(state, sub, ScriptedDice(list(dice.replace(" ", "")), perms))


def kinds(events: Sequence[Event]) -> list[str]:
    return [e.kind for e in events]


def unit(state: State, hexname: str) -> tuple[str, str, int] | None:
    """(side, type, blocks) of the unit in ``hexname``, or None."""
    from engine.hexgrid import Hex

    u = state.unit_at(Hex.parse(hexname))
    return None if u is None else (u.side, u.type, u.blocks)
