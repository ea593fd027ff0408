"""Old names and old call forms kept for one release: each use warns with a
:class:`DeprecationWarning` naming the new spelling, then does what the new one does.

>>> import warnings
>>> @renamed_keywords(algo="method")
... def find_path(start, goal, *, method="astar"):
...     return method
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     find_path(0, 1, algo="jps"), str(caught[0].message)
('jps', 'find_path(algo=...) is deprecated; use method=...')

Options that are now keyword-only still take their old positions for a release:

>>> @positional_options("count")
... def nearest(points, *, count=1):
...     return count
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     nearest([], 3), str(caught[0].message)
(3, 'nearest(..., count) by position is deprecated; use count=...')
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


#: The files of the shims: this module, and the scratch guard that also renames keywords.
_SHIMS = frozenset(os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
                   for name in ("_deprecated.py", "_scratch.py"))


#: The file name of shim code written out at run time (the scratch guards').
GENERATED = "<wayfinding guard>"


def _skipped(filename: str) -> bool:
    """Whether ``filename`` is a shim's code or the import machinery's."""
    return filename in _SHIMS or filename == GENERATED \
        or "importlib" in filename and "_bootstrap" in filename


def warn(old: str, new: str) -> None:
    """Warn that ``old`` is deprecated in favour of ``new``, at the line that used the old
    form: past the function that calls this, the shims of this module and the import
    machinery.  That line is the user's; where it is the package's own, the package still
    uses an old form, which the test suite turns into an error."""
    frame = sys._getframe(2)
    while frame.f_back is not None and _skipped(frame.f_code.co_filename):
        frame = frame.f_back
    module_globals = frame.f_globals
    warnings.warn_explicit(f"{old} is deprecated; use {new}", DeprecationWarning,
                           frame.f_code.co_filename, frame.f_lineno,
                           module_globals.get("__name__", "<string>"),
                           module_globals.setdefault("__warningregistry__", {}),
                           module_globals)


def renamed_keywords(**renames: str) -> Callable[[F], F]:
    """Accept each old keyword (``old="new"``) for its new name, with a warning; giving both
    is a :class:`TypeError`, as Python's own "multiple values for argument".  Messages name
    a method with its class (``GridSearch.find_path``), an ``__init__`` as its class."""
    olds = frozenset(renames)

    def wrap(func: F) -> F:
        label = func.__qualname__.removesuffix(".__init__")

        @functools.wraps(func)
        def call(*args: Any, **kwargs: Any) -> Any:
            if not kwargs or olds.isdisjoint(kwargs):     # the common case, kept cheap
                return func(*args, **kwargs)
            return func(*args, **rename_keywords(label, renames, kwargs))
        return call  # type: ignore[return-value]
    return wrap


def rename_keywords(label: str, renames: dict[str, str], kwargs: dict[str, Any]
                    ) -> dict[str, Any]:
    """``kwargs`` with each old keyword of ``renames`` (``old: new``) under its new name, with
    a warning naming ``label`` (what :func:`renamed_keywords` does at each call)."""
    for old, new in renames.items():
        if old in kwargs:
            if new in kwargs:
                raise TypeError(f"{label}() got both {old}= and {new}=; give {new}= only")
            warn(f"{label}({old}=...)", f"{new}=...")
            kwargs[new] = kwargs.pop(old)
    return kwargs


def alias(new: Any, old_name: str) -> Any:
    """A function or class ``new`` under its old name ``old_name``: calling (or, for a
    class, constructing) it warns, then behaves as ``new``."""
    if isinstance(new, type):
        class Old(new):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                warn(old_name, new.__name__)
                super().__init__(*args, **kwargs)
        Old.__name__ = Old.__qualname__ = old_name
        Old.__module__ = new.__module__      # found (and pickled) where the old name lives
        Old.__doc__ = f"Deprecated name of :class:`{new.__name__}`."
        return Old

    @functools.wraps(new)
    def old(*args: Any, **kwargs: Any) -> Any:
        warn(f"{old_name}()", f"{new.__name__}()")
        return new(*args, **kwargs)
    old.__name__ = old.__qualname__ = old_name
    old.__doc__ = f"Deprecated name of :func:`{new.__name__}`."
    return old


def positional_options(*names: str) -> Callable[[T], T]:
    """Decorate a function (or a class, for its ``__init__``) whose keyword-only options
    ``names`` used to follow its positional parameters, in that order."""

    def wrap(target: T) -> T:
        func: Any = vars(target)["__init__"] if isinstance(target, type) else target
        params = inspect.signature(func).parameters.values()
        first = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
        if any(p.kind is p.VAR_POSITIONAL for p in params) or not set(names) <= {
                p.name for p in params if p.kind is p.KEYWORD_ONLY}:
            raise TypeError(f"{names} must be keyword-only options of {func.__qualname__}")
        label = target.__name__ if isinstance(target, type) \
            else func.__qualname__.removesuffix(".__init__")

        @functools.wraps(func)
        def call(*args: Any, **kwargs: Any) -> Any:
            if len(args) > first:
                extra = args[first:first + len(names)]
                given = names[:len(extra)]
                for name, value in zip(given, extra):
                    if name in kwargs:
                        raise TypeError(f"{label}() got multiple values for {name!r}")
                    kwargs[name] = value
                warn(f"{label}(..., {', '.join(given)}) by position",
                     ", ".join(f"{name}=..." for name in given))
                args = args[:first] + args[first + len(names):]
            return func(*args, **kwargs)

        if isinstance(target, type):
            target.__init__ = call  # type: ignore[misc]
            return target
        return call  # type: ignore[return-value]
    return wrap
