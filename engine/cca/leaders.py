"""Leaders under fire (cca.md §16): casualty checks, attacks on lone leaders, evade, escape.

:func:`check_after_losses` makes the one check a roll allows for a unit's
attached leader; :func:`attack_lone_leader` resolves fire or close combat
against a leader on its own; :func:`leader_evade` moves a leader 1-3 hexes
toward its own side (escaping through enemy units only when nothing else is
possible), or removes it when it cannot move.
"""

from __future__ import annotations

from engine.cca.state import other
from engine.cca.work import WLeader, Work, WUnit
from engine.hexgrid import Hex

__all__ = ["attack_lone_leader", "check_after_losses", "leader_evade", "leader_marsh"]

OFF = "off"


def check_after_losses(w: Work, ld: WLeader | None, eliminated: bool, by: str, cause: int) -> bool:
    """Casualty check for an attached leader whose unit lost blocks (§16.1).

    ``cause`` numbers the dice roll that caused the losses (:attr:`Work.rolls` just after
    it). One roll, one check: a leader already checked for that roll (his unit loses more
    blocks to the blocked retreat its flags caused) does not roll again; if the unit is now
    gone he just evades. Another roll (a First Strike roll, then a rampage roll or a marsh
    roll in the same combat) makes its own check (HU 10/a note, HU 358).
    Returns True if the leader is still attached and alive afterwards.
    """
    if ld is None or ld.hex is None:
        return False
    if (cause, ld.name) in w.checked:
        if eliminated:
            leader_evade(w, ld)
            return False
        return True
    w.checked.add((cause, ld.name))
    checks = w.state.tables.leader_checks
    if eliminated:
        check = checks["eliminated"]
        faces = w.roll(check.dice, f"leader check for {ld.name} (unit eliminated)")
        w.log(
            "leader-check",
            f"{ld.name}'s unit is gone: check with {_dice(check.dice)}: {' '.join(faces)}",
            faces,
            leader=ld.name,
        )
        if check.kills(faces):
            w.kill_leader(ld, by, "casualty check")
        else:
            leader_evade(w, ld)
        return False
    check = checks["attached"]
    faces = w.roll(check.dice, f"leader check for {ld.name}")
    w.log(
        "leader-check",
        f"{ld.name}'s unit lost blocks: check with {_dice(check.dice)}: {' '.join(faces)}",
        faces,
        leader=ld.name,
    )
    if check.kills(faces):
        w.kill_leader(ld, by, "casualty check")
        return False
    return True


def _dice(n: int) -> str:
    return f"{n} die" if n == 1 else f"{n} dice"


def attack_lone_leader(w: Work, roller: WUnit, ld: WLeader, dice: int, how: str) -> None:
    """Fire or close combat against a lone leader: one H kills it, else it evades (§16.3).

    An attack reduced below one die is not made (§17.1): the caller reports it.
    """
    assert dice >= 1
    faces = w.roll(dice, f"{how} on leader {ld.name}")
    w.log(
        "battle",
        f"{roller.label} {how} lone leader {ld.name} in {ld.hex}: {' '.join(faces) or 'no dice'}",
        faces,
        unit=roller.id,
        leader=ld.name,
    )
    if w.state.tables.leader_checks["lone"].kills(faces):
        w.kill_leader(ld, roller.side, how)
    else:
        leader_evade(w, ld)


def _evade_options(w: Work, ld: WLeader, escape: bool) -> dict[str, tuple[Hex, ...]]:
    """Legal leader evades as answer text -> path (text ending ``off`` leaves the board)."""
    assert ld.hex is not None
    out: dict[str, tuple[Hex, ...]] = {}
    base = w.baseline(ld.side)

    def walk(h: Hex, path: tuple[Hex, ...], enemies: int) -> None:
        if path:
            e = w.unit_at(h)
            fl = w.leader_at(h)
            ends_ok = (e is None or e.side == ld.side) and (fl is None or fl is ld)
            if ends_ok and (enemies > 0) == escape:
                out[">".join(map(str, path))] = path
        if len(path) == w.state.tables.leader_moves["evade"]:
            return
        if h.row == base and (enemies > 0) == escape:
            out[">".join([*map(str, path), OFF])] = path
        for n in w.rear(ld.side, h):
            if not w.on_board(n) or "leader" in w.terrain(n).impassable:
                continue
            e = w.unit_at(n)
            el = w.leader_at(n)
            if el is not None and el.side != ld.side:
                continue
            hostile = e is not None and e.side != ld.side
            if hostile and (not escape or enemies >= 2):
                continue
            walk(n, (*path, n), enemies + (1 if hostile else 0))

    walk(ld.hex, (), 0)
    return out


