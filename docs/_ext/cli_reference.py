"""A Sphinx directive, ``wayfinding-cli``, that writes the command-line reference from the
argparse parser of :mod:`wayfinding.cli`: one section per command and subcommand (inside its
command's), with its usage, description, arguments and epilog, in the parser's own order.

Docutils and Sphinx are imported inside :func:`setup`, so that this file imports without them
(the test suite collects ``docs/`` for doctests).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Command:
    """One command of the parser: its words after ``wayfinding``, its help line, its parser."""

    words: tuple[str, ...]
    help: str
    parser: argparse.ArgumentParser

    @property
    def title(self) -> str:
        return " ".join(("wayfinding", *self.words))


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return None


def commands(parser: argparse.ArgumentParser,
             words: tuple[str, ...] = (), help: str = "") -> Iterator[Command]:
    """The parser and every subcommand below it, depth first in the parser's order."""
    yield Command(words, help, parser)
    sub = _subparsers(parser)
    if sub is None:
        return
    helps = {choice.dest: choice.help or "" for choice in sub._choices_actions}
    for name, child in sub.choices.items():
        yield from commands(child, (*words, name), helps.get(name, ""))


def cli_parser() -> argparse.ArgumentParser:
    """The ``wayfinding`` command's parser."""
    from wayfinding.cli.main import build_parser

    return build_parser()


def _usage(parser: argparse.ArgumentParser) -> str:
    formatter = argparse.HelpFormatter(parser.prog, width=90)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups,
                        prefix="")
    return formatter.format_help().strip()


def _invocation(action: argparse.Action) -> str:
    """How ``--help`` shows the argument: ``FILE``, ``{a,b}``, ``-o FILE, --out FILE``."""
    return argparse.HelpFormatter("wayfinding")._format_action_invocation(action)


def _help(action: argparse.Action, parser: argparse.ArgumentParser) -> str:
    if not action.help:
        return ""
    formatter = parser._get_formatter()
    return formatter._expand_help(action)


def arguments(parser: argparse.ArgumentParser) -> list[tuple[str, str]]:
    """(invocation, help) for every argument shown by ``--help``, subcommands excluded."""
    out = []
    for action in parser._actions:
        if action.help == argparse.SUPPRESS or isinstance(action, argparse._SubParsersAction):
            continue
        out.append((_invocation(action), _help(action, parser)))
    return out


def setup(app: Any) -> dict[str, Any]:
    from docutils import nodes
    from sphinx.util.docutils import SphinxDirective

    def paragraph(text: str) -> Any:
        return nodes.paragraph(text, text)

    class CliReference(SphinxDirective):
        """``wayfinding-cli``: the reference of every command, generated from argparse."""

        has_content = False

        def run(self) -> list[Any]:
            out: list[Any] = []
            sections: dict[tuple[str, ...], Any] = {}
            for command in commands(cli_parser()):
                section = nodes.section(ids=[nodes.make_id("cli " + command.title)])
                section += nodes.title(command.title, command.title)
                summary = command.parser.description or command.help
                if summary:
                    section += paragraph(summary)
                usage = _usage(command.parser)
                section += nodes.literal_block(usage, usage)
                rows = arguments(command.parser)
                sub = _subparsers(command.parser)
                if sub is not None:
                    helps = {c.dest: c.help or "" for c in sub._choices_actions}
                    rows += [(name, helps.get(name, "")) for name in sub.choices]
                listing = nodes.definition_list()
                for invocation, text in rows:
                    item = nodes.definition_list_item()
                    item += nodes.term("", "", nodes.literal(invocation, invocation))
                    item += nodes.definition("", paragraph(text or " "))
                    listing += item
                section += listing
                if command.parser.epilog:
                    if command.parser.formatter_class is argparse.RawDescriptionHelpFormatter:
                        section += nodes.literal_block(command.parser.epilog,
                                                       command.parser.epilog)
                    else:
                        section += paragraph(command.parser.epilog)
                self.state.document.note_implicit_target(section, section)
                sections[command.words] = section
                if len(command.words) > 1:  # a subcommand sits inside its command's section
                    sections[command.words[:-1]] += section
                else:
                    out.append(section)
            return out

    app.add_directive("wayfinding-cli", CliReference)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
