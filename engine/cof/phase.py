"""One Orders Phase of an activated wing (cof.md §3 C1, §5.5, §6, §7, §9.3, §9.5, §9.8).

:class:`Phase` carries out a player's orders line by line: ``move`` (a unit or a leader
along hexes and facings) and ``fire`` here; ``recover``, ``rally`` and, under the Withdraw
order, the wing's withdrawal from engagement in :mod:`engine.cof.regroup`. Each order is
checked first; the same checks run without dice when a submission is parsed (``ctx`` is
``None``: positions change, nothing is rolled), so a refused line is refused before any
die, and a line that the dice have made impossible meanwhile (its unit routed by reaction
fire) is skipped with an event saying why.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Protocol

from engine.cof import cohesion, firing, leadmove, missile, movement, stacking, turnover
from engine.cof.adapt import piece
from engine.cof.formation import (
    MoveWords,
    column_sides,
    deploy_vertices,
    formation_problem,
    move_words,
)
from engine.cof.reaction import pass_through_targets
from engine.cof.state import IN_PLAY, CofState, Leader, Unit, other
from engine.cof.steps import (
    Ctx,
    add_hits,
    chart_type,
    displace_lone_leaders,
    rout,
    within_command,
)
from engine.gboh.grid import GHex, MapNotationError, front_hexes, side_between

__all__ = ["Action", "Hooks", "Phase"]


@dataclass(frozen=True)
class Action:
    """One order line: ``verb`` (move, fire, recover, rally, shock), the unit or leader it
    names as written, and the rest of the line's words."""

    line: int
    quote: str
    verb: str
    who: str
    args: tuple[str, ...] = ()


class Hooks(Protocol):
    """What the inactive side does while a unit moves (:mod:`engine.cof.reactions`)."""

    def before(self, ph: Phase, mover: Unit) -> set[str]:
        """Whatever must be known before the move (units already facing another enemy)."""
        ...

    def step(self, ph: Phase, mover: Unit, path: list[GHex], i: int, ma: int) -> None:
        """Moves the mover's units into ``path[i]`` and reacts (orderly withdrawal)."""
        ...

    def arrived(self, ph: Phase, mover: Unit, before: set[str]) -> None:
        """Called each time the mover stands in a hex it entered (reaction facing)."""
        ...

    def fired(self, ph: Phase, firer: Unit, target: str, distance: int) -> None:
        """Called once an active unit's fire at ``target`` and its return fire are over
        (an Aggression Reaction, cof.md §8.10)."""
        ...


