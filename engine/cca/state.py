"""The C&C Ancients game state: frozen dataclasses and their canonical JSON form.

A :class:`State` is everything needed to go on with a game: board and
terrain, units and leaders, each side's hand, banners and standing orders,
the deck (top first) and discard pile, whose turn it is, the rule options in
force, the scenario's special rules, and a :class:`Pending` turn when a turn
waits for a player's answer. A leader is *attached* when it stands on a hex
with a friendly unit; nothing else records attachment.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar

from engine.cc.lookups import Lookups, name_key
from engine.cc.pending import Pending, hex_from, hex_to, pending_from_dict, pending_to_dict
from engine.cca.tables import BUNDLED, CcaTables, load_cca_tables, named
from engine.hexgrid import STANDARD_BOARD, Board, Hex

__all__ = [
    "DEFAULT_OPTIONS",
    "SIDES",
    "Leader",
    "Pending",
    "SideState",
    "Special",
    "State",
    "Unit",
    "name_key",
    "other",
    "state_from_dict",
    "state_to_dict",
]

SIDES = ("north", "south")

DEFAULT_OPTIONS: dict[str, Any] = {
    # HU's circled cards raise hand size and draws (off: no source but HU).
    "circled_cards_raise_hand": False,
    # A-3d: -1 die for attacks into a camp as well as out of it.
    "camp_minus1_into": False,
    # the hill LOS exception only for units on the same connected hill.
    "hill_los_same_hill_only": False,
    # hexes an elephant retreats per flag (HU says 2).
    "elephant_retreat_per_flag": 1,
    # +1 retreat hex per flag *rolled* by elephants/camels (default: per flag accepted).
    "extra_retreat_per_flag_rolled": False,
    # an elephant attacking full-strength barbarian chariots rolls 3 (default 2).
    "elephant_vs_bch_full_strength": False,
    # Mounted Charge lets attached leaders detach (settled: no).
    "mounted_charge_detach": False,
}
"""Named rule options and their defaults (docs/rules-choices.md)."""


def other(side: str) -> str:
    """Return the opposing side."""
    return "south" if side == "north" else "north"


@dataclass(frozen=True)
class Unit:
    """A unit on the board (``hex`` None = in reserve, off the board)."""

    id: str
    side: str
    type: str
    hex: Hex | None
    blocks: int
    full: int
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Leader:
    """A leader (not a unit); ``hex`` None = gone (escaped off the board)."""

    name: str
    side: str
    hex: Hex | None


@dataclass(frozen=True)
class SideState:
    """One side: army, Command (= hand size), hand, banners and standing orders."""

    army: str
    colour: str
    command: int
    banners_needed: int
    hand: tuple[str, ...] = ()
    banners: tuple[str, ...] = ()
    turns: int = 0  # turns this side has completed
    standing: str = ""  # standing orders text (engine.cca.policy)


@dataclass(frozen=True)
class Special:
    """A scenario special rule: a flag name, its parameters and the file line."""

    rule: str
    params: Mapping[str, Any]
    line: int = 0


@dataclass(frozen=True)
class State(Lookups[Unit, Leader, SideState]):
    """A whole game position (see the module docstring); look-ups in engine.cc.lookups."""

    DEFAULTS: ClassVar[Mapping[str, Any]] = DEFAULT_OPTIONS

    game_id: str
    name: str
    units: tuple[Unit, ...]
    leaders: tuple[Leader, ...]
    sides: Mapping[str, SideState]
    terrain: tuple[tuple[Hex, str], ...] = ()
    facing: tuple[tuple[Hex, tuple[Hex, ...]], ...] = ()  # ramparts: protected neighbours
    year: str = ""
    board: Board = STANDARD_BOARD
    deck: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    deck_random: bool = True  # the deck still has to be shuffled and hands dealt
    to_move: str = "south"
    turn: int = 1
    options: Mapping[str, Any] = field(default_factory=lambda: dict(DEFAULT_OPTIONS))
    specials: tuple[Special, ...] = ()
    last_card: Mapping[str, Any] | None = None  # what the last turn played (Counter-Attack)
    pending: Pending | None = None
    result: str | None = None  # "north" / "south" / "draw" once over
    marks: Mapping[str, Any] = field(default_factory=dict)  # special-rule bookkeeping
    tables: CcaTables = BUNDLED  # the rules tables the game is played with (docs/tables.md)

    @property
    def tables_sha256(self) -> str:
        """The SHA-256 of the rules tables file the game is played with."""
        return self.tables.sha256

    def with_side(self, side: str, **changes: Any) -> State:
        sides = dict(self.sides)
        sides[side] = replace(sides[side], **changes)
        return self.evolve(sides=sides)

    def evolve(self, **changes: Any) -> State:
        """``dataclasses.replace(self, **changes)``, made faster (a turn makes several).

        The fields are copied as they are (``__init__`` checks nothing), and the
        terrain look-up built for this state is kept when the terrain is unchanged.
        """
        unknown = changes.keys() - _FIELDS
        if unknown:
            raise TypeError(f"State has no field {', '.join(sorted(unknown))}")
        new = object.__new__(State)
        old = self.__dict__
        fresh = new.__dict__
        for name in _FIELDS:
            fresh[name] = old[name]
        fresh.update(changes)
        if "terrain" not in changes and "_terrain" in old:
            fresh["_terrain"] = old["_terrain"]
        return new


_FIELDS = frozenset(f.name for f in fields(State))


# --- canonical dict form ---------------------------------------------------


def state_to_dict(s: State) -> dict[str, Any]:
    """Return the JSON-safe dict form of ``s`` (everything, secrets included).

    The tables are named by their SHA-256 (``tables_sha256``); a club's file is
    carried whole too (``tables``), the bundled one is not (every copy of the
    engine ships it), which keeps a stored state small.
    """
    return {
        "format": "pbem-state/1",
        "system": "cca",
        "game_id": s.game_id,
        "name": s.name,
        "year": s.year,
        "board": {
            "wide": s.board.wide,
            "deep": s.board.deep,
            "section_lines": list(s.board.section_lines),
        },
        "terrain": {str(h): t for h, t in s.terrain},
        "facing": {str(h): [str(n) for n in ns] for h, ns in s.facing},
        "units": [
            {
                "id": u.id,
                "side": u.side,
                "type": u.type,
                "hex": hex_to(u.hex),
                "blocks": u.blocks,
                "full": u.full,
                "tags": list(u.tags),
            }
            for u in s.units
        ],
        "leaders": [{"name": ld.name, "side": ld.side, "hex": hex_to(ld.hex)} for ld in s.leaders],
        "sides": {
            k: {
                "army": v.army,
                "colour": v.colour,
                "command": v.command,
                "banners_needed": v.banners_needed,
                "hand": list(v.hand),
                "banners": list(v.banners),
                "turns": v.turns,
                "standing": v.standing,
            }
            for k, v in s.sides.items()
        },
        "deck": list(s.deck),
        "discard": list(s.discard),
        "deck_random": s.deck_random,
        "to_move": s.to_move,
        "turn": s.turn,
        "options": dict(s.options),
        "specials": [
            {"rule": sp.rule, "params": dict(sp.params), "line": sp.line} for sp in s.specials
        ],
        "last_card": None if s.last_card is None else dict(s.last_card),
        "pending": pending_to_dict(s.pending),
        "result": s.result,
        "marks": dict(s.marks),
        "tables_sha256": s.tables.sha256,
        **({"tables": s.tables.text} if s.tables != BUNDLED else {}),
    }


def _tables(d: Mapping[str, Any]) -> CcaTables:
    text = d.get("tables")
    if isinstance(text, str):
        return BUNDLED if text == BUNDLED.text else load_cca_tables(text)
    sha = d.get("tables_sha256")
    if sha is None:  # stored before states named their tables: the bundled file
        return BUNDLED
    found = named(str(sha))
    if found is None:
        raise ValueError(
            f"the state names the rules tables {sha} without carrying them, and they are "
            f"not this engine's bundled tables ({BUNDLED.sha256}, docs/tables.md)"
        )
    return found


def state_from_dict(d: Mapping[str, Any]) -> State:
    """Rebuild a :class:`State` from :func:`state_to_dict` output.

    A dict that carries no tables file plays on the tables its SHA-256 names
    (the bundled ones); one naming tables it does not carry is refused.
    """
    b = d.get("board") or {}
    board = Board(
        int(b.get("wide", 13)), int(b.get("deep", 9)), tuple(b.get("section_lines", (8, 16)))
    )
    return State(
        game_id=d["game_id"],
        name=d["name"],
        year=d.get("year", ""),
        board=board,
        terrain=tuple(sorted((Hex.parse(h), t) for h, t in d.get("terrain", {}).items())),
        facing=tuple(
            sorted(
                (Hex.parse(h), tuple(Hex.parse(n) for n in ns))
                for h, ns in d.get("facing", {}).items()
            )
        ),
        units=tuple(
            Unit(
                u["id"],
                u["side"],
                u["type"],
                hex_from(u["hex"]),
                int(u["blocks"]),
                int(u["full"]),
                tuple(u.get("tags", ())),
            )
            for u in d["units"]
        ),
        leaders=tuple(Leader(x["name"], x["side"], hex_from(x["hex"])) for x in d["leaders"]),
        sides={
            k: SideState(
                v["army"],
                v.get("colour", ""),
                int(v["command"]),
                int(v["banners_needed"]),
                tuple(v.get("hand", ())),
                tuple(v.get("banners", ())),
                int(v.get("turns", 0)),
                v.get("standing", ""),
            )
            for k, v in d["sides"].items()
        },
        deck=tuple(d.get("deck", ())),
        discard=tuple(d.get("discard", ())),
        deck_random=bool(d.get("deck_random", False)),
        to_move=d.get("to_move", "south"),
        turn=int(d.get("turn", 1)),
        options=dict(d.get("options", {})),
        specials=tuple(
            Special(x["rule"], dict(x.get("params", {})), int(x.get("line", 0)))
            for x in d.get("specials", ())
        ),
        last_card=None if d.get("last_card") is None else dict(d["last_card"]),
        pending=pending_from_dict(d.get("pending")),
        result=d.get("result"),
        marks=dict(d.get("marks", {})),
        tables=_tables(d),
    )
