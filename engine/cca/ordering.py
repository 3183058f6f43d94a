"""Ordering units and leaders with a command card (cca.md §5, §6, §18).

:func:`order_units` checks the ``order`` lines of a submission against the
card played (a Counter-Attack plays the card it copies, mirrored) and marks
the ordered units and leaders on the :class:`Work`. I am Spartacus and Rally
roll their dice here during resolution; while validating, every listed unit
is taken as ordered. :func:`hints` lists what each card in a hand may order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.cc.quotas import fits
from engine.cca.cards import LEADERSHIP, SECTION, TROOP, CardSpec
from engine.cca.combat import fire_range
from engine.cca.orders import Ref, Submission
from engine.cca.state import State, name_key, other
from engine.cca.units import weight_of_face
from engine.cca.work import WLeader, Work, WUnit
from engine.core.api import OrdersProblem
from engine.hexgrid import Hex, Section

__all__ = ["effective_card", "hints", "order_units"]

Item = WUnit | WLeader


def _mirror(sec: str | None) -> str | None:
    """Mirror a section, or a comma-separated list of sections."""
    if not sec:
        return None
    return ",".join(sorted(Section.mirror(s) for s in sec.split(",")))


def effective_card(state: State, side: str, code: str) -> tuple[CardSpec | None, str | None, str]:
    """The card a play acts as (Counter-Attack copies), the LA section, or why none."""
    cards = state.tables.cards
    if code != "CTA":
        return cards[code], None, ""
    last = state.last_card
    if not last or last.get("side") != other(side):
        return None, None, "Counter-Attack copies the card your opponent just played: none yet"
    base = cards[str(last["code"])]
    if base.kind == SECTION:
        # Mirrored flank: the opponent's left is the copier's right (same part of the board).
        swap = {"L": "R", "R": "L"}
        code2 = base.code[:-1] + swap.get(base.code[-1], base.code[-1])
        base = cards.get(code2, base)
    elif base.kind == LEADERSHIP and base.leader_section:
        mirrored = {"left": "IR", "right": "IL", "centre": "IC"}[base.leader_section]
        base = cards[mirrored]
    return base, _mirror(last.get("section")), ""


def sections_of(w: Work, side: str, h: Hex) -> frozenset[str]:
    return w.state.board.sections_for(h, side == "south")


def _items(w: Work, side: str) -> list[Item]:
    units: list[Item] = [u for u in w.live_units(side)]
    leaders: list[Item] = [ld for ld in w.leaders.values() if ld.side == side and ld.hex]
    return units + leaders


def _name(it: Item) -> str:
    return str(it.hex) if isinstance(it, WUnit) else f"leader {it.name}"


def _category(u: WUnit, troop: str) -> bool:
    return u.spec.mounted if troop == "mounted" else u.spec.weight == troop


def _connected(hexes: list[Hex], seeds: list[Hex]) -> bool:
    """True if every hex is linked to a seed hex through adjacent hexes of the set."""
    pool = set(hexes)
    reached = {h for h in pool if any(h == s or h.is_adjacent(s) for s in seeds)}
    todo = list(reached)
    while todo:
        h = todo.pop()
        for n in h.neighbours():
            if n in pool and n not in reached:
                reached.add(n)
                todo.append(n)
    return reached == pool


def _missile(w: Work, u: WUnit) -> bool:
    return fire_range(w, u) > 0


def eligible(w: Work, side: str, spec: CardSpec, code: str) -> list[Item]:
    """Units/leaders a card could order at all (for messages and templates).

    A card that can only be played by its fallback clause lists every unit
    (not leaders: the clause orders "any one unit").
    """
    units = w.live_units(side)
    leaders: list[Item] = [ld for ld in w.leaders.values() if ld.side == side and ld.hex]
    if fallback_applies(w, side, spec):
        return list(units)
    if spec.kind == SECTION:
        secs = set(spec.sections)
        return [it for it in _items(w, side) if it.hex and sections_of(w, side, it.hex) & secs]
    if spec.kind == TROOP:
        got: list[Item] = [u for u in units if _category(u, spec.troop or "")]
        return got + leaders if spec.code == "MO" else got
    if spec.kind == LEADERSHIP:  # its leaders (in the card's section), or any one unit
        need = spec.leader_section
        return [*units] + [
            ld for ld in leaders if ld.hex and (not need or need in sections_of(w, side, ld.hex))
        ]
    if code == "DS":
        return [u for u in units if _missile(w, u)]
    if code in ("DT", "LN"):
        return [u for u in units if u.spec.foot]
    if code == "MFM":
        return [u for u in units if u.spec.weight == "light"]
    if code == "CH":
        return [u for u in units if u.spec.mounted] + [
            ld for ld in leaders if isinstance(ld, WLeader) and w.lone(ld)
        ]
    if code == "CS":
        return [u for u in units if w.enemy_units_adjacent(u)]
    if code == "RA":
        return [u for u in units if _rallyable(w, side, u)]
    return _items(w, side)


def _rallyable(w: Work, side: str, u: WUnit) -> bool:
    """A depleted unit that may be rallied, on or next to a friendly leader (§18.5 Rally)."""
    return (
        u.spec.rally
        and u.blocks < u.full
        and u.hex is not None
        and any(
            ld.side == side
            and ld.hex is not None
            and (ld.hex == u.hex or ld.hex.is_adjacent(u.hex))
            for ld in w.leaders.values()
        )
    )


def _resolve_refs(
    w: Work, side: str, sub: Submission, problems: list[OrdersProblem]
) -> list[tuple[Item, int]]:
    out: list[tuple[Item, int]] = []
    seen: set[int] = set()
    for ref, n in zip(sub.orders, sub.order_lines, strict=True):
        quote = sub.lines[n - 1] if n and n <= len(sub.lines) else ref.notation()
        it = _lookup(w, side, ref)
        if isinstance(it, str):
            problems.append(
                OrdersProblem(n, quote, "not-yours", it, tuple(_name(x) for x in _items(w, side)))
            )
            continue
        if id(it) in seen:
            problems.append(
                OrdersProblem(
                    n, quote, "ordered-twice", f"{ref.notation()} is ordered twice (one order each)"
                )
            )
            continue
        seen.add(id(it))
        out.append((it, n))
    return out


def _lookup(w: Work, side: str, ref: Ref) -> Item | str:
    if ref.leader is not None:
        for ld in w.leaders.values():
            if name_key(ld.name) == name_key(ref.leader):
                if ld.side != side or ld.hex is None:
                    return f"leader {ref.leader} is not one of your leaders on the board"
                return ld
        return f"no leader called {ref.leader}"
    assert ref.hex is not None
    u = w.unit_at(ref.hex)
    if u is not None:
        return u if u.side == side else f"the unit in {ref.hex} is not yours"
    lone = w.leader_at(ref.hex)
    if lone is not None and lone.side == side:
        return lone
    return f"nothing of yours in {ref.hex}"


def _assign_sections(w: Work, side: str, items: list[Item], per: dict[str, int]) -> bool:
    """Fit every item into a section slot (a line hex may use either section)."""
    options = [sorted(sections_of(w, side, it.hex) & set(per)) for it in items if it.hex]
    return fits(options, per)


def order_units(w: Work, side: str, sub: Submission, validating: bool) -> list[OrdersProblem]:
    """Mark what the card orders; return the problems found (empty if legal)."""
    problems: list[OrdersProblem] = []
    code = sub.card
    assert code is not None
    cq = sub.lines[sub.card_line - 1] if sub.card_line else f"card {code}"
    spec, la_section, why = effective_card(w.state, side, code)
    if spec is None:
        return [OrdersProblem(sub.card_line, cq, "nothing-to-copy", why)]
    w.card = spec.code
    w.fallback = fallback_applies(w, side, spec)
    picked = _resolve_refs(w, side, sub, problems)
    items = [it for it, _ in picked]

    def bad(n: int, codename: str, msg: str, alts: tuple[str, ...] | None = None) -> None:
        quote = sub.lines[n - 1] if 0 < n <= len(sub.lines) else cq
        if alts is None:  # what the card could order (listed only when something is wrong)
            alts = tuple(_name(x) for x in eligible(w, side, spec, spec.code))
        problems.append(OrdersProblem(n, quote, codename, msg, alts))

    first_turn = w.state.sides[side].turns == 0
    for it, n in picked:
        if isinstance(it, WUnit) and first_turn and _no_move_first(w, it):
            bad(n, "not-this-turn", f"{_name(it)} may not be ordered in your first turn", ())
        if isinstance(it, WLeader) and not w.lone(it) and spec.kind != LEADERSHIP:
            host = w.host(it)
            detach_ok = spec.helmet or (
                spec.code == "CH" and bool(w.state.option("mounted_charge_detach"))
            )
            if not detach_ok:
                what = host.type if host else "unit"
                bad(
                    n,
                    "cannot-detach",
                    f"leader {it.name} is attached to the {what} in "
                    f"{it.hex}; {spec.name} cannot detach leaders: order the unit instead",
                )
    units = [it for it in items if isinstance(it, WUnit)]
    lds = [it for it in items if isinstance(it, WLeader)]
    any_one = len(items) == 1 and len(units) == 1
    command = w.state.sides[side].command
    all_units = w.live_units(side)
    line0 = sub.order_lines[0] if sub.order_lines else sub.card_line

    if spec.kind == SECTION:
        if not _assign_sections(w, side, items, spec.sections):
            want = ", ".join(f"{n} in your {s}" for s, n in spec.per_section)
            bad(line0, "wrong-section", _too_many(spec.name, want, items) + "; they do not fit")
    elif spec.kind == TROOP:
        troop = spec.troop or ""
        have = [u for u in all_units if _category(u, troop)]
        if have:
            for it, n in picked:
                if isinstance(it, WUnit) and not _category(it, troop):
                    bad(n, "wrong-troop", f"{_name(it)} is not a {troop} unit")
                if isinstance(it, WLeader) and spec.code != "MO":
                    bad(n, "wrong-troop", f"{spec.name} does not order leaders")
            if len(items) > command:
                bad(
                    line0,
                    "too-many",
                    _too_many(spec.name, f"up to {command} (your Command)", items),
                )
        elif not any_one and items:
            bad(line0, "any-one-unit", f"you have no {troop} units: order any one unit")
    elif spec.kind == LEADERSHIP:
        _check_leadership(w, side, spec, la_section, picked, bad, line0, any_one)
    elif spec.code in ("DT", "LN"):
        foot = [u for u in all_units if u.spec.foot]
        if foot:
            for it, n in picked:
                if not (isinstance(it, WUnit) and it.spec.foot):
                    bad(n, "not-foot", f"{_name(it)} is not a foot unit")
            if spec.code == "DT" and len(items) > 4:
                bad(line0, "too-many", _too_many(spec.name, "up to 4 foot units", items))
            hexes = [u.hex for u in units if u.hex]
            if hexes and not _connected(hexes, hexes[:1]):
                bad(line0, "not-connected", "the ordered units must form one connected group")
        elif not any_one and items:
            bad(line0, "any-one-unit", "you have no foot units: order any one unit")
    elif spec.code in ("MFM", "CH"):
        want = "light" if spec.code == "MFM" else "mounted"
        have = [u for u in all_units if _category(u, want)]
        if have:
            for it, n in picked:
                if isinstance(it, WUnit) and not _category(it, want):
                    bad(n, "wrong-troop", f"{_name(it)} is not a {want} unit")
                if isinstance(it, WLeader) and (spec.code == "MFM" or not w.lone(it)):
                    bad(n, "wrong-troop", f"{spec.name} does not order this leader")
            if len(items) > command:
                bad(
                    line0,
                    "too-many",
                    _too_many(spec.name, f"up to {command} (your Command)", items),
                )
        elif not any_one and items:
            bad(line0, "any-one-unit", f"you have no {want} units: order any one unit")
    elif spec.code in ("CS", "DS"):
        auto = eligible(w, side, spec, spec.code)
        if w.fallback:
            if len(items) > 1:
                bad(line0, "any-one-unit", "you have no missile units: order any one unit")
        else:  # the card orders all of them; a listed unit it does not order is refused
            what = "next to an enemy unit" if spec.code == "CS" else "with missile weapons"
            for it, n in picked:
                if it not in auto:
                    bad(
                        n,
                        "not-ordered-by-card",
                        f"{spec.name} orders every unit of yours "
                        f"{what}, and only those: {_name(it)} is not one",
                    )
            items = list(auto)
            units = [it for it in items if isinstance(it, WUnit)]
            lds = []
    elif spec.code == "SP":
        # Any number may be listed: the dice, rolled first, decide which are ordered (§18.5).
        if not validating:
            items = _spartacus(w, side, items)
            units = [it for it in items if isinstance(it, WUnit)]
            lds = [it for it in items if isinstance(it, WLeader)]
    elif spec.code == "RA":
        if w.fallback:
            if len(items) > 1:
                bad(line0, "any-one-unit", "you have no leader on the board: order any one unit")
        elif not validating:  # any number may be listed: the dice decide (§18.5)
            units = _rally(w, side, units)
            lds = []
    entering = sum(1 for a in sub.actions if a.verb == "enter" and a.ref.leader is None)
    if entering:
        cap = {
            SECTION: sum(spec.sections.values()),
            TROOP: command,
            LEADERSHIP: spec.chain + 1,
        }.get(spec.kind, command)
        if spec.kind == LEADERSHIP:
            cap -= sum(1 for u in units if w.host(lds[0]) is not u) if lds else 0
        else:
            cap -= len(items)
        if entering > cap:
            bad(line0, "too-many", f"{spec.name} cannot also order {entering} entering units")
    if problems:
        return problems
    if spec.kind == LEADERSHIP:  # the leader's own unit comes with it (§18.4)
        for ld in lds:
            host = w.host(ld)
            if host is not None and host not in units:
                units.append(host)
    w.ordered = {u.id for u in units}
    w.ordered_leaders = {ld.name for ld in lds}
    if spec.code == "SP" or w.card == "SP":
        for u in units:
            w.bonus_dice[u.id] = 1
    return []


def _too_many(card: str, limit: str, items: list[Item] | list[WUnit]) -> str:
    """The "too many units" message: the card's limit and the units counted."""
    names = ", ".join(_name(it) for it in items)
    return f"{card} orders {limit}; these orders name {len(items)}: {names}"


