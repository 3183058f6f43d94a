"""What the card played orders (ccn.md §6, §9, §24): quotas, arms, detaching, card bonuses.

:func:`effective_card` says what a play acts as (Counter-Attack copies the opponent's last
card, flanks mirrored). :func:`order_units` checks the ``order`` line against that card and
marks what is ordered on the working copy; in resolution it also rolls Élan's and Rally's
dice (§24.2), which decide what those cards order. Problems come back by line.

A ref to a hex orders the unit there (and its attached leader goes with it, §9.3); a ref
``leader NAME`` to an attached leader orders it to detach (1 order, only with a card bearing
the leader-detach symbol, §6.3, never out of a square, §9.6); to a lone leader it is that
leader's order.
"""

from __future__ import annotations

from engine.cc.orders import Submission
from engine.cc.quotas import fits
from engine.ccn.cards import CARDS, quotas
from engine.ccn.state import State, other
from engine.ccn.steps import find
from engine.ccn.tables import Card
from engine.ccn.work import WLeader, Work, WUnit
from engine.core.api import OrdersProblem
from engine.hexgrid import Hex, Section

__all__ = ["effective_card", "eligible", "order_units", "sections_of"]

Item = WUnit | WLeader

_ARMS = {
    "bayonet_charge": ("infantry",),
    "bombard": ("artillery",),
    "cavalry_charge": ("cavalry", "horse-artillery"),
    "fire_and_hold": ("infantry", "artillery"),
    "force_march": ("infantry",),
}
"""Tactic cards that order up to N units of some arms (ccn.md §24.2)."""

_DIE_ARM = {"INF": "infantry", "CAV": "cavalry", "ART": "artillery"}


def _mirror(code: str) -> str:
    """The same card for the other flank (Counter-Attack, ccn.md §24.2)."""
    if code.endswith("_left"):
        return code[:-5] + "_right"
    if code.endswith("_right"):
        return code[:-6] + "_left"
    return code


def effective_card(state: State, side: str, code: str) -> tuple[str | None, str]:
    """The card a play acts as (Counter-Attack copies), or None and why (ccn.md §24.2 [R]:
    with no previous opponent card it orders nothing)."""
    if code != "counter_attack":
        return code, ""
    last = state.last_cards.get(other(side))
    if not last:
        return None, "Counter-Attack copies the card your opponent last played: none yet"
    return _mirror(last), ""


def sections_of(w: Work, side: str, h: Hex) -> frozenset[str]:
    """The sections of ``h`` as ``side``'s player names them (a line hex is in two)."""
    return w.board.sections_for(h, side == "south")


def _arm_ok(w: Work, u: WUnit, arms: tuple[str, ...]) -> bool:
    a = w.arm(u)
    if a in arms:
        return True
    return "horse-artillery" in arms and w.spec(u).chart == "HA"


def eligible(w: Work, side: str, code: str) -> list[Item]:
    """Units and leaders ``code`` may order for ``side`` (before counting quotas)."""
    card = CARDS[code]
    units: list[WUnit] = w.live_units(side)
    leaders = [ld for ld in w.live_leaders(side)]
    if card.kind == "section":
        per = quotas(card) if card.order_rule == "section" else {card.section: 1}
        secs = {s for s, n in per.items() if n > 0}
        out: list[Item] = [u for u in units if u.hex and sections_of(w, side, u.hex) & secs]
        out += [ld for ld in leaders if ld.hex and sections_of(w, side, ld.hex) & secs]
        return out
    if code in _ARMS:
        return [u for u in units if _arm_ok(w, u, _ARMS[code])]
    if code == "leadership":
        return list(leaders)
    if code == "grande_manoeuvre":
        return [u for u in units if not u.square] + list(leaders)
    if code == "cold_steel":
        return [u for u in units if w.enemy_adjacent(u)]
    if code in ("elan", "rally"):
        return list(units) + (list(leaders) if code == "elan" else [])
    return []


def _name(it: Item) -> str:
    return f"leader {it.name}" if isinstance(it, WLeader) else str(it.hex)


