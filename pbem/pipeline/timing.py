"""What happens when a deadline is due (called by :func:`pbem.deadlines.sweep`).

Runs inside the sweep's transaction for one deadline row, for an active game
whose state has not moved since the row was written. The bot's search (a
bot's seat, or the autopilot playing a missed turn) never runs there: the
handler returns a :class:`BotThought` (a :class:`pbem.deadlines.Deferred`),
the sweep lets it think with no transaction open, then calls back in a new
transaction, where every check is made again on the game as it is then and
the decision is played only if the game is still the one it was made for
(same state version and state, same side and level); otherwise it thinks
again.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlmodel import Session

from engine.bot import Decision
from engine.core.api import GameSystem
from pbem.clock import Clock, FakeClock
from pbem.config import Config
from pbem.deadlines import Deferred, current_deadline, set_prompt_deadlines
from pbem.pipeline import bots, listeners, mailkinds
from pbem.pipeline.games import DEFAULT_SOURCE, GameContext, load_game
from pbem.pipeline.mails import Mailer
from pbem.pipeline.turns import Env, apply_submission, finish_game
from pbem.server_key import ServerKey
from pbem.store import Deadline, DeadlineKind

log = logging.getLogger(__name__)

__all__ = ["BotThought", "configure", "fire_deadline"]


class _Setup:
    config: Config = Config()
    server_key: ServerKey | None = None


_SETUP = _Setup()


def configure(config: Config, server_key: ServerKey | None) -> None:
    """Tell :func:`fire_deadline` the daemon's config and signing key."""
    _SETUP.config = config
    _SETUP.server_key = server_key


def default_text(game_id: str, turn: int, side: str, answer: str) -> str:
    """The text the referee resolves when it applies a question's default answer."""
    return (
        f"game {game_id}\nturn {turn}\nside {side}\nanswer {answer}\n"
        "# applied by the referee: no answer before the deadline\n"
    )


@dataclass
class BotThought:
    """The bot's search for a due deadline, thought out with no transaction open."""

    key: tuple[str, int, str, str, int]
    """What it was thought for: game, state version, state digest, side, level."""
    system: GameSystem
    state: Any
    seed: int
    decision: Decision | None = None

    def think(self) -> None:
        """Search (seconds at the higher levels); touches no database."""
        _, _, _, side, level = self.key
        self.decision = bots.decide(self.system, self.state, side, level, self.seed)

    def apply(self, session: Session, row: Deadline, now: datetime) -> str | Deferred:
        """Fire the row again, playing this decision if the game did not move meanwhile."""
        return _fire(session, row, now, self)


def _decision(
    ctx: GameContext, side: str, level: int, thought: BotThought | None
) -> Decision | BotThought:
    """The thought-out decision for the game as it is now, or a new :class:`BotThought`."""
    digest = hashlib.sha256(ctx.game.state_json.encode("utf-8")).hexdigest()
    key = (ctx.id, ctx.game.state_version, digest, side, level)
    if thought is not None and thought.key == key and thought.decision is not None:
        return thought.decision
    return BotThought(key, ctx.system, ctx.state, bots.bot_seed(ctx, _SETUP.server_key))


def fire_deadline(session: Session, row: Deadline, now: datetime) -> str | Deferred:
    """Act on one due deadline; return "reminder", "missed", "default", "bot" or "stale",
    or the :class:`BotThought` to think out first (then :meth:`BotThought.apply`).

    A bot's seat (:mod:`pbem.pipeline.bots`) has its deadline when it must act:
    the bot plays then ("bot"). A missed turn under the ``autopilot`` policy is
    played by the bot for the late player ("default"), unless he turned it off."""
    return _fire(session, row, now, None)


