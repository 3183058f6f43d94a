"""A random Chariots of Fire player (tests, ``pbem demo``, balance runs) and unit options.

It plays legal orders at random, leaning towards the enemy so that battles are fought:
each unit of the activated wing turns towards the nearest enemy or at random, moves a few
hexes ahead (a CH-2 now and then leaving its runners), fires at a target it may hit,
recovers, or stands; a unit that may shock does so half the time, and now and then names
the vertex it turns to if it advances after combat. Every move is tried on a copy first
(the orders' own checks), so the orders it writes are accepted.
"""

from __future__ import annotations

import hashlib
from typing import Any

from engine.cof import regroup, turnover
from engine.cof.firing import PICKS, pick_problem
from engine.cof.heroics import challenge_problem, heroic
from engine.cof.leadmove import is_hero, momentum_leader
from engine.cof.phase import Action, Phase
from engine.cof.skirmish import fire_and_run
from engine.cof.state import MOMENTUM, CofState, Leader, Unit, clone, other
from engine.cof.steps import chart_type
from engine.core.choices import below, choice_stream
from engine.dice import EpochDice, HashChain, hash_orders
from engine.gboh.grid import SIDES, VERTICES, GHex, column_front, front_hexes
from engine.randomness import Randomness

__all__ = ["AutoPlayer", "body", "header", "plan", "play_random_game", "unit_options"]

_STANDING = (
    ("withdraw", ("chariots", "always", "never")),
    ("runners", ("stay", "leave")),
    ("aggression", ("never", "always")),
    ("reaction-fire", ("always", "never")),
    ("aggression-shock", ("always", "never")),
    ("standard", ("destroy", "keep")),
    ("challenge", ("ask", "accept", "decline")),
    ("duel", ("fight", "withdraw")),
    ("duelist", ("combat", "endurance")),
    ("fire-at-stack", ("weaker", "chariot", "runners")),
    ("shock-hits", ("safest", "runners", "chariot")),
    ("withdraw-to", ("far", "standard")),
    ("replacement", ("rear", "front")),
    ("advance-facing", ("enemy", "keep")),
)
"""Standing orders the random player changes now and then, so random games play them."""


def _towards(s: CofState, u: Unit) -> str:
    """The vertex whose front hexes come nearest the nearest enemy."""
    foes = [e.at for e in s.live(other(u.side))]
    if not foes:
        return u.facing

    def score(v: str) -> tuple[int, int]:
        return (min(h.distance(f) for h in front_hexes(u.at, v) for f in foes), VERTICES.index(v))

    return min(VERTICES, key=score)


def _targets(ph: Phase, u: Unit) -> list[str]:
    if not u.missile:
        return []
    return sorted(
        e.hex
        for e in ph.enemies()
        if e.at.distance(u.at) <= 3 and ph.fire_problem(u, e.hex) is None
    )


def _pick(ph: Phase, target: str, rng: Randomness) -> tuple[str, ...]:
    """At a CH-2 with runners, now and then the counter the fire hits (rulebook §7.13)."""
    if pick_problem(ph, target, PICKS[0]) is not None:
        return ()
    k = below(rng, len(PICKS) + 1, "which counter")
    return (PICKS[k],) if k < len(PICKS) else ()


def _fire_and_run(ph: Phase, u: Unit, rng: Randomness) -> list[str]:
    """A fire-and-run order of a CH-2 at an enemy within 3 hexes, if one is allowed."""
    near = sorted(e.hex for e in ph.enemies() if e.at.distance(u.at) <= 3)
    for h in near[below(rng, 2, "fire and run") :]:
        if fire_and_run(ph, Action(0, "", "fire-and-run", u.id, (h,))) is None:
            return [f"fire-and-run {u.id} {h}"]
    return []


def _formation(ph: Phase, u: Unit, rng: Randomness) -> str:
    """Now and then an SI/HI ends its move changing formation (cof.md §6.3)."""
    if not ph.s.charts.types[u.type].column or below(rng, 6, f"column {u.id}"):
        return ""
    return " deploy" if u.column else " column"


