"""What every ``wayfinding`` command module shares: argument types that check numbers while
the command line is parsed (a bad value is one line naming it and the reason, exit status
2), negative coordinate pairs such as ``--from -1,2``, and strict JSON output."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from typing import Any

#: The largest integer an option takes (a count, a size or a seed): counts this large
#: already exceed any memory, and it keeps huge values (10**30) away from numpy and the kernels.
LARGEST_INT = 2**31 - 1

#: Options whose value is a pair ``X,Y`` that may start with a minus sign.
PAIR_OPTIONS = ("--from", "--to", "--distances-from", "--at")

#: The help of every ``--json`` option.
JSON_HELP = "print one JSON object (infinite and undefined numbers as null)"


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: ``PROG: error: MESSAGE`` (exit 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


class _MethodOption(argparse.Action):
    """``--method NAME``, or ``--algo NAME``, its old spelling, which says so on stderr;
    giving both is an error."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        if getattr(namespace, "_method_option", option_string) != option_string:
            parser.error("--algo is the old spelling of --method; give --method only")
        if option_string == "--algo":
            print(f"{parser.prog}: --algo is deprecated; use --method", file=sys.stderr)
        namespace._method_option = option_string
        setattr(namespace, self.dest, values)


def add_method_option(p: argparse.ArgumentParser, choices: Sequence[str], *,
                      default: str = "astar", help: str | None = None) -> None:
    """``--method NAME`` (one of ``choices``), and ``--algo`` as its old spelling, left out
    of the help."""
    p.add_argument("--method", default=default, choices=list(choices), metavar="NAME",
                   action=_MethodOption,
                   help=help or f"search method: {', '.join(choices)} (default {default})")
    p.add_argument("--algo", dest="method", choices=list(choices), default=argparse.SUPPRESS,
                   action=_MethodOption, help=argparse.SUPPRESS)


def add_json_option(p: argparse.ArgumentParser) -> None:
    """``--json``: print one JSON object (:func:`to_json`) instead of text."""
    p.add_argument("--json", action="store_true", help=JSON_HELP)


def _integer(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"{value} must be an integer >= {least}")
    if value > LARGEST_INT:
        raise argparse.ArgumentTypeError(f"{value} is too large (at most {LARGEST_INT})")
    return value


def positive_int(text: str) -> int:
    """An integer from 1 to :data:`LARGEST_INT`."""
    return _integer(text, 1)


def non_negative_int(text: str) -> int:
    """An integer from 0 to :data:`LARGEST_INT`."""
    return _integer(text, 0)


def _finite(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text} must be a finite number")
    return value


def positive_float(text: str) -> float:
    """A finite number > 0."""
    value = _finite(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text} must be a number > 0")
    return value


def non_negative_float(text: str) -> float:
    """A finite number >= 0."""
    value = _finite(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} must be a number >= 0")
    return value


def join_negative_pairs(argv: Sequence[str]) -> list[str]:
    """``--from -1,2`` as ``--from=-1,2``: argparse takes a value that starts with a minus
    sign for an option unless it is a plain number, so a pair option and a following value
    that starts with ``-`` and holds a comma are joined (up to a ``--``)."""
    out: list[str] = []
    args = list(argv)
    k = 0
    while k < len(args):
        a = args[k]
        if a == "--":
            out.extend(args[k:])
            break
        if a in PAIR_OPTIONS and k + 1 < len(args) and args[k + 1].startswith("-") \
                and "," in args[k + 1]:
            out.append(f"{a}={args[k + 1]}")
            k += 2
            continue
        out.append(a)
        k += 1
    return out


def _nulled(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _nulled(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_nulled(v) for v in value]
    return value


def to_json(value: Any) -> str:
    """``value`` as strict JSON: infinite and NaN floats become null (JSON has neither)."""
    return json.dumps(_nulled(value), allow_nan=False)


__all__ = ["JSON_HELP", "LARGEST_INT", "PAIR_OPTIONS", "Parser", "add_json_option",
           "add_method_option", "join_negative_pairs",
           "non_negative_float", "non_negative_int", "positive_float", "positive_int",
           "to_json"]


def cell(text: str) -> tuple[int, int]:
    try:
        x, y = (int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a cell 'X,Y' of two integers") \
            from None
    return x, y


def three_numbers(form: str) -> Callable[[str], tuple[float, float, float]]:
    """An argument type reading three finite comma-separated numbers, ``form`` naming them
    in its messages (e.g. ``"a world point 'X,Y,Z'"``)."""
    def parse(text: str) -> tuple[float, float, float]:
        try:
            a, b, c = (float(v) for v in text.split(","))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {form} of three numbers") \
                from None
        if not all(math.isfinite(v) for v in (a, b, c)):
            raise argparse.ArgumentTypeError(f"{text!r} must hold three finite numbers")
        return a, b, c
    return parse


def point(text: str) -> tuple[float, float]:
    try:
        x, y = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a world point 'X,Y' of two "
                                         "numbers") from None
    return x, y