def order_units(w: Work, side: str, sub: Submission, validating: bool) -> list[OrdersProblem]:
    """Mark what the card orders; return the problems found (empty if legal)."""
    problems: list[OrdersProblem] = []
    played = sub.card
    assert played is not None

    def bad(line: int, code: str, msg: str, legal: tuple[str, ...] = ()) -> None:
        quote = sub.lines[line - 1] if 0 < line <= len(sub.lines) else ""
        problems.append(OrdersProblem(line, quote, code, msg, legal))

    code, why = effective_card(w.state, side, played)
    w.played = played
    w.card = code
    w.march = None
    if code is None:
        if sub.orders:
            bad(sub.order_lines[0], "nothing-to-copy", why)
        return problems
    card = CARDS[code]
    items: list[tuple[Item, int]] = []
    seen: set[str] = set()
    for ref, line in zip(sub.orders, sub.order_lines, strict=True):
        got = find(w, side, ref)
        if isinstance(got, str):
            bad(line, "not-orderable", got, tuple(_name(i) for i in eligible(w, side, code)))
            continue
        key = got.name if isinstance(got, WLeader) else got.id
        if key in seen:
            bad(line, "ordered-twice", f"{_name(got)} is ordered twice (one order each, §9.2)")
            continue
        seen.add(key)
        items.append((got, line))
    if problems:
        return problems
    command = len(w.state.sides[side].hand)  # the hand before play holds the card (§6.2)
    if code in ("cold_steel", "leadership") and not items:
        items = [(it, sub.card_line) for it in eligible(w, side, code)]
    problems += _check_card(w, side, code, card, items, command, sub)
    if problems:
        return problems
    for it, _ in items:
        _mark(w, side, code, card, it)
    if code in ("elan", "rally") and not validating:
        _dice_orders(w, side, code, [it for it, _ in items], command)
    _bonuses(w, code)
    names = [_name(it) for it, _ in items if code not in ("elan", "rally") or _marked(w, it)]
    if not validating:
        w.log(
            "ordered",
            "ordered: " + (", ".join(names) or "nothing"),
            units=sorted(w.ordered),
            leaders=sorted(w.ordered_leaders),
        )
    return problems


def _marked(w: Work, it: Item) -> bool:
    """Whether ``it`` is ordered (after Élan's or Rally's dice chose, §24.2)."""
    if isinstance(it, WLeader):
        return it.name in w.ordered_leaders
    return it.id in w.ordered