@dataclass
class Phase:
    """The activated wing's Orders Phase; ``ctx`` is ``None`` when only checking orders;
    ``momentum``: the Momentum marker's, whose own leaders move too (:mod:`engine.cof.leadmove`)."""

    s: CofState
    side: str
    wing: str
    order: str = "move"
    ctx: Ctx | None = None
    moved: set[str] = field(default_factory=set)
    fired: set[str] = field(default_factory=set)
    acted: set[str] = field(default_factory=set)
    turned: set[str] = field(default_factory=set)
    shock: list[tuple[str, str]] = field(default_factory=list)
    fronting: dict[str, int] = field(default_factory=dict)
    withdrew: set[str] = field(default_factory=set)
    faced: set[str] = field(default_factory=set)
    reacted: set[tuple[str, str, str]] = field(default_factory=set)
    last_step: dict[str, tuple[GHex, GHex]] = field(default_factory=dict)
    picks: dict[str, str] = field(default_factory=dict)
    turnover: dict[str, turnover.Checks] = field(default_factory=dict)
    riding: dict[str, list[str]] = field(default_factory=dict)
    carried: dict[str, int] = field(default_factory=dict)
    advance: dict[str, tuple[str, str]] = field(default_factory=dict)
    hooks: Hooks | None = None
    momentum: bool = False

    def __post_init__(self) -> None:
        """Command at the start of the phase (cof.md §5.5); who starts in enemy front hexes."""
        ld = self.s.wing_leader(self.side, self.wing)
        fronts = Counter(
            h for e in self.enemies() if not e.routed for h in front_hexes(e.at, e.facing)
        )
        for u in self.units():
            u.out_of_command = self.order == "rally" or not self._in_command(ld, u)
            self.fronting[u.id] = fronts[u.at]

    # --- look-ups ------------------------------------------------------------------------

    def stack(self, u: Unit) -> list[Unit]:
        """``u`` and the runners or chariot sharing its hex (cof.md §6.6)."""
        if u.stacked_with:
            mate = self.s.unit(u.stacked_with)
            if mate.on_map and mate.hex == u.hex:
                return [u, mate]
        return [u]

    def units(self) -> list[Unit]:
        return [u for u in self.s.live(self.side) if u.wing == self.wing]

    def place(self, who: Unit, h: GHex | str) -> None:
        """``who``, the runners or chariot stacked with it and the heroes riding with it
        (:mod:`engine.cof.leadmove`) stand in ``h``."""
        for m in self.stack(who):
            if m.status == IN_PLAY:
                m.hex = str(h)
        for lid in self.riding.get(who.id, ()):
            ld = self.s.leader(lid)
            if ld.on_map:
                ld.hex = str(h)

    def enemies(self) -> list[Unit]:
        return list(self.s.live(other(self.side)))

    def _in_command(self, ld: Leader | None, u: Unit) -> bool:
        return ld is not None and within_command(self.s, ld, u.at)

    def find(self, ref: str) -> Unit | Leader | None:
        """A unit by id or hex (a stack: its chariot), or a leader by id, of the acting side."""
        s = self.s
        for u in s.units:
            if u.id.lower() == ref.lower() and u.side == self.side:
                return u
        for ld in s.leaders:
            if ld.id.lower() == ref.lower() and ld.side == self.side:
                return ld
        try:
            GHex.parse(ref)
        except MapNotationError:
            return None
        here = [u for u in s.units_at(ref.strip()) if u.side == self.side]
        here.sort(key=lambda u: u.type != "CH2")
        return here[0] if here else None

    def ready(self, u: Unit, verb: str) -> str | None:
        """Why ``u`` may take no ``verb`` order now, or ``None``."""
        return self._ready(u, verb)

    def _ready(self, u: Unit, verb: str) -> str | None:
        if u.side != self.side or u.wing != self.wing:
            return f"{u.id} is not in the activated wing {self.wing}"
        if not u.on_map:
            return f"{u.id} is no longer on the map"
        if u.routed or u.rallied:
            return f"{u.id} is {'routed' if u.routed else 'rallied'}: it may take no {verb} order"
        if self.order == "withdraw":
            return "under the Withdraw order the wing's units do nothing else (cof.md §3 C1-B)"
        if u.engaged:
            return f"{u.id} is Engaged: it may not {verb} (cof.md §9.4)"
        return None

    # --- move ----------------------------------------------------------------------------

    def trace(self, u: Unit, steps: list[str], alone: bool = False) -> movement.MoveTrace | str:
        """The traced move, or why it is not allowed; ``alone``: ``u`` leaves its stack."""
        s = self.s
        alone = alone or len(self.stack(u)) == 1
        problem = self._ready(u, "move") or stacking.order_problem(self, u, alone)
        if problem:
            return problem
        troop = s.charts.types[u.type] if alone else chart_type(s, u)
        mates = {u.id} if alone else {u.id, u.stacked_with}
        ma = movement.column_ma(s.charts, u.ma, u.column) - self.carried.get(u.id, 0)
        if troop.code == "CH2RI":
            ma = min(ma, s.unit(u.stacked_with).ma)
        enemy = self.enemies()
        enemy_hexes = frozenset(e.at for e in enemy)
        chariots = frozenset(
            e.at
            for e in enemy
            if chart_type(s, e).code in ("CH2", "CH3", "CH2RI") and not e.engaged
        )
        passing = chariots if troop.pass_through and not u.out_of_command else frozenset()
        friends = frozenset(x.at for x in s.live(self.side) if x.id not in mates)
        fronts = movement.enemy_front_hexes((e.at, e.facing) for e in enemy if not e.routed)
        for step in steps:
            if not movement.is_facing(step):
                try:
                    if GHex.parse(step) not in s.grid:
                        return f"{step} is not on the map"
                except MapNotationError as e:
                    return str(e)
        t = movement.trace_move(
            s.charts,
            troop,
            u.at,
            u.facing,
            steps,
            ma=ma,
            terrain=s.terrain_at,
            hexsides=s.hexside_kinds,
            enemy_fronts=fronts,
            blocked=(enemy_hexes - passing) | (friends if u.column else frozenset()),
            friends=friends - stacking.joined_hex(self, u, steps, alone),
            enemy_chariots=passing,
            in_column=u.column,
            level=s.ground.level,
        )
        if t.problem:
            return t.problem
        if any(h not in s.grid for h in t.path):
            return "the move leaves the map"
        if t.hex in friends:
            problem = stacking.join_problem(self, u, t.hex, t.facing, alone)
            if problem:
                return problem
        if u.out_of_command:
            for h in t.path[1:]:
                if not movement.out_of_command_may_enter(h, enemy_hexes):
                    return (
                        f"{u.id} is out of command: it may not enter {h}, next to the enemy (§5.5)"
                    )
        turns = [x for x in steps if movement.is_facing(x)]
        if turns and self.fronting[u.id]:
            allowance = movement.start_turn_allowance(u.ma, self.fronting[u.id])
            spent = movement.facing_mp(s.charts, u.facing, steps, in_column=u.column)
            if allowance is not None and spent > allowance:
                return (
                    f"{u.id} starts in an enemy front hex: it may spend {allowance} MP on "
                    f"facing, not {spent} (cof.md §6.5)"
                )
        return t

    def move(self, a: Action) -> str | None:
        """Carry out a move order; the problem if it may not."""
        who = self.find(a.who)
        if who is None:
            return f"no unit or leader {a.who!r} of {self.side}"
        words = move_words(a.args)
        if isinstance(words, str):
            return words
        steps = list(words.steps)
        if isinstance(who, Leader):
            if words.form or words.fire_at or words.speed is not None:
                return f"{who.name} is a leader: he only moves (cof.md §4.6)"
            return leadmove.move_leader(self, who, steps, words.riders)
        alone = stacking.moves_alone(self, who, words.alone)
        t = self.trace(who, steps, alone)
        if isinstance(t, str):
            return t
        riders = leadmove.riders(self, who, words.riders)
        if isinstance(riders, str):
            return riders
        s = self.s
        ma = movement.column_ma(s.charts, who.ma, who.column)
        problem = turnover.speed_problem(s, who, words.speed, t.mp, ma)
        if problem:
            return problem
        if words.form:
            problem = formation_problem(
                s.charts, chart_type(s, who), in_column=who.column, form=words.form,
                engaged=who.engaged, routed=who.routed, mp_left=ma - t.mp,
            )  # fmt: skip
            if problem is None:
                problem = self._form_facing(t, words.form, words.form_facing)
            if problem:
                return problem
        going_on = who.id in self.carried  # it moved with its stack and now goes on alone
        parted = stacking.part(self, who) if alone else None
        joins = alone and any(x.id != who.id for x in s.units_at(str(t.hex)))  # (checked)
        mates = self.stack(who)
        start, start_facing = who.hex, who.facing
        self.riding[who.id] = [ld.id for ld in riders]
        self.acted.update(ld.id for ld in riders)
        before: set[str] = set()
        fire = self._fire_point(who, steps, words, t) if words.fire_at else None
        if isinstance(fire, str):
            if parted is not None:
                who.stacked_with, parted.stacked_with = parted.id, who.id
            return fire
        if fire is not None:
            self.fired.add(who.id)
            if words.fire_pick:
                self.picks[who.id] = words.fire_pick
        if self.ctx is not None:
            turnover.prepare(self, who, steps, words.speed or t.mp)
            before = self.hooks.before(self, who) if self.hooks is not None else set()
            self._begin(who, t, going_on)
            gone = not who.on_map or who.routed
            stop = None if gone else self._walk(who, t, fire, words.fire_at, before)
            if stop is None:
                self.moved.update(m.id for m in mates)
                self.ctx.log("move", f"{who.id}'s move ends on the way", {"unit": who.id})
                return None
            if stop < len(t.path) - 1:  # a block stopped it (cof.md §6.7): no fire after
                t = self._stop_short(who, steps, t.path[: stop + 1], (start, start_facing))
                fire = None
        end, facing = t.hex, t.facing
        taken = {u.at for u in s.live() if u not in mates and not (joins and u.at == t.hex)}
        if end in taken:  # a unit routed onto the path meanwhile: stop short of it
            end = next((h for h in reversed(t.path) if h not in taken), who.at)
            facing = who.facing
        for m in mates:
            if m.status != IN_PLAY:  # a runner or chariot that fled on the way stays off the map
                continue
            m.hex, m.facing = str(end), facing
            self.moved.add(m.id)
            self.carried[m.id] = t.mp
        if len(mates) == 1:
            self.carried.pop(who.id, None)
        self.place(who, end)
        if alone and who.on_map:
            stacking.join(self, who)
        if self.fronting[who.id] and any(movement.is_facing(x) for x in steps):
            self.turned.update(m.id for m in mates)
        if len(t.path) > 1 and steps and not movement.is_facing(steps[-1]):
            self.last_step[who.id] = (t.path[-2], t.path[-1])
        formed = ""
        if words.form and end == t.hex:
            cost = s.charts.actions["column_change"].value
            t = movement.MoveTrace(t.hex, t.facing, t.mp + cost, t.hits, t.path, "", t.hits_at)
            who.column = words.form == "column"
            who.facing = self._form_facing(t, words.form, words.form_facing, apply=True)
            formed = " and forms column" if who.column else " and leaves column"
        if self.ctx is None:
            return None
        ctx = self.ctx
        ctx.log(
            "move",
            f"{who.id} moves {start} -> {who.hex} facing {who.facing}{formed} ({t.mp} MP)",
            {
                "unit": who.id,
                "side": who.side,
                "from": start,
                "to": who.hex,
                "facing": who.facing,
                "mp": t.mp,
            },
        )
        if len(t.path) > 1:
            self._hits(who, t, len(t.path) - 1, "turn")
        if who.on_map and who.hex != start:
            self.entry_fire(who)
        if fire is not None and fire[0] == len(t.path) - 1:
            self._fire_moving(who, fire, words.fire_at)
        return None

    def _begin(self, who: Unit, t: movement.MoveTrace, going_on: bool) -> None:
        """A move starts (cof.md §6.1, rulebook §6.13, §6.22): an SI/HI takes the Moved
        marker, and its hit if it had it already (not a counter going on alone after it
        moved with its stack: ``going_on``); the hits for turning where it stands. Every
        hit of a move is taken where it happens, so a move cut short keeps them."""
        ctx = self.ctx
        assert ctx is not None
        troop = self.s.charts.types[who.type]
        again = 0 if going_on else movement.moved_again_hits(self.s.charts, troop, who.moved)
        if troop.moved_hits:
            who.moved = True
        add_hits(ctx, who, again, "moving again this turn")
        self._hits(who, t, 0, "turn")

    def _hits(self, who: Unit, t: movement.MoveTrace, i: int, kind: str) -> None:
        """The hits of ``kind`` the move takes in ``t.path[i]`` (:class:`movement.MoveTrace`)."""
        assert self.ctx is not None
        if who.on_map:
            why = f"{'entering' if kind == 'enter' else 'turning in'} {t.path[i]}"
            add_hits(self.ctx, who, t.hits_in(i, kind), why)

    # --- fire during a move (cof.md §7.1, §7.7) ----------------------------------------------

    def _fire_point(
        self, who: Unit, steps: list[str], words: MoveWords, t: movement.MoveTrace
    ) -> tuple[int, GHex, str] | str | None:
        """Where a move's fire comes (``(hexes entered before, hex, facing)``), or why it
        may not: a chariot fires at any point of its move, an LI only just after entering a
        hex nearer its target (rulebook §7.11); a chariot inside an enemy chariot's hex it
        passes through fires at it on the Pass-Thru row (§7.31)."""
        pre = steps[: words.fire_after]
        n = sum(1 for x in pre if not movement.is_facing(x))
        if n >= len(t.path):
            return None  # a block stopped the move before it got there: no fire
        here, facing = t.path[n], who.facing
        for k, x in enumerate(pre):
            if movement.is_facing(x):
                facing = x
            elif who.column:
                entered = sum(1 for y in pre[:k] if not movement.is_facing(y))
                facing = side_between(t.path[entered], here)
        try:
            target = GHex.parse(words.fire_at)
        except MapNotationError:
            return f"{words.fire_at!r} is not a hex"
        if self.fronting[who.id] and any(movement.is_facing(x) for x in steps):
            return f"{who.id} turns in an enemy front hex: it may not fire (cof.md §6.5)"
        if who.type == "LI" and (
            not pre
            or movement.is_facing(pre[-1])
            or here.distance(target) >= t.path[n - 1].distance(target)
        ):
            return (
                f"{who.id} is light infantry: it fires during its move only right after "
                f"entering a hex nearer its target (cof.md §7.1)"
            )
        pick = firing.pick_problem(self, str(target), words.fire_pick)
        if pick:
            return pick
        if target == here:
            problem = self._pass_fire_problem(who, here)
            return problem if problem else (n, here, facing)
        mates = self.stack(who)
        was = [(m.hex, m.facing) for m in mates]
        for m in mates:
            m.hex, m.facing = str(here), facing
        try:
            problem = self.fire_problem(who, str(target))
        finally:
            for m, (h, f) in zip(mates, was, strict=True):
                m.hex, m.facing = h, f
        return problem if problem else (n, here, facing)

    def _pass_fire_problem(self, who: Unit, here: GHex) -> str | None:
        s = self.s
        passed = [x for x in s.units_at(str(here)) if x.side != who.side]
        if not passed or not pass_through_targets(piece(s, passed[0])):
            return f"{here} is no enemy chariot's hex {who.id} passes through (cof.md §7.7)"
        if not who.missile or who.missile not in s.charts.weapons or who.supply == "no":
            return f"{who.id} has no missile to fire"
        return None

    def _walk(
        self,
        who: Unit,
        t: movement.MoveTrace,
        fire: tuple[int, GHex, str] | None,
        target: str,
        before: set[str],
    ) -> int | None:
        """Move ``who`` hex by hex along ``t.path`` with every reaction on the way (block
        rolls, leaving fire, orderly withdrawal, entry fire) and its own fire where the order
        puts it; the index of the hex the move ends in (short of the end when an enemy
        CH-2 + RI blocks it), None when it routs or is eliminated on the way. An enemy CH-2
        + RI the path passes through rolls to block as the mover is about to enter its hex
        (rulebook §6.72 and its Nihriya example), on the board as it then stands, so a move
        stopped earlier makes no later roll. In each hex
        entered, in order: the hits for entering it (rulebook §6.22: at once), lone enemy
        leaders next to it fall back (§4.24), enemy units next to it may turn to face it
        (§6.66), entry fire (§7.4; in the last hex once the move is over); the hits for
        turning in it before it leaves."""
        s = self.s
        path = t.path
        mates = self.stack(who)
        ma = min(movement.column_ma(s.charts, m.ma, m.column) for m in mates)
        ctx = self.ctx
        assert ctx is not None

        def gone() -> bool:  # (Engaged: by an Aggression Reaction against its fire)
            return not who.on_map or who.routed or who.engaged

        for i in range(1, len(path)):
            if fire is not None and fire[0] == i - 1:
                self._fire_moving(who, fire, target)
            if i > 1 and not gone():
                self._hits(who, t, i - 1, "turn")
            if gone():
                return None
            if i < len(path) - 1 and self._blocked(who, path[i - 1], path[i]):
                if not any(e.side != who.side for e in s.units_at(who.hex)):
                    return i - 1
                for m in mates:  # caught between enemy chariots: each counter routs (§6.7)
                    if m.on_map and not m.routed:
                        rout(ctx, m)
                return None
            firing.leaving_fire(self, who, path[i])
            if i == 1 and not gone():
                firing.passed_chariot_fire(self, who, path[1])
            if gone():
                return None
            if self.hooks is not None:
                self.hooks.step(self, who, path, i, ma)
            else:
                self.place(who, path[i])
            stacking.pass_friends(self, who, path, i)
            for m in mates:  # (facing the way it entered the hex)
                if m.on_map and m.hex == str(path[i]):
                    m.facing = t.facings[i - 1]
            if not gone():
                self._hits(who, t, i, "enter")
            if not gone():
                displace_lone_leaders(ctx, who)
                if self.hooks is not None:
                    self.hooks.arrived(self, who, before)
            if i < len(path) - 1 and not gone():
                firing.entry_fire(self, who)
            if not gone():
                turnover.checks_at(self, who, i)
            if gone():
                return None
        return len(path) - 1

    def _fire_moving(self, who: Unit, fire: tuple[int, GHex, str], target: str) -> None:
        """The fire a move order puts on its way (cof.md §7.1, §7.7)."""
        _, here, facing = fire
        if not who.on_map or who.hex != str(here) or who.routed:
            return
        who.facing = facing
        self.moved.add(who.id)  # an LI firing during its move "will move" (rulebook §7.17)
        at = str(GHex.parse(target))
        pass_through = at == who.hex
        distance = who.at.distance(GHex.parse(at))
        firing.volley(self, who, at, "pass-through fire" if pass_through else "fire",
                      distance=0 if pass_through else None, pass_through=pass_through)  # fmt: skip
        firing.return_fire(self, who, at, pass_through=pass_through)
        if self.hooks is not None and not pass_through:
            self.hooks.fired(self, who, at, distance)

    def _form_facing(
        self, t: movement.MoveTrace, form: str, named: str, *, apply: bool = False
    ) -> str:
        """The facing after a formation change at ``t``'s end (with ``apply``), or the
        problem with the facing the order names ("" when none)."""
        options = column_sides(t.hex, t.facing) if form == "column" else deploy_vertices(t.facing)
        if apply:
            return named if named in options else options[0]
        if named and named not in options:
            what = "hexside" if form == "column" else "vertex"
            return f"facing {t.facing} in {t.hex}, it may face the {what} {' or '.join(options)}"
        return ""

    def _stop_short(
        self, who: Unit, steps: list[str], path: list[GHex], start: tuple[str, str]
    ) -> movement.MoveTrace:
        """The move cut to end at the last hex of ``path`` where it may end (a friend's hex
        it was passing through is not one: it stops before, cof.md §6.6), traced again from
        where the move began (``start``: hex and facing; the walk has moved ``who`` on)."""
        now = who.hex, who.facing
        who.hex, who.facing = start
        try:
            for end in reversed(path):
                short = self.trace(who, _prefix(steps, end))
                if not isinstance(short, str):
                    return short
            return movement.MoveTrace(who.at, who.facing, path=[who.at])
        finally:
            who.hex, who.facing = now

    def _blocked(self, who: Unit, here: GHex, into: GHex) -> bool:
        """Whether an enemy CH-2 + RI stack in ``into`` blocks ``who`` about to pass through
        it from ``here`` (cof.md §6.7, rulebook §6.72: its CH-2's printed TQ; a lone chariot
        never blocks)."""
        ctx = self.ctx
        assert ctx is not None
        s = self.s
        found = [e for e in s.units_at(str(into)) if e.side != who.side]
        ch2 = next((e for e in found if e.type == "CH2" and len(found) == 2), None)
        if ch2 is None:
            return False
        dr = ctx.d10(f"{ch2.id} tries to block {who.id} passing through {into}")
        if not cohesion.pass_through_blocked(s.charts, ch2.tq, dr):
            ctx.log("pass-through", f"{who.id} passes through {into} (block roll {dr})",
                    {"unit": who.id, "hex": str(into)}, (dr,))  # fmt: skip
            return False
        routs = any(e.side != who.side for e in s.units_at(str(here)))
        ctx.log(
            "pass-through",
            f"{ch2.id} blocks {who.id} at {into} (rolls {dr}, TQ {ch2.tq})"
            + (": caught between enemy chariots, it routs" if routs else ""),
            {"unit": who.id, "hex": str(into), "routs": routs},
            (dr,),
        )
        return True

    # --- missile fire --------------------------------------------------------------------

    def fire_problem(self, u: Unit, target: str, *, reaction: bool = False) -> str | None:
        s = self.s
        if not reaction:
            problem = self._ready(u, "fire")
            if problem:
                return problem
            if u.id in self.fired or u.id in self.acted:
                return f"{u.id} has already fired this phase"
            if u.id in self.turned:
                return f"{u.id} turned in an enemy front hex: it may not fire (cof.md §6.5)"
            last = self.last_step.get(u.id)
            if u.type == "LI" and u.id in self.moved and not _forward(last, target):
                return (
                    f"{u.id} is light infantry: after its move it fires only if it has just "
                    f"entered a hex nearer its target (cof.md §7.1)"
                )
        if not u.missile or u.missile not in s.charts.weapons:
            return f"{u.id} has no missile weapon"
        if u.column:
            return f"{u.id} is in column: it may not fire (cof.md §6.3)"
        if u.supply == "no":
            return f"{u.id} is out of missiles (Missile No, cof.md §7.5)"
        try:
            h = GHex.parse(target)
        except MapNotationError:
            return f"{target!r} is not a hex"
        targets = [x for x in s.units_at(str(h)) if x.side != u.side]
        if not targets and (reaction or not any(x.side != u.side for x in s.leaders_at(str(h)))):
            return f"no enemy unit in {h}"  # a lone leader: active fire only (rulebook §7.18)
        if any(x.engaged for x in targets):
            return f"the unit in {h} is Engaged: it may not be fired at (cof.md §9.4)"
        d = u.at.distance(h)
        if not missile.in_range(s.charts, u.missile, d):
            return f"{h} is {d} hexes away: {u.missile} reaches {s.charts.weapons[u.missile].value}"
        if not missile.may_target(chart_type(s, u), u.at, u.facing, h):
            return f"{h} is not in {u.id}'s field of fire (cof.md §7.2)"
        if not self._sight(u.at, h):
            return f"{u.id} has no line of sight to {h} (cof.md §7.3)"
        return None

    def sight(self, a: GHex, b: GHex) -> bool:
        """Line of sight from ``a`` to ``b`` over the units on the map (cof.md §7.3)."""
        return self._sight(a, b)

    def _sight(self, a: GHex, b: GHex) -> bool:
        """Across the battle's own ground: hills block (rulebook §7.14, cof.md §7.3)."""
        s = self.s
        occupied = {x.at for x in s.live()}
        terrain = s.charts.terrain
        return missile.line_of_sight(
            a,
            b,
            blocks=lambda h: terrain[s.terrain_at(h)].blocks_los,
            occupied=lambda h: h in occupied,
            ground=s.ground,
        )

    def fire(self, a: Action) -> str | None:
        who = self.find(a.who)
        if not isinstance(who, Unit):
            return f"no unit {a.who!r} of {self.side}"
        pick = a.args[1].lower() if len(a.args) == 2 else ""
        if len(a.args) not in (1, 2) or (pick and pick not in firing.PICKS):
            return "fire names one target hex (of a CH-2 with runners, which): fire E5 0807 runners"
        problem = self.fire_problem(who, a.args[0]) or firing.pick_problem(self, a.args[0], pick)
        if problem:
            return problem
        self.fired.add(who.id)
        if pick:
            self.picks[who.id] = pick
        if self.ctx is not None:
            target = str(GHex.parse(a.args[0]))
            distance = who.at.distance(GHex.parse(target))
            firing.volley(self, who, target, "fire")
            firing.return_fire(self, who, target)
            if self.hooks is not None:
                self.hooks.fired(self, who, target, distance)
        return None

    def volley(self, u: Unit, target: str, kind: str) -> None:
        """One volley at the units in ``target`` (:func:`engine.cof.firing.volley`)."""
        firing.volley(self, u, target, kind)

    def entry_fire(self, mover: Unit) -> None:
        """Entry reaction fire at ``mover`` where it stands (:func:`engine.cof.firing.
        entry_fire`): at the end of a move, and after an advance after combat."""
        firing.entry_fire(self, mover)

    # --- what stops recovery, rally and reloading ------------------------------------

    def under_missiles(self, u: Unit) -> bool:
        """In range and sight of an enemy missile unit not out of missiles (rulebook §7.16,
        §9.14, §9.51): what stops a unit reloading, and recovering or rallying too."""
        for e in self.s.live(other(u.side)):
            armed = e.missile in self.s.charts.weapons and e.supply != "no"
            d = e.at.distance(u.at)
            if armed and missile.in_range(self.s.charts, e.missile, d) and self._sight(e.at, u.at):
                return True
        return False


def _forward(last: tuple[GHex, GHex] | None, target: str) -> bool:
    """Whether a move's last step (``(from, to)``) went nearer ``target`` (rulebook §7.11)."""
    try:
        h = GHex.parse(target)
    except MapNotationError:
        return True  # (the fire's own check says why)
    return last is not None and last[1].distance(h) < last[0].distance(h)


def _prefix(steps: list[str], last: GHex) -> list[str]:
    """The steps up to entering ``last`` (the hex a blocked move stops in), or none."""
    for k, x in enumerate(steps):
        if not movement.is_facing(x) and GHex.parse(x) == last:
            return steps[: k + 1]
    return []
