"""``wayfinding --help`` describes every family, and every command and subcommand has a help
line that names what it does."""

from __future__ import annotations

import argparse
import re

import pytest

from wayfinding.cli import main
from wayfinding.cli.main import build_parser

#: Every family of the library, as ``--help`` names it, with the commands that serve it.
FAMILIES = {
    "grids": {"path", "scen", "index", "render", "generate"},
    "graphs and world graphs": {"world"},
    "navigation meshes 2D": {"navmesh"},
    "navigation meshes 3D": {"navmesh3d"},
    "voxels": {"voxel"},
    "fields": {"field"},
    "crowds": {"crowd"},
    "vehicles and traversal": {"vehicle", "traffic", "climb"},
    "planning with the body": {"clips", "movement", "locomotion", "footsteps",
                               "motion"},
    "constraint-aware planning": {"constraints", "multidomain"},
    "service": {"serve"},
}


def _help(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as done:
        main([*argv, "--help"])
    assert done.value.code == 0
    return " ".join(capsys.readouterr().out.split())


def _subcommands(parser: argparse.ArgumentParser, trail: tuple[str, ...] = ()):
    """Every (command path, help line) under ``parser``, depth first."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield trail + (name,), helps.get(name)
                yield from _subcommands(sub, trail + (name,))


def test_every_family_is_named_in_the_help(capsys):
    text = _help(capsys)
    for family, commands in FAMILIES.items():
        assert family in text, family
        # the epilog's line for the family lists its commands
        line = text[text.index(f"{family} ", text.index("families and their commands")):]
        named = set(re.findall(r"[a-z0-9]+", line.split(":")[0]))
        assert commands <= named, (family, named)
    assert "Pathfinding on grids" not in text


def test_every_command_has_a_help_line_naming_its_family(capsys):
    top: dict[str, str] = {}
    for path, line in _subcommands(build_parser()):
        assert line and len(line.split()) >= 3, path
        if len(path) == 1:
            top[path[0]] = line
    for family, commands in FAMILIES.items():
        for command in commands:
            assert top[command].startswith(f"{family}: "), (command, top[command])
    assert top["demo"].startswith("every family: ")


def test_help_lists_every_command(capsys):
    text = _help(capsys)
    commands = {path[0] for path, _ in _subcommands(build_parser())}
    assert commands == set().union(*FAMILIES.values()) | {"demo"}
    for command in commands:
        assert f" {command} " in text, command
