"""Campaigns: linked battles declared in a TOML file; the next starts when one ends.

A campaign file (docs/clubs.md, "Campaigns")::

    name = "Punic Wars"
    sides = ["rome", "carthage"]      # the campaign's sides, one player each
    start = "trebia"                  # the first battle

    [battles.trebia]
    scenario = "cca-003-trebia"       # any scenario ref (id, number, file)
    sides = { rome = "north", carthage = "south" }   # campaign side -> game side
    win_points = 3                    # campaign points for winning the battle
    banner_points = 1                 # campaign points per banner won
    next = { rome = "cannae", carthage = "cannae", draw = "cannae" }

    [battles.cannae]
    scenario = "cca-007-cannae"
    sides = { rome = "north", carthage = "south" }

A battle's ``next`` names the following battle by who won it (a campaign
side, or ``draw``); a battle without a ``next`` for the result ends the
campaign. Losses carry on: the banners each side conceded add up in the
campaign state (``losses``) and are mailed with it. Everything is checked
when the campaign is created (:func:`load_spec`): unknown keys, a ``next``
or ``start`` naming no battle, sides that do not match, a scenario that does
not exist.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from typing import Any

from pbem.clubs.clubs import ClubError, JoinSigner, get_club, resolve_scenario, start_club_game
from pbem.clubs.models import Campaign, ClubGame
from pbem.clubs.results import banners_of
from pbem.clubs.standings import mail_members
from pbem.pipeline.games import GameContext
from pbem.pipeline.systems import resolve_system
from pbem.pipeline.turns import Env

__all__ = ["Battle", "CampaignSpec", "create_campaign", "load_spec", "on_game_end"]

JOINS: dict[str, JoinSigner] = {}
"""Campaign id -> a signer of join statements (tests and scripted players only)."""


@dataclass(frozen=True)
class Battle:
    """One battle of a campaign."""

    name: str
    scenario: str
    sides: dict[str, str]
    win_points: int = 3
    banner_points: int = 1
    next: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class CampaignSpec:
    """A campaign file, checked."""

    name: str
    sides: tuple[str, ...]
    start: str
    battles: dict[str, Battle]


_BATTLE_KEYS = {"scenario", "sides", "win_points", "banner_points", "next"}


def load_spec(text: str, *, check_scenarios: bool = False) -> CampaignSpec:
    """Read and check a campaign file; raise :class:`ClubError` naming every problem."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ClubError(f"the campaign file is not TOML: {exc}") from exc
    problems: list[str] = []
    extra = set(data) - {"name", "sides", "start", "battles"}
    if extra:
        problems.append(f"unknown keys {', '.join(sorted(extra))}")
    sides = data.get("sides")
    if not isinstance(sides, list) or len(sides) < 2 or not all(isinstance(s, str) for s in sides):
        problems.append("'sides' must list the campaign's sides (two or more names)")
        sides = []
    battles_raw = data.get("battles")
    if not isinstance(battles_raw, dict) or not battles_raw:
        raise ClubError("; ".join([*problems, "no [battles.NAME] table"]))
    battles: dict[str, Battle] = {}
    for name, b in battles_raw.items():
        battles[name] = _battle(name, b, tuple(sides), problems)
    start = str(data.get("start", ""))
    if start not in battles:
        problems.append(f"'start' must name a battle, not {start!r}")
    for b in battles.values():
        for who, nxt in b.next.items():
            if nxt not in battles:
                problems.append(f"battles.{b.name}.next: {who} -> {nxt!r} is no battle")
        if check_scenarios:
            try:
                ref = resolve_scenario(b.scenario)
                game_sides = set(resolve_system(ref.system).sides)
                if set(b.sides.values()) != game_sides:
                    problems.append(
                        f"battles.{b.name}.sides must map to the game's sides "
                        f"{', '.join(sorted(game_sides))}"
                    )
            except ClubError as exc:
                problems.append(f"battles.{b.name}: {exc}")
    if problems:
        raise ClubError("; ".join(problems))
    return CampaignSpec(str(data.get("name", "campaign")), tuple(sides), start, battles)