def fallback_applies(w: Work, side: str, spec: CardSpec) -> bool:
    """True if ``spec`` can only order "any one unit" (its fallback clause, §18).

    Such an order is a normal one (:attr:`Work.effect` is None): the unit moves
    and battles as usual, without the card's bonuses or limits. A Leadership
    card's fallback depends on the orders (no leader named) and is set there.
    """
    units = w.live_units(side)
    if spec.kind == TROOP:
        return not any(_category(u, spec.troop or "") for u in units)
    if spec.code in ("DT", "LN"):
        return not any(u.spec.foot for u in units)
    if spec.code in ("MFM", "CH"):
        return not any(_category(u, "light" if spec.code == "MFM" else "mounted") for u in units)
    if spec.code == "DS":
        return not any(_missile(w, u) for u in units)
    if spec.code == "RA":
        return not any(ld.side == side and ld.hex for ld in w.leaders.values())
    return False


def _no_move_first(w: Work, u: WUnit) -> bool:
    for p in w.specials("no-move-first-turn", u.side):
        if u.hex is not None and str(u.hex) in p.get("hexes", ()):
            return True
        if p.get("tag") in u.tags:
            return True
    return False


def _check_leadership(  # noqa: PLR0917
    w: Work,
    side: str,
    spec: CardSpec,
    la_section: str | None,
    picked: list[tuple[Item, int]],
    bad: Callable[..., None],
    line0: int,
    any_one: bool,
) -> None:
    leaders = [(it, n) for it, n in picked if isinstance(it, WLeader)]
    if not leaders:
        w.fallback = True
        if not any_one and picked:
            bad(
                line0,
                "need-leader",
                f"{spec.name}: name the leader, or order any one unit",
                tuple(f"leader {x.name}" for x in w.leaders.values() if x.side == side and x.hex),
            )
        return
    if len(leaders) > 1:
        bad(leaders[1][1], "one-leader", f"{spec.name} orders one leader")
        return
    ld, n = leaders[0]
    assert isinstance(ld, WLeader) and ld.hex is not None
    need = spec.leader_section or la_section
    if need and not set(need.split(",")) & sections_of(w, side, ld.hex):
        bad(n, "wrong-section", f"leader {ld.name} is not in your {need.replace(',', ' or ')}")
    host = w.host(ld)
    others = [it for it, _ in picked if isinstance(it, WUnit) and it is not host]
    if len(others) > spec.chain:
        bad(
            line0,
            "too-many",
            _too_many(spec.name, f"the leader's unit and up to {spec.chain} more", others),
        )
    hexes = [u.hex for u in others if u.hex]
    if hexes and not _connected(hexes, [ld.hex]):
        bad(line0, "not-connected", "the units must form a chain starting next to the leader")


