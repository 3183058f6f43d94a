"""Random legal play for C&C Ancients: scripted players, balance runs, property tests.

:func:`random_submission` writes a random orders text (or answer text) for
the side that must act, using the engine's own look-ups (cards in hand, what
each card orders, reachable hexes, adjacent enemies, range and line of
sight), then checks it with ``parse_orders`` and drops any line the engine
refuses, so what it returns is always accepted. :func:`play_random_game`
drives a whole battle that way with the committed dice stream
(:class:`engine.dice.EpochDice`) or any :class:`Randomness`.

Choices are drawn from a ``Randomness`` too (``roll`` on a d-N die,
``permutation``), never from ``random``: the same seed gives the same game,
byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.cc.autoplay import (
    AutoplayError,
    DiceFactory,
    Step,
    accepted,
    chance,
    header,
    pick,
    random_answer,
    shuffled,
)
from engine.cc.autoplay import play_random_game as _play_random_game
from engine.cc.autoplay import random_submission as _random_submission
from engine.cc.decide import Decider
from engine.cca.cards import LEADERSHIP, SECTION, TROOP
from engine.cca.policy import POLICY_VALUES, parse_policy
from engine.cca.state import SIDES, State, other
from engine.core.api import GameSystem, OrdersError
from engine.core.choices import below, choice_stream
from engine.core.replay import AnswerBook
from engine.hexgrid import Hex
from engine.randomness import Randomness

__all__ = [
    "AutoPlayer",
    "AutoplayError",
    "Step",
    "choice_stream",
    "play_random_game",
    "random_answer",
    "random_orders",
    "random_submission",
]


# --- choices ------------------------------------------------------------------


def _below(rng: Randomness, n: int, purpose: str) -> int:
    """A uniform integer in ``range(n)``."""
    return below(rng, n, purpose)


_pick = pick
_chance = chance
_shuffled = shuffled


_header = header


def _effective_card(state: State, code: str) -> str:
    """The card whose effect applies (a Counter-Attack copies the last card played)."""
    seen = 0
    last = state.last_card
    while code == "CTA" and last is not None and seen < 4:
        copied = last.get("effect") or last.get("copied") or last.get("card") or last.get("code")
        if not isinstance(copied, str) or copied not in state.tables.cards:
            break
        code = copied
        seen += 1
    return code


def _hint_units(hints: dict[str, Any], code: str) -> list[str] | None:
    for c in hints.get("cards", []) or []:
        if isinstance(c, dict) and c.get("code") == code:
            units = c.get("units")
            if isinstance(units, list | tuple):
                return [str(x) for x in units]
    return None


def _contiguous(start: Hex, pool: set[Hex], limit: int, rng: Randomness) -> list[Hex]:
    """A random connected group from ``pool`` grown from ``start`` (at most ``limit``)."""
    group = [start]
    while len(group) < limit:
        frontier = sorted({n for g in group for n in g.neighbours() if n in pool} - set(group))
        if not frontier:
            break
        group.append(_pick(rng, frontier, "grow a connected group"))
    return group


def _own_refs(state: State, side: str, code: str, rng: Randomness) -> list[str]:
    """Units and leaders (as order refs) a card orders, chosen at random (a best guess).

    The engine has the last word: refs it refuses are dropped afterwards.
    """
    spec = state.tables.cards[code]
    me = state.sides[side]
    units = [u for u in state.units if u.side == side and u.hex is not None]
    leaders = [ld for ld in state.leaders if ld.side == side and ld.hex is not None]
    unit_hexes = {u.hex for u in units}
    south = side == "south"
    specs = state.tables.units

    def secs(h: Hex) -> frozenset[str]:
        return state.board.sections_for(h, south)

    if not units:
        return []
    if spec.kind == SECTION:
        out: list[str] = []
        used: set[Hex] = set()
        for sec, n in spec.per_section:
            cands = [u.hex for u in units if u.hex is not None and sec in secs(u.hex)]
            cands += [
                ld.hex
                for ld in leaders
                if ld.hex is not None and ld.hex not in unit_hexes and sec in secs(ld.hex)
            ]
            cands = [h for h in cands if h not in used]
            want = 1 + _below(rng, n, "how many units to order")
            for h in _shuffled(rng, sorted(set(cands)), "units to order")[:want]:
                used.add(h)
                ld = state.leader_at(h)
                if h in unit_hexes:
                    out.append(str(h))
                elif ld is not None:
                    out.append(f"leader {ld.name}")
        return out
    if spec.kind == TROOP:
        cat = spec.troop

        def fits(t: str) -> bool:
            s = specs[t]
            return s.mounted if cat == "mounted" else s.weight == cat

        cands = sorted(u.hex for u in units if u.hex is not None and fits(u.type))
        if not cands:
            return [str(_pick(rng, sorted(h for h in unit_hexes if h is not None), "any one unit"))]
        want = 1 + _below(rng, min(me.command, len(cands)), "how many units to order")
        return [str(h) for h in _shuffled(rng, cands, "units to order")[:want]]
    if spec.kind == LEADERSHIP:
        fitting = [
            ld
            for ld in leaders
            if ld.hex is not None
            and (spec.leader_section is None or spec.leader_section in secs(ld.hex))
        ]
        if not fitting:
            return [str(_pick(rng, sorted(h for h in unit_hexes if h is not None), "any one unit"))]
        ld = _pick(rng, fitting, "which leader")
        assert ld.hex is not None
        out = [f"leader {ld.name}"]
        pool = {h for h in unit_hexes if h is not None}
        seeds = [h for h in ld.hex.neighbours() if h in pool]
        if ld.hex in pool:
            out.append(str(ld.hex))
            pool.discard(ld.hex)
        if seeds:
            start = _pick(rng, sorted(seeds), "first unit of the chain")
            for h in _contiguous(start, pool, 1 + _below(rng, spec.chain, "chain"), rng):
                out.append(str(h))
        return out
    foot = sorted(u.hex for u in units if u.hex is not None and specs[u.type].foot)
    if code in ("DT", "LN"):
        if not foot:
            return [str(_pick(rng, sorted(h for h in unit_hexes if h is not None), "any one unit"))]
        limit = 4 if code == "DT" else len(foot)
        group = _contiguous(
            _pick(rng, foot, "first unit"), set(foot), 1 + _below(rng, limit, "group size"), rng
        )
        return [str(h) for h in group]
    if code in ("MFM", "CH"):
        mounted_or_light = sorted(
            u.hex
            for u in units
            if u.hex is not None
            and (specs[u.type].weight == "light" if code == "MFM" else specs[u.type].mounted)
        )
        if not mounted_or_light:
            return [str(_pick(rng, sorted(h for h in unit_hexes if h is not None), "any one unit"))]
        want = 1 + _below(rng, min(me.command, len(mounted_or_light)), "how many")
        return [str(h) for h in _shuffled(rng, mounted_or_light, "units to order")[:want]]
    if code in ("SP", "RA"):
        pool_refs = [str(h) for h in sorted(h for h in unit_hexes if h is not None)]
        want = 1 + _below(rng, min(len(pool_refs), me.command + 1), "how many")
        return _shuffled(rng, pool_refs, "units wanted")[:want]
    return []  # CS, DS: the card orders by itself


# --- moves and battles --------------------------------------------------------


def _work(state: State, side: str, code: str, rng: Randomness) -> Any:
    """A working copy to look things up on (reach, adjacency) while planning a turn."""
    from engine.cca.work import Work  # noqa: PLC0415

    policies = {s: parse_policy(state.sides[s].standing or "") for s in SIDES}
    w = Work.start(state, rng, Decider(policies, AnswerBook(())))
    w.active = side
    w.card = code
    return w


def _special_lines(state: State, side: str, ordered: list[Any], rng: Randomness) -> list[str]:
    """Sometimes bring on a reinforcement or leave by an exit hex, where the scenario allows."""
    out: list[str] = []
    for sp in state.specials:
        if sp.params.get("side") not in (None, side):
            continue
        if sp.rule == "reinforcements" and _chance(rng, 40, "bring reinforcements?"):
            waiting = [
                u
                for u in state.units
                if u.side == side and u.hex is None and u.blocks > 0 and "exited" not in u.tags
            ]
            free = [
                h
                for h in (Hex.parse(str(x)) for x in sp.params.get("enter", ()))
                if state.unit_at(h) is None and state.leader_at(h) is None
            ]
            if waiting and free:
                u = _pick(rng, waiting, "which reinforcement")
                out.append(f"enter {u.type} at {_pick(rng, sorted(free), 'entry hex')}")
        if sp.rule == "exit-banner":
            exits = {Hex.parse(str(x)) for x in sp.params.get("hexes", ())}
            for u in ordered:
                if u.hex in exits and _chance(rng, 60, "leave the board?"):
                    out.append(f"move {u.hex} > off")
                    u.hex = None  # planning only: it is gone for the rest of the turn
    return out


def _toward_enemy(w: Any, side: str, choices: list[Hex], rng: Randomness) -> Hex:
    """Mostly a hex nearest the enemy (random games should fight), sometimes any hex."""
    enemies = [e.hex for e in w.live_units(other(side)) if e.hex is not None]
    if not enemies or _chance(rng, 30, "wander?"):
        return _pick(rng, choices, "destination")

    def gap(h: Hex) -> int:
        return min(h.distance(e) for e in enemies)

    best = min(gap(h) for h in choices)
    return _pick(rng, [h for h in choices if gap(h) == best], "destination near the enemy")


def _plan_actions(
    state: State, side: str, code: str, refs: list[str], rng: Randomness
) -> list[str]:
    """Random moves, then random battles, for the ordered ``refs`` (best effort)."""
    from engine.cca import combat, movement  # noqa: PLC0415

    w = _work(state, side, code, rng)
    ordered: list[Any] = []
    lead: list[Any] = []
    if code in ("CS", "DS"):
        for u in w.live_units(side):
            if code == "CS" and w.enemy_units_adjacent(u):
                ordered.append(u)
            if code == "DS" and combat.fire_range(w, u) > 0:
                ordered.append(u)
    for r in refs:
        if r.lower().startswith("leader "):
            name = r.split(" ", 1)[1]
            if name in w.leaders:
                lead.append(w.leaders[name])
            continue
        u = w.unit_at(Hex.parse(r))
        if u is not None and u.side == side and u not in ordered:
            ordered.append(u)
    w.ordered = {u.id for u in ordered}
    lines: list[str] = _special_lines(state, side, ordered, rng)

    def move_phase(pct: int) -> None:
        for u in _shuffled(rng, ordered, "move order"):
            if u.hex is None or u.id in w.pinned or not _chance(rng, pct, "move it?"):
                continue
            try:
                dests = movement.reach(w, u)
            except Exception:
                return
            choices = sorted(h for h in dests if h != u.hex)  # warriors' end rule included
            if not choices:
                continue
            to = _toward_enemy(w, side, choices, rng)
            lines.append(f"move {u.hex} to {to}")
            movement.do_move(w, u, dests[to])
        for ld in _shuffled(rng, lead, "leader moves"):
            host = w.unit_at(ld.hex) if ld.hex is not None else None
            if ld.hex is None or (host is not None and w.moved.get(host.id)):
                continue  # it went along with its unit
            if not _chance(rng, 50, "move the leader?"):
                continue
            try:
                dests = movement.leader_reach(w, ld)
            except Exception:
                return
            choices = sorted(h for h in dests if h != ld.hex)
            if choices:
                to = _pick(rng, choices, "leader destination")
                lines.append(f"move leader {ld.name} to {to}")
                movement.do_leader_move(w, ld, dests[to])

    if code not in ("CS", "DS"):
        move_phase(75)
    close_ok = code not in ("MFM", "DS")
    fire_ok = code not in ("CS", "DT", "CH")
    shots = 2 if code == "DS" else 1
    for u in _shuffled(rng, ordered, "battle order"):
        if u.hex is None:
            continue
        try:
            if movement.moved_too_far_to_battle(w, u):
                continue
        except Exception:
            pass
        adjacent = sorted(e.hex for e in w.enemy_units_adjacent(u) if e.hex is not None)
        lone = sorted(
            n
            for n in w.neighbours(u.hex)
            if w.unit_at(n) is None and (ld := w.leader_at(n)) is not None and ld.side != side
        )
        forced = u.spec.must_melee_after and w.moved.get(u.id, 0) >= u.spec.must_melee_after
        if adjacent:
            if close_ok and (forced or _chance(rng, 85, "attack?")):
                target = _pick(rng, adjacent + lone, "target")
                opt = _pick(rng, ("", " advance", " no-advance"), "advance option")
                lines.append(f"attack {u.hex} at {target}{opt}")
            continue
        if lone and close_ok and _chance(rng, 50, "attack the lone leader?"):
            lines.append(f"attack {u.hex} at {_pick(rng, lone, 'leader target')}")
            continue
        rng_max = combat.fire_range(w, u)
        if not fire_ok or rng_max <= 0:
            continue
        targets = sorted(
            h
            for h in w.state.board
            if 2 <= u.hex.distance(h) <= rng_max
            and (
                ((e := w.unit_at(h)) is not None and e.side != side)
                or (e is None and (ld2 := w.leader_at(h)) is not None and ld2.side != side)
            )
            and combat.los_clear(w, u.hex, h)
        )
        for _ in range(shots):
            if targets and _chance(rng, 85, "fire?"):
                lines.append(f"fire {u.hex} at {_pick(rng, targets, 'fire target')}")
    if code == "MFM":
        move_phase(30)
    return lines


def random_orders(system: GameSystem, state: State, side: str, rng: Randomness) -> str:
    """Return a random orders text for ``side`` that ``system.parse_orders`` accepts."""
    hand = list(state.sides[side].hand)
    playable = [c for c in hand if c != "FS"] or hand
    hints: dict[str, Any] = {}
    try:
        hints = dict(system.legal_hints(state, side))
        listed = [c.get("code") for c in hints.get("cards", []) if isinstance(c, dict)]
        if listed:
            playable = [c for c in playable if c in listed] or playable
    except NotImplementedError:
        pass
    last: OrdersError | None = None
    for code in _shuffled(rng, playable, "which card"):
        effect = _effective_card(state, code)
        allowed = _hint_units(hints, code)
        refs = _own_refs(state, side, effect, rng)
        if allowed is not None:
            keep = {_norm_ref(r) for r in allowed}
            refs = [r for r in refs if _norm_ref(r) in keep] or allowed[:1]
        try:
            actions = _plan_actions(state, side, effect, refs, rng)
        except Exception:
            actions = []
        lines = [*_header(state, side), f"card {code}", *(f"order {r}" for r in refs), *actions]
        text, err = _accepted(system, state, side, lines)
        if text is not None:
            return text
        last = err
        # The bare card with no orders at all is the last resort for this card.
        text, err = _accepted(system, state, side, [*_header(state, side), f"card {code}"])
        if text is not None:
            return text
        last = err or last
    raise AutoplayError(f"no acceptable orders for {side} with hand {hand}: {last}")


_accepted = accepted


_NOT_DRAWN = frozenset({"rally", "spartacus"})
"""Standing orders added after the random games were fixed: not drawn, so the same seed
still plays the same game (their questions are covered by the rules cases)."""


class _Random:
    """The Ancients' part of the shared random play (:mod:`engine.cc.autoplay`)."""

    sides = SIDES
    policy_values = POLICY_VALUES
    not_drawn = _NOT_DRAWN

    @staticmethod
    def orders(system: GameSystem, state: Any, side: str, rng: Randomness) -> str:
        return random_orders(system, state, side, rng)


