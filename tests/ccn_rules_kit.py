"""A small board for the Napoleonics rules tests: the Field and Referee of engine.ccn.rules.

Build a position with :meth:`Kit.unit`, :meth:`Kit.leader`, :meth:`Kit.ground`,
:meth:`Kit.fort`; script the dice (:meth:`Kit.dice`, faces INF CAV ART FLAG SABRE) and the
answers; then call a rule with the kit as its referee and read the events and pieces.
Rows as hexgrid numbers them: row 1 is South's baseline, row 9 North's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.cc.decide import Decider
from engine.cc.policy import Policy, StandingOrders
from engine.ccn.rules.standing import RULES_DEFAULTS, RULES_STANDING
from engine.ccn.tables import CcnTables, bundled_texts, load_ccn_tables
from engine.core.replay import AnswerBook
from engine.hexgrid import STANDARD_BOARD, Board, Hex

TABLES = load_ccn_tables(bundled_texts())
STANDING = StandingOrders(RULES_STANDING, RULES_DEFAULTS)


@dataclass
class KUnit:
    id: str
    side: str
    nation: str
    type: str
    blocks: int
    hex: Hex | None
    square: bool = False


@dataclass
class KLeader:
    name: str
    side: str
    hex: Hex | None


@dataclass
class Kit:
    """A position plus everything a referee does, recorded for the test to read."""

    tables: CcnTables = TABLES
    board: Board = STANDARD_BOARD
    units: list[KUnit] = field(default_factory=list)
    leaders: list[KLeader] = field(default_factory=list)
    grounds: dict[Hex, str] = field(default_factory=dict)
    forts: set[tuple[Hex, Hex]] = field(default_factory=set)
    hands: dict[str, list[str]] = field(default_factory=lambda: {"south": [], "north": []})
    charts: dict[str, list[str]] = field(default_factory=lambda: {"south": [], "north": []})
    faces: list[str] = field(default_factory=list)
    picks: list[int] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    standing: dict[str, str] = field(default_factory=dict)
    events: list[tuple[str, str]] = field(default_factory=list)
    banners: dict[str, int] = field(default_factory=lambda: {"south": 0, "north": 0})
    rolls: list[tuple[int, str]] = field(default_factory=list)
    _decider: Decider | None = None

    # --- building -----------------------------------------------------------------------
    def unit(  # noqa: PLR0917
        self, side: str, nation: str, type_: str, blocks: int, at: str, square: bool = False
    ) -> KUnit:
        u = KUnit(f"{side}-{type_}-{at}", side, nation, type_, blocks, Hex.parse(at), square)
        self.units.append(u)
        return u

    def leader(self, name: str, side: str, at: str) -> KLeader:
        ld = KLeader(name, side, Hex.parse(at))
        self.leaders.append(ld)
        return ld

    def ground(self, terrain: str, *at: str) -> None:
        for h in at:
            self.grounds[Hex.parse(h)] = terrain

    def fort(self, at: str, *facing: str) -> None:
        """Fortified hexsides of the field fortification in ``at`` facing ``facing``."""
        for f in facing:
            self.forts.add((Hex.parse(at), Hex.parse(f)))

    def dice(self, *faces: str) -> None:
        self.faces.extend(f.upper() for f in faces)

    def policy(self, side: str, **keys: str) -> None:
        for k, v in keys.items():
            self.standing[f"{side}:{k.replace('_', '-')}"] = v

    # --- Field --------------------------------------------------------------------------
    def unit_at(self, h: Hex) -> KUnit | None:
        return next((u for u in self.units if u.hex == h), None)

    def leader_at(self, h: Hex) -> KLeader | None:
        return next((ld for ld in self.leaders if ld.hex == h), None)

    def terrain_at(self, h: Hex) -> str:
        return self.grounds.get(h, "clear")

    def fortified(self, h: Hex, toward: Hex) -> bool:
        return (h, toward) in self.forts

    def baseline(self, side: str) -> int:
        return 1 if side == "south" else self.board.deep

    def opponent(self, side: str) -> str:
        return "north" if side == "south" else "south"

    # --- Referee ------------------------------------------------------------------------
    @property
    def decider(self) -> Decider:
        if self._decider is None:
            pols: dict[str, Policy] = {}
            for side in ("south", "north"):
                own = "".join(
                    f"{k.split(':', 1)[1]}: {v}\n"
                    for k, v in self.standing.items()
                    if k.startswith(side + ":")
                )
                pols[side] = STANDING.parse(RULES_DEFAULTS).merged(STANDING.parse(own))
            self._decider = Decider(pols, AnswerBook(self.answers))
        return self._decider

    def roll(self, dice: int, purpose: str) -> tuple[str, ...]:
        self.rolls.append((dice, purpose))
        if len(self.faces) < dice:
            raise AssertionError(f"no dice scripted for {purpose} ({dice} wanted)")
        out, self.faces[:] = tuple(self.faces[:dice]), self.faces[dice:]
        return out

    def pick(self, n: int, purpose: str) -> int:
        return self.picks.pop(0) % n if self.picks else 0

    def log(self, kind: str, text: str, faces: Sequence[str] = (), **data: object) -> None:
        self.events.append((kind, text))

    def lose_blocks(self, u: KUnit, n: int, by: str, why: str) -> int:
        lost = min(n, u.blocks)
        u.blocks -= lost
        if u.blocks == 0 and u.hex is not None:
            ld = self.leader_at(u.hex)
            u.hex = None
            self.banners[by] += 1
            self.log("eliminated", f"{u.id} eliminated ({why})")
            if u.square:
                self.set_square(u, None)
            _ = ld
        return lost

    def move_unit(self, u: KUnit, h: Hex) -> None:
        assert u.hex is not None
        ld = self.leader_at(u.hex)
        if ld is not None and ld.side == u.side:
            ld.hex = h
        u.hex = h

    def move_leader(self, ld: KLeader, h: Hex | None) -> None:
        ld.hex = h

    def kill_leader(self, ld: KLeader, by: str, why: str) -> None:
        ld.hex = None
        self.banners[by] += 1
        self.log("leader-killed", f"{ld.name} killed ({why})")

    def hand(self, side: str) -> Sequence[str]:
        return sorted(self.hands[side])

    def square_slots_free(self, side: str) -> int:
        return 4 - len(self.charts[side])

    def set_square(self, u: KUnit, card: str | None) -> None:
        if card is None:
            u.square = False
            if self.charts[u.side]:
                self.hands[u.side].append(self.charts[u.side].pop(0))
            return
        self.hands[u.side].remove(card)
        self.charts[u.side].append(card)
        u.square = True

    # --- reading ------------------------------------------------------------------------
    def kinds(self) -> list[str]:
        return [k for k, _ in self.events]

    def questions(self) -> int:
        return self.decider.asked


def at(name: str) -> Hex:
    return Hex.parse(name)
