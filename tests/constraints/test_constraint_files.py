"""Constraints files: every annotation kind, preposition and weight form is read, written back
and read again to the same field; every malformed entry names the file and the entry."""

from __future__ import annotations

import copy
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from wayfinding.constraints import (
    Between,
    Constraint,
    ConstraintSet,
    Disc,
    LineOfSight,
    Region,
    Side,
)
from wayfinding.constraints.files import WeightSchedule, load_constraints, save_constraints
from wayfinding.errors import FileFormatError, InvalidQueryError
from wayfinding.geometry import Obstacles

#: A file with every annotation kind, preposition and weight form.
FILE = {
    "format": "wayfinding.constraints", "version": 1,
    "annotations": {
        "west": {"kind": "region", "vertices": [[8, 4], [16, 4], [16, 12], [8, 12]]},
        "east": {"kind": "region", "vertices": [[8, 16], [16, 16], [16, 24], [8, 24]]},
        "gap": {"kind": "between", "a": "west", "b": "east"},
        "porch": {"kind": "side", "of": "west", "side": "front", "heading": 0.3, "depth": 2},
        "pond": {"kind": "disc", "centre": [21, 14], "radius": 2.5},
        "guard": {"kind": "line_of_sight", "position": [34.5, 14.5], "heading": 2.54,
                  "fov": 1.047, "range": 12, "occluders": [[[26, 7], [26, 21]]]},
        "lamp": {"kind": "line_of_sight", "position": [2, 2], "heading": 0.5, "fov": 6.0,
                 "range": 9, "occluder_polygons": [[[5, 1], [6, 1], [6, 3], [5, 3]]]},
    },
    "constraints": [
        {"near": "guard", "weight": -6},
        {"in": "gap", "weight": {"schedule": [[0, 4], [18, -2]]}},
        {"near": "porch", "weight": {"schedule": [[0, 0], [10, 3]],
                                     "interpolation": "linear"}},
        {"in": "lamp", "weight": 1.5},
        {"near": "west", "weight": -1},
        {"hard": "pond"},
    ],
    "base": {"schedule": [[0, 5], [12, 7]]},
}

#: Points all over the file's annotations, world units.
POINTS = np.array([(x + 0.25, y + 0.5) for x in range(0, 40, 2) for y in range(0, 28, 2)])
TIMES = (0.0, 4.0, 12.0, 20.0)


