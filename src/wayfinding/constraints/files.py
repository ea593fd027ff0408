"""Constraint sets in JSON files: :func:`load_constraints` reads one, :func:`save_constraints`
writes one back, and :class:`WeightSchedule` is a weight that changes with the time and can
be written to a file.

A file is one JSON object::

    {"format": "wayfinding.constraints", "version": 1,
     "annotations": {
       "west":  {"kind": "region", "vertices": [[8, 4], [16, 4], [16, 12], [8, 12]]},
       "east":  {"kind": "region", "vertices": [[8, 16], [16, 16], [16, 24], [8, 24]]},
       "gap":   {"kind": "between", "a": "west", "b": "east"},
       "porch": {"kind": "side", "of": "west", "side": "front", "heading": 0, "depth": 2},
       "pond":  {"kind": "disc", "centre": [21, 14], "radius": 2.5},
       "guard": {"kind": "line_of_sight", "position": [34.5, 14.5], "heading": 2.54,
                 "fov": 1.047, "range": 12, "occluders": [[[26, 7], [26, 21]]]}},
     "constraints": [
       {"near": "guard", "weight": -6},
       {"in": "gap", "weight": {"schedule": [[0, 4], [18, -2]]}},
       {"hard": "pond"}],
     "base": null}

``annotations`` names each annotation (world units, angles in radians counter-clockwise from
+x): ``region`` (``vertices``, a simple polygon), ``disc`` (``centre``, ``radius``),
``between`` (the convex hull of the annotations named ``a`` and ``b``), ``side`` (the band of
``depth`` on the ``side`` — front, back, left or right — of the annotation named ``of``,
facing ``heading``), ``line_of_sight`` (``position``, ``heading``, ``fov``, ``range`` and
optionally the ``occluders`` that hide what lies behind them: ``[[x0, y0], [x1, y1]]``
segments, or ``occluder_polygons``, polygons whose edges occlude).  ``constraints`` lists
the constraints, each naming its annotation with its preposition: ``in`` (sharp edge) or
``near`` (linear fall-off over ``|weight|`` world units) with a ``weight``, or ``hard`` (never
enter).  A weight (and the optional ``base``, W0; null or absent: the sum of the positive
weights) is a number or a schedule: ``{"schedule": [[t0, w0], [t1, w1], ...]}`` with
strictly increasing times, and optionally ``"interpolation": "linear"`` (default ``"step"``;
see :class:`WeightSchedule`).  Unknown fields are refused, so a misspelt one is not silently
ignored.

Errors raise :class:`~wayfinding.errors.FileFormatError` naming the file and the entry
(``constraints[2].weight``, ``annotations.gap.b``).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .._io import atomic_write_text, read_text
from .._validate import choice, real_number, reals
from ..errors import FileFormatError, InvalidQueryError, WayfindingError, brief
from ..geometry.obstacles import Obstacles
from .annotations import Annotation, Between, Disc, LineOfSight, Region, Side
from .constraint import Constraint, ConstraintSet

#: The ``format`` and ``version`` a constraints file declares.
FORMAT, VERSION = "wayfinding.constraints", 1
#: How a :class:`WeightSchedule` reads between its times.
INTERPOLATIONS = ("step", "linear")

#: Each annotation kind's required and optional fields.
_KINDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "region": (("vertices",), ()),
    "disc": (("centre", "radius"), ()),
    "between": (("a", "b"), ()),
    "side": (("of", "side", "heading", "depth"), ()),
    "line_of_sight": (("position", "heading", "fov", "range"),
                      ("occluders", "occluder_polygons")),
}
_PREPOSITIONS = ("in", "near", "hard")


class WeightSchedule:
    """A weight that changes with the time, written as ``(t, w)`` pairs: ``times`` ``(n,)``
    finite, strictly increasing seconds (n >= 1) and ``weights`` ``(n,)`` finite numbers.

    ``interpolation="step"`` (default): the weight of the last time at or before ``t``;
    ``"linear"``: linear between neighbouring times.  Before the first time and after the
    last, the first and last weights hold.  Callable ``t -> w``, so it serves as a
    :class:`~wayfinding.constraints.Constraint`'s weight or a set's base, and
    :func:`save_constraints` writes it back.

    >>> day = WeightSchedule([0, 12, 18], [4, -2, 4])
    >>> day(-1), day(12), day(15), WeightSchedule([0, 10], [0, 5], interpolation="linear")(4)
    (4.0, -2.0, -2.0, 2.0)
    """

    def __init__(self, times: Any, weights: Any, *, interpolation: str = "step"):
        t = reals("times", times)
        w = reals("weights", weights)
        if t.ndim != 1 or len(t) < 1 or w.shape != t.shape:
            raise InvalidQueryError(f"times {brief(times)} and weights {brief(weights)} must "
                                    "be two lists of the same length >= 1")
        if not (np.isfinite(t).all() and np.isfinite(w).all()):
            raise InvalidQueryError("times and weights must be finite numbers")
        if (np.diff(t) <= 0).any():
            raise InvalidQueryError(f"times {brief(t.tolist())} must be strictly increasing")
        self._interpolation = choice("interpolation", interpolation, INTERPOLATIONS)
        self._times, self._weights = t.copy(), w.copy()
        self._times.flags.writeable = self._weights.flags.writeable = False

    @property
    def times(self) -> np.ndarray:
        """``(n,)`` float64 seconds, increasing, read-only."""
        return self._times

    @property
    def weights(self) -> np.ndarray:
        """``(n,)`` float64, read-only."""
        return self._weights

    @property
    def interpolation(self) -> str:
        return str(self._interpolation)

    def __call__(self, t: float) -> float:
        if self._interpolation == "linear":
            return float(np.interp(t, self._times, self._weights))
        k = int(np.searchsorted(self._times, t, side="right")) - 1
        return float(self._weights[max(k, 0)])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WeightSchedule):
            return NotImplemented
        return (self._interpolation == other._interpolation
                and np.array_equal(self._times, other._times)
                and np.array_equal(self._weights, other._weights))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        pairs = ", ".join(f"({t:g}, {w:g})" for t, w in zip(self._times, self._weights))
        return f"WeightSchedule([{pairs}], interpolation={self._interpolation!r})"


# ---------------------------------------------------------------------------- reading

class _Reader:
    """One file's annotations, resolved by name (each built once, parts before wholes)."""

    def __init__(self, path: object, entries: dict[str, Any]):
        self.path = path
        self.entries = entries
        self.built: dict[str, Annotation] = {}
        self.building: list[str] = []

    def fail(self, where: str, reason: str) -> FileFormatError:
        return FileFormatError(f"{where} {reason}", self.path)

    def annotation(self, name: str) -> Annotation:
        if name in self.built:
            return self.built[name]
        where = f"annotations.{name}"
        if name in self.building:
            loop = " -> ".join([*self.building[self.building.index(name):], name])
            raise self.fail(where, f"refers to itself ({loop})")
        entry = self.entries[name]
        fields = _fields(entry, where, self.path)
        kind = fields.pop("kind", None)
        if not isinstance(kind, str) or kind not in _KINDS:
            raise self.fail(f"{where}.kind", f"{brief(kind)} must be one of "
                            f"{', '.join(repr(k) for k in _KINDS)}")
        required, optional = _KINDS[kind]
        _check_keys(fields, required, optional, where, self.path)
        self.building.append(name)
        try:
            built = self._build(kind, fields, where)
        finally:
            self.building.pop()
        self.built[name] = built
        return built

    def ref(self, fields: dict[str, Any], key: str, where: str) -> Annotation:
        name = fields[key]
        if not isinstance(name, str) or name not in self.entries:
            raise self.fail(f"{where}.{key}", f"{brief(name)} must name an annotation of "
                            "this file")
        return self.annotation(name)

    def _build(self, kind: str, f: dict[str, Any], where: str) -> Annotation:
        try:
            if kind == "region":
                return Region(f["vertices"])
            if kind == "disc":
                return Disc(f["centre"], _number(f["radius"], f"{where}.radius", self.path))
            if kind == "between":
                return Between(self.ref(f, "a", where), self.ref(f, "b", where))
            if kind == "side":
                return Side(self.ref(f, "of", where), f["side"],
                            heading=_number(f["heading"], f"{where}.heading", self.path),
                            depth=_number(f["depth"], f"{where}.depth", self.path))
            if "occluders" in f and "occluder_polygons" in f:
                raise self.fail(where, "gives both occluders and occluder_polygons; give one")
            occluders = f.get("occluders")
            if "occluder_polygons" in f:
                occluders = _obstacles(f["occluder_polygons"], f"{where}.occluder_polygons",
                                       self.path)
            return LineOfSight(f["position"],
                               _number(f["heading"], f"{where}.heading", self.path),
                               fov=_number(f["fov"], f"{where}.fov", self.path),
                               range=_number(f["range"], f"{where}.range", self.path),
                               occluders=occluders)
        except FileFormatError:
            raise
        except WayfindingError as exc:
            raise self.fail(f"{where}:", str(exc)) from None