def _spartacus(w: Work, side: str, items: list[Item]) -> list[Item]:
    """Roll Command dice; the owner chooses which listed units they order (§18.5).

    Each G/B/R orders one light/medium/heavy unit, each H any unit or leader.
    The owner chooses among the sets of listed units the dice can order that
    are as large as any (standing order ``spartacus``: ``ask``, the default,
    asks when there is a choice; ``auto`` orders them in the order listed).
    """
    command = w.state.sides[side].command
    faces = w.roll(command, "I am Spartacus")
    w.log("spartacus", f"I am Spartacus: {' '.join(faces)}", faces)
    wants = {"G": 0, "B": 0, "R": 0, "H": 0}
    for f in faces:
        if f in wants:
            wants[f] += 1
    got: list[Item] = []
    for it in items:
        face = _face_of(it)
        if face and wants[face]:
            wants[face] -= 1
            got.append(it)
        elif wants["H"]:
            wants["H"] -= 1
            got.append(it)
    options, more = _spartacus_sets(faces, items)
    auto = ", ".join(_name(x) for x in got) or "nothing"
    names = {", ".join(_name(items[i]) for i in sorted(o)) or "nothing": o for o in options}
    answers = [auto, *sorted(n for n in names if n != auto)]
    chosen = auto if w.decider.policy(side, "spartacus") == "auto" else None  # else ask
    pick = w.decider.choose(
        side,
        "spartacus",
        f"I am Spartacus: {' '.join(faces)}: which units are ordered?" + _shown(more),
        answers,
        auto,
        chosen,
    )
    if pick != auto:
        got = [items[i] for i in sorted(names[pick])]
    w.log("ordered", "ordered by the dice: " + (", ".join(_name(x) for x in got) or "nothing"))
    left = [_name(x) for x in items if x not in got]
    if left:  # never dropped silently
        w.log("not-ordered", "I am Spartacus: no die for " + ", ".join(left) + ": not ordered")
    return got


