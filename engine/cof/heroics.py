"""Heroes in the turn (cof.md §10, Sumer and Troy and any battle whose rules say ``heroic``):
the duel a shock brings, the heroic challenge instead of a drawn marker, the archer's shot,
a leader's mode on activation, the marker a withdrawn hero costs his side.

The rules are :mod:`engine.cof.heroes`' pure functions; these steps apply them to a
:class:`~engine.cof.state.CofState`. What the side not moving decides is its standing order
or a question (:mod:`engine.cof.policy`): ``duelist`` (whom it sends to a duel among its
leaders there), ``duel`` (whether its leader with more hits fights on or withdraws),
``challenge`` (accept, decline, or ``ask``: the game waits for ``answer accept|decline``).

pbem's readings [E]: the two leaders of a duel are not moved (cof.md §10.3 #2 places them
"on any convenient hex" only to fight); a hero archer who challenges shoots when the
target is within 3 hexes and in sight (it needs no acceptance: it is not a duel), else
fights; several duels in one Shock Segment add their modifiers; a duel stops after
:data:`MAX_ROUNDS` rounds without a winner.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.cof import heroes
from engine.cof.adapt import chief, ground, pieces
from engine.cof.elevation import sight
from engine.cof.heroes import on_foot_after
from engine.cof.leaders import displaced, moves_on
from engine.cof.policy import policy_of
from engine.cof.state import CofState, Leader
from engine.cof.steps import Ctx, kill_leader
from engine.gboh.grid import GHex, MapNotationError

__all__ = [
    "MAX_ROUNDS",
    "challenge_problem",
    "duel",
    "heroic",
    "pick_duelist",
    "set_mode",
    "shock_duel",
]

MAX_ROUNDS = 50
ARCHER_REACH = 3
"""A hero archer shoots at a heroic opponent within 3 hexes (cof.md §10.4 #5)."""


def heroic(s: CofState) -> bool:
    """Whether the battle plays the heroic rules (armies.toml ``heroic``, or the scenario's
    ``heroic`` rule)."""
    if "heroic" in s.special_rules:
        return True
    b = s.charts.battles.get(s.battle) if s.battle else None
    return bool(b is not None and b.heroic)


def pick_duelist(s: CofState, involved: Sequence[Leader]) -> Leader:
    """Whom a side sends (cof.md §10.2 #1, :func:`engine.cof.heroes.duel_leader`): a hero if
    it has one there, chosen by its standing order ``duelist``: the best Combat, or the most
    Endurance left (ties: the lowest id)."""
    allowed = set(heroes.duel_leader([chief(ld) for ld in involved]))
    pool = [ld for ld in involved if ld.id in allowed]
    how = policy_of(s, pool[0].side).get("duelist")
    if how == "endurance":
        return min(pool, key=lambda ld: (ld.hits - ld.endurance, ld.id))
    return min(pool, key=lambda ld: (-ld.combat, ld.id))


def _withdraws(ctx: Ctx, ld: Leader, foe: Leader) -> None:
    """A leader who declines or withdraws (cof.md §10.3 #1, #5): he stays with a friendly
    combat unit, else falls back as a lone leader (§4.2); his side spends its next marker
    (§10.4 #4)."""
    s = ctx.s
    s.sides[ld.side].skip_marker = True
    board = pieces(s)
    if heroes.declined(chief(ld), board) == "retreats" and foe.hex and ld.hex:
        near = GHex.parse(ld.hex)
        toward = min(near.neighbours(), key=lambda h: (h.distance(GHex.parse(foe.hex)), str(h)))
        where = displaced(board, chief(ld), toward)
        if where is None:
            kill_leader(ctx, ld, "alone with no army to fall back to")
            return
        if where:
            ld.hex = str(where[0])
    ctx.log(
        "withdraw",
        f"{ld.name} withdraws from the duel (at {ld.hex or 'no hex'}): "
        f"{s.sides[ld.side].name} spends its next marker",
        {"leader": ld.id},
    )


def duel(ctx: Ctx, a: Leader, b: Leader) -> Leader | None:
    """Fight a duel to its end (cof.md §10.3 #3-#6); the winner, or ``None`` (both dead,
    or no decision)."""
    s = ctx.s
    taken = (0, 0)
    before = (a.hits, b.hits)
    for n in range(1, MAX_ROUNDS + 1):
        rolls = (ctx.d10(f"duel round {n}: {a.name}"), ctx.d10(f"duel round {n}: {b.name}"))
        now = (before[0] + taken[0], before[1] + taken[1])
        got = heroes.duel_round(rolls, (a.combat, b.combat), (a.endurance, b.endurance), now)
        taken = (got.hits[0] - before[0], got.hits[1] - before[1])
        ctx.log(
            "duel",
            f"{a.name} {rolls[0]}+{a.combat} against {b.name} {rolls[1]}+{b.combat}: "
            f"hits {got.hits[0]} of {a.endurance} and {got.hits[1]} of {b.endurance}",
            {"leaders": [a.id, b.id], "hits": list(got.hits)},
            rolls,
        )
        step = heroes.after_round(taken, got.dead)
        if step == "over":
            for ld, dead in zip((a, b), got.dead, strict=True):
                if dead:
                    kill_leader(ctx, ld, "in a duel")
            alive = [ld for ld, dead in zip((a, b), got.dead, strict=True) if not dead]
            for ld, t, h in zip((a, b), taken, before, strict=True):
                if ld in alive:
                    ld.hits = heroes.hits_kept(h, t)
            return alive[0] if len(alive) == 1 else None
        if step == "again":
            continue
        loser, winner = (a, b) if step == "0 chooses" else (b, a)
        if policy_of(s, loser.side).get("duel") == "withdraw":
            for ld, t, h in zip((a, b), taken, before, strict=True):
                ld.hits = heroes.hits_kept(h, t)
            _withdraws(ctx, loser, winner)
            return winner
    for ld, t, h in zip((a, b), taken, before, strict=True):
        ld.hits = heroes.hits_kept(h, t)
    return None


def shock_duel(
    ctx: Ctx, attacking: Sequence[Leader], defending: Sequence[Leader]
) -> tuple[int, tuple[str, str]]:
    """Step c of one shock in a heroic battle (cof.md §10.2 #1, §10.4 #2): when both sides
    have a leader there and one is a hero, each sends one to a duel; the others take no part.
    The modifier for the activation's shocks (+2 if the attacker's leader won, -2 if the
    defender's, 0 without a winner) and the two duelists' ids. ``attacking`` and
    ``defending`` are the involved leaders."""
    s = ctx.s
    a, d = pick_duelist(s, attacking), pick_duelist(s, defending)
    ctx.log("duel", f"{a.name} and {d.name} meet in the shock: a duel", {"leaders": [a.id, d.id]})
    won = duel(ctx, a, d)
    drm = 0 if won is None else heroes.hero_drm(s.charts, won is a)
    return drm, (a.id, d.id)


def is_heroic_shock(s: CofState, attacking: Sequence[Leader], defending: Sequence[Leader]) -> bool:
    """Whether a shock brings a duel (:func:`engine.cof.heroes.heroic_shock`)."""
    return heroic(s) and heroes.heroic_shock(
        [chief(ld) for ld in attacking], [chief(ld) for ld in defending]
    )


# --- the heroic challenge (cof.md §10.2 #2, §10.3, §10.4) ------------------------------------


def _path(words: Sequence[str]) -> list[GHex] | str:
    out = []
    for w in words:
        try:
            out.append(GHex.parse(w))
        except MapNotationError:
            return f"{w!r} is not a hex"
    return out


def challenge_problem(s: CofState, side: str, words: Sequence[str]) -> str | None:
    """Why ``challenge HERO LEADER HEX...`` may not be played now, or ``None``."""
    a = s.active
    if not heroic(s):
        return "this battle has no heroic rules: no challenges (cof.md §10)"
    if a.get("how") not in ("draw", "momentum"):
        return "a challenge takes the place of a drawn marker (cof.md §10.2 #2)"
    if len(words) < 3:
        return "challenge HERO LEADER HEX...: the path ends at the leader's hex"
    hero = _leader(s, words[0])
    target = _leader(s, words[1])
    if hero is None or hero.side != side or not hero.on_map:
        return f"no leader {words[0]!r} of {side} on the map"
    if target is None or target.side == side or not target.on_map:
        return f"no enemy leader {words[1]!r} on the map"
    path = _path(words[2:])
    if isinstance(path, str):
        return path
    if _shoots(s, hero, target):
        return None  # he shoots (cof.md §10.4 #5): no path to walk
    return heroes.challenge_problem(
        s.charts, ground(s), pieces(s), chief(hero), chief(target), path=path
    )


def _leader(s: CofState, ref: str) -> Leader | None:
    return next((ld for ld in s.leaders if ld.id.lower() == ref.lower()), None)


def _shoots(s: CofState, hero: Leader, target: Leader) -> bool:
    """Whether a challenging hero archer (on foot) shoots: the target within 3 hexes and in
    his sight (cof.md §10.4 #5)."""
    if not (hero.hero and hero.archer and hero.on_foot):
        return False
    h, t = GHex.parse(hero.hex), GHex.parse(target.hex)
    occupied = {p.hex for p in pieces(s)}
    return h.distance(t) <= ARCHER_REACH and sight(
        ground(s), h, t, occupied=lambda x: x in occupied
    )


def challenge(ctx: Ctx, side: str, words: Sequence[str], marker: str) -> dict[str, Any] | None:
    """Issue a checked challenge with ``marker``, the one drawn for this Orders Phase; what
    the challenged side is asked when its standing order is ``ask`` (the caller waits for
    :func:`answer_challenge`), else ``None`` once it is resolved."""
    s = ctx.s
    hero, target = _leader(s, words[0]), _leader(s, words[1])
    assert hero is not None and target is not None and hero.side == side
    ctx.log(
        "challenge",
        f"{hero.name} challenges {target.name}",
        {"hero": hero.id, "target": target.id, "marker": marker},
    )
    if _shoots(s, hero, target):
        dr = ctx.d10(f"{hero.name} shoots at {target.name}")
        if heroes.killed_by_archer(dr):
            kill_leader(ctx, target, f"shot by {hero.name}")
        else:
            ctx.log(
                "challenge", f"{hero.name} shoots and misses (rolls {dr})", {"hero": hero.id}, (dr,)
            )
        return None
    p = {"hero": hero.id, "target": target.id, "marker": marker, "path": list(words[2:])}
    wish = policy_of(s, target.side).get("challenge")
    if wish == "ask":
        return p
    answer_challenge(ctx, p, wish == "accept")
    return None


def challenge_question(s: CofState) -> tuple[str, tuple[str, ...], str]:
    """The text, answers and default of a challenge waiting for its answer."""
    p = s.pending
    hero, target = s.leader(p["hero"]), s.leader(p["target"])
    text = (
        f"{hero.name} challenges {target.name} to a duel: accept or decline? "
        "(declining costs your next marker, cof.md §10.3)"
    )
    return text, ("accept", "decline"), "accept"


def answer_challenge(ctx: Ctx, p: dict[str, Any], accept: bool) -> None:
    """The challenged leader accepts (a duel; on foot at once) or declines (cof.md §10.3);
    the challenger's marker goes back to the pool when he wins (§10.4 #1)."""
    s = ctx.s
    hero, target = s.leader(p["hero"]), s.leader(p["target"])
    if not (hero.on_map and target.on_map):
        ctx.log("challenge", "the challenge lapses: a leader is gone", {"hero": hero.id})
        return
    if not accept:
        ctx.log("challenge", f"{target.name} declines", {"leader": target.id})
        _withdraws(ctx, target, hero)
        return
    target.on_foot = on_foot_after(chief(target), "accepted").on_foot
    ctx.log("challenge", f"{target.name} accepts and fights on foot", {"leader": target.id})
    won = duel(ctx, hero, target)
    fate = heroes.marker_after_challenge(initiator_won=won is hero)
    marker = p["marker"]
    if fate == "returned" and marker in s.used:
        s.used.remove(marker)
        s.pool = sorted([*s.pool, marker])
        ctx.log(
            "challenge", f"{hero.name} wins: his marker goes back into the pool", {"marker": marker}
        )


# --- a leader's mode (cof.md §10.1) ------------------------------------------------------


def set_mode(s: CofState, side: str, wing: str, words: Sequence[str]) -> str | None:
    """``mode LEADER foot|chariot``: a leader who moves on the marker in use flips his counter
    (cof.md §10.1, :func:`engine.cof.heroes.on_foot_after` ``activated``); the problem if he
    may not."""
    if not heroic(s):
        return "this battle has no heroic rules: leaders keep their mode (cof.md §10)"
    if len(words) != 2 or words[1].lower() not in ("foot", "chariot"):
        return "mode LEADER foot|chariot"
    ld = _leader(s, words[0])
    if ld is None or ld.side != side or not ld.on_map:
        return f"no leader {words[0]!r} of {side} on the map"
    marker = "momentum" if s.active.get("how") == "momentum" and not ld.wing else f"wing:{wing}"
    if not moves_on(chief(ld), marker, commands_wing=bool(ld.wing)):
        return f"{ld.name} is not activated by this marker: he keeps his mode (cof.md §10.1)"
    ld.on_foot = on_foot_after(chief(ld), "activated", choose_foot=words[1] == "foot").on_foot
    return None


def skip_marker(ctx: Ctx, marker: str) -> bool:
    """Whether the marker just drawn is spent because a hero of its side withdrew (cof.md
    §10.4 #4)."""
    s = ctx.s
    side = marker.split(":", 1)[0]
    if not s.sides[side].skip_marker:
        return False
    s.sides[side].skip_marker = False
    ctx.log(
        "spent",
        f"{s.sides[side].name} spends this marker: its hero withdrew (cof.md §10.4)",
        {"side": side, "marker": marker},
    )
    return True
