"""``pbem play SCENARIO``: a local hot-seat battle in the terminal (reads stdin, so scriptable).

Each turn the board is drawn, the side to act types its orders (the same
language as by mail, docs/orders.md) and ends them with a line ``end`` or
two empty lines; questions are answered at the prompt with one line.
``quit`` leaves. ``--vs bot[:LEVEL]`` makes the computer (engine/bot) play one
side (``--as SIDE`` is yours, the first side by default): it decides from
what its side sees only and prints one line saying what it did. Dice come
from a committed stream seeded by ``--seed`` (random if not given) mixed,
as in a game by mail, with a nonce per side (``--nonce SIDE=HEX``; if not
given, drawn at random on the players' behalf, or derived from ``--seed``
when one is given): the seed and the nonces printed at the start replay a
game exactly.

At a terminal the prompt has line editing and history (prompt-toolkit:
arrows, Ctrl-R), only the hand of the side to act is shown, and when the
other side is to act the screen is cleared and a "pass the screen" prompt
waits for Enter, so neither player sees the other's hand. Piped input (a
script) reads plain lines and passes the screen only with ``--pass-screen``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any, TextIO

from engine.core.api import GameSystem, OrdersError
from engine.systems import get_system
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
    cmd.add_argument(
        "--nonce",
        action="append",
        default=[],
        metavar="SIDE=HEX",
        help="a side's join nonce, 64 hex digits (default: random; give both to replay a game)",
    )
    cmd.add_argument(
        "--tables",
        default=None,
        metavar="FILE",
        help="play on a club's rules tables file (docs/tables.md)",
    )
    cmd.add_argument(
        "--vs",
        default=None,
        metavar="bot[:LEVEL]",
        help="play against the computer (levels 1-4, default 2); it never sees your hand",
    )
    cmd.add_argument(
        "--as",
        dest="as_side",
        default=None,
        metavar="SIDE",
        help="the side you play against the bot (default: the system's first side)",
    )
    cmd.add_argument("--max-turns", type=int, default=500, help="stop after this many turns")
    cmd.add_argument("--no-board", action="store_true", help="do not draw the board each turn")
    cmd.add_argument(
        "--pass-screen",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="clear the screen and wait for Enter when the other side is to act "
        "(default: on at a terminal, off for piped input)",
    )
    cmd.set_defaults(func=_play)


CLEAR = "\x1b[2J\x1b[H"
"""ANSI: clear the screen, cursor home (what a terminal shows of the last hand goes)."""


class Terminal:
    """Where ``pbem play`` reads lines: prompt-toolkit at a terminal, plain lines otherwise.

    ``read(prompt)`` returns a line, or None at the end of input (Ctrl-D).
    With prompt-toolkit every line typed goes to the session's history (up
    arrow, Ctrl-R), shared by both players of the hot seat.
    """

    def __init__(self, out: TextIO, session: Any = None, stream: TextIO | None = None) -> None:
        self.out = out
        self.session = session
        self._lines = _lines(stream) if stream is not None else iter(())

    @classmethod
    def open(cls, out: TextIO) -> Terminal:
        """A prompt-toolkit terminal when stdin and stdout are one, else stdin's lines."""
        if sys.stdin.isatty() and out.isatty():
            return cls(out, session=prompt_session())
        return cls(out, stream=sys.stdin)

    @property
    def interactive(self) -> bool:
        """Whether a person types at a terminal (not a script)."""
        return self.session is not None

    def read(self, prompt: str = "") -> str | None:
        """One line (without its end), or None at the end of input."""
        if self.session is not None:
            try:
                return str(self.session.prompt(prompt))
            except (EOFError, KeyboardInterrupt):
                return None
        if prompt:
            self.out.write(prompt)
            self.out.flush()
        return next(self._lines, None)


def prompt_session(**kwargs: Any) -> Any:
    """A prompt-toolkit session with in-memory history (kwargs: test input/output)."""
    from prompt_toolkit import PromptSession  # noqa: PLC0415 - only at a terminal
    from prompt_toolkit.history import InMemoryHistory  # noqa: PLC0415

    return PromptSession(history=InMemoryHistory(), **kwargs)


def _lines(stream: TextIO) -> Iterator[str]:
    for raw in stream:
        yield raw.rstrip("\n")