def _face_of(it: Item) -> str | None:
    """The die face that orders ``it`` besides a helmet (None for a leader)."""
    if not isinstance(it, WUnit):
        return None
    return {"light": "G", "medium": "B", "heavy": "R"}.get(it.spec.weight)


CHOICES_SHOWN = 64
"""At most this many choices are offered when the I am Spartacus or Rally dice leave one:
those that use the units listed first (a list may be long: the dice decide, §18.5)."""


def _shown(more: bool) -> str:
    """The question's note when it offers only some of the choices."""
    if not more:
        return ""
    return f" (the first {CHOICES_SHOWN} choices, by the order of your list)"


def _spartacus_sets(faces: tuple[str, ...], items: list[Item]) -> tuple[list[frozenset[int]], bool]:
    """The largest sets of listed items (by index) the dice can order, at most
    :data:`CHOICES_SHOWN`, those using items listed first first; and whether there are more.

    Each item is taken or skipped in list order; a branch that can no longer reach the
    largest size is cut, so the search costs little however long the list is.
    """
    count = {f: faces.count(f) for f in ("G", "B", "R", "H")}
    face_of = [_face_of(it) for it in items]

    def best(i: int, left: dict[str, int]) -> int:
        """The most of ``items[i:]`` the dice ``left`` can order: colours, then helmets."""
        per = {f: face_of[i:].count(f) for f in ("G", "B", "R")}
        by_colour = sum(min(left[f], n) for f, n in per.items())
        return by_colour + min(left["H"], len(items) - i - by_colour)

    most = best(0, count)
    found: list[frozenset[int]] = []

    def go(i: int, left: dict[str, int], chosen: frozenset[int]) -> None:
        if len(found) > CHOICES_SHOWN or len(chosen) + best(i, left) < most:
            return
        if i == len(items):
            found.append(chosen)
            return
        face = face_of[i]
        for f in ([face] if face else []) + ["H"]:
            if left[f]:
                go(i + 1, {**left, f: left[f] - 1}, chosen | {i})
                break  # a colour die, if one is left, is never worse than a helmet
        go(i + 1, left, chosen)

    go(0, count, frozenset())
    return found[:CHOICES_SHOWN], len(found) > CHOICES_SHOWN


