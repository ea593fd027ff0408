"""Options that were once positional: for one release a function or class whose options
are now keyword-only still takes them by position, in their old order, and warns with a
:class:`DeprecationWarning` naming the keywords to use.

>>> import warnings
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
from collections.abc import Callable
from typing import Any, TypeVar

from .._deprecated import warn

T = TypeVar("T")


def positional_options(*names: str) -> Callable[[T], T]:
    """Decorate a function (or a class, for its ``__init__``) whose keyword-only options
    ``names`` used to follow its positional parameters, in that order."""

    def wrap(target: T) -> T:
        func: Any = vars(target)["__init__"] if isinstance(target, type) else target
        params = inspect.signature(func).parameters.values()
        first = sum(p.kind is p.POSITIONAL_OR_KEYWORD for p in params)
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