def _fields(entry: Any, where: str, path: object) -> dict[str, Any]:
    if not isinstance(entry, dict):
        raise FileFormatError(f"{where} {brief(entry)} must be a JSON object", path)
    return dict(entry)


def _check_keys(fields: dict[str, Any], required: tuple[str, ...], optional: tuple[str, ...],
                where: str, path: object) -> None:
    unknown = sorted(set(fields) - set(required) - set(optional))
    if unknown:
        raise FileFormatError(f"{where} has unknown field {unknown[0]!r} (it takes "
                              f"{', '.join(required + optional)})", path)
    for key in required:
        if key not in fields:
            raise FileFormatError(f"{where} lacks the field {key!r}", path)


def _number(value: Any, where: str, path: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value):
        raise FileFormatError(f"{where} must be a number, got {brief(value)}", path)
    return float(value)


def _obstacles(value: Any, where: str, path: object) -> Obstacles:
    if not isinstance(value, list):
        raise FileFormatError(f"{where} must be a list of polygons, got {brief(value)}", path)
    try:
        return Obstacles(value)
    except WayfindingError as exc:
        raise FileFormatError(f"{where}: {exc}", path) from None


def _weight(value: Any, where: str, path: object) -> float | WeightSchedule:
    """A number or a ``{"schedule": ..., "interpolation": ...}`` object."""
    if not isinstance(value, dict):
        number = real_number(value)
        if not math.isfinite(number):
            raise FileFormatError(f"{where} must be a number or a schedule "
                                  '{"schedule": [[t, w], ...]}, got ' + brief(value), path)
        return number
    _check_keys(value, ("schedule",), ("interpolation",), where, path)
    pairs = value["schedule"]
    if not isinstance(pairs, list) or not pairs or not all(
            isinstance(p, list) and len(p) == 2 for p in pairs):
        raise FileFormatError(f"{where}.schedule must be a non-empty list of [t, w] pairs, "
                              f"got {brief(pairs)}", path)
    try:
        return WeightSchedule([p[0] for p in pairs], [p[1] for p in pairs],
                              interpolation=value.get("interpolation", "step"))
    except WayfindingError as exc:
        raise FileFormatError(f"{where}.schedule: {exc}", path) from None