def _rally(w: Work, side: str, units: list[WUnit]) -> list[WUnit]:
    """Roll Command dice; the owner assigns them to the listed units (§18.5 Rally).

    Each G/B/R returns a block to a depleted unit of that weight on or next to
    a friendly leader, each H to any such unit. The owner chooses among the
    assignments that return the most blocks (standing order ``rally``: ``ask``,
    the default, asks when there is a choice; ``auto`` gives colours first and
    helmets to the first units listed).
    """
    command = w.state.sides[side].command
    faces = w.roll(command, "Rally")
    w.log("rally", f"Rally: {' '.join(faces)}", faces)
    near = [u for u in units if _rallyable(w, side, u)]
    greedy = _rally_greedy(faces, near)
    options, more = _rally_outcomes(faces, near)
    names = {_gains_text(g, near): g for g in options}
    auto = _gains_text(greedy, near)
    answers = [auto, *sorted(n for n in names if n != auto)]
    chosen = auto if w.decider.policy(side, "rally") == "auto" else None  # else ask
    pick = w.decider.choose(
        side,
        "rally",
        f"Rally: {' '.join(faces)}: which units get the blocks?" + _shown(more),
        answers,
        auto,
        chosen,
    )
    rallied: list[WUnit] = []
    if pick == auto:  # colours first, helmets for the rest, in the order listed
        for f in sorted(faces, key=lambda x: x == "H"):
            weight = weight_of_face(f)
            for u in near:
                if u.blocks < u.full and (f == "H" or u.spec.weight == weight):
                    u.blocks += 1
                    if u not in rallied:
                        rallied.append(u)
                    w.log(
                        "rallied", f"{u.label} gets a block back ({f})", unit=u.id, blocks=u.blocks
                    )
                    break
    else:
        for u, n in zip(near, names[pick], strict=True):
            if n:
                u.blocks += n
                rallied.append(u)
                w.log(
                    "rallied",
                    f"{u.label} gets {n} block{'s' if n > 1 else ''} back",
                    unit=u.id,
                    blocks=u.blocks,
                )
    for u in units:  # never dropped silently: say which listed units the dice left out
        if u not in rallied:
            w.log(
                "not-ordered",
                f"Rally: no die for {u.label}: it gets no block and is not ordered",
                unit=u.id,
            )
    return rallied