def random_submission(system: GameSystem, state: State, rng: Randomness) -> tuple[str, str]:
    """Return ``(side, text)``: random legal orders, or an answer to the pending question."""
    return _random_submission(_Random(), system, state, rng)


def play_random_game(
    system: GameSystem,
    state: Any,
    seed_bytes: bytes,
    max_turns: int = 200,
    *,
    dice: DiceFactory | None = None,
    random_standing: bool = True,
    on_step: Callable[[Any, Step], None] | None = None,
) -> tuple[Any, list[Step]]:
    """Play random legal turns from ``state`` (:func:`engine.cc.autoplay.play_random_game`)."""
    return _play_random_game(
        _Random(),
        system,
        state,
        seed_bytes,
        max_turns,
        dice=dice,
        random_standing=random_standing,
        on_step=on_step,
    )


def _norm_ref(r: str) -> str:
    return " ".join(r.lower().split())


class AutoPlayer:
    """The ``autoplay`` capability (:mod:`engine.core.capabilities`) of C&C Ancients."""

    def orders(self, state: State, seed: bytes, label: str = "autoplay") -> str:
        """Random legal orders (or an answer) for the side that must act."""
        from engine.cca.system import SYSTEM  # noqa: PLC0415 - the system loads this lazily

        _, text = random_submission(SYSTEM, state, choice_stream(seed, label))
        return text

    def play_game(self, start: Any, seed: bytes, max_turns: int) -> Any:
        """A whole random game from a loaded scenario (:func:`play_random_game`)."""
        from engine.cca.system import SYSTEM  # noqa: PLC0415

        final, _ = play_random_game(SYSTEM, start, seed, max_turns)
        return final
