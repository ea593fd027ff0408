"""The worlds a service answers on: :class:`World`, the part every kind shares (each kind's
own in :mod:`.grids`, :mod:`.meshes` and :mod:`.voxels`)."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from .._scratch import PerThread
from .limits import Limits, Refused

T = TypeVar("T")


class World(ABC):
    """A loaded world: its ``kind``, the ``queries`` (route names) it answers, its path
    ``methods``, and one query object per thread (:meth:`own`) over read-only data."""

    kind: ClassVar[str]
    queries: ClassVar[tuple[str, ...]]
    #: What a crowd navigator walks on (:class:`~wayfinding.crowd.Navigator`'s world), or
    #: None where the world has no crowds.
    navigable: Any = None

    def __init__(self, name: str, methods: list[str]):
        self.name = name
        self.methods = methods
        self._local: PerThread[dict[Any, Any]] = PerThread()

    def own(self, key: Any, make: Callable[[], T]) -> T:
        """This thread's object ``key``, made by ``make()`` on the thread's first call."""
        mine = self._local.mine()
        if mine is None:
            mine = self._local.keep({})
        if key not in mine:
            mine[key] = make()
        made: T = mine[key]
        return made

    def describe(self) -> dict[str, Any]:
        """The world as ``GET /worlds`` lists it."""
        return {"name": self.name, "kind": self.kind, **self.extent(),
                "queries": list(self.queries), "methods": self.methods}

    def method(self, body: dict[str, Any], default: str) -> str:
        """The request's ``method`` (``default`` when absent): 400 unless the world's."""
        method = body.get("method", default)
        if type(method) is not str or method not in self.methods:
            raise Refused(400, "unknown method", f"method {json.dumps(method)} is not one of "
                          f"{', '.join(self.methods)} on world {self.name!r}")
        return method

    @abstractmethod
    def extent(self) -> dict[str, Any]:
        """The world's size fields in ``GET /worlds``."""

    @abstractmethod
    def path(self, body: dict[str, Any], limits: Limits, deadline: float) -> dict[str, Any]:
        """Answer a path request (in a worker thread): the JSON of the result."""

