"""The C&C Napoleonics game state: frozen dataclasses and their canonical dict form (ccn.md §26.1).

A :class:`State` is everything needed to go on with a game: board, terrain and fortified
hexsides, units (nation, type, blocks, starting strength, in square or not) and leaders, each
side's hand, Command (hand size), banners, the cards set aside on its square chart, turns played
and standing orders, the deck (top first) and discard pile, whose turn it is, the last card each
side played (Counter-Attack), the scenario's objectives and special rules, the rule options in
force, the rules tables the game is played with (named by their SHA-256), and a
:class:`Pending` turn while a turn waits for an answer.

Conventions every module relies on:

* A leader is *attached* when it stands on a hex with a friendly unit; nothing else records
  attachment (ccn.md §4.7).
* A unit in square has ``square`` True and exactly one entry ``(unit id, card)`` in its side's
  ``squares`` (the square chart, in slot order: slot = index + 1, at most 4, §21). The card there
  is out of the hand: the hand holds ``command - len(squares)`` cards at most (§21.9).
* Rows follow :mod:`engine.hexgrid`: row 1 is ``south``'s baseline, the last row ``north``'s
  (``Board.baseline_row``); each side retreats toward its own (ccn.md §2.4).
* Per-turn flags (ordered, moved, battled) live only inside a turn (:mod:`engine.ccn.work`);
  between turns the state holds none.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from engine.cc.lookups import Lookups, name_key
from engine.cc.pending import Pending, hex_from, hex_to, pending_from_dict, pending_to_dict
from engine.ccn.tables import CcnTables, bundled_tables, named, tables_from_text
from engine.hexgrid import STANDARD_BOARD, Board, Hex

__all__ = [
    "DEFAULT_OPTIONS",
    "MAX_SQUARES",
    "SIDES",
    "Leader",
    "Objective",
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

MAX_SQUARES = 4
"""Square markers and chart slots per player (ccn.md §21.3, §27 A21)."""

DEFAULT_OPTIONS: dict[str, Any] = {}
"""Named rule options and their defaults: none yet. The readings of ccn.md §27 are taken in
the data (e.g. A5, sand quarry impassable to artillery only: terrain.toml) or in the rules."""


def other(side: str) -> str:
    """Return the opposing side."""
    return "south" if side == "north" else "north"


@dataclass(frozen=True)
class Unit:
    """A unit on the board (``hex`` None = off the board).

    ``type`` is a unit code of units.toml (LN, LT, HC, FA...), ``nation`` a nation code of
    nations.toml; ``full`` is its starting strength (§4.6), ``blocks`` what remains.
    """

    id: str
    side: str
    nation: str
    type: str
    hex: Hex | None
    blocks: int
    full: int
    square: bool = False
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Leader:
    """A leader (not a unit, §4.7); ``hex`` None = gone (left the board, §17.2)."""

    name: str
    side: str
    hex: Hex | None
    nation: str = ""


@dataclass(frozen=True)
class SideState:
    """One side: army, Command (= hand size), hand, banners, square chart, standing orders.

    ``squares`` is the square chart in slot order: (unit id, card code set aside) (§21.4).
    ``banners`` lists what each banner was won for (unit ids, ``leader:NAME``, objective names).
    """

    army: str
    nation: str
    colour: str
    command: int
    banners_needed: int
    hand: tuple[str, ...] = ()
    banners: tuple[str, ...] = ()
    squares: tuple[tuple[str, str], ...] = ()
    turns: int = 0  # turns this side has completed
    standing: str = ""  # standing orders text (engine.cc.policy)

    def square_card(self, uid: str) -> str | None:
        """The card set aside for unit ``uid``'s square, or None."""
        for unit_id, card in self.squares:
            if unit_id == uid:
                return card
        return None


@dataclass(frozen=True)
class Objective:
    """A scenario objective worth banners (ccn.md §7 [R]: objectives as data; the vocabulary
    of :class:`engine.ccn.scenario.Objective`).

    ``hexes``: the hexes that count; ``side``: who may score it (``""`` = either);
    ``banners``: the banners of one award; ``count``: ``each`` (an award per hex held),
    ``any`` (one while any is held), ``all`` (one while all are), ``majority`` (one while the
    side holds more of them than the enemy); ``permanent``: kept once won (else lost when no
    longer held); ``when``: ``turn-start`` (held at the start of the side's own turn) or
    ``any-time``; ``sudden_death``: winning it wins the battle at once.
    """

    name: str
    hexes: tuple[Hex, ...]
    side: str = ""
    banners: int = 1
    count: str = "each"
    permanent: bool = False
    when: str = "turn-start"
    sudden_death: bool = False