def _constraint(entry: Any, where: str, reader: _Reader) -> Constraint:
    fields = _fields(entry, where, reader.path)
    given = [p for p in _PREPOSITIONS if p in fields]
    if len(given) != 1:
        raise reader.fail(where, "must name its annotation with exactly one of 'in', 'near' "
                          f"or 'hard', got {', '.join(map(repr, given)) or 'none'}")
    preposition = given[0]
    if preposition == "hard":
        _check_keys(fields, ("hard",), (), where, reader.path)
        return Constraint.hard(reader.ref(fields, "hard", where))
    _check_keys(fields, (preposition, "weight"), (), where, reader.path)
    return Constraint(reader.ref(fields, preposition, where),
                      _weight(fields["weight"], f"{where}.weight", reader.path),
                      near=preposition == "near")


def load_constraints(path: str | os.PathLike) -> ConstraintSet:
    """The :class:`~wayfinding.constraints.ConstraintSet` a constraints file holds (the
    format is this module's docstring).  A missing, non-JSON or malformed file, or a bad
    entry, raises :class:`~wayfinding.errors.FileFormatError` naming the file and the entry.
    Each named annotation is built once: constraints naming the same one share it."""
    text = read_text(path, FileFormatError)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FileFormatError(f"not JSON ({exc.msg})", path, exc.lineno) from None
    except RecursionError:
        raise FileFormatError("nested deeper than JSON is read", path) from None
    if not isinstance(data, dict):
        raise FileFormatError("the top level must be a JSON object", path)
    _check_keys(data, ("format", "version", "constraints"), ("annotations", "base"),
                "the top level", path)
    if data["format"] != FORMAT:
        raise FileFormatError(f"format {brief(data['format'])} must be {FORMAT!r}", path)
    if data["version"] != VERSION or isinstance(data["version"], bool):
        raise FileFormatError(f"version {brief(data['version'])} cannot be read (this "
                              f"version reads {VERSION})", path)
    entries = data.get("annotations", {})
    if not isinstance(entries, dict):
        raise FileFormatError(f"annotations must be a JSON object of named annotations, got "
                              f"{brief(entries)}", path)
    reader = _Reader(path, entries)
    for name in entries:
        reader.annotation(name)
    items = data["constraints"]
    if not isinstance(items, list):
        raise FileFormatError(f"constraints must be a list, got {brief(items)}", path)
    constraints = [_constraint(c, f"constraints[{i}]", reader) for i, c in enumerate(items)]
    base = data.get("base")
    return ConstraintSet(constraints,
                         base=None if base is None else _weight(base, "base", path))


