"""Old names kept for one release: each use warns with a :class:`DeprecationWarning` naming
the new spelling, then does what the new one does.

>>> import warnings
>>> @renamed_keywords(algo="method")
... def find_path(start, goal, *, method="astar"):
...     return method
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     find_path(0, 1, algo="jps"), str(caught[0].message)
('jps', 'find_path(algo=...) is deprecated; use method=...')
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from .errors import InvalidQueryError

F = TypeVar("F", bound=Callable[..., Any])


def warn(old: str, new: str) -> None:
    """Warn that ``old`` is deprecated in favour of ``new`` (from the caller's caller)."""
    warnings.warn(f"{old} is deprecated; use {new}", DeprecationWarning, stacklevel=3)


def renamed_keywords(**renames: str) -> Callable[[F], F]:
    """Accept each old keyword (``old="new"``) for its new name, with a warning; giving both
    is an :class:`~wayfinding.errors.InvalidQueryError`."""

    def wrap(func: F) -> F:
        @functools.wraps(func)
        def call(*args: Any, **kwargs: Any) -> Any:
            for old, new in renames.items():
                if old in kwargs:
                    if new in kwargs:
                        raise InvalidQueryError(
                            f"{func.__name__}() got both {old}= and {new}=; give {new}= only")
                    warn(f"{func.__name__}({old}=...)", f"{new}=...")
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)
        return call  # type: ignore[return-value]
    return wrap


def alias(new: Any, old_name: str) -> Any:
    """A function or class ``new`` under its old name ``old_name``: calling (or, for a
    class, constructing) it warns, then behaves as ``new``."""
    if isinstance(new, type):
        class Old(new):  # type: ignore[misc, valid-type]
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                warn(old_name, new.__name__)
                super().__init__(*args, **kwargs)
        Old.__name__ = Old.__qualname__ = old_name
        Old.__doc__ = f"Deprecated name of :class:`{new.__name__}`."
        return Old

    @functools.wraps(new)
    def old(*args: Any, **kwargs: Any) -> Any:
        warn(f"{old_name}()", f"{new.__name__}()")
        return new(*args, **kwargs)
    old.__name__ = old.__qualname__ = old_name
    old.__doc__ = f"Deprecated name of :func:`{new.__name__}`."
    return old