def _auto_choice(w: Work, ld: WLeader, options: dict[str, tuple[Hex, ...]]) -> str:
    def key(item: tuple[str, tuple[Hex, ...]]) -> tuple[int, int, str]:
        text, path = item
        if text.endswith(OFF) or not path:
            return (2, 0, text)
        end = path[-1]
        host = w.unit_at(end)
        if host is not None and host.side == ld.side and w.leader_at(end) is None:
            return (0, len(path), text)
        return (1, -len(path), text)

    return min(options.items(), key=key)[0]


def leader_evade(w: Work, ld: WLeader) -> None:
    """Move a leader that must evade 1-3 hexes toward its side (§16.4, §16.5)."""
    assert ld.hex is not None
    enemy = other(ld.side)
    options = _evade_options(w, ld, escape=False)
    escaping = False
    if not options:
        options = _evade_options(w, ld, escape=True)
        escaping = True
    if not options:
        w.log("leader-trapped", f"leader {ld.name} in {ld.hex} cannot evade", leader=ld.name)
        w.kill_leader(ld, enemy, "no way to evade")
        return
    answers = sorted(options)
    auto = _auto_choice(w, ld, options)
    pol = w.decider.policy(ld.side, "leader-evade")
    pick = w.decider.choose(
        ld.side,
        "leader-evade",
        f"Leader {ld.name} in {ld.hex} must evade: where to?",
        answers,
        auto,
        auto if pol == "auto" else None,
    )
    path = options[pick]
    start = ld.hex
    for h in path:
        e = w.unit_at(h)
        if escaping and e is not None and e.side != ld.side:
            # Its close-combat dice against a lone leader: an elephant rolls 1 (§10.4).
            dice = (
                1
                if e.spec.elephant
                else (e.spec.melee + (1 if e.spec.strength_bonus and w.full_strength(e) else 0))
            )
            ld.hex = h
            faces = w.roll(dice, f"escape of leader {ld.name} through {h}")
            w.log(
                "leader-escape",
                f"leader {ld.name} escapes through {e.label}: {' '.join(faces)}",
                faces,
                leader=ld.name,
            )
            if w.state.tables.leader_checks["escape"].kills(faces):
                w.kill_leader(ld, enemy, "caught while escaping")
                return
        if w.terrain(h).marsh_roll:  # evading or escaping through marsh rolls too (§17.4)
            ld.hex = h
            if leader_marsh(w, ld, h):
                return
    if pick.endswith(OFF):
        ld.hex = None
        w.log(
            "leader-evade",
            f"leader {ld.name} evades off the board from {start}; gone for the rest of the battle",
            leader=ld.name,
        )
        return
    ld.hex = path[-1]
    host = w.host(ld)
    w.log(
        "leader-evade",
        f"leader {ld.name} evades {start} > {pick.replace('>', ' > ')}"
        + (f" and joins the {host.type}" if host else ""),
        leader=ld.name,
    )


def leader_marsh(w: Work, ld: WLeader, h: Hex) -> bool:
    """A lone leader entering marsh rolls 1 die: a helmet kills it (§17.4); True if killed.

    It rolls however it enters: a move, an evade or an escape.
    """
    if ld.hex is None or not w.terrain(h).marsh_roll or w.simulate:
        return False
    check = w.state.tables.leader_checks["marsh"]
    faces = w.roll(check.dice, f"marsh at {h} (leader {ld.name})")
    w.log("marsh", f"leader {ld.name} enters marsh: {' '.join(faces)}", faces, leader=ld.name)
    if check.kills(faces):
        w.kill_leader(ld, other(ld.side), "marsh")
        return True
    return False