def _fire(
    session: Session, row: Deadline, now: datetime, thought: BotThought | None
) -> str | Deferred:
    clock: Clock = FakeClock(now)  # everything this firing writes carries the sweep's "now"
    config = _SETUP.config
    ctx = load_game(session, row.game_id)
    if ctx is None:
        return "stale"
    mailer = Mailer(session, config, clock, _SETUP.server_key)
    env = Env(session, config, clock, mailer)
    prompt = ctx.prompt()
    side = row.side or ""
    if prompt.side != side or prompt.kind == "over":
        return "stale"
    settings = ctx.options.settings
    level = settings.bot_level(side)
    if level is not None and _SETUP.server_key is not None:
        if row.kind == DeadlineKind.REMINDER:
            return "stale"
        decision = _decision(ctx, side, level, thought)
        if isinstance(decision, BotThought):
            return decision
        bots.play_bot_turn(env, ctx, side, level, server_key=_SETUP.server_key, decision=decision)
        return "bot"
    if row.kind == DeadlineKind.REMINDER:
        shown = current_deadline(session, ctx.id, settings.grace) or row.due_at
        mailkinds.send_reminder(mailer, ctx, side, shown, row.id or 0)
        return "reminder"
    if row.kind == DeadlineKind.QUESTION and prompt.question is not None:
        q = prompt.question
        text = default_text(ctx.id, prompt.turn, side, q.default)
        submission = ctx.system.parse_orders(ctx.state, side, text)
        mailkinds.send_missed(
            mailer,
            ctx,
            side,
            next_deadline=None,
            deadline_id=row.id or 0,
            action=f"No answer to '{q.text}' arrived in time: the referee applies the "
            f"documented default, {q.default!r}, and the turn goes on.",
        )
        apply_submission(
            env,
            ctx,
            side,
            submission=submission,
            orders_text=text,
            orders_hash=hashlib.sha256(text.encode("utf-8")).digest(),
            source=DEFAULT_SOURCE,
        )
        return "default"
    # A missed turn.
    if settings.missed_turn == "autopilot" and side not in ctx.options.runtime.autopilot_off:
        return _autopilot(env, ctx, side, row, thought)
    runtime = ctx.options.runtime.with_miss(side)
    ctx.options = replace(ctx.options, runtime=runtime)
    misses = runtime.misses.get(side, 0)
    other = next((s for s in ctx.seats if s != side), "")
    # Listeners: reliability counts every miss; a club may offer the seat past its limit.
    listeners.deadline_missed(env, ctx, side, row.due_at, misses)
    if settings.missed_turn == "forfeit" and misses >= settings.forfeit_after:
        action = (
            f"{side} missed {misses} deadlines in a row and forfeits: {other} wins "
            "(missed-turn policy: forfeit)."
        )
        mailkinds.send_missed(
            mailer, ctx, side, action=action, next_deadline=None, deadline_id=row.id or 0
        )
        finish_game(env, ctx, other or "draw", (), reason=f"{side} forfeited on time")
        return "missed"
    seat = ctx.seats.get(side)
    deadline = set_prompt_deadlines(
        session,
        ctx.game,
        kind=DeadlineKind.TURN,
        side=side,
        player_id=seat.player.id if seat else None,
        period=settings.turn_time,
        grace=settings.grace,
        reminders=settings.reminders,
        now=now,
    )
    session.add(ctx.game)
    ctx.game.options_json = ctx.options.dumps()
    if settings.missed_turn == "autopilot":
        action = (
            f"{side} turned the autopilot off: the referee waits one more period "
            f"({misses} deadline(s) missed in a row)."
        )
    elif settings.missed_turn == "forfeit":
        left = settings.forfeit_after - misses
        action = (
            f"The referee waits one more period. {side} has missed {misses} deadline(s) "
            f"in a row; after {left} more the game is forfeited."
        )
    else:
        action = (
            f"The referee waits one more period ({side} has missed {misses} deadline(s) in a row)."
        )
    mailkinds.send_missed(
        mailer, ctx, side, action=action, next_deadline=deadline, deadline_id=row.id or 0
    )
    return "missed"


def _autopilot(
    env: Env, ctx: GameContext, side: str, row: Deadline, thought: BotThought | None
) -> str | Deferred:
    """The autopilot plays the turn ``side`` missed; everyone is told, then the turn goes on."""
    level = ctx.options.settings.autopilot_level
    decision = _decision(ctx, side, level, thought)
    if isinstance(decision, BotThought):
        return decision
    misses = ctx.options.runtime.with_miss(side).misses.get(side, 0)
    listeners.deadline_missed(env, ctx, side, row.due_at, misses)
    before = ctx.prompt().turn
    text = bots.autopilot_text(decision, level)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    action = (
        f"No orders from {side} by the deadline: the autopilot (bot level {level}) played "
        f"turn {before} for {side}. {decision.explanation}.\n"
        f"The referee's orders (SHA-256 {digest}, the epoch's orders hash):\n\n{text}\n"
        f"{side}: to stop the autopilot playing for you, mail a signed 'command autopilot off'."
    )
    mailkinds.send_missed(
        env.mailer, ctx, side, action=action, next_deadline=None, deadline_id=row.id or 0
    )
    bots.apply_autopilot(env, ctx, side, level, (decision, text))
    return "default"