# ---------------------------------------------------------------------------- writing

class _Writer:
    """Names for a set's annotations (``region0``, ``disc1``...; one per distinct object)
    and their entries, parts before wholes."""

    def __init__(self) -> None:
        self.names: dict[int, str] = {}
        self.entries: dict[str, dict[str, Any]] = {}

    def name(self, ann: Annotation) -> str:
        if id(ann) in self.names:
            return self.names[id(ann)]
        entry = self._entry(ann)
        name = f"{entry['kind']}{len(self.entries)}"
        self.names[id(ann)] = name
        self.entries[name] = entry
        return name

    def _entry(self, ann: Annotation) -> dict[str, Any]:
        if isinstance(ann, Region):
            return {"kind": "region", "vertices": ann.vertices.tolist()}
        if isinstance(ann, Disc):
            return {"kind": "disc", "centre": list(ann.centre), "radius": ann.radius}
        if isinstance(ann, Between):
            a, b = ann.parts
            return {"kind": "between", "a": self.name(a), "b": self.name(b)}
        if isinstance(ann, Side):
            return {"kind": "side", "of": self.name(ann.annotation), "side": ann.side,
                    "heading": ann.heading, "depth": ann.depth}
        if isinstance(ann, LineOfSight):
            out: dict[str, Any] = {"kind": "line_of_sight", "position": list(ann.position),
                                   "heading": ann.heading, "fov": ann.fov, "range": ann.range}
            occluders = ann.occluders
            if isinstance(occluders, Obstacles):
                out["occluder_polygons"] = [p.tolist() for p in occluders.polygons]
            elif occluders is not None:
                out["occluders"] = np.asarray(occluders, dtype=np.float64).tolist()
            return out
        raise InvalidQueryError(f"annotation {brief(ann)} is not one a constraints file "
                                f"holds ({', '.join(k for k in _KINDS)})")


def _weight_entry(value: float | Callable[[float], float], where: str) -> Any:
    if isinstance(value, WeightSchedule):
        out: dict[str, Any] = {"schedule": [[t, w] for t, w in
                                            zip(value.times.tolist(), value.weights.tolist())]}
        if value.interpolation != "step":
            out["interpolation"] = value.interpolation
        return out
    if callable(value):
        raise InvalidQueryError(f"{where} {brief(value)} is a Python callable, which a file "
                                "cannot hold; give a number or a WeightSchedule")
    return value


def save_constraints(constraints: ConstraintSet, path: str | os.PathLike) -> Path:
    """Write ``constraints`` (a :class:`~wayfinding.constraints.ConstraintSet`) to the JSON
    file ``path`` atomically, in the format :func:`load_constraints` reads; returns the path.
    Annotations are named by kind and order (``region0``, ``between2``...), one entry per
    distinct annotation object.  Weights and the base must be numbers or
    :class:`WeightSchedule` objects (another callable raises
    :class:`~wayfinding.errors.InvalidQueryError` and writes nothing)."""
    if not isinstance(constraints, ConstraintSet):
        raise InvalidQueryError(f"constraints {brief(constraints)} must be a ConstraintSet")
    writer = _Writer()
    items = []
    for i, c in enumerate(constraints):
        name = writer.name(c.annotation)
        if c.is_hard:
            items.append({"hard": name})
        else:
            items.append({"near" if c.near else "in": name,
                          "weight": _weight_entry(c.weight, f"constraints[{i}].weight")})
    base = constraints.base
    base_entry = None if base is None else _weight_entry(base, "base")
    return atomic_write_text(path, _text(writer.entries, items, base_entry))


def _text(annotations: dict[str, Any], constraints: list[Any], base: Any) -> str:
    """The file's JSON text: one line per annotation and per constraint."""
    def block(lines: list[str], open_: str, close: str) -> str:
        return open_ + ("\n  " + ",\n  ".join(lines) + "\n " if lines else "") + close

    named = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in annotations.items()]
    return (f'{{"format": {json.dumps(FORMAT)}, "version": {VERSION},\n'
            f' "annotations": {block(named, "{", "}")},\n'
            f' "constraints": {block([json.dumps(c) for c in constraints], "[", "]")},\n'
            f' "base": {json.dumps(base)}}}\n')


__all__ = ["FORMAT", "INTERPOLATIONS", "VERSION", "WeightSchedule", "load_constraints",
           "save_constraints"]
