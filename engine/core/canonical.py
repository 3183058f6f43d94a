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
    """Raise ``TypeError`` unless ``value`` holds JSON types only (a loop, not a recursion:
    a state's dict has thousands of values, checked at every pause of a turn)."""
    todo = [value]
    pop, extend = todo.pop, todo.extend
    while todo:
        v = pop()
        t = type(v)
        if t is str or t is int or t is bool or v is None:
            continue
        if t is dict:
            for k in v:
                if type(k) is not str and not isinstance(k, str):
                    raise TypeError(f"JSON keys must be strings, not {type(k).__name__}")
            extend(v.values())
        elif t is list or t is tuple:
            extend(v)
        else:
            _check_other(v, todo)


def _check_other(value: Any, todo: list[Any]) -> None:
    """The types :func:`_check` does not meet every time (subclasses, floats, errors)."""
    if isinstance(value, float):
        raise TypeError("floats are not allowed in canonical JSON")
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(f"JSON keys must be strings, not {type(k).__name__}")
            todo.append(v)
    elif isinstance(value, list | tuple):
        todo.extend(value)
    elif not isinstance(value, str | int | bool):
        raise TypeError(f"not a JSON value: {type(value).__name__}")