def _rally_greedy(faces: tuple[str, ...], near: list[WUnit]) -> tuple[int, ...]:
    room = [u.full - u.blocks for u in near]
    gains = [0] * len(near)
    for f in sorted(faces, key=lambda x: x == "H"):
        weight = weight_of_face(f)
        for i, u in enumerate(near):
            if room[i] > gains[i] and (f == "H" or u.spec.weight == weight):
                gains[i] += 1
                break
    return tuple(gains)


def _rally_outcomes(
    faces: tuple[str, ...], near: list[WUnit]
) -> tuple[list[tuple[int, ...]], bool]:
    """The distinct block returns the dice allow that return the most blocks, at most
    :data:`CHOICES_SHOWN`, those giving the dice to units listed first first; and whether
    there are more. A branch that can no longer return the most blocks is cut."""
    dice = [f for f in faces if f == "H" or weight_of_face(f)]
    room = tuple(u.full - u.blocks for u in near)
    weights = [u.spec.weight for u in near]

    def best(i: int, gains: tuple[int, ...]) -> int:
        """The most blocks ``dice[i:]`` can still return: colours first, then helmets."""
        free = [r - g for r, g in zip(room, gains, strict=True)]
        by_colour = 0
        for f in ("G", "B", "R"):
            weight = weight_of_face(f)
            space = sum(n for n, wt in zip(free, weights, strict=True) if wt == weight)
            by_colour += min(dice[i:].count(f), space)
        return by_colour + min(dice[i:].count("H"), sum(free) - by_colour)

    most = best(0, (0,) * len(near))
    found: dict[tuple[int, ...], None] = {}  # in the order found
    seen: set[tuple[int, tuple[int, ...]]] = set()

    def go(i: int, gains: tuple[int, ...]) -> None:
        if (i, gains) in seen or len(found) > CHOICES_SHOWN:
            return
        seen.add((i, gains))
        if sum(gains) + best(i, gains) < most:
            return
        if i == len(dice):
            found[gains] = None
            return
        weight = weight_of_face(dice[i])
        for k, u in enumerate(near):
            if gains[k] < room[k] and (dice[i] == "H" or u.spec.weight == weight):
                go(i + 1, (*gains[:k], gains[k] + 1, *gains[k + 1 :]))
        go(i + 1, gains)

    go(0, (0,) * len(near))
    return list(found)[:CHOICES_SHOWN], len(found) > CHOICES_SHOWN


