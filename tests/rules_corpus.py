"""Reading a rules-case corpus: TOML files of ``[[case]]`` tables, each naming its section.

Shared by the Napoleonics and Chariots of Fire corpora (tests/ccn_rules_cases/,
tests/cof_rules_cases/); each case remembers the file it came from.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any


def load_cases(folder: Path) -> list[dict[str, Any]]:
    """Every case of every ``*.toml`` file in ``folder``, files in name order."""
    out = []
    for path in sorted(folder.glob("*.toml")):
        for case in tomllib.loads(path.read_text(encoding="utf-8")).get("case", []):
            case["file"] = path.name
            out.append(case)
    return out


def case_id(system: str, case: dict[str, Any]) -> str:
    """A test id from the case's section and name: ``ccn_21_3_a-square-...``."""
    slug = re.sub(r"[^a-z0-9]+", "-", case["name"].lower()).strip("-")
    return f"{system}_{case['section'].replace('.', '_')}_{slug}"