def _check_card(  # noqa: PLR0917 (the check reads this many things)
    w: Work,
    side: str,
    code: str,
    card: Card,
    items: list[tuple[Item, int]],
    command: int,
    sub: Submission,
) -> list[OrdersProblem]:
    problems: list[OrdersProblem] = []
    line = sub.order_lines[0] if sub.order_lines else sub.card_line

    def bad(n: int, msg: str, legal: tuple[str, ...] = ()) -> None:
        quote = sub.lines[n - 1] if 0 < n <= len(sub.lines) else ""
        problems.append(OrdersProblem(n, quote, "not-orderable", msg, legal))

    legal = tuple(_name(i) for i in eligible(w, side, code))
    for it, n in items:
        if isinstance(it, WLeader):
            host = w.host(it)
            if host is not None:
                if not card.detach:
                    bad(n, f"{card.name} cannot order a leader to detach (§6.3)", legal)
                elif host.square and code != "leadership" and all(i is not host for i, _ in items):
                    # Only a square ordered too may be broken, and then its leader may leave
                    # it with this second order, the same turn (§9.6). Leadership orders a
                    # leader *with* his unit (§24.2). Either way the move check refuses
                    # leaving a square still formed.
                    bad(
                        n,
                        f"leader {it.name} may not leave a unit in square (§9.6): order the "
                        f"square too and break it first ('break {host.hex}')",
                    )
    if problems:
        return problems
    if card.kind == "section":
        per = quotas(card) if card.order_rule == "section" else {card.section: command}
        opts = [
            sorted(sections_of(w, side, it.hex) & {s for s, k in per.items() if k > 0})
            for it, _ in items
            if it.hex is not None
        ]
        if any(not o for o in opts):
            outside = [_name(it) for (it, _), o in zip(items, opts, strict=True) if not o]
            bad(line, f"{card.name} orders only in its section(s): not {', '.join(outside)}", legal)
        elif not fits(opts, per):
            quota = ", ".join(f"{k} {s}" for s, k in per.items() if k)
            bad(line, f"{card.name} gives {quota} order(s): too many", legal)
        return problems
    if card.kind != "tactic":
        return problems
    if code == "first_strike" and w.played != code:
        # Counter-Attack copying a First Strike the opponent played as his turn: it gives
        # the same orders - none (§24.2; the rulebook is silent, docs/ccn-status.md).
        if items:
            bad(line, "Counter-Attack copies First Strike, which ordered nothing: order nothing")
        return problems
    if code == "first_strike":
        # Played as a turn only from a hand holding nothing else: it orders nothing (§8).
        if items or set(w.state.sides[side].hand) - {"first_strike"}:
            bad(sub.card_line, "First Strike is played when you are attacked, not as your turn")
        return problems
    if code in _ARMS or code == "grande_manoeuvre":
        ok = eligible(w, side, code)
        if not ok or (code == "grande_manoeuvre" and len(items) == 1 and _battles(sub)):
            # Fallback: "order 1 unit of your choice" (§24.2 [R]), a normal order.
            if len(items) > 1 or any(isinstance(it, WLeader) for it, _ in items):
                bad(line, f"with no unit {card.name} can order, it orders 1 unit of your choice")
            elif (
                items
                and isinstance(items[0][0], WUnit)
                and items[0][0].square
                and code == "grande_manoeuvre"
            ):
                bad(line, "La Grande Manoeuvre cannot order a unit in square (§21.6)")
            w.fallback = True
            return problems
        limit = card.orders or len(ok)
        wrong = [_name(it) for it, _ in items if it not in ok]
        if wrong:
            bad(line, f"{card.name} cannot order {', '.join(wrong)}", tuple(_name(i) for i in ok))
        elif len(items) > limit:
            bad(line, f"{card.name} orders up to {limit}", tuple(_name(i) for i in ok))
        elif code == "force_march" and items:
            w.march, why = _march_section(w, side, [it for it, _ in items])
            if w.march is None:
                bad(line, why)
        return problems
    if code in ("leadership", "cold_steel", "elan", "rally"):
        ok = eligible(w, side, code)
        if code == "leadership" and not ok:
            # No leader on the map: "order 1 unit of your choice" (§24.2), a normal order.
            if len(items) > 1:
                bad(line, "with no leader Leadership orders 1 unit of your choice")
            w.fallback = True
            return problems
        wrong = [_name(it) for it, _ in items if it not in ok]
        if wrong:
            bad(line, f"{card.name} cannot order {', '.join(wrong)}", legal)
        return problems
    if code == "short_supply":
        if items:
            bad(line, "Short Supply orders no unit: name its target with 'move <hex> to <hex>'")
        return problems
    return problems


def _battles(sub: Submission) -> bool:
    return any(a.verb in ("fire", "attack") for a in sub.actions)


def _mark(w: Work, side: str, code: str, card: Card, it: Item) -> None:
    if isinstance(it, WLeader):
        w.ordered_leaders.add(it.name)
        host = w.host(it)
        if code == "leadership" and host is not None and not w.fallback:
            w.ordered.add(host.id)  # ordered with its leader (§24.2)
            w.dice_bonus[host.id] = w.dice_bonus.get(host.id, 0) + 1
        return
    w.ordered.add(it.id)
    if code == "force_march" and w.march is not None and not w.fallback:
        w.ordered.update(u.id for u in _infantry_of(w, side, w.march))


def _infantry_of(w: Work, side: str, section: str) -> list[WUnit]:
    return [
        u
        for u in w.live_units(side)
        if u.hex and w.arm(u) == "infantry" and section in sections_of(w, side, u.hex)
    ]