@dataclass(frozen=True)
class Special:
    """A scenario special rule: a rule name, its parameters and the scenario file line."""

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
    fortified: tuple[tuple[Hex, tuple[Hex, ...]], ...] = ()  # fieldworks: neighbours across
    year: str = ""
    board: Board = STANDARD_BOARD
    deck: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    deck_random: bool = True  # the deck still has to be shuffled and hands dealt
    to_move: str = "south"
    turn: int = 1
    options: Mapping[str, Any] = field(default_factory=lambda: dict(DEFAULT_OPTIONS))
    objectives: tuple[Objective, ...] = ()
    specials: tuple[Special, ...] = ()
    last_cards: Mapping[str, str] = field(default_factory=dict)  # side -> card it played
    pending: Pending | None = None
    result: str | None = None  # "north" / "south" once over
    marks: Mapping[str, Any] = field(default_factory=dict)  # objective and special bookkeeping
    tables: CcnTables = field(default_factory=bundled_tables)  # the rules tables it plays on

    @property
    def tables_sha256(self) -> str:
        """The SHA-256 naming the rules tables the game is played with (docs/tables.md)."""
        return self.tables.sha256

    def fortified_sides(self, h: Hex) -> tuple[Hex, ...]:
        """The neighbours of ``h`` across its fortified hexsides (§23.5; empty if none)."""
        for fh, ns in self.fortified:
            if fh == h:
                return ns
        return ()

    def with_side(self, side: str, **changes: Any) -> State:
        sides = dict(self.sides)
        sides[side] = replace(sides[side], **changes)
        return replace(self, sides=sides)

    def with_unit(self, uid: str, **changes: Any) -> State:
        return replace(
            self, units=tuple(replace(u, **changes) if u.id == uid else u for u in self.units)
        )


# --- canonical dict form ---------------------------------------------------


def _unit_to_dict(u: Unit) -> dict[str, Any]:
    return {
        "id": u.id,
        "side": u.side,
        "nation": u.nation,
        "type": u.type,
        "hex": hex_to(u.hex),
        "blocks": u.blocks,
        "full": u.full,
        "square": u.square,
        "tags": list(u.tags),
    }


def _objective_to_dict(o: Objective) -> dict[str, Any]:
    return {
        "name": o.name,
        "hexes": [str(h) for h in o.hexes],
        "side": o.side,
        "banners": o.banners,
        "count": o.count,
        "permanent": o.permanent,
        "when": o.when,
        "sudden_death": o.sudden_death,
    }


def _side_to_dict(v: SideState) -> dict[str, Any]:
    return {
        "army": v.army,
        "nation": v.nation,
        "colour": v.colour,
        "command": v.command,
        "banners_needed": v.banners_needed,
        "hand": list(v.hand),
        "banners": list(v.banners),
        "squares": [[uid, card] for uid, card in v.squares],
        "turns": v.turns,
        "standing": v.standing,
    }


def state_to_dict(s: State) -> dict[str, Any]:
    """Return the JSON-safe dict form of ``s`` (everything, secrets included)."""
    return {
        "format": "pbem-state/1",
        "system": "ccn",
        "game_id": s.game_id,
        "name": s.name,
        "year": s.year,
        "board": {
            "wide": s.board.wide,
            "deep": s.board.deep,
            "section_lines": list(s.board.section_lines),
        },
        "terrain": {str(h): t for h, t in s.terrain},
        "fortified": {str(h): [str(n) for n in ns] for h, ns in s.fortified},
        "units": [_unit_to_dict(u) for u in s.units],
        "leaders": [
            {"name": ld.name, "side": ld.side, "hex": hex_to(ld.hex), "nation": ld.nation}
            for ld in s.leaders
        ],
        "sides": {k: _side_to_dict(v) for k, v in s.sides.items()},
        "deck": list(s.deck),
        "discard": list(s.discard),
        "deck_random": s.deck_random,
        "to_move": s.to_move,
        "turn": s.turn,
        "options": dict(s.options),
        "objectives": [_objective_to_dict(o) for o in s.objectives],
        "specials": [
            {"rule": sp.rule, "params": dict(sp.params), "line": sp.line} for sp in s.specials
        ],
        "last_cards": dict(s.last_cards),
        "pending": pending_to_dict(s.pending, steps=True),
        "result": s.result,
        "marks": dict(s.marks),
        "tables_sha256": s.tables.sha256,
        **({"tables": s.tables.text} if s.tables != bundled_tables() else {}),
    }


