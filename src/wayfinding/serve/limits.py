"""The limits of the path service (:class:`Limits`) and the errors it answers with."""

from __future__ import annotations

import time
from dataclasses import dataclass, fields

from .._validate import count, positive_float
from ..errors import InvalidQueryError


@dataclass(frozen=True, kw_only=True)
class Limits:
    """Limits of the service; every one a positive int, or a positive float for the times.

    - ``max_body_bytes``: largest request body (bytes; 413 beyond);
    - ``max_cells``: largest grid or voxel world loaded (cells or voxels;
      :func:`~wayfinding.serve.create_app` refuses larger ones);
    - ``max_expansions``: expansions one path request may make (422 beyond);
    - ``max_seconds``: wall-clock seconds one request may take (503 beyond: a sliced search
      stops at the deadline, other work is checked when it ends);
    - ``max_field_cells``: cells a distance map or flow field may cover (422 beyond);
    - ``max_agents``: agents in one crowd (422 beyond); ``max_steps``: crowd steps one
      request may ask for (422 beyond); ``max_crowds``: crowds kept at once (429 beyond);
      ``crowd_idle_seconds``: a crowd not used for that long is dropped;
    - ``max_threads``: requests worked on at once, each in its own thread with its own query
      objects per world (the kernels release the GIL; more threads than cores gain little
      and each keeps its query objects); further requests wait their turn.
    """

    max_body_bytes: int = 64 * 1024
    max_cells: int = 4096 * 4096
    max_expansions: int = 1_000_000
    max_seconds: float = 10.0
    max_field_cells: int = 4096 * 4096
    max_agents: int = 1000
    max_steps: int = 1000
    max_crowds: int = 64
    crowd_idle_seconds: float = 600.0
    max_threads: int = 8

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type == "int":
                if type(value) is not int or value < 1:
                    raise InvalidQueryError(f"Limits.{f.name} must be a positive int, got "
                                            f"{value!r}")
            else:
                positive_float(f"Limits.{f.name}", value)

    def deadline(self) -> float:
        """The :func:`time.monotonic` time by which a request starting now must end."""
        return time.monotonic() + self.max_seconds


#: The limits of an app made without any.
DEFAULT_LIMITS = Limits()
#: The longest crowd step a request may ask for, in seconds (a longer one would carry agents
#: through walls between two looks at them).
MAX_DT = 1.0


class Refused(Exception):
    """A request answered with a 4xx or 5xx status and a JSON ``{"error", "detail"}``."""

    def __init__(self, status: int, error: str, detail: str):
        super().__init__(detail)
        self.status, self.error, self.detail = status, error, detail


class BadRequest(Refused):
    """400 ``bad request``: a value of the request is wrong (the library's validators raise
    it when given as their ``error``)."""

    def __init__(self, detail: str):
        super().__init__(400, "bad request", detail)


class BadCoordinates(Refused):
    """400 ``bad coordinates``: a point or cell is malformed, off the world or blocked."""

    def __init__(self, detail: str):
        super().__init__(400, "bad coordinates", detail)


def over_budget(expanded: int, limits: Limits) -> Refused:
    """422: a search made ``expanded`` expansions, the limit (a search stopped by it) or more
    (a search that cannot stop early, checked when it ends)."""
    limit = limits.max_expansions
    detail = f"the search made {expanded} expansions, " + (
        f"more than the limit of {limit} per request" if expanded > limit
        else "the limit per request, before it could end")
    return Refused(422, "out of budget", detail)


def timed_out(what: str, max_seconds: float) -> Refused:
    """503: ``what`` ran past the request's deadline of ``max_seconds``."""
    return Refused(503, "timed out", f"{what} ran past the limit of {max_seconds:g} s per "
                   "request")


def check_deadline(deadline: float, what: str, limits: Limits) -> None:
    """Refuse (503) when ``deadline`` (monotonic seconds) has passed."""
    if time.monotonic() > deadline:
        raise timed_out(what, limits.max_seconds)


def step_count(value: object, limits: Limits) -> int:
    """A request's crowd step count: 400 unless a positive int, 422 over ``max_steps``."""
    n = count("steps", value, error=BadRequest)
    if n > limits.max_steps:
        raise Refused(422, "too many steps", f"steps {n} is over the limit of "
                      f"{limits.max_steps} per request")
    return n
