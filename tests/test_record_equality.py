"""Records that hold numpy arrays compare field by field, arrays by shape and elements,
whatever array objects they hold."""

import dataclasses
import importlib
import inspect
import pkgutil

import numpy as np
import pytest

import wayfinding
from wayfinding.navmesh.records import NavPath
from wayfinding.paths import turning_path
from wayfinding.results import PathResult, SearchStats, _fields_equal


def result(path, cost=2.0, **kw):
    return PathResult(np.array(path, dtype=np.int64), cost, True, SearchStats(expanded=3),
                      "astar", **kw)


def test_equal_results_built_from_different_arrays_compare_equal():
    a, b = result([[0, 0], [1, 1], [2, 1]]), result([[0, 0], [1, 1], [2, 1]])
    assert a.path is not b.path
    assert a == b and not a != b
    recorded = [result([[0, 0], [1, 1]], expanded_nodes=np.arange(4)) for _ in range(2)]
    assert recorded[0] == recorded[1]


@pytest.mark.parametrize("other", [
    result([[0, 0], [1, 1], [2, 2]]),                  # one cell differs
    result([[0, 0], [1, 1]]),                          # shorter
    result([[0, 0], [1, 1], [2, 1]], cost=2.5),        # another cost
    result([[0, 0], [1, 1], [2, 1]], expanded_nodes=np.arange(3)),
    PathResult(np.array([[0, 0], [1, 1], [2, 1]]), 2.0, True, SearchStats(expanded=4), "astar"),
])
def test_unequal_results_compare_unequal(other):
    a = result([[0, 0], [1, 1], [2, 1]])
    assert a != other and not a == other and other != a


def test_subclass_results_and_geometry_records_compare_by_value():
    a = NavPath(path=np.array([[0.0, 0.0], [3.0, 4.0]]), cost=5.0, found=True,
                corridor=np.array([0, 2]))
    b = NavPath(path=np.array([[0.0, 0.0], [3.0, 4.0]]), cost=5.0, found=True,
                corridor=np.array([0, 2]))
    assert a == b
    assert a != NavPath(path=a.path.copy(), cost=5.0, found=True, corridor=np.array([0, 3]))
    assert a != PathResult(a.path, 5.0, True)          # another class
    t1 = turning_path((0, 0), (0, 1), (10, 0), (0, -1), radius=2)
    t2 = turning_path((0, 0), (0, 1), (10, 0), (0, -1), radius=2)
    assert t1.centres is not t2.centres and t1 == t2
    assert t1 != turning_path((0, 0), (0, 1), (10, 0), (0, -1), radius=1.5)


def records():
    """Every dataclass of the package whose generated equality would compare arrays."""
    seen = {}
    for info in pkgutil.walk_packages(wayfinding.__path__, "wayfinding."):
        if info.name.startswith(("wayfinding._kernels", "wayfinding.__main__")):
            continue
        module = importlib.import_module(info.name)
        for cls in vars(module).values():
            if (inspect.isclass(cls) and dataclasses.is_dataclass(cls)
                    and cls.__module__ == info.name
                    and cls.__dataclass_params__.eq):
                seen[cls.__qualname__, info.name] = cls
    return seen


def test_every_record_holding_arrays_compares_arrays_by_value():
    found = records()
    assert len(found) > 20
    holding = {key: cls for key, cls in found.items()
               if any(("ndarray" in str(f.type) or "NDArray" in str(f.type))
                      and not str(f.type).startswith("Callable")
                      for f in dataclasses.fields(cls) if f.compare)
               or issubclass(cls, PathResult)}
    assert ("PathResult", "wayfinding.results") in holding
    assert [key for key, cls in holding.items() if cls.__eq__ is not _fields_equal] == []
