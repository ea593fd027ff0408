"""Search scratch: who owns it, and the guard of objects whose calls share one.

The rule: **objects own their scratch; one-shot functions borrow the thread's.**

* An object that serves repeated queries on one world (a
  :class:`~wayfinding.grid.GridSearch`, a planner, a sliced search) allocates its scratch
  once and reuses it.  Either it is a :class:`SingleThread` whose scratch-touching methods
  are :func:`exclusive` (a second thread's call raises at once), or, when one object is
  meant to serve several threads (a preprocessed index such as
  :class:`~wayfinding.grid.HPAStar`), it keeps one set of scratch per querying thread.
* A module-level or one-shot call with no object of its own to keep scratch in (a
  ``find_path(world, ...)`` convenience, a query method of a read-only world, a build)
  borrows :func:`thread_workspace`: this thread's workspace, grown on demand and shared by
  such calls across worlds.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from ._deprecated import rename_keywords
from ._kernels._workspace import Workspace
from .errors import ConcurrentUseError

_local = threading.local()

F = TypeVar("F", bound=Callable[..., Any])


def thread_workspace(size: int) -> Workspace:
    """This thread's workspace, with room for at least ``size`` nodes: for one-shot calls
    only (see the module docstring); an object that serves repeated queries owns its own."""
    ws = getattr(_local, "ws", None)
    if ws is None or ws.size < size:
        ws = Workspace(size)
        _local.ws = ws
    return ws


class SingleThread:
    """Base of objects whose calls share per-query scratch, so one thread at a time may use
    them.  A method marked :func:`exclusive` holds the object's lock (``_busy``) while it
    runs; a call from a second thread meanwhile raises :class:`ConcurrentUseError` at once
    (it never waits, and changes nothing).  Calls on one thread may nest.  Objects that
    share scratch share the lock (``_busy``)."""

    __slots__ = ("_busy",)
    _busy: threading.RLock

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        obj = super().__new__(cls)
        obj._busy = threading.RLock()
        return obj


def exclusive(method: F | None = None, /, **renames: str) -> Any:
    """Mark a method of a :class:`SingleThread` object as touching its scratch.

    ``@exclusive(old="new", ...)`` also accepts each old keyword for its new name, with a
    warning, as :func:`~wayfinding._deprecated.renamed_keywords` does, in the same call layer
    (hot query methods pay one wrapper, not two)."""
    if method is None:
        return functools.partial(_guard, renames=renames)
    return _guard(method, renames)


def busy_error(owner: Any, method: str) -> ConcurrentUseError:
    """The error for a call of ``owner``'s ``method`` while another thread is using it: what
    :func:`exclusive` raises, for hot methods that take the lock themselves."""
    return ConcurrentUseError(
        f"{type(owner).__name__} at {id(owner):#x}: {method}() called while another thread "
        f"is using it (or a search sharing its scratch); it holds per-query scratch, so use "
        f"one {type(owner).__name__} per thread")


def _guard(method: F, renames: dict[str, str]) -> F:
    olds = frozenset(renames)
    label = method.__qualname__

    @functools.wraps(method)
    def guarded(self: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs and not olds.isdisjoint(kwargs):
            kwargs = rename_keywords(label, renames, kwargs)
        busy = self._busy
        if not busy.acquire(False):
            raise busy_error(self, method.__name__)
        try:
            return method(self, *args, **kwargs)
        finally:
            busy.release()

    return guarded  # type: ignore[return-value]
