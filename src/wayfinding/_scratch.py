"""Search scratch: who owns it, and the guard of objects whose calls share one.

The rule: **objects own their scratch; one-shot functions borrow the thread's.**

* An object that serves repeated queries on one world (a
  :class:`~wayfinding.grid.GridSearch`, a planner, a sliced search) allocates its scratch
  once and reuses it.  Either it is a :class:`SingleThread` whose scratch-touching methods
  are :func:`exclusive` (a second thread's call raises at once), or, when one object is
  meant to serve several threads (a preprocessed index such as
  :class:`~wayfinding.grid.HPAStar`), it keeps one set of scratch per querying thread
  (a :class:`PerThread`, whose copies and pickles leave that scratch out).
* A module-level or one-shot call with no object of its own to keep scratch in (a
  ``find_path(world, ...)`` convenience, a query method of a read-only world, a build)
  borrows :func:`thread_workspace`: this thread's workspace, grown on demand and shared by
  such calls across worlds.
"""

from __future__ import annotations

import functools
import inspect
import threading
import weakref
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from ._deprecated import GENERATED, warn
from ._kernels._guard import Guard
from ._kernels._workspace import Workspace
from .errors import ConcurrentUseError

_local = threading.local()


class _Key:
    """A thread's key in :class:`PerThread` stores (dies with the thread)."""

    __slots__ = ("__weakref__",)


class _Keys(threading.local):
    """Each thread's :class:`_Key` and a weak reference to it, made on its first use."""

    def __init__(self) -> None:
        self.key = _Key()
        self.ref = weakref.ref(self.key)


_keys = _Keys()

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


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
    them.  A method marked :func:`exclusive` holds the object's guard (``_busy``) while it
    runs; a call from a second thread meanwhile raises :class:`ConcurrentUseError` at once
    (it never waits, and changes nothing).  Calls on one thread may nest.  Objects that
    share scratch share the guard (``_busy``)."""

    __slots__ = ("_busy",)
    _busy: Guard

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        obj = super().__new__(cls)
        obj._busy = Guard()
        return obj


class PerThread(Generic[T]):
    """One value per thread (a thread's scratch or query object), for objects meant to
    serve several threads.  :meth:`mine` is the calling thread's value (None before
    :meth:`keep`); a copy or a pickle is empty, so each thread of a copied owner makes its
    own again on first use.  A finished thread's value is freed with the owner, or when
    another thread keeps its first value there.

    Not a ``threading.local``: on CPython before 3.11.9, freeing one during a garbage
    collection that ``sys._current_frames()`` started (Dask's profiler calls it every few
    milliseconds) deadlocks the process.  Values are kept by a weak reference to the
    thread's key, which a module-level ``threading.local`` (never freed) holds for as long
    as the thread lives."""

    __slots__ = ("_values",)

    def __init__(self) -> None:
        self._values: dict[weakref.ref[_Key], T] = {}

    def mine(self) -> T | None:
        """The calling thread's value, or None."""
        return self._values.get(_keys.ref)

    def keep(self, value: T) -> T:
        """Make ``value`` the calling thread's value; returns it."""
        ref = _keys.ref
        if ref not in self._values:      # a new thread: finished threads' values go
            for gone in [r for r in self._values if r() is None]:
                del self._values[gone]
        self._values[ref] = value
        return value

    def __reduce__(self) -> tuple[type, tuple[()]]:
        return PerThread, ()

    def __copy__(self) -> PerThread[T]:
        return PerThread()

    def __deepcopy__(self, memo: dict[int, Any]) -> PerThread[T]:
        return PerThread()


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
    :func:`exclusive` raises, for hot methods that take the guard themselves."""
    return ConcurrentUseError(
        f"{type(owner).__name__} at {id(owner):#x}: {method}() called while another thread "
        f"is using it (or a search sharing its scratch); it holds per-query scratch, so use "
        f"one {type(owner).__name__} per thread")


_UNSET: Any = object()        # the default of a renamed keyword's new name in a guard
_EMPTY = inspect.Signature.empty
#: How a guard passes each kind of parameter on (the rest by position).
_FORWARD: dict[Any, str] = {inspect.Parameter.VAR_POSITIONAL: "*{}",
                            inspect.Parameter.VAR_KEYWORD: "**{}",
                            inspect.Parameter.KEYWORD_ONLY: "{0}={0}"}


class _Name:
    """A default shown by its name, for writing a signature out as source."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


def _guard(method: F, renames: dict[str, str]) -> F:
    """``method`` behind its object's guard: a function with the same parameters, written
    out for it (so a call costs one plain call more, not the repacking of ``*args,
    **kwargs``), that takes old keywords under ``**renamed_``, holds the guard and calls
    ``method``."""
    sig = inspect.signature(method, follow_wrapped=False)   # its own parameters
    params = list(sig.parameters.values())
    names = [p.name for p in params]
    assert not renames or all(p.kind != p.VAR_KEYWORD for p in params), "renames and **"
    assert not {"guard_", "renamed_", "given_"} & set(names), "a parameter named as a local"
    env: dict[str, Any] = {"_method": method, "_UNSET": _UNSET, "_busy_error": busy_error,
                           "_rename": functools.partial(_rename, method.__qualname__, renames)}
    written, forward, unset = [], [], []
    for i, p in enumerate(params):
        default = p.default
        if default is not p.empty:
            env[f"_d{i}"] = default
            if p.name in renames.values():
                unset.append((p.name, f"_d{i}"))
                default = _Name("_UNSET")
            else:
                default = _Name(f"_d{i}")
        written.append(p.replace(default=default, annotation=p.empty))
        forward.append(_FORWARD.get(p.kind, "{}").format(p.name))
    assert {n for n, _ in unset} == set(renames.values()), "a new name without a default"
    if renames:
        written.append(inspect.Parameter("renamed_", inspect.Parameter.VAR_KEYWORD))
    lines = [f"def {method.__name__}{sig.replace(parameters=written, return_annotation=_EMPTY)}:"]
    if renames:
        new = ", ".join(f"{n!r}: {n}" for n, _ in unset)
        lines += ["    if renamed_:", f"        given_ = _rename(renamed_, {{{new}}})"]
        lines += [f"        {n} = given_[{n!r}]" for n, _ in unset]
    for n, d in unset:
        lines += [f"    if {n} is _UNSET:", f"        {n} = {d}"]
    lines += [f"    guard_ = {names[0]}._busy",
              "    if not guard_.acquire():",
              f"        raise _busy_error({names[0]}, {method.__name__!r})",
              "    try:",
              f"        return _method({', '.join(forward)})",
              "    finally:",
              "        guard_.release()"]
    exec(compile("\n".join(lines), GENERATED, "exec"), env)
    guarded: F = env[method.__name__]
    functools.update_wrapper(guarded, method)
    return guarded


def _rename(label: str, renames: dict[str, str], old: dict[str, Any], given: dict[str, Any]
            ) -> dict[str, Any]:
    """``given`` (new keyword: value, ``_UNSET`` when not given) with the old keywords
    ``old`` under their new names, warning for each; a TypeError for an unknown keyword or
    an old and a new one both given, as Python's own."""
    for key, value in old.items():
        if key not in renames:
            raise TypeError(f"{label}() got an unexpected keyword argument {key!r}")
        new = renames[key]
        if given[new] is not _UNSET:
            raise TypeError(f"{label}() got both {key}= and {new}=; give {new}= only")
        warn(f"{label}({key}=...)", f"{new}=...")
        given[new] = value
    return given
