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

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from engine.cc.decide import Decider
from engine.cca.cards import LEADERSHIP, SECTION, TROOP
from engine.cca.policy import POLICY_VALUES, parse_policy
from engine.cca.state import SIDES, State, other
from engine.core.api import Event, GameSystem, OrdersError, Question
from engine.core.choices import below, choice_stream
from engine.core.replay import AnswerBook
from engine.dice import EpochDice, HashChain, hash_orders
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

T = TypeVar("T")

_TRIES = 12


class AutoplayError(RuntimeError):
    """No text the engine accepts could be found (an engine or autoplay bug)."""


@dataclass(frozen=True)
class Step:
    """One resolved epoch of a random game: who acted, what they sent, what happened."""

    epoch: int
    side: str
    kind: str  # "orders" or "question"
    text: str
    events: tuple[Event, ...] = field(default=())


# --- choices ------------------------------------------------------------------


def _below(rng: Randomness, n: int, purpose: str) -> int:
    """A uniform integer in ``range(n)``."""
    return below(rng, n, purpose)


def _pick(rng: Randomness, items: Sequence[T], purpose: str) -> T:
    return items[_below(rng, len(items), purpose)]


def _chance(rng: Randomness, percent: int, purpose: str) -> bool:
    return _below(rng, 100, purpose) < percent


def _shuffled(rng: Randomness, items: Sequence[T], purpose: str) -> list[T]:
    if len(items) <= 1:
        return list(items)
    return [items[i] for i in rng.permutation(len(items), purpose)]


# --- answers ------------------------------------------------------------------


def random_answer(question: Question, rng: Randomness) -> str:
    """Pick one of the question's legal answers (the default a little more often)."""
    if not question.answers:
        return question.default
    if _chance(rng, 20, "answer: take the default"):
        return question.default
    return _pick(rng, question.answers, f"answer {question.id}")


def _header(state: State, side: str) -> list[str]:
    return [f"game {state.game_id}", f"turn {state.turn}", f"side {side}"]


# --- what a card may order ----------------------------------------------------


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
            and (
                specs[u.type].weight == "light" if code == "MFM" else specs[u.type].mounted
            )
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


def _norm_ref(r: str) -> str:
    return " ".join(r.lower().split())


def _accepted(
    system: GameSystem, state: State, side: str, lines: list[str]
) -> tuple[str | None, OrdersError | None]:
    """Drop refused lines until the engine accepts the text (or give up)."""
    err: OrdersError | None = None
    card_line = next((i for i, x in enumerate(lines, 1) if x.startswith("card ")), 0)
    for _ in range(_TRIES):
        text = "\n".join(lines) + "\n"
        try:
            system.parse_orders(state, side, text)
            return text, None
        except OrdersError as e:
            err = e
            bad = {p.line for p in e.problems if p.line > 0}
            if not bad or card_line in bad:
                return None, err
            lines = [x for i, x in enumerate(lines, 1) if i not in bad]
    return None, err


def random_submission(system: GameSystem, state: State, rng: Randomness) -> tuple[str, str]:
    """Return ``(side, text)``: random legal orders, or an answer to the pending question."""
    p = system.prompt(state)
    if p.kind == "over" or p.side is None:
        raise AutoplayError("the battle is over: nobody acts")
    if p.kind == "question" and p.question is not None:
        q = p.question
        for ans in (random_answer(q, rng), q.default):
            text = "\n".join([*_header(state, q.side), f"answer {ans}"]) + "\n"
            try:
                system.parse_orders(state, q.side, text)
                return q.side, text
            except OrdersError:
                continue
        raise AutoplayError(f"no acceptable answer to {q.id}: {q.answers}")
    return p.side, random_orders(system, state, p.side, rng)


_NOT_DRAWN = frozenset({"rally", "spartacus"})
"""Standing orders added after the random games were fixed: not drawn, so the same seed
still plays the same game (their questions are covered by the rules cases)."""


def _random_standing(rng: Randomness, side: str) -> list[str]:
    """A few random standing orders, so random games reach every decision path."""
    out = []
    for key, values in POLICY_VALUES.items():
        if key in _NOT_DRAWN:
            continue
        if _chance(rng, 50, f"{side} changes standing {key}?"):
            out.append(f"standing {key}: {_pick(rng, values, f'{side} standing {key}')}")
    return out


# --- whole games --------------------------------------------------------------

DiceFactory = Callable[[int, str], Randomness]
"""``(epoch, submitted text) -> Randomness`` for that epoch's dice."""


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
    """Play random legal turns from ``state`` until the battle ends or ``max_turns`` pass.

    ``state`` may be a loaded scenario (it is started with ``new_game``, the
    deck shuffled from the seed's deck chain). Without ``dice``, every epoch
    uses :class:`EpochDice` on a dice chain built from ``seed_bytes``, as the
    referee does. ``on_step(state, step)`` is called after every epoch (tests
    check invariants there). Returns the final state and the steps taken.
    """
    seed = hashlib.sha256(b"pbem-random-game|" + seed_bytes).digest()
    choices = choice_stream(seed)
    game_id = str(getattr(state, "game_id", "game")) or "game"
    epochs = max(16, max_turns * 12)
    dice_chain: HashChain | None = None
    deck_chain = HashChain(hashlib.sha256(b"deck|" + seed).digest(), 512)
    if dice is None:
        dice_chain = HashChain(hashlib.sha256(b"dice|" + seed).digest(), epochs)
    setup = EpochDice(game_id, 0, None, hashlib.sha256(b"").digest(), deck=deck_chain)
    state = system.new_game(state, None, setup)
    shuffles = setup.shuffles_done
    steps: list[Step] = []
    pending_standing = {s: _random_standing(choices, s) if random_standing else [] for s in SIDES}
    epoch = 0
    while True:
        p = system.prompt(state)
        if p.kind == "over" or state.turn > max_turns or epoch >= epochs:
            break
        side, text = random_submission(system, state, choices)
        if p.kind == "orders" and pending_standing.get(side):
            with_standing = text + "\n".join(pending_standing[side]) + "\n"
            try:
                system.parse_orders(state, side, with_standing)
                text = with_standing
            except OrdersError:
                pass
            pending_standing[side] = []
        sub = system.parse_orders(state, side, text)
        epoch += 1
        rng: Randomness
        if dice is not None:
            rng = dice(epoch, text)
        else:
            assert dice_chain is not None
            rng = EpochDice(
                game_id,
                epoch,
                dice_chain.key(epoch),
                hash_orders(text.encode()),
                deck=deck_chain,
                shuffles_before=shuffles,
            )
        res = system.resolve(state, sub, rng)
        if isinstance(rng, EpochDice):
            shuffles = rng.shuffles_done
        state = res.state
        step = Step(epoch, side, p.kind, text, tuple(res.events))
        steps.append(step)
        if on_step is not None:
            on_step(state, step)
    return state, steps


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
