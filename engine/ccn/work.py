"""The mutable working copy a Napoleonics turn is resolved on (the rules' ``Referee``).

A :class:`Work` is built from a frozen :class:`~engine.ccn.state.State`, changed while one
turn resolves, and frozen again by :meth:`Work.freeze`; the state given is never changed,
so resolution stays a pure function. It offers the board look-ups and changes the rules
modules of :mod:`engine.ccn.rules` ask for (their ``Field`` and ``Referee`` protocols), and
keeps the per-turn flags of ccn.md §26.1 (ordered, moved, battled, card bonuses...).
Victory is checked the moment a banner is taken (§7): :class:`GameOver` unwinds the turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from operator import attrgetter
from typing import Any

from engine.cc.decide import Decider
from engine.cc.roster import GameOver, Placed, Roster, refrozen, same_fields, thawed
from engine.ccn.rules.hits import BATTLE_DIE
from engine.ccn.state import MAX_SQUARES, SIDES, Leader, State, Unit, other
from engine.ccn.tables import CcnTables, Terrain, UnitType, bundled_tables
from engine.core.api import CardMove, Event
from engine.hexgrid import Board, Hex
from engine.randomness import D6, Randomness

__all__ = ["GameOver", "WLeader", "WUnit", "Work", "bundled_tables"]


@dataclass
class WUnit(Placed):
    """A unit being resolved (mutable; the rules' ``UnitLike``)."""

    id: str
    side: str
    nation: str
    type: str
    hex: Hex | None
    blocks: int
    full: int
    square: bool
    tags: tuple[str, ...]

    def gone(self) -> bool:
        """True once the unit has left the board (a method, so type narrowing never sticks)."""
        return self.hex is None

    @property
    def label(self) -> str:
        where = f" {self.hex}" if self.hex else ""
        return f"{self.side} {self.nation} {self.type}{where}"


@dataclass
class WLeader(Placed):
    """A leader being resolved (mutable; the rules' ``LeaderLike``)."""

    name: str
    side: str
    hex: Hex | None
    nation: str = ""


_UNIT_FIELDS = ("id", "side", "nation", "type", "hex", "blocks", "full", "square", "tags")
_LEADER_FIELDS = ("name", "side", "hex", "nation")
_unit_fields = attrgetter(*_UNIT_FIELDS)
_leader_fields = attrgetter(*_LEADER_FIELDS)


same_fields(Unit, WUnit, _UNIT_FIELDS)
same_fields(Leader, WLeader, _LEADER_FIELDS)


def _unit(u: WUnit) -> Unit:
    return Unit(u.id, u.side, u.nation, u.type, u.hex, u.blocks, u.full, u.square, u.tags)


def _leader(ld: WLeader) -> Leader:
    return Leader(ld.name, ld.side, ld.hex, ld.nation)


@dataclass
class Work:
    """One turn's working copy plus per-turn bookkeeping (see module docstring)."""

    state: State
    rng: Randomness
    decider: Decider
    tables: CcnTables
    units: Roster[WUnit] = field(default_factory=Roster)
    leaders: Roster[WLeader] = field(default_factory=Roster)
    banners: dict[str, list[str]] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    active: str = "south"
    hands: dict[str, list[str]] = field(default_factory=dict)
    squares: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    command: dict[str, int] = field(default_factory=dict)
    deck: list[str] = field(default_factory=list)
    discard: list[str] = field(default_factory=list)
    marks: dict[str, Any] = field(default_factory=dict)
    cards: list[CardMove] = field(default_factory=list)  # the card log (docs/audit.md)
    # --- per turn (ccn.md §26.1) ------------------------------------------
    card: str | None = None  # the card in effect (a Counter-Attack's copy)
    played: str | None = None  # the card actually played
    fallback: bool = False  # a tactic card's "order 1 unit of your choice": a normal order
    march: str | None = None  # the section whose infantry Force March orders (§24.2)
    ordered: set[str] = field(default_factory=set)  # unit ids
    ordered_leaders: set[str] = field(default_factory=set)
    moved: dict[str, int] = field(default_factory=dict)  # hexes moved this turn
    leader_moved: set[str] = field(default_factory=set)  # leaders that used their one move
    pinned: set[str] = field(default_factory=set)  # units a moved leader joined (§10.4)
    no_battle: dict[str, str] = field(default_factory=dict)  # unit id -> why it may not battle
    battled: set[str] = field(default_factory=set)
    bonus_used: set[str] = field(default_factory=set)  # cavalry bonus melee (§18.3)
    dice_bonus: dict[str, int] = field(default_factory=dict)  # card bonus all turn (§24)
    adjacent_at_order: set[str] = field(default_factory=set)  # Cold Steel's marked units
    first_strikes: int = 0  # First Strike cards the defender played this turn (one per melee)
    checked: set[str] = field(default_factory=set)  # leaders checked in this combat (§16.1)
    supplied: str | None = None  # the unit Short Supply moved
    simulate: bool = False  # checking orders: no die is rolled
    unsettled: bool = False  # a unit moved: objective banners follow its move's event

    @classmethod
    def start(cls, state: State, rng: Randomness, decider: Decider) -> Work:
        """The working copy of ``state``, played on the tables it carries."""
        w = cls(state=state, rng=rng, decider=decider, tables=state.tables, active=state.to_move)
        units, leaders = w.units, w.leaders
        units.fill([
            (u.id, thawed(WUnit, units, u))
            for u in state.units
        ])  # fmt: skip
        leaders.fill([
            (ld.name, thawed(WLeader, leaders, ld))
            for ld in state.leaders
        ])  # fmt: skip
        w.banners = {s: list(state.sides[s].banners) for s in SIDES}
        w.hands = {s: list(state.sides[s].hand) for s in SIDES}
        w.squares = {s: list(state.sides[s].squares) for s in SIDES}
        w.command = {s: state.sides[s].command for s in SIDES}
        w.deck = list(state.deck)
        w.discard = list(state.discard)
        w.marks = dict(state.marks)
        return w

    def freeze(self) -> State:
        """Return the frozen state with this turn's board, cards and banners."""
        units = tuple(refrozen(u, _unit_fields, _unit) for u in self.units.values())
        leaders = tuple(refrozen(ld, _leader_fields, _leader) for ld in self.leaders.values())
        sides = dict(self.state.sides)
        for side in SIDES:
            sides[side] = replace(
                sides[side],
                hand=tuple(self.hands[side]),
                banners=tuple(self.banners[side]),
                squares=tuple(self.squares[side]),
                command=self.command[side],
            )
        return replace(
            self.state,
            units=units,
            leaders=leaders,
            marks=dict(self.marks),
            deck=tuple(self.deck),
            discard=tuple(self.discard),
            sides=sides,
        )

    # --- events ------------------------------------------------------------
    def log(self, kind: str, text: str, faces: Sequence[str] = (), **data: object) -> None:
        """Record an event of this turn; a unit's move is logged once made, and its
        objective banners follow it (:meth:`settle_objectives`)."""
        self.events.append(Event(kind, text, dict(data), tuple(faces)))
        if self.unsettled:
            self.unsettled = False
            self.settle_objectives()

    # --- the board as the rules read it (Field) ----------------------------
    @property
    def board(self) -> Board:
        return self.state.board

    def unit_at(self, h: Hex) -> WUnit | None:
        return self.units.index().get(h)

    def leader_at(self, h: Hex) -> WLeader | None:
        return self.leaders.index().get(h)

    def terrain_at(self, h: Hex) -> str:
        return self.state.terrain_at(h)

    def terrain(self, h: Hex) -> Terrain:
        return self.tables.terrain[self.state.terrain_at(h)]

    def fortified(self, h: Hex, toward: Hex) -> bool:
        return toward in self.state.fortified_sides(h)

    def baseline(self, side: str) -> int:
        return self.state.board.baseline_row(side == "south")

    def opponent(self, side: str) -> str:
        return other(side)

    def spec(self, u: WUnit) -> UnitType:
        return self.tables.units[u.type]

    def arm(self, u: WUnit) -> str:
        return self.tables.units[u.type].arm

    def attached(self, u: WUnit) -> WLeader | None:
        """The friendly leader on ``u``'s hex, if any."""
        if u.hex is None:
            return None
        ld = self.leaders.at(u.hex)
        return ld if ld is not None and ld.side == u.side else None

    def host(self, ld: WLeader) -> WUnit | None:
        """The friendly unit ``ld`` stands with, if any."""
        if ld.hex is None:
            return None
        u = self.units.at(ld.hex)
        return u if u is not None and u.side == ld.side else None

    def live_units(self, side: str | None = None) -> list[WUnit]:
        return [u for u in self.units.values() if u.hex is not None and side in (None, u.side)]

    def live_leaders(self, side: str | None = None) -> list[WLeader]:
        return [
            ld for ld in self.leaders.values() if ld.hex is not None and side in (None, ld.side)
        ]

    def enemy_adjacent(self, u: WUnit) -> list[WUnit]:
        if u.hex is None:
            return []
        out = []
        for n in self.board.neighbours(u.hex):
            e = self.units.at(n)
            if e is not None and e.side != u.side:
                out.append(e)
        return out

    # --- chance --------------------------------------------------------------
    def roll(self, dice: int, purpose: str) -> tuple[str, ...]:
        """Roll ``dice`` Napoleonics battle dice (ccn.md §3) from the committed stream."""
        if dice <= 0:
            return ()
        return tuple(self.rng.roll(BATTLE_DIE, dice, purpose))

    def pick(self, n: int, purpose: str) -> int:
        """A uniform index in ``range(n)`` from fair d6 rolls of the committed stream (ccn.md
        §21.4, §26.3): base-6 digits, rejecting the biased top. Not a shuffle: the audit counts
        every shuffle as a card move of the deck."""
        if n <= 1:
            return 0
        while True:
            value, size = 0, 1
            while size < n:
                value = value * 6 + int(self.rng.roll(D6, 1, purpose)[0]) - 1
                size *= 6
            if value < n * (size // n):
                return value % n

    # --- banners and losses ----------------------------------------------
    def add_banner(self, side: str, reason: str) -> None:
        """``side`` takes a banner; the game ends at once when it has enough (ccn.md §7)."""
        self.banners[side].append(reason)
        count = len(self.banners[side])
        self.log(
            "banner",
            f"{side} takes a banner ({reason}): {count}",
            side=side,
            reason=reason,
            count=count,
        )
        if count >= self.state.sides[side].banners_needed:
            raise GameOver(side)

    def lose_blocks(self, u: WUnit, n: int, by: str, why: str) -> int:
        """Remove up to ``n`` blocks of ``u``; on its last block remove it, give ``by`` a
        banner and return its square card to the owner's hand (ccn.md §7, §21.8)."""
        n = max(0, min(n, u.blocks))
        if n == 0 or u.hex is None:
            return 0
        u.blocks -= n
        where = u.hex
        self.log(
            "hits",
            f"{u.label} loses {n} block{'s' if n > 1 else ''} ({why})",
            unit=u.id,
            hex=str(where),
            n=n,
        )
        if u.blocks == 0:
            if u.square:
                self._return_square_card(u)
            u.hex = None
            self.log(
                "eliminated",
                f"{u.side} {u.nation} {u.type} in {where} is eliminated",
                unit=u.id,
                hex=str(where),
            )
            self.add_banner(by, u.id)
            self.settle_objectives()
        return n

    def move_unit(self, u: WUnit, h: Hex, carry: bool = True) -> None:
        """Put ``u`` (and its attached leader, unless not ``carry``) on ``h``; a lone friendly
        leader there attaches."""
        ld = self.attached(u)
        u.hex = h
        if ld is not None and carry:
            ld.hex = h
        self.unsettled = bool(self.state.objectives)

    def _held(self, hexes: tuple[Hex, ...], side: str) -> int:
        return sum(1 for h in hexes if (u := self.unit_at(h)) is not None and u.side == side)

    def settle_objectives(self, moving: str | None = None) -> None:
        """Objective banners as the board stands now (ccn.md §7 [R]: objectives as data).

        Called the moment a unit moves or is eliminated (``moving`` None), and at the end of
        a turn with ``moving`` the side about to move. ``any-time`` objectives are won by
        either side the moment they are held; ``turn-start`` ones only by ``moving``, at the
        end of the turn before its own; a temporary banner is lost the moment its hexes no
        longer earn it; a sudden-death objective won ends the battle at once. Orders being
        checked (:attr:`simulate`) change no banner."""
        if self.simulate:
            return
        for obj in self.state.objectives:
            for side in (obj.side,) if obj.side else SIDES:
                held = self._held(obj.hexes, side)
                if obj.count == "each":
                    want = obj.banners * held
                elif obj.count == "all":
                    want = obj.banners if held == len(obj.hexes) else 0
                elif obj.count == "majority":
                    want = obj.banners if held > self._held(obj.hexes, other(side)) else 0
                else:
                    want = obj.banners if held else 0
                key = f"objective:{obj.name}"
                have = self.banners[side].count(key)
                if want < have and not obj.permanent:
                    for _ in range(have - want):
                        self.banners[side].remove(key)
                    self.log(
                        "banner-lost",
                        f"{side} no longer holds {obj.name}: banner lost",
                        side=side,
                        reason=key,
                    )
                scores = obj.when == "any-time" or side == moving
                if want > have and scores:
                    if obj.sudden_death:
                        self.log("sudden-death", f"{side} holds {obj.name}: the battle is won")
                        raise GameOver(side)
                    for _ in range(want - have):
                        self.add_banner(side, key)

    def move_leader(self, ld: WLeader, h: Hex | None) -> None:
        """Put a leader on ``h``; None: it leaves the map across its own baseline, no banner
        (the leader-retreat rule logs it, with the path)."""
        ld.hex = h

    def kill_leader(self, ld: WLeader, by: str, why: str) -> None:
        """Remove a killed leader; ``by`` takes a banner (ccn.md §7)."""
        where = ld.hex
        ld.hex = None
        self.log(
            "leader-killed",
            f"{ld.side} leader {ld.name} in {where} is killed ({why})",
            leader=ld.name,
            hex=str(where),
        )
        self.add_banner(by, f"leader:{ld.name}")

    # --- hands and squares ----------------------------------------------------
    def hand(self, side: str) -> Sequence[str]:
        """The card codes in ``side``'s hand, sorted (the canonical order of ccn.md §26.3)."""
        return sorted(self.hands[side])

    def square_slots_free(self, side: str) -> int:
        return MAX_SQUARES - len(self.squares[side])

    def set_square(self, u: WUnit, card: str | None) -> None:
        """Form a square on ``u`` with ``card`` set aside from the hand, or (None) break it and
        return its card to the hand (ccn.md §21.4, §21.7)."""
        if card is None:
            if u.square:
                self._return_square_card(u)
            return
        self.hands[u.side].remove(card)
        self.squares[u.side].append((u.id, card))
        u.square = True

    def _return_square_card(self, u: WUnit) -> None:
        for i, (uid, card) in enumerate(self.squares[u.side]):
            if uid == u.id:
                del self.squares[u.side][i]
                self.hands[u.side].append(card)
                break
        u.square = False
