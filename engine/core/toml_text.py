"""Write TOML values: the strings, numbers, lists and inline tables a position file holds.

Reading is ``tomllib``'s; writing values back the same way in every system keeps written
positions readable by it. ``None`` has no TOML form: a key whose value is ``None`` is left
out of an inline table; anywhere else it is refused.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["toml_string", "toml_value"]


def toml_string(s: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's; DEL must be escaped too)."""
    return json.dumps(s, ensure_ascii=False).replace("\x7f", "\\u007f")


def toml_value(v: Any) -> str:
    """A TOML value for a bool, int, str, list/tuple or mapping (inline; ``None`` keys left out)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return toml_string(v)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        items = ", ".join(
            f"{toml_string(str(k))} = {toml_value(x)}" for k, x in v.items() if x is not None
        )
        return "{ " + items + " }"
    raise TypeError(f"cannot write {v!r} as TOML")