def _read_orders(read: Callable[[str], str | None], prompt: str) -> str | None:
    """Read lines up to ``end`` or two empty lines; None at end of input or ``quit``."""
    got: list[str] = []
    empty = 0
    while (line := read(prompt)) is not None:
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
        name = system_of(text)
        # As by mail (docs/audit.md): each side's nonce enters every die and shuffle.
        nonces = _nonces(args.nonce, get_system(name).sides, seed if args.seed else None)
        src = DiceSource("game", seed=seed, nonces=nonces)
        system, state = load(name, text, src, args.tables)
        bot = _bot(args, system, seed)
    except (CliError, FileNotFoundError, OSError, KeyError, ValueError) as exc:
        sys.stderr.write(f"pbem play: {getattr(exc, 'message', exc)}\n")
        return 2
    out.write(f"{system.public_view(state).get('name', '')}: dice seed {seed.hex()}\n")
    out.write("nonces " + " ".join(f"{s}={n.hex()}" for s, n in nonces.items()) + "\n")
    if bot is not None:
        out.write(f"you play {bot[0]}; {bot[1].name} plays {bot[2]}\n")
    term = Terminal.open(out)
    return _loop(args, term, system, state, src, bot=bot)


def _bot(args: argparse.Namespace, system: GameSystem, seed: bytes) -> tuple[str, Any, str] | None:
    """``(your side, the bot, its side)`` for ``--vs``, else None (raises ValueError)."""
    if args.vs is None:
        if args.as_side is not None:
            raise ValueError("--as is for a game against the bot (--vs bot)")
        return None
    from engine.bot import Bot, parse_level  # noqa: PLC0415 - only against the bot

    mine = args.as_side or system.sides[0]
    if mine not in system.sides or len(system.sides) != 2:
        raise ValueError(f"--as {mine!r}: one of {', '.join(system.sides)}")
    theirs = next(s for s in system.sides if s != mine)
    return mine, Bot(parse_level(args.vs), int.from_bytes(seed[:8], "big")), theirs


def _pass_screen(term: Terminal, side: str) -> bool:
    """Hide the last player's screen and wait until ``side`` is at the keyboard."""
    out = term.out
    out.write(CLEAR if term.interactive else "\n" * 40)
    out.write(f"Pass the screen to {side}. {side}, press Enter when you are alone at it.\n")
    out.flush()
    line = term.read("")
    return line is not None and line.strip().lower() != "quit"


def _loop(
    args: argparse.Namespace,
    term: Terminal,
    system: Any,
    state: Any,
    src: Any,
    *,
    bot: tuple[str, Any, str] | None = None,
) -> int:
    out = term.out
    passing = (term.interactive if args.pass_screen is None else args.pass_screen) and not bot
    last: str | None = None
    while True:
        p = system.prompt(state)
        if p.kind == "over":
            out.write(f"{p.text}\n")
            return 0
        if p.turn > args.max_turns:
            out.write(f"stopped after {args.max_turns} turns\n")
            return 0
        side = p.side or system.sides[-1]
        if passing and last is not None and side != last and not _pass_screen(term, side):
            out.write("input ended\n")
            return 0
        last = side
        if bot is not None and side == bot[2]:
            decision = bot[1].decide(system, state, side)
            out.write(f"\n{bot[1].name}: {decision.explanation}\n")
            text = decision.text
        elif p.kind == "question" and p.question is not None:
            q = p.question
            out.write(f"\n{side}, a question: {q.text}\n")
            out.write(f"  answers: {', '.join(q.answers)} (default {q.default})\n")
            out.flush()
            ans = term.read(f"{side}? ")
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
            got = _read_orders(term.read, f"{side}> " if term.interactive else "")
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


def _nonces(given: list[str], sides: tuple[str, ...], seed: bytes | None) -> dict[str, bytes]:
    """Each side's nonce: ``SIDE=HEX`` as given; else 32 fresh random bytes (its player's
    share), or, when ``--seed`` was given, bytes derived from it so the seed alone replays."""
    out: dict[str, bytes] = {}
    for item in given:
        side, _, value = item.partition("=")
        try:
            raw = bytes.fromhex(value.strip())
        except ValueError:
            raw = b""
        if side.strip() not in sides or len(raw) != 32:
            raise CliError(f"--nonce {item!r}: write SIDE=<64 hex digits>, SIDE one of {sides}")
        out[side.strip()] = raw
    return {
        side: out.get(side)
        or (hashlib.sha256(b"nonce|" + side.encode() + b"|" + seed).digest() if seed else None)
        or os.urandom(32)
        for side in sides
    }


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