def _unit_from_dict(u: Mapping[str, Any]) -> Unit:
    return Unit(
        id=str(u["id"]),
        side=str(u["side"]),
        nation=str(u["nation"]),
        type=str(u["type"]),
        hex=hex_from(u["hex"]),
        blocks=int(u["blocks"]),
        full=int(u["full"]),
        square=bool(u.get("square", False)),
        tags=tuple(u.get("tags", ())),
    )


def _objective_from_dict(o: Mapping[str, Any]) -> Objective:
    return Objective(
        name=str(o["name"]),
        hexes=tuple(Hex.parse(h) for h in o.get("hexes", ())),
        side=str(o.get("side", "")),
        banners=int(o.get("banners", 1)),
        count=str(o.get("count", "each")),
        permanent=bool(o.get("permanent", False)),
        when=str(o.get("when", "turn-start")),
        sudden_death=bool(o.get("sudden_death", False)),
    )


def _side_from_dict(v: Mapping[str, Any]) -> SideState:
    return SideState(
        army=str(v["army"]),
        nation=str(v.get("nation", "")),
        colour=str(v.get("colour", "")),
        command=int(v["command"]),
        banners_needed=int(v["banners_needed"]),
        hand=tuple(v.get("hand", ())),
        banners=tuple(v.get("banners", ())),
        squares=tuple((str(a), str(b)) for a, b in v.get("squares", ())),
        turns=int(v.get("turns", 0)),
        standing=str(v.get("standing", "")),
    )


def state_from_dict(d: Mapping[str, Any]) -> State:
    """Rebuild a :class:`State` from :func:`state_to_dict` output."""
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
        fortified=tuple(
            sorted(
                (Hex.parse(h), tuple(Hex.parse(n) for n in ns))
                for h, ns in d.get("fortified", {}).items()
            )
        ),
        units=tuple(_unit_from_dict(u) for u in d["units"]),
        leaders=tuple(
            Leader(x["name"], x["side"], hex_from(x["hex"]), str(x.get("nation", "")))
            for x in d["leaders"]
        ),
        sides={k: _side_from_dict(v) for k, v in d["sides"].items()},
        deck=tuple(d.get("deck", ())),
        discard=tuple(d.get("discard", ())),
        deck_random=bool(d.get("deck_random", False)),
        to_move=d.get("to_move", "south"),
        turn=int(d.get("turn", 1)),
        options=dict(d.get("options", {})),
        objectives=tuple(_objective_from_dict(o) for o in d.get("objectives", ())),
        specials=tuple(
            Special(x["rule"], dict(x.get("params", {})), int(x.get("line", 0)))
            for x in d.get("specials", ())
        ),
        last_cards={str(k): str(v) for k, v in (d.get("last_cards") or {}).items()},
        pending=pending_from_dict(d.get("pending")),
        result=d.get("result"),
        marks=dict(d.get("marks", {})),
        tables=_tables(d),
    )


def _tables(d: Mapping[str, Any]) -> CcnTables:
    """The tables a state dict carries (a club's text), else the ones its SHA-256 names (the
    bundled; no name: stored before games named their tables)."""
    text = d.get("tables")
    if isinstance(text, str):
        return tables_from_text(text)
    sha = str(d.get("tables_sha256") or "")
    found = named(sha) if sha else bundled_tables()
    if found is None:
        raise ValueError(
            f"the state names the rules tables {sha} without carrying them, and they are "
            f"not this engine's bundled tables ({bundled_tables().sha256}, docs/tables.md)"
        )
    return found
