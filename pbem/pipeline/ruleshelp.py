"""The game system's rules help, as the mails use it (card texts, standing-order topics).

A leaf of the pipeline: it imports only the game context, so the mail
builders and the ``rules``/``cards`` commands (:mod:`pbem.pipeline.rulesmail`)
can both use it.
"""

from __future__ import annotations

from engine.core.capabilities import RULES_HELP, RulesHelp, find
from pbem.pipeline.games import GameContext

__all__ = ["help_text", "rules_helper"]


def rules_helper(ctx: GameContext) -> RulesHelp | None:
    """The game system's rules help, or None when it offers none."""
    return find(ctx.system, RULES_HELP)


def help_text(helper: RulesHelp | None, code: str) -> str:
    """The rules help on one topic, a card code for instance (empty when there is none)."""
    if helper is None or not code:
        return ""
    try:
        return helper.help(code)
    except KeyError:
        return ""
