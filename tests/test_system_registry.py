"""The system registry: built-in systems, run-time registration, installed plug-ins."""

from __future__ import annotations

import importlib
import json
import sys
import tomllib
from pathlib import Path

import pytest

from engine.core.capabilities import AUTOPLAY, CAPABILITIES, FORECAST, find, offered
from engine.systems import (
    BUILT_IN,
    get_system,
    list_systems,
    register_system,
    unregister_system,
)
from pbem.cli import main

PLUGIN = """
from engine.toy.system import ToySystem


class Plug(ToySystem):
    name = "plug"
    version = "0.3"
    title = "A plug-in from an installed package"


SYSTEM = Plug()
"""


def _install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str) -> None:
    """Put a package on sys.path declaring ``plug = <target>`` in the pbem.systems group."""
    (tmp_path / "plugpkg").mkdir()
    (tmp_path / "plugpkg" / "__init__.py").write_text(PLUGIN)
    info = tmp_path / "plugpkg-0.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: plugpkg\nVersion: 0.3\n")
    (info / "entry_points.txt").write_text(f"[pbem.systems]\nplug = {target}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    monkeypatch.delitem(sys.modules, "plugpkg", raising=False)


def test_an_installed_package_adds_a_system(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _install(tmp_path, monkeypatch, "plugpkg:SYSTEM")
    entries = {e.name: e for e in list_systems()}
    assert entries["plug"].origin == "package plugpkg"
    assert "plugpkg" not in sys.modules  # listed without being imported
    system = get_system("plug")
    assert system.version == "0.3"
    assert main(["systems", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["plug"]["origin"] == "package plugpkg" and rows["plug"]["version"] == "0.3"
    assert {"cca", "toy"} <= set(rows)


def test_a_broken_plugin_is_listed_with_why_and_the_rest_still_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _install(tmp_path, monkeypatch, "plugpkg:NO_SUCH_NAME")
    assert main(["systems"]) == 1
    out, err = capsys.readouterr()
    assert "plug" in err and "cannot be loaded" in err
    assert "cca" in out and "toy" in out


def test_a_system_must_answer_to_its_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _install(tmp_path, monkeypatch, "engine.toy:SYSTEM")  # "plug" pointing at the toy
    with pytest.raises(KeyError, match="calls itself 'toy'"):
        get_system("plug")


def test_unknown_system_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="known cca, ccn, cof, toy"):
        get_system("chess")


def test_run_time_registration_wins_and_can_be_undone() -> None:
    class Shadow:
        name = "toy"

    register_system(Shadow())  # type: ignore[arg-type]
    try:
        assert isinstance(get_system("toy"), Shadow)
    finally:
        unregister_system("toy")
    assert get_system("toy").title.startswith("Toy dice race")


def test_capabilities_are_discovered_by_name_not_class() -> None:
    cca, toy = get_system("cca"), get_system("toy")
    assert offered(cca) == (
        "forecast", "autoplay", "scenarios", "picture", "rules-help", "tables", "deal", "dice-luck",
        "playout",
    )  # fmt: skip
    assert find(toy, FORECAST) is None  # the toy gives no odds; check says only OK
    assert find(toy, AUTOPLAY) is not None
    assert [c.name for c in CAPABILITIES] == [
        "forecast", "autoplay", "scenarios", "picture", "rules-help", "tables", "deal", "dice-luck",
        "playout",
    ]  # fmt: skip


def test_a_provider_without_the_methods_is_refused_plainly() -> None:
    class Liar:
        name = "liar"

        def capability(self, name: str) -> object | None:
            return object()

    with pytest.raises(TypeError, match="lacks the methods of AutoPlayer"):
        find(Liar(), AUTOPLAY)  # type: ignore[arg-type]


def test_rules_help_by_topic() -> None:
    from engine.core.capabilities import RULES_HELP

    helper = find(get_system("cca"), RULES_HELP)
    assert helper is not None
    assert "3C" in helper.topics()
    assert helper.help("3C").startswith("3C: Order Three Units Center, section card, 4 in")
    with pytest.raises(KeyError):
        helper.help("no such card")


def test_pbem_rules_prints_a_systems_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "MO"]) == 0
    assert "Order Mounted Troops" in capsys.readouterr().out
    assert main(["rules", "--system", "toy"]) == 0
    assert "block" in capsys.readouterr().out
    assert main(["rules", "--system", "toy", "block"]) == 0
    assert "4+" in capsys.readouterr().out
    assert main(["rules", "--system", "toy", "castling"]) == 1
    assert "topics: turn, block, victory" in capsys.readouterr().err
    assert main(["rules", "--system", "chess"]) == 2


def test_the_built_in_systems_are_declared_as_entry_points_once_each(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """pyproject declares cca, ccn and toy in 'pbem.systems' as BUILT_IN does; listed once each."""
    project = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["pbem.systems"] == BUILT_IN
    assert main(["systems", "--json"]) == 0
    names = [r["name"] for r in json.loads(capsys.readouterr().out)]
    assert sorted(names) == sorted(set(names)) and {"cca", "toy"} <= set(names)
    assert {e.name: e.origin for e in list_systems()}["cca"] == "built-in"
