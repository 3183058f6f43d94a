"""``pbem play SCENARIO``: a local hot-seat battle in the terminal (reads stdin, so scriptable).

Each turn the board is drawn, the side to act types its orders (the same
language as by mail, docs/orders.md) and ends them with a line ``end`` or
two empty lines; questions are answered at the prompt with one line.
``quit`` leaves. Dice come from a committed stream seeded by ``--seed``
(random if not given), so a game can be replayed exactly.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from engine.core.api import GameSystem, OrdersError
from pbem.enginecli import (
    CliError,
    DiceSource,
    board_text,
    game_id_of,
    load,
    seed_bytes,
    system_of,
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``pbem play``."""
    cmd = sub.add_parser(
        "play",
        help="play a scenario hot-seat in the terminal",
        description="A local two-player game: orders typed at the prompt (docs/engine-cli.md).",
    )
    cmd.add_argument("scenario", help="a scenario file or a bundled id such as 001")
    cmd.add_argument("--seed", default=None, metavar="HEX", help="dice seed (default: random)")
    cmd.add_argument("--max-turns", type=int, default=500, help="stop after this many turns")
    cmd.add_argument("--no-board", action="store_true", help="do not draw the board each turn")
    cmd.set_defaults(func=_play)


def _lines(stream: TextIO) -> Iterator[str]:
    for raw in stream:
        yield raw.rstrip("\n")


def _read_orders(lines: Iterator[str], out: TextIO) -> str | None:
    """Read lines up to ``end`` or two empty lines; None at end of input or ``quit``."""
    got: list[str] = []
    empty = 0
    for line in lines:
        word = line.strip().lower()
        if word == "quit":
            return None
        if word == "end":
            return "\n".join(got) + "\n"
        if not word:
            empty += 1
            if empty >= 2 and got:
                return "\n".join(got) + "\n"
            continue
        empty = 0
        got.append(line)
    return ("\n".join(got) + "\n") if got else None


def _play(args: argparse.Namespace) -> int:
    out = sys.stdout
    try:
        from pbem.scenarios import find_scenario  # noqa: PLC0415

        path = find_scenario(args.scenario)
        text = path.read_text(encoding="utf-8")
        seed = seed_bytes(args.seed) if args.seed else os.urandom(32)
        src = DiceSource("game", seed=seed)
        system, state = load(system_of(text), text, src)
    except (CliError, FileNotFoundError, OSError) as exc:
        sys.stderr.write(f"pbem play: {getattr(exc, 'message', exc)}\n")
        return 2
    out.write(f"{system.public_view(state).get('name', '')}: dice seed {seed.hex()}\n")
    lines = _lines(sys.stdin)
    while True:
        p = system.prompt(state)
        if p.kind == "over":
            out.write(f"{p.text}\n")
            return 0
        if p.turn > args.max_turns:
            out.write(f"stopped after {args.max_turns} turns\n")
            return 0
        side = p.side or system.sides[-1]
        if p.kind == "question" and p.question is not None:
            q = p.question
            out.write(f"\n{side}, a question: {q.text}\n")
            out.write(f"  answers: {', '.join(q.answers)} (default {q.default})\n{side}? ")
            out.flush()
            ans = next(lines, None)
            if ans is None or ans.strip().lower() == "quit":
                out.write("\ninput ended\n")
                return 0
            body = ans.strip() or q.default
            text = body if body.lower().startswith("answer") else f"answer {body}"
        else:
            if not args.no_board:
                out.write("\n" + board_text(system, state) + "\n")
            _show_hand(out, system, state, side)
            out.write(f"{p.text}\nType orders; finish with 'end' (or two empty lines).\n")
            out.flush()
            got = _read_orders(lines, out)
            if got is None:
                out.write("input ended\n")
                return 0
            text = got
        text, added = _with_header(system, state, side, text)
        try:
            sub = system.parse_orders(state, side, text)
        except OrdersError as exc:
            out.write("refused:\n")
            for pr in exc.problems:
                where = f"line {pr.line - added}: {pr.quote!r}: " if pr.line > added else ""
                legal = f" (legal: {', '.join(pr.legal)})" if pr.legal else ""
                out.write(f"  {where}{pr.message}{legal}\n")
            continue
        rng = src.next_epoch(text)
        res = system.resolve(state, sub, rng)
        src.after(rng)
        state = res.state
        for e in res.events:
            dice = f"  [{' '.join(e.dice)}]" if e.dice else ""
            out.write(f"  {e.text}{dice}\n")


def _with_header(system: GameSystem, state: Any, side: str, text: str) -> tuple[str, int]:
    """Add the ``game``/``turn``/``side`` lines a mail needs, if left out; say how many."""
    words = {ln.split(None, 1)[0].lower() for ln in text.splitlines() if ln.strip()}
    head = []
    if "game" not in words:
        head.append(f"game {game_id_of(system, state)}")
    if "turn" not in words:
        head.append(f"turn {system.prompt(state).turn}")
    if "side" not in words:
        head.append(f"side {side}")
    return "\n".join([*head, text.rstrip("\n")]) + "\n", len(head)


def _show_hand(out: TextIO, system: GameSystem, state: Any, side: str) -> None:
    hand = system.player_view(state, side).get("hand", [])
    cards = ", ".join(f"{c['code']} ({c.get('name', c['code'])})" for c in hand)
    out.write(f"{side} hand: {cards}\n")
    out.write(f"{system.summary(state)}\n")