def _write(tmp_path, data, name="c.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def _same_field(a: ConstraintSet, b: ConstraintSet) -> None:
    assert len(a) == len(b)
    for t in TIMES:
        assert np.array_equal(a.multiplier(POINTS, t=t), b.multiplier(POINTS, t=t))
        assert a.base_weight(t=t) == b.base_weight(t=t)
        for ca, cb in zip(a, b):
            assert (ca.is_hard, ca.near, type(ca.annotation)) == \
                (cb.is_hard, cb.near, type(cb.annotation))
            assert np.array_equal(ca.annotation.contains(POINTS),
                                  cb.annotation.contains(POINTS))
            assert ca.weight_at(t) == cb.weight_at(t)


def test_the_file_reads_as_the_set_built_by_hand(tmp_path):
    cs = load_constraints(_write(tmp_path, FILE))
    west = Region([(8, 4), (16, 4), (16, 12), (8, 12)])
    east = Region([(8, 16), (16, 16), (16, 24), (8, 24)])
    by_hand = ConstraintSet([
        Constraint(LineOfSight((34.5, 14.5), 2.54, fov=1.047, range=12,
                               occluders=[[(26, 7), (26, 21)]]), -6, near=True),
        Constraint(Between(west, east), lambda t: 4.0 if t < 18 else -2.0),
        Constraint(Side(west, "front", heading=0.3, depth=2),
                   lambda t: float(np.interp(t, [0, 10], [0, 3])), near=True),
        Constraint(LineOfSight((2, 2), 0.5, fov=6.0, range=9,
                               occluders=Obstacles([[(5, 1), (6, 1), (6, 3), (5, 3)]])), 1.5),
        Constraint(west, -1, near=True),
        Constraint.hard(Disc((21, 14), 2.5)),
    ], base=lambda t: 5.0 if t < 12 else 7.0)
    _same_field(cs, by_hand)
    # the lamp's occluder hides what lies behind it
    lamp = cs[3].annotation
    assert lamp.contains([(4, 2), (8, 2)]).tolist() == [True, False]
    # one object per name: the constraint on west and the parts of gap and porch share it
    assert cs[1].annotation.parts[0] is cs[4].annotation


def test_a_saved_set_reads_back_to_the_same_field_and_the_same_text(tmp_path):
    cs = load_constraints(_write(tmp_path, FILE))
    first = save_constraints(cs, tmp_path / "saved.json")
    again = load_constraints(first)
    _same_field(cs, again)
    second = save_constraints(again, tmp_path / "again.json")
    assert first.read_text() == second.read_text()
    assert again[1].annotation.parts[0] is again[4].annotation   # shared, as written
    assert json.loads(first.read_text())["base"] == {"schedule": [[0.0, 5.0], [12.0, 7.0]]}


def test_a_set_built_in_python_is_saved_with_generated_names(tmp_path):
    hut = Region([(0, 0), (2, 0), (2, 1), (0, 1)])
    cs = ConstraintSet([Constraint(Side(Between(hut, Disc((5, 0), 1)), "left", heading=1.0,
                                        depth=0.5), 3, near=True),
                        Constraint(hut, WeightSchedule([0, 1], [2, -2])),
                        Constraint.hard(Disc((9, 9), 1))], base=4)
    path = save_constraints(cs, tmp_path / "py.json")
    data = json.loads(path.read_text())
    assert list(data["annotations"]) == ["region0", "disc1", "between2", "side3", "disc4"]
    assert data["constraints"][1] == {"in": "region0",
                                      "weight": {"schedule": [[0.0, 2.0], [1.0, -2.0]]}}
    assert data["base"] == 4
    _same_field(cs, load_constraints(path))


def test_an_empty_set_round_trips(tmp_path):
    path = save_constraints(ConstraintSet([]), tmp_path / "none.json")
    cs = load_constraints(path)
    assert len(cs) == 0 and cs.multiplier([(1, 1)]).tolist() == [1.0]


def test_a_python_callable_weight_cannot_be_saved_and_nothing_is_written(tmp_path):
    cs = ConstraintSet([Constraint(Disc((0, 0), 1), lambda t: t)])
    with pytest.raises(InvalidQueryError, match=r"constraints\[0\]\.weight .*WeightSchedule"):
        save_constraints(cs, tmp_path / "x.json")
    with pytest.raises(InvalidQueryError, match="base"):
        save_constraints(ConstraintSet([], base=lambda t: 1.0), tmp_path / "x.json")
    with pytest.raises(InvalidQueryError, match="ConstraintSet"):
        save_constraints([Constraint(Disc((0, 0), 1), 1)], tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize(("t", "step", "linear"), [
    (-5.0, 4.0, 4.0), (0.0, 4.0, 4.0), (5.0, 4.0, 1.0), (10.0, -2.0, -2.0), (99.0, -2.0, -2.0)])
def test_a_schedule_holds_its_steps_or_interpolates(t, step, linear):
    assert WeightSchedule([0, 10], [4, -2])(t) == step
    assert WeightSchedule([0, 10], [4, -2], interpolation="linear")(t) == linear


@pytest.mark.parametrize(("args", "match"), [
    (([], []), "same length"),
    (([0, 1], [1]), "same length"),
    (([1, 0], [1, 2]), "strictly increasing"),
    (([0, 0], [1, 2]), "strictly increasing"),
    (([0, math.nan], [1, 2]), "finite"),
    ((["a"], [1]), "must be numbers"),
])
def test_bad_schedules_are_refused(args, match):
    with pytest.raises(InvalidQueryError, match=match):
        WeightSchedule(*args)
    with pytest.raises(InvalidQueryError, match="interpolation"):
        WeightSchedule([0], [1], interpolation="cubic")


def _edit(path: str, value):
    """A copy of :data:`FILE` with the entry at ``path`` (keys and indexes joined by
    ``/``) set to ``value``, or removed when ``value`` is ``...``."""
    data = copy.deepcopy(FILE)
    *head, last = [int(k) if k.isdigit() else k for k in path.split("/")]
    target = data
    for key in head:
        target = target[key]
    if value is ...:
        del target[last]
    else:
        target[last] = value
    return data


#: Malformed files: the edit, and the words the error must hold after the file's name.
BAD = {
    "not JSON": ("{", r"not JSON"),
    "nested too deep": ("[" * 100_000 + "]" * 100_000, "nested deeper than JSON is read"),
    "not an object": ("[]", "the top level must be a JSON object"),
    "format": (_edit("format", "wayfinding.clips"), "format 'wayfinding.clips' must be"),
    "version": (_edit("version", 2), "version 2 cannot be read"),
    "bool version": (_edit("version", True), "version True cannot be read"),
    "unknown top field": (_edit("weights", []), "the top level has unknown field 'weights'"),
    "no constraints": (_edit("constraints", ...), "the top level lacks the field "
                                                  "'constraints'"),
    "constraints not a list": (_edit("constraints", {}), "constraints must be a list"),
    "annotations not an object": (_edit("annotations", []), "annotations must be a JSON "
                                                            "object"),
    "annotation not an object": (_edit("annotations/pond", 3), r"annotations\.pond 3 must be "
                                                               "a JSON object"),
    "unknown kind": (_edit("annotations/pond/kind", "circle"),
                     r"annotations\.pond\.kind 'circle' must be one of"),
    "kind not a name": (_edit("annotations/pond/kind", ["disc"]),
                        r"annotations\.pond\.kind \['disc'\] must be one of"),
    "missing field": (_edit("annotations/pond/radius", ...),
                      r"annotations\.pond lacks the field 'radius'"),
    "unknown field": (_edit("annotations/pond/radious", 2),
                      r"annotations\.pond has unknown field 'radious'"),
    "bad radius": (_edit("annotations/pond/radius", "big"),
                   r"annotations\.pond\.radius must be a number, got 'big'"),
    "negative radius": (_edit("annotations/pond/radius", -1), r"annotations\.pond: radius"),
    "bad vertices": (_edit("annotations/west/vertices", [[0, 0], [1, 1]]),
                     r"annotations\.west: vertices"),
    "crossed polygon": (_edit("annotations/west/vertices", [[0, 0], [4, 0], [4, 4], [1, -2]]),
                        r"annotations\.west: vertices is not simple"),
    "unknown part": (_edit("annotations/gap/b", "north"),
                     r"annotations\.gap\.b 'north' must name an annotation"),
    "part not a name": (_edit("annotations/porch/of", 1),
                        r"annotations\.porch\.of 1 must name an annotation"),
    "loop": (_edit("annotations/west", {"kind": "between", "a": "gap", "b": "east"}),
             r"annotations\.\w+ refers to itself \(\w+ -> \w+ -> \w+\)"),
    "bad side": (_edit("annotations/porch/side", "top"), r"annotations\.porch: unknown side"),
    "bad heading": (_edit("annotations/porch/heading", None),
                    r"annotations\.porch\.heading must be a number, got None"),
    "bad fov": (_edit("annotations/guard/fov", 0), r"annotations\.guard: fov"),
    "bad position": (_edit("annotations/guard/position", [1]),
                     r"annotations\.guard: position"),
    "bad occluders": (_edit("annotations/guard/occluders", [[1, 2]]),
                      r"annotations\.guard: occluders"),
    "bad occluder polygons": (_edit("annotations/lamp/occluder_polygons", [[[0, 0], [1, 1]]]),
                              r"annotations\.lamp\.occluder_polygons: polygon 0"),
    "both occluders": (_edit("annotations/lamp/occluders", []),
                       r"annotations\.lamp gives both occluders and occluder_polygons"),
    "constraint not an object": (_edit("constraints/2", "gap"),
                                 r"constraints\[2\] 'gap' must be a JSON object"),
    "no preposition": (_edit("constraints/2", {"weight": 1}),
                       r"constraints\[2\] must name its annotation with exactly one of"),
    "two prepositions": (_edit("constraints/2", {"in": "gap", "near": "gap", "weight": 1}),
                         r"constraints\[2\] must name .* got 'in', 'near'"),
    "unknown annotation": (_edit("constraints/2/near", "tower"),
                           r"constraints\[2\]\.near 'tower' must name an annotation"),
    "no weight": (_edit("constraints/0/weight", ...),
                  r"constraints\[0\] lacks the field 'weight'"),
    "hard with weight": (_edit("constraints/5/weight", 3),
                         r"constraints\[5\] has unknown field 'weight'"),
    "weight not a number": (_edit("constraints/0/weight", "-6"),
                            r"constraints\[0\]\.weight must be a number or a schedule"),
    "weight beyond floats": (_edit("constraints/0/weight", 10**400),
                             r"constraints\[0\]\.weight must be a number or a schedule"),
    "bool weight": (_edit("constraints/0/weight", True),
                    r"constraints\[0\]\.weight must be a number or a schedule"),
    "empty schedule": (_edit("constraints/1/weight", {"schedule": []}),
                       r"constraints\[1\]\.weight\.schedule must be a non-empty list"),
    "schedule of triples": (_edit("constraints/1/weight", {"schedule": [[0, 1, 2]]}),
                            r"constraints\[1\]\.weight\.schedule must be a non-empty list"),
    "unsorted schedule": (_edit("constraints/1/weight", {"schedule": [[5, 1], [0, 2]]}),
                          r"constraints\[1\]\.weight\.schedule: times .* strictly increasing"),
    "bad interpolation": (_edit("constraints/2/weight/interpolation", "cubic"),
                          r"constraints\[2\]\.weight\.schedule: unknown interpolation"),
    "unknown schedule field": (_edit("constraints/1/weight/every", 2),
                               r"constraints\[1\]\.weight has unknown field 'every'"),
    "bad base": (_edit("base", "high"), r"base must be a number or a schedule"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_a_malformed_file_names_itself_and_the_entry(tmp_path, case):
    data, match = BAD[case]
    path = _write(tmp_path, data)
    where = re.escape(str(path))
    with pytest.raises(FileFormatError, match=rf"^{where}(, line \d+)?: {match}") as err:
        load_constraints(path)
    assert "\n" not in str(err.value)


def test_a_missing_or_binary_file_is_refused(tmp_path):
    with pytest.raises(FileFormatError, match="nothing.json: file not found"):
        load_constraints(tmp_path / "nothing.json")
    (tmp_path / "b.json").write_bytes(b"\x00\x01")
    with pytest.raises(FileFormatError, match="binary"):
        load_constraints(tmp_path / "b.json")


def _documented(where: str) -> str:
    """The example file of the JSON reference page or of the module's docstring."""
    if where == "page":
        doc = (Path(__file__).parents[2] / "docs" / "cli-json.md").read_text()
        text = doc[doc.index("### The constraints file"):]
        return text[text.index("```json") + 7:].split("```")[0]
    import textwrap

    from wayfinding.constraints import files

    block = (files.__doc__ or "").split("A file is one JSON object::")[1].split("\n\n")[1]
    return textwrap.dedent(block)


@pytest.mark.parametrize("where", ["page", "docstring"])
def test_the_documented_example_reads(tmp_path, where):
    cs = load_constraints(_write(tmp_path, _documented(where)))
    assert [(c.is_hard, c.near) for c in cs][:2] == [(False, True), (False, False)]
    assert cs[0].weight_at(0) == -6.0 and isinstance(cs[0].annotation, LineOfSight)
    assert cs[1].weight_at(0) == 4.0 and cs[1].weight_at(20) == -2.0
    assert cs[-1].is_hard and isinstance(cs[-1].annotation, Disc)