def _unit_lines(ph: Phase, u: Unit, rng: Randomness) -> list[str]:
    s = ph.s
    roll = below(rng, 10, f"what {u.id} does")
    targets = _targets(ph, u)
    if s.charts.types[u.type].fire_and_run and roll == 3:
        got = _fire_and_run(ph, u, rng)
        if got:
            return got
    if targets and roll < 4:
        t = targets[below(rng, len(targets), "target")]
        aim = (t, *_pick(ph, t, rng))
        if ph.fire(Action(0, "", "fire", u.id, aim)) is None:
            return [f"fire {u.id} {' '.join(aim)}"]
    if u.hits and roll == 9 and regroup.recover(ph, Action(0, "", "recover", u.id)) is None:
        return [f"recover {u.id}"]
    if roll >= 8:
        return []
    for attempt in range(4):
        if u.column:  # a column turns from hexside to hexside, or only by moving (§6.3)
            face = SIDES[below(rng, 6, "hexside")] if below(rng, 4, "column turn") == 0 else ""
            steps = [face] if face and face != u.facing else []
            ahead = [h for h in column_front(u.at, face or u.facing) if h in s.grid]
            steps += [str(ahead[below(rng, len(ahead), "ahead")])] if ahead else []
        else:
            face = _towards(s, u) if below(rng, 3, "lean") else VERTICES[below(rng, 6, "vertex")]
            steps = [face] if face != u.facing else []
            here, facing = u.at, face
            for _ in range(1 + below(rng, max(1, u.ma // 2), f"length {attempt}")):
                here = front_hexes(here, facing)[below(rng, 2, "which front hex")]
                if here not in s.grid:
                    break
                steps.append(str(here))
        form = _formation(ph, u, rng) + _riders(ph, u, rng)
        shot = _moving_shot(ph, u, rng)
        alone = "alone " if len(ph.stack(u)) == 2 and not below(rng, 6, f"alone {u.id}") else ""
        speed = _speed(ph, u, rng)
        for cut in range(len(steps), 0, -1):
            for extra in (f"{shot}{form}", form, ""):
                for head in dict.fromkeys((alone + speed, alone)):
                    words = head + " ".join(steps[:cut]) + extra
                    if ph.move(Action(0, "", "move", u.id, tuple(words.split()))) is None:
                        return [f"move {u.id} {words}"]
    return []


def _speed(ph: Phase, u: Unit, rng: Randomness) -> str:
    """Under the optional Turnover rule a chariot now and then declares a Speed above the MP
    its move will use (rulebook §6.81), so the Turnover Table is read at higher speeds too;
    a move the Speed makes illegal is tried again without it."""
    if not turnover.playing(ph.s) or not chart_type(ph.s, u).turnover:
        return ""
    if below(rng, 3, f"speed {u.id}"):
        return ""
    return f"speed {1 + below(rng, u.ma, f'speed of {u.id}')} "


def _riders(ph: Phase, u: Unit, rng: Randomness) -> str:
    """Now and then the heroes stacked with a unit ride with its move (rulebook §10.16)."""
    heroes = [ld.id for ld in ph.s.leaders_at(u.hex) if ld.side == u.side and is_hero(ld)]
    if not heroes or below(rng, 2, f"riders {u.id}"):
        return ""
    return "".join(f" with {h}" for h in heroes if h not in ph.acted)


def _leader_lines(ph: Phase, rng: Randomness) -> list[str]:
    """Now and then the wing's leader (on the Momentum marker, its own leaders too) moves a
    hex or two, with the Standard if it is with him half the time (rulebook §5.46, §9.32,
    §10.14)."""
    s = ph.s
    movers = [s.wing_leader(ph.side, ph.wing)]
    if ph.momentum:
        movers += [ld for ld in s.leaders if ld.side == ph.side and momentum_leader(ld)]
    lines = []
    for ld in movers:
        if ld is not None and ld.on_map and ld.id not in ph.acted:
            lines += _leader_move(ph, ld, rng)
    return lines


def _leader_move(ph: Phase, ld: Leader, rng: Randomness) -> list[str]:
    s = ph.s
    if below(rng, 4, f"{ld.id} moves"):
        return []
    here, words = GHex.parse(ld.hex), []
    for _ in range(1 + below(rng, 2, "leader steps")):
        around = [h for h in here.neighbours() if h in s.grid]
        here = around[below(rng, len(around), "leader step")]
        words.append(str(here))
    if s.sides[ph.side].standard == ld.hex and below(rng, 2, "with the Standard") == 0:
        words += ["with", "standard"]
    for cut in (words, words[:1]):
        if ph.move(Action(0, "", "move", ld.id, tuple(cut))) is None:
            return [f"move {ld.id} {' '.join(cut)}"]
    return []


def _moving_shot(ph: Phase, u: Unit, rng: Randomness) -> str:
    """Now and then a missile unit fires at the end of its move's first part: `` fire HEX``
    (tried with the move; the orders' own checks say whether it may, cof.md §7.1)."""
    if not u.missile or below(rng, 3, f"moving shot {u.id}"):
        return ""
    near = sorted(e.hex for e in ph.enemies() if 0 < e.at.distance(u.at) <= 4)
    return f" fire {near[below(rng, len(near), 'shot')]}" if near else ""


def unit_options(s: CofState, side: str) -> list[dict[str, Any]]:
    """Each unit of ``side`` with its front hexes and the targets it could fire at now."""
    a = s.active
    out = []
    for u in sorted(s.live(side), key=lambda u: u.id):
        ph = Phase(clone(s), side, u.wing)
        out.append({
            "id": u.id, "hex": u.hex, "type": u.type, "tq": u.tq, "ma": u.ma, "hits": u.hits,
            "facing": u.facing, "wing": u.wing,
            "active": a.get("side") == side and a.get("wing") == u.wing,
            "front": [str(h) for h in front_hexes(u.at, u.facing) if h in s.grid],
            "targets": _targets(ph, ph.s.unit(u.id)),
        })  # fmt: skip
    return out


def _challenge(s: CofState, side: str, rng: Randomness) -> str:
    """Now and then, in a heroic battle, a hero's challenge to an enemy leader he may reach
    (cof.md §10.2 #2), along the straight line to him; ``""`` for none."""
    if not heroic(s) or s.active.get("how") not in ("draw", "momentum"):
        return ""
    if below(rng, 3, "challenge"):
        return ""
    for hero in sorted(s.leaders, key=lambda ld: ld.id):
        if hero.side != side or not hero.hero or not hero.on_map:
            continue
        for foe in sorted(s.leaders, key=lambda ld: ld.id):
            if foe.side == side or not foe.on_map:
                continue
            line = GHex.parse(hero.hex).line_to(GHex.parse(foe.hex))
            words = [hero.id, foe.id, *(str(step[0]) for step in line[1:])]
            if challenge_problem(s, side, words) is None:
                return "challenge " + " ".join(words)
    return ""


def _heroic_lines(s: CofState, side: str, wing: str, rng: Randomness) -> list[str]:
    """In a heroic battle, now and then: the wing's leader changes mode (cof.md §10.1)."""
    if not heroic(s) or below(rng, 4, "heroic lines"):
        return []
    return [
        f"mode {ld.id} {'chariot' if ld.on_foot else 'foot'}"
        for ld in sorted(s.leaders, key=lambda ld: ld.id)
        if ld.side == side and ld.wing == wing and ld.on_map
    ]


def header(state: CofState, side: str) -> str:
    """The lines that open a submission (game, turn, side)."""
    return f"game {state.game_id}\nturn {state.turn}\nside {side}\n"


def body(lines: list[str]) -> str:
    """Order lines as a submission's text after its header (``pass`` when there are none
    but standing orders: a mail of standing orders alone gives no orders)."""
    orders = any(not ln.startswith("standing ") for ln in lines)
    return "".join(ln + "\n" for ln in lines) + ("" if orders else "pass\n")


def plan(state: CofState, side: str, rng: Randomness) -> tuple[str, list[str]]:
    """Random orders for ``side``'s Orders Phase: the wing activated and the order lines
    (now and then a standing order, then ``wing`` when the side chooses it), each tried on
    a copy as the orders check would (:func:`engine.cof.orders.parse` accepts them)."""
    a = state.active
    dare = _challenge(state, side, rng)
    if dare:  # a challenge is the whole submission
        return a["wing"], [dare]
    lines = []
    if below(rng, 8, "standing") == 0:
        key, values = _STANDING[below(rng, len(_STANDING), "which standing order")]
        lines.append(f"standing {key}: {values[below(rng, len(values), 'value')]}")
    wing = a["wing"]
    if not wing:
        real = [c for c in a["choices"] if c not in ("pool", "none", MOMENTUM)]
        wing = real[below(rng, len(real), "wing")] if real else a["choices"][0]
        if MOMENTUM in a["choices"] and below(rng, 6, "open with momentum") == 0:
            wing = MOMENTUM  # the Initiative player opens with his Momentum marker (§5.22)
        lines.append(f"wing {wing}")
    momentum = a["how"] == "momentum"
    if momentum and wing == "none":  # the Momentum marker's own leaders still move (§5.46)
        lines += _leader_lines(Phase(clone(state), side, "none", momentum=True), rng)
    if wing not in ("pool", "none", MOMENTUM):
        lines += _heroic_lines(state, side, wing, rng)
        ph = Phase(clone(state), side, wing, momentum=momentum)
        engaged = [u for u in ph.units() if u.engaged]
        if engaged and below(rng, 4, "withdraw") == 0:
            lines.append("order withdraw")
        else:
            for u in sorted(ph.units(), key=lambda u: u.id):
                if u.routed or u.rallied or u.engaged:
                    continue
                lines += _unit_lines(ph, u, rng)
                if u.id not in ph.moved and below(rng, 2, "shock"):
                    lines.append(f"shock {u.id}")
                if not below(rng, 4, f"advance {u.id}"):  # (if it advances after combat)
                    lines.append(f"advance {u.id} face {VERTICES[below(rng, 6, 'advance')]}")
            lines += _leader_lines(ph, rng)
    return wing, lines


class AutoPlayer:
    """Random legal orders and answers for whichever side must act."""

    def __init__(self, system: Any) -> None:
        self.system = system

    def orders(self, state: CofState, seed: bytes, label: str = "autoplay") -> str:
        rng = choice_stream(seed, label)
        p = self.system.prompt(state)
        if p.kind == "over" or p.side is None:
            raise ValueError("the battle is over: nobody acts")
        head = header(state, p.side)
        if p.question is not None:
            answers = p.question.answers
            return head + f"answer {answers[below(rng, len(answers), 'answer')]}\n"
        wing, lines = plan(state, p.side, rng)
        text = head + body(lines)
        if lines and lines[0].startswith("challenge "):
            return text
        try:
            self.system.parse_orders(state, p.side, text)
        except ValueError:
            text = head + (f"wing {wing}\n" if not state.active["wing"] else "") + "pass\n"
        return text

    def play_game(self, start: CofState, seed: bytes, max_turns: int) -> CofState:
        return play_random_game(self.system, start, seed, max_turns)[0]


def play_random_game(
    system: Any, start: CofState, seed: bytes, max_turns: int
) -> tuple[CofState, list[str]]:
    """A whole random game on the committed dice stream (``system`` may be a timing
    wrapper); the last state and the text of every submission."""
    player = AutoPlayer(system)
    seed = hashlib.sha256(b"pbem-random-game|" + seed).digest()
    epochs = max(64, max_turns * 64)
    deck = HashChain(hashlib.sha256(b"deck|" + seed).digest(), 16)
    dice = HashChain(hashlib.sha256(b"dice|" + seed).digest(), epochs)
    setup = EpochDice("cof", 0, None, hashlib.sha256(b"").digest(), deck=deck)
    state: CofState = system.new_game(start, None, setup)
    steps: list[str] = []
    for epoch in range(1, epochs + 1):
        p = system.prompt(state)
        if p.kind == "over" or state.turn > max_turns:
            break
        text = player.orders(state, seed + epoch.to_bytes(4, "big"))
        sub = system.parse_orders(state, p.side or "", text)
        rng = EpochDice("cof", epoch, dice.key(epoch), hash_orders(text.encode()), deck=deck)
        state = system.resolve(state, sub, rng).state
        steps.append(text)
    return state, steps