def _battle(name: str, b: Any, sides: tuple[str, ...], problems: list[str]) -> Battle:
    if not isinstance(b, dict):
        problems.append(f"battles.{name} must be a table")
        return Battle(name, "", {})
    extra = set(b) - _BATTLE_KEYS
    if extra:
        problems.append(f"battles.{name}: unknown keys {', '.join(sorted(extra))}")
    mapping = b.get("sides", {})
    if not isinstance(mapping, dict) or set(mapping) != set(sides):
        problems.append(f"battles.{name}.sides must give a game side to each of {', '.join(sides)}")
        mapping = {}
    nxt = b.get("next", {})
    if not isinstance(nxt, dict) or not set(nxt) <= {*sides, "draw"}:
        problems.append(f"battles.{name}.next: keys are campaign sides or 'draw'")
        nxt = {}
    points = []
    for key in ("win_points", "banner_points"):
        value = b.get(key, 3 if key == "win_points" else 1)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 100:
            problems.append(f"battles.{name}.{key}: a whole number from 0 to 100")
            value = 0
        points.append(value)
    return Battle(
        name,
        str(b.get("scenario", "")),
        {str(k): str(v) for k, v in mapping.items()},
        points[0],
        points[1],
        {str(k): str(v) for k, v in nxt.items()},
    )


def create_campaign(
    env: Env, club_id: str, cid: str, spec_text: str, players: dict[str, int]
) -> Campaign:
    """Create a campaign for ``players`` (campaign side -> player id) and start its first battle."""
    spec = load_spec(spec_text, check_scenarios=True)
    club = get_club(env.session, club_id)
    if env.session.get(Campaign, cid) is not None:
        raise ClubError(f"a campaign called {cid} already exists")
    if set(players) != set(spec.sides):
        raise ClubError(f"name a player for each campaign side: {', '.join(spec.sides)}")
    c = Campaign(
        id=cid,
        club_id=club.id,
        spec_toml=spec_text,
        players_json=json.dumps(players, sort_keys=True),
        state_json=json.dumps(
            {
                "battle": spec.start,
                "points": dict.fromkeys(spec.sides, 0),
                "losses": dict.fromkeys(spec.sides, 0),
                "log": [],
            }
        ),
        created_at=env.clock.now(),
    )
    env.session.add(c)
    env.session.flush()
    _start_battle(env, c, spec, spec.start, 1)
    return c


def _start_battle(env: Env, c: Campaign, spec: CampaignSpec, name: str, number: int) -> None:
    battle = spec.battles[name]
    players = json.loads(c.players_json)
    club = get_club(env.session, c.club_id)
    start_club_game(
        env,
        club,
        resolve_scenario(battle.scenario),
        {battle.sides[side]: int(players[side]) for side in spec.sides},
        kind="campaign",
        ref=f"{c.id}/{name}",
        game_id=f"{c.id[:40]}-b{number}",
        joins=JOINS.get(c.id),
    )


def on_game_end(env: Env, cg: ClubGame, ctx: GameContext) -> None:
    """Score the battle into the campaign; start the next battle or end the campaign."""
    cid, _, name = cg.ref.partition("/")
    c = env.session.get(Campaign, cid)
    if c is None or c.status != "running":
        return
    spec = load_spec(c.spec_toml)
    battle = spec.battles[name]
    state = json.loads(c.state_json)
    banners = banners_of(ctx)
    by_game_side = {g: s for s, g in battle.sides.items()}
    winner = by_game_side.get(cg.result, "draw")
    for side in spec.sides:
        won = banners.get(battle.sides[side], 0)
        state["points"][side] += battle.banner_points * won
        if side == winner:
            state["points"][side] += battle.win_points
        conceded = sum(banners.get(battle.sides[o], 0) for o in spec.sides if o != side)
        state["losses"][side] += conceded
    state["log"].append(f"{name}: {winner if winner != 'draw' else 'drawn'} ({ctx.id})")
    nxt = battle.next.get(winner)
    number = len(state["log"]) + 1
    if nxt is None:
        c.status = "finished"
        state["battle"] = ""
    else:
        state["battle"] = nxt
    c.state_json = json.dumps(state, sort_keys=True)
    env.session.add(c)
    env.session.flush()
    if nxt is not None:
        _start_battle(env, c, spec, nxt, number)
    _mail_state(env, c, spec, state)


def _mail_state(env: Env, c: Campaign, spec: CampaignSpec, state: dict[str, Any]) -> None:
    lines = [f"{spec.name}: " + ("finished" if c.status == "finished" else "campaign state"), ""]
    lines += [
        f"  {s}: {state['points'][s]} points, {state['losses'][s]} banners lost" for s in spec.sides
    ]
    lines += ["", "Battles:"] + [f"  {x}" for x in state["log"]]
    if state["battle"]:
        lines += ["", f"Next battle: {state['battle']} (the game's invitation follows)."]
    players = [int(p) for p in json.loads(c.players_json).values()]
    mail_members(
        env,
        players,
        subject=f"[{c.id}] Campaign: {len(state['log'])} battles played",
        body="\n".join(lines) + "\n",
        kind="campaign",
        version=f"{c.id}-{len(state['log'])}",
    )
