"""The mutable working copy a turn is resolved on, and the board look-ups rules use.

A :class:`Work` is built from a frozen :class:`State`, changed by the rules
modules while one turn resolves, and frozen again by :meth:`Work.freeze`.
The state given is never changed, so resolution stays a pure function.
Victory is checked the moment a banner is taken: :class:`GameOver` unwinds
the turn (inside :meth:`Work.together`, only when the block ends).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from operator import attrgetter
from typing import Any

from engine.cc.decide import Decider
from engine.cc.roster import GameOver, Placed, Roster, refrozen, same_fields, thawed
from engine.cca.state import SIDES, Leader, State, Unit, name_key, other
from engine.cca.terrain import ALIASES, TerrainSpec, mover_kind
from engine.cca.units import UnitSpec
from engine.core.api import CardMove, Event
from engine.hexgrid import Hex
from engine.randomness import Die, Randomness

__all__ = ["BATTLE_DIE", "GameOver", "Roster", "WLeader", "WUnit", "Work"]

try:  # the committed stream's module defines the shared die when present
    from engine.dice import BATTLE_DIE as _SHARED_DIE  # type: ignore[attr-defined,unused-ignore]

    BATTLE_DIE: Die = _SHARED_DIE
except ImportError:  # pragma: no cover - until engine/dice.py lands
    BATTLE_DIE = Die("cc-battle", ("G", "B", "R", "H", "F", "S"))


@dataclass
class WUnit(Placed):
    """A unit being resolved (mutable)."""

    id: str
    side: str
    type: str
    hex: Hex | None
    blocks: int
    full: int
    tags: tuple[str, ...]
    spec: UnitSpec = field(compare=False, repr=False)  # its row of the game's unit table

    def gone(self) -> bool:
        """True once the unit has left the board (a method, so type narrowing never sticks)."""
        return self.hex is None

    @property
    def label(self) -> str:
        return f"{self.side} {self.type} {self.hex}" if self.hex else f"{self.side} {self.type}"


_UNIT_FIELDS = ("id", "side", "type", "hex", "blocks", "full", "tags")
_unit_fields = attrgetter(*_UNIT_FIELDS)


def _working(u: Unit, spec: UnitSpec, roster: Roster[WUnit]) -> WUnit:
    """``WUnit(u.id, ..., spec)`` held by ``roster`` (:func:`engine.cc.roster.thawed`)."""
    piece = thawed(WUnit, roster, u)
    piece.__dict__["spec"] = spec
    return piece


def _unit(u: WUnit) -> Unit:
    return Unit(u.id, u.side, u.type, u.hex, u.blocks, u.full, u.tags)


@dataclass
class WLeader(Placed):
    """A leader being resolved (mutable)."""

    name: str
    side: str
    hex: Hex | None


_LEADER_FIELDS = ("name", "side", "hex")
_leader_fields = attrgetter(*_LEADER_FIELDS)
same_fields(Unit, WUnit, _UNIT_FIELDS)
same_fields(Leader, WLeader, _LEADER_FIELDS)


def _leader(ld: WLeader) -> Leader:
    return Leader(ld.name, ld.side, ld.hex)


@dataclass
class Work:
    """One turn's working copy plus per-turn bookkeeping (see module docstring)."""

    state: State
    rng: Randomness
    decider: Decider
    units: Roster[WUnit] = field(default_factory=Roster)
    leaders: Roster[WLeader] = field(default_factory=Roster)
    banners: dict[str, list[str]] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    active: str = "south"
    ordered: set[str] = field(default_factory=set)  # unit ids
    ordered_leaders: set[str] = field(default_factory=set)
    moved: dict[str, int] = field(default_factory=dict)  # hexes moved this turn
    entered: dict[str, set[Hex]] = field(default_factory=dict)
    start_hex: dict[str, Hex | None] = field(default_factory=dict)
    pinned: set[str] = field(default_factory=set)  # units a leader joined: may not move
    battled: dict[str, int] = field(default_factory=dict)
    card: str | None = None  # the card in effect (a Counter-Attack's copy)
    fallback: bool = False  # the card's "order any one unit" clause: a normal order (§18)
    placed: set[str] = field(default_factory=set)  # reinforcements placed this turn (§19)
    rolls: int = 0  # dice rolls made this turn; the last one is ``rolls`` (numbers each roll)
    checked: set[tuple[int, str]] = field(default_factory=set)  # (roll, leader) checked (§16.1)
    played: str | None = None  # the card actually played
    bonus_dice: dict[str, int] = field(default_factory=dict)  # unit id -> +dice (Spartacus)
    first_strike_used: str | None = None  # side that played First Strike this turn
    deferred_over: bool = False
    marks: dict[str, Any] = field(default_factory=dict)
    hands: dict[str, list[str]] = field(default_factory=dict)
    command: dict[str, int] = field(default_factory=dict)
    deck: list[str] = field(default_factory=list)
    discard: list[str] = field(default_factory=list)
    cards: list[CardMove] = field(default_factory=list)  # the card log (docs/audit.md)
    la_section: str | None = None  # section of the leader a leadership card used
    moved_lines: list[str] = field(default_factory=list)  # who has used a move line, by phase
    hint: tuple[str, ...] = ()  # legal alternatives found by the last failed check
    simulate: bool = False  # checking orders: no dice are rolled (marsh entry rolls skipped)
    # Terrain rows looked up this turn, for this state only: never carried by a replace()
    # (the odds make a copy on a bare board).
    _terrain: dict[Hex, TerrainSpec] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _by_position: list[TerrainSpec | None] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    @classmethod
    def start(cls, state: State, rng: Randomness, decider: Decider) -> Work:
        w = cls(state=state, rng=rng, decider=decider, active=state.to_move)
        specs = state.tables.units
        units = w.units
        units.fill([(u.id, _working(u, specs[u.type], units)) for u in state.units])
        w.start_hex = {u.id: u.hex for u in state.units}
        leaders = w.leaders
        leaders.fill([(ld.name, thawed(WLeader, leaders, ld)) for ld in state.leaders])
        w.banners = {s: list(state.sides[s].banners) for s in SIDES}
        w.hands = {s: list(state.sides[s].hand) for s in SIDES}
        w.command = {s: state.sides[s].command for s in SIDES}
        w.deck = list(state.deck)
        w.discard = list(state.discard)
        w.marks = dict(state.marks)
        return w

    def freeze(self) -> State:
        """Return the frozen state with this turn's board and banners."""
        units = tuple(refrozen(u, _unit_fields, _unit) for u in self.units.values())
        leaders = tuple(refrozen(ld, _leader_fields, _leader) for ld in self.leaders.values())
        sides = dict(self.state.sides)
        for side in SIDES:
            sides[side] = replace(
                sides[side],
                banners=tuple(self.banners[side]),
                hand=tuple(self.hands[side]),
                command=self.command[side],
            )
        return self.state.evolve(
            units=units,
            leaders=leaders,
            marks=dict(self.marks),
            deck=tuple(self.deck),
            discard=tuple(self.discard),
            sides=sides,
        )

    @property
    def effect(self) -> str | None:
        """The card whose effects apply to the ordered units (None: a normal order).

        A card played by its fallback clause ("order any one unit") gives a
        normal order: the unit moves and battles as usual, with none of the
        card's bonuses or limits (§18).
        """
        return None if self.fallback else self.card

    # --- events ----------------------------------------------------------
    def log(self, kind: str, text: str, dice: tuple[str, ...] = (), **data: Any) -> None:
        self.events.append(Event(kind, text, data, dice))

    def roll(self, count: int, purpose: str) -> tuple[str, ...]:
        if count <= 0:
            return ()
        self.rolls += 1
        return tuple(self.rng.roll(BATTLE_DIE, count, purpose))

    # --- look-ups ----------------------------------------------------------
    def on_board(self, h: Hex) -> bool:
        return h in self.state.board

    def unit_at(self, h: Hex | None) -> WUnit | None:
        return None if h is None else self.units.index().get(h)

    def leader_at(self, h: Hex | None) -> WLeader | None:
        return None if h is None else self.leaders.index().get(h)

    def attached(self, u: WUnit) -> WLeader | None:
        ld = self.leader_at(u.hex)
        return ld if ld is not None and ld.side == u.side else None

    def host(self, ld: WLeader) -> WUnit | None:
        u = self.unit_at(ld.hex)
        return u if u is not None and u.side == ld.side else None

    def relocate(self, u: WUnit, h: Hex) -> WLeader | None:
        """Put ``u`` on ``h`` with its attached leader; return that leader (None if alone)."""
        ld = self.attached(u)
        u.hex = h
        if ld is not None:
            ld.hex = h
        return ld

    def lone(self, ld: WLeader) -> bool:
        return ld.hex is not None and self.host(ld) is None

    def terrain(self, h: Hex) -> TerrainSpec:
        """The game's terrain row for the terrain on ``h`` (its own tables)."""
        spec = self._terrain.get(h)
        if spec is None:  # the state's terrain does not change while the turn resolves
            name = self.state.terrain_at(h)
            spec = self._terrain[h] = self.state.tables.terrain[ALIASES.get(name, name)]
        return spec

    def terrain_by_position(self, hexes: tuple[Hex, ...]) -> list[TerrainSpec | None]:
        """The terrain rows by position in ``hexes`` (the board's :meth:`indexed` order),
        filled in by the caller as it looks them up (kept for the turn)."""
        got = self._by_position
        if got is None or len(got) != len(hexes):
            got = self._by_position = [None] * len(hexes)
        return got

    def passable(self, h: Hex, unit: UnitSpec | None) -> bool:
        return self.on_board(h) and mover_kind(unit) not in self.terrain(h).impassable

    def neighbours(self, h: Hex) -> tuple[Hex, ...]:
        return self.state.board.neighbours(h)

    def baseline(self, side: str) -> int:
        return self.state.board.baseline_row(side == "south")

    def rear(self, side: str, h: Hex) -> tuple[Hex, ...]:
        """Hexes one row nearer ``side``'s baseline (may be off the board)."""
        return h.toward(self.baseline(side))

    def live_units(self, side: str | None = None) -> list[WUnit]:
        return [u for u in self.units.values() if u.hex is not None and side in (None, u.side)]

    def enemy_units_adjacent(self, u: WUnit) -> list[WUnit]:
        assert u.hex is not None
        out = []
        for n in self.neighbours(u.hex):
            e = self.unit_at(n)
            if e is not None and e.side != u.side:
                out.append(e)
        return out

    def leader_support(self, u: WUnit) -> bool:
        """A friendly leader on the unit's hex or next to it (§10.5, A-21)."""
        assert u.hex is not None
        for h in (u.hex, *self.neighbours(u.hex)):
            ld = self.leader_at(h)
            if ld is not None and ld.side == u.side:
                return True
        return False

    def supporters(self, u: WUnit) -> int:
        """Adjacent hexes holding a friendly unit or lone friendly leader (§12.4)."""
        assert u.hex is not None
        n = 0
        for h in self.neighbours(u.hex):
            f = self.unit_at(h)
            ld = self.leader_at(h)
            if (f is not None and f.side == u.side) or (
                f is None and ld is not None and ld.side == u.side
            ):
                n += 1
        return n

    def full_strength(self, u: WUnit) -> bool:
        return u.blocks >= u.full

    def specials(self, rule: str, side: str | None = None) -> list[dict[str, Any]]:
        return [
            dict(sp.params)
            for sp in self.state.specials
            if sp.rule == rule and (side is None or sp.params.get("side") in (None, side))
        ]

    def has_tag_rule(self, rule: str, u: WUnit) -> dict[str, Any] | None:
        for p in self.specials(rule, u.side):
            if p.get("tag") in u.tags:
                return p
        return None

    # --- banners and losses ----------------------------------------------
    def add_banner(self, side: str, reason: str) -> None:
        self.banners[side].append(reason)
        self.log(
            "banner",
            f"{side} takes a banner ({reason}): {len(self.banners[side])}",
            side=side,
            reason=reason,
            count=len(self.banners[side]),
        )
        if not self.deferred_over:
            self.check_victory()

    def check_victory(self) -> None:
        won = [s for s in SIDES if len(self.banners[s]) >= self.state.sides[s].banners_needed]
        if len(won) == 2:
            raise GameOver("draw")
        if won:
            raise GameOver(won[0])

    @contextmanager
    def together(self) -> Iterator[None]:
        """Apply banners inside the block all at once (a draw is possible, §13.3)."""
        self.deferred_over = True
        try:
            yield
        finally:
            self.deferred_over = False
        self.check_victory()

    def remove_unit(self, u: WUnit, by: str, why: str) -> None:
        where = u.hex
        u.hex = None
        u.blocks = 0
        self.log(
            "eliminated",
            f"{u.side} {u.type} in {where} is eliminated ({why})",
            unit=u.id,
            hex=str(where),
        )
        self.add_banner(by, f"unit:{u.type}")

    def kill_leader(self, ld: WLeader, by: str, why: str) -> None:
        where = ld.hex
        ld.hex = None
        self.log(
            "leader-killed",
            f"{ld.side} leader {ld.name} in {where} is killed ({why})",
            leader=ld.name,
            hex=str(where),
        )
        for p in self.specials("leader-sudden-death"):
            if name_key(str(p["leader"])) == name_key(ld.name):
                self.banners[by].append(f"leader:{ld.name}")
                winner = str(p.get("winner", other(ld.side)))
                self.log("sudden-death", f"{ld.name} has fallen: {winner} wins the battle")
                raise GameOver(winner)
        self.add_banner(by, f"leader:{ld.name}")

    def lose_blocks(self, u: WUnit, n: int, by: str, why: str) -> int:
        """Remove up to ``n`` blocks; return how many were removed (banner if eliminated)."""
        n = min(n, u.blocks)
        if n <= 0:
            return 0
        u.blocks -= n
        self.log(
            "hits",
            f"{u.label} loses {n} block{'s' if n > 1 else ''} ({why})",
            unit=u.id,
            blocks=n,
            left=u.blocks,
        )
        if u.blocks == 0:
            self.remove_unit(u, by, why)
        return n
