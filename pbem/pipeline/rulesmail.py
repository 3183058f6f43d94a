"""The ``rules`` and ``cards`` mail commands: what a player needs to know, by mail.

The texts come from the game system's ``rules-help`` capability
(:data:`engine.core.capabilities.RULES_HELP`) and its public view; none is
written here. ``cards`` explains each card of the sender's own hand (never
the opponent's); ``rules`` gives the scenario's special rules, each unit
type on the board, the general topics, and the list of topics; ``rules
TOPIC`` one topic (a card, a unit type or a general word).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.core.capabilities import RulesHelp
from pbem.pipeline.games import GameContext
from pbem.pipeline.ruleshelp import help_text, rules_helper
from pbem.pipeline.steps import Outcome, Step

__all__ = ["handle_cards", "handle_rules"]


def _paragraph(text: str, indent: str = "  ") -> str:
    import textwrap  # noqa: PLC0415

    return textwrap.fill(text, 74, initial_indent=indent, subsequent_indent=indent)


def handle_cards(step: Step) -> Outcome:
    """Mail the sender what each card of his own hand does."""
    ctx = step.ctx
    helper = rules_helper(ctx)
    hand = step.env.mailer.hand(ctx, step.side)
    body = [f"Your hand in {ctx.id} ({step.side}), only you see this:", ""]
    for card in hand:
        body.append(_paragraph(help_text(helper, card.code) or f"{card.code}: {card.name}"))
        body.append("")
    if not hand:
        body += ["  (no cards)", ""]
    body.append("For a unit type or a rule: 'command rules' or 'command rules <topic>'.")
    step.notice("cards", "Your cards", "\n".join(body) + "\n")
    return Outcome.done(f"cards sent ({len(hand)})", ctx.id)


def _specials(view: Mapping[str, Any]) -> list[str]:
    out = []
    for sp in view.get("specials", []) or []:
        if isinstance(sp, Mapping):
            out.append(str(sp.get("text") or sp.get("rule", "")))
    return out


def _unit_types(view: Mapping[str, Any]) -> list[str]:
    seen: dict[str, None] = {}
    for unit in view.get("units", []) or []:
        if isinstance(unit, Mapping) and unit.get("type"):
            seen.setdefault(str(unit["type"]), None)
    return list(seen)


def _overview(ctx: GameContext, helper: RulesHelp) -> list[str]:
    view = ctx.system.public_view(ctx.state)
    topics: Sequence[str] = helper.topics()
    body = [f"Rules of {ctx.id} ({ctx.game.scenario_id}).", "", "This battle's special rules:"]
    body += [_paragraph(t) for t in _specials(view)] or ["  none"]
    body += ["", "The unit types on the board:"]
    for code in _unit_types(view):
        try:
            body.append(_paragraph(helper.help(code)))
        except KeyError:
            continue
    units = set(_unit_types(view))
    general = [t for t in topics if t.lower() == t and t not in units]
    for topic in general:
        body += ["", f"{topic}:", _paragraph(helper.help(topic))]
    body += [
        "",
        "Ask for one topic with 'command rules <topic>'. Topics: " + ", ".join(topics) + ".",
        "Your own cards, explained: 'command cards'.",
    ]
    return body


def handle_rules(step: Step, args: str) -> Outcome:
    """Mail the sender the rules overview, or the help on one topic."""
    ctx = step.ctx
    helper = rules_helper(ctx)
    if helper is None:
        return step.refuse(
            "no-rules-help", f"the game system {ctx.system.name} offers no rules help"
        )
    topic = args.strip()
    if topic:
        try:
            text = helper.help(topic)
        except KeyError:
            return step.refuse(
                "unknown-topic", f"no rules help on {topic!r}", legal=tuple(helper.topics())
            )
        step.notice("rules", f"Rules: {topic}", _paragraph(text, "") + "\n")
        return Outcome.done(f"rules on {topic} sent", ctx.id)
    step.notice("rules", "Rules", "\n".join(_overview(ctx, helper)) + "\n")
    return Outcome.done("rules sent", ctx.id)
