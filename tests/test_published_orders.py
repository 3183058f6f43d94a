"""Issue 11, "Publish what was ordered": each epoch's reveal carries the SHA-256 of the
signed orders it resolved, so a player can prove the referee never altered an order
(the end mail attaches the whole record: tests/test_independent_verifier.py)."""

from __future__ import annotations

import hashlib

import pytest
from pipeline_kit import NORTH, SOUTH, Kit, body_of, mail, make_kit, orders

from pbem.orders_text import canonicalize
from pbem.pipeline.timing import configure


@pytest.fixture
def kit(store, config, clock) -> Kit:  # type: ignore[no-untyped-def]
    configure(config, None)
    return make_kit(store, config, clock)


def test_each_turn_mail_shows_the_sha256_of_the_signed_orders_it_resolved(kit: Kit) -> None:
    # A card under 7 resolves the turn at once (7 or more would pause it on south's
    # question and send no turn mail): fix the hand so every run shows the same mail.
    kit.set_hand("north", ["3", "4", "5"])
    text = orders(kit, "north", "3")
    digest = hashlib.sha256(canonicalize(text).encode("utf-8")).hexdigest()
    status, outcome, out = kit.send(mail(NORTH, text, key=kit.keys["north"]))
    assert status == "processed", outcome
    told = {
        m.recipient
        for m in out
        if f"SHA-256 of the signed orders of epoch 1 (north): {digest}"
        in " ".join(body_of(m).split())
    }
    assert told == {NORTH, SOUTH}