def _gains_text(gains: tuple[int, ...], near: list[WUnit]) -> str:
    parts = [f"{u.hex} +{n}" for u, n in zip(near, gains, strict=True) if n]
    return ", ".join(parts) or "none"


def hints(state: State, side: str) -> dict[str, Any]:
    """Each card in ``side``'s hand with the units and leaders it may order."""
    from engine.cc.decide import Decider  # noqa: PLC0415
    from engine.core.replay import AnswerBook  # noqa: PLC0415
    from engine.randomness import ScriptedDice  # noqa: PLC0415

    w = Work.start(state, ScriptedDice([]), Decider({}, AnswerBook(())))
    w.simulate = True
    cards = []
    for code in state.sides[side].hand:
        spec, _sec, why = effective_card(state, side, code)
        held = state.tables.cards[code]
        entry: dict[str, Any] = {"code": code, "name": held.name, "kind": held.kind}
        if code == "FS":
            entry["note"] = "played when the opponent attacks you (standing order first-strike)"
        elif spec is None:
            entry["note"] = why
        else:
            entry["units"] = [_name(x) for x in eligible(w, side, spec, spec.code)]
        cards.append(entry)
    sections = {
        sec: [_name(it) for it in _items(w, side) if it.hex and sec in sections_of(w, side, it.hex)]
        for sec in ("left", "centre", "right")
    }
    return {
        "side": side,
        "command": state.sides[side].command,
        "cards": cards,
        "sections": sections,
    }
