"""Canonical JSON: the same value always gives the same bytes."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["canonical_json", "load_json"]


def canonical_json(value: Any) -> str:
    """Return ``value`` as JSON with sorted keys, no spaces and no ASCII escaping.

    Only JSON types are accepted (dict with str keys, list, str, int, bool,
    None); floats are refused because their text is not stable across tools.
    """
    _check(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def load_json(text: str) -> Any:
    """Parse JSON text (the inverse of :func:`canonical_json`)."""
    return json.loads(text)


def _check(value: Any) -> None:
    if isinstance(value, float):
        raise TypeError("floats are not allowed in canonical JSON")
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(f"JSON keys must be strings, not {type(k).__name__}")
            _check(v)
    elif isinstance(value, list | tuple):
        for v in value:
            _check(v)
    elif value is not None and not isinstance(value, str | int | bool):
        raise TypeError(f"not a JSON value: {type(value).__name__}")