def _march_section(w: Work, side: str, named: list[Item]) -> tuple[str | None, str]:
    """The one section whose infantry Force March orders (§24.2), fixed by the units named
    (a dotted-line hex is in two sections, §9.7), or why it cannot be told. When the units
    named leave two sections open and the infantry of one is all in the other, the larger
    is meant (ordering a unit more costs nothing); else the player must name a unit that
    stands in only one of them."""
    secs = set(Section.ALL)
    for it in named:
        assert it.hex is not None
        secs &= sections_of(w, side, it.hex)
    if not secs:
        return None, "Force March orders the infantry of one section: these are in several"
    if len(secs) == 1:
        return next(iter(secs)), ""
    a, b = sorted(secs)
    ina = {u.id for u in _infantry_of(w, side, a)}
    inb = {u.id for u in _infantry_of(w, side, b)}
    if ina <= inb or inb <= ina:
        return (b if ina <= inb else a), ""
    where = ", ".join(map(_name, named))
    return None, (
        f"Force March orders the infantry of one section: {where} is on the line between "
        f"{a} and {b}: also name an infantry unit of the section you mean"
    )


def _bonuses(w: Work, code: str) -> None:
    """Card dice that last the whole turn (ccn.md §24.2); Bombard's +2 is added at battle."""
    if w.fallback:
        return
    for uid in w.ordered:
        u = w.units[uid]
        sp = w.spec(u)
        extra = 0
        if code == "cavalry_charge":
            extra = 1 if sp.arm == "cavalry" else 2 if sp.chart == "HA" else 0
        elif code in ("fire_and_hold", "elan"):
            extra = 1
        if extra:
            w.dice_bonus[uid] = w.dice_bonus.get(uid, 0) + extra


def _pick(  # noqa: PLR0917 (the choice reads this many things)
    w: Work, side: str, code: str, face: str, faces: tuple[str, ...], fits: list[Item]
) -> Item:
    """The listed unit (or leader) a symbol goes to: the first that fits when the side's
    standing order for the card is ``auto`` (the order written), else the player's choice
    after the roll among those that fit (a question; one that fits is taken)."""
    names = [_name(it) for it in fits]
    auto = names[0] if w.decider.policy(side, code) == "auto" else None
    what = "order" if code == "elan" else "give a block back to"
    pick = w.decider.choose(
        side,
        code,
        f"{CARDS[code].name} rolled {' '.join(faces)}: which unit does this {face} {what}?",
        names,
        names[0],
        auto,
    )
    return fits[names.index(pick)]


def _dice_orders(w: Work, side: str, code: str, wanted: list[Item], command: int) -> None:
    """Élan and Rally: roll dice equal to command; each symbol orders (Élan) or gives a lost
    block back to (Rally) one of the units listed that it fits, chosen after the roll
    (standing orders ``elan``, ``rally``: ``ask``, or ``auto``: in the order written;
    ccn.md §24.2, §27 A8). A symbol no listed unit fits is lost."""
    faces = tuple(w.roll(command, f"{CARDS[code].name}: {command} dice"))
    w.log("card-dice", f"{CARDS[code].name} rolls {' '.join(faces)}", faces, card=code)
    w.ordered.clear()
    w.ordered_leaders.clear()
    pool = list(wanted)
    if code == "elan":
        for f in sorted(faces, key=lambda x: (x == "FLAG", x)):
            fits = [
                it
                for it in pool
                if f == "FLAG" or (isinstance(it, WUnit) and w.arm(it) == _DIE_ARM.get(f))
            ]
            if fits:
                it = _pick(w, side, code, f, faces, fits)
                pool.remove(it)
                _mark(w, side, code, CARDS[code], it)
        return
    gained: dict[str, int] = {}
    for f in faces:
        arm = _DIE_ARM.get(f)
        fits = [
            it
            for it in pool
            if isinstance(it, WUnit)
            and w.arm(it) == arm
            and it.blocks + gained.get(it.id, 0) < it.full
        ]
        if fits:
            u = _pick(w, side, code, f, faces, fits)
            assert isinstance(u, WUnit)
            gained[u.id] = gained.get(u.id, 0) + 1
    for uid, n in gained.items():
        u = w.units[uid]
        u.blocks += n
        w.ordered.add(uid)
        w.log(
            "rallied",
            f"the {u.type} in {u.hex} regains {n} block{'s' if n > 1 else ''}",
            unit=uid,
            n=n,
        )
