"""What navigation-mesh queries take and give: the :class:`QueryFilter` (usable polygons and
area costs), the :class:`NavPath` result and the corner flags of its straight path; shared by
:mod:`.query`, :mod:`.polyanya` and the 3D meshes' queries."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from .._deprecated import positional_options
from .._validate import count, positive_float
from ..errors import InvalidQueryError, brief
from ..results import PathResult, _fields_equal

#: Corner flags of a straight path (as Detour's): its first point, its last point, and the
#: start of an off-mesh link (the next point is the link's end).
START, END, OFFMESH = 1, 2, 4



@positional_options("include", "exclude", "costs")
@dataclass(frozen=True, kw_only=True)
class QueryFilter:
    """Which polygons a query may use and what moving through them costs.

    A polygon is usable when ``flags & include`` is nonzero and ``flags & exclude`` is zero
    and its area's cost is finite.  ``costs`` maps area ids (0–255) to cost multipliers
    (> 0; ``inf`` forbids the area); areas not named cost 1.
    """

    include: int = 0xFFFF
    exclude: int = 0
    costs: dict[int, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("include", "exclude"):
            count(f"{name} (a 16-bit flag mask)", getattr(self, name), min=0, max=0xFFFF)
        if not isinstance(self.costs, Mapping):
            raise InvalidQueryError(f"costs {brief(self.costs)} must be a mapping of area ids "
                                    "to cost multipliers")
        for area, cost in self.costs.items():
            count("area id", area, min=0, max=255)
            positive_float(f"area {area}'s cost", cost, allow_inf=True)

    @cached_property
    def key(self) -> tuple[Any, ...]:
        """What identifies the filter's effect (for caches; computed once)."""
        return (self.include, self.exclude, tuple(sorted(self.costs.items())))

    def area_costs(self) -> np.ndarray:
        """``(256,)`` float64 cost multiplier per area id."""
        out = np.ones(256)
        for area, cost in self.costs.items():
            out[area] = cost
        return out

    def usable(self, flags: np.ndarray, areas: np.ndarray) -> np.ndarray:
        """Bool per item (polygon or link) of ``flags`` and ``areas``: whether this filter
        lets a query use it (see the class)."""
        return (((flags & self.include) != 0) & ((flags & self.exclude) == 0)
                & np.isfinite(self.area_costs()[areas]))


DEFAULT_FILTER = QueryFilter()


@dataclass(slots=True, repr=False, kw_only=True)
class NavPath(PathResult):
    """A navigation-mesh path: ``path`` is the straight path, ``(n, 2)`` float64 corners
    from start to goal; ``cost`` its length, with each off-mesh link counted at its cost.
    A partial path (``status`` :attr:`~wayfinding.results.Status.PARTIAL`, ``found`` false)
    ends at the point nearest the goal that the start can reach; ``cost`` is its length.

    ``flags``: per corner, :data:`START`, :data:`END`, :data:`OFFMESH` bits;
    ``corner_polygons``: the polygon each corner lies on; ``corridor``: the polygons walked
    through, in order; ``links``: the off-mesh links taken; ``start``/``goal``: the points
    used, on the mesh; ``snapped_start``/``snapped_goal``: whether the point given was off
    the mesh (or on an unusable polygon) and was moved to the nearest usable polygon.
    """

    flags: Any = None
    corner_polygons: Any = None
    corridor: Any = None
    links: Any = None
    start: Any = None
    goal: Any = None
    snapped_start: bool = False
    snapped_goal: bool = False

    __eq__ = _fields_equal


#: NavPath fields a lazily filled result (see :func:`unpacked`) may leave unset at first.
LAZY_FIELDS = ("start", "goal", "flags", "corner_polygons", "corridor", "links", "stats",
               "algorithm", "expanded_nodes", "open_nodes", "snapped_start", "snapped_goal")
NAVPATH_SLOTS = {name: getattr(NavPath, name) for name in LAZY_FIELDS}
LAZY_BITS = {name: 1 << i for i, name in enumerate(LAZY_FIELDS)}


def unpacked(name: str) -> Any:
    """A property for the :class:`NavPath` field ``name`` of a subclass that sets its
    fields on first use: reading the field while unset calls the instance's ``_unpack()``
    (which sets every field not given since the result was made), then reads it."""
    slot, bit = NAVPATH_SLOTS[name], LAZY_BITS[name]

    def get(self: Any) -> Any:
        try:
            return slot.__get__(self)
        except AttributeError:
            self._unpack()
            return slot.__get__(self)

    def give(self: Any, value: Any) -> None:
        slot.__set__(self, value)
        self._given = getattr(self, "_given", 0) | bit

    return property(get, give, doc=f"The :class:`NavPath` field ``{name}``.")


def set_unset(path: LazyNavPath, values: dict[str, Any]) -> None:
    """Set each field of ``values`` that was not given to ``path`` since it was made."""
    given = getattr(path, "_given", 0)
    for name, value in values.items():
        if not given & LAZY_BITS[name]:
            NAVPATH_SLOTS[name].__set__(path, value)


class LazyNavPath(NavPath):
    """A :class:`NavPath` whose path, cost, found and status are set at once and whose other
    fields (:data:`LAZY_FIELDS`) are made when first read, by the ``_unpack()`` each subclass
    defines (it sets every field still unset, with :func:`set_unset`, from the search's
    answer kept in ``_got``): making them all costs more than the search on a small mesh."""

    __slots__ = ("_got", "_given")
    _got: tuple[Any, ...]
    _given: int           # bits (LAZY_BITS) of the fields set since the result was made

    start = unpacked("start")
    goal = unpacked("goal")
    flags = unpacked("flags")
    corner_polygons = unpacked("corner_polygons")
    corridor = unpacked("corridor")
    links = unpacked("links")
    stats = unpacked("stats")
    algorithm = unpacked("algorithm")
    expanded_nodes = unpacked("expanded_nodes")
    open_nodes = unpacked("open_nodes")
    snapped_start = unpacked("snapped_start")
    snapped_goal = unpacked("snapped_goal")
