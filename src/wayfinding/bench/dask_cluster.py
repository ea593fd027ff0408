"""The Dask side shared by the batch runs and builds (the ``[dask]`` extra): the client a call
runs on, scheduler addresses, and results gathered under a progress bar."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import InvalidQueryError
from ..progress import progress as progress_bar

_LOCAL = re.compile(r"local:(\d+)")
_ADDRESS = re.compile(r"([a-z]+://)?[^\s:/]+:\d{1,5}")
_TRIM = "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_"


def _distributed() -> Any:
    try:
        import distributed
    except ImportError as e:  # pragma: no cover - exercised only without the extra
        raise ImportError("Dask batch work needs the [dask] extra: "
                          "pip install 'wayfinding[dask]'") from e
    return distributed


def _local_cluster(workers: int) -> Any:
    """A ``LocalCluster`` of ``workers`` single-threaded worker processes, its dashboard on a
    free port, their memory allocator left at its defaults (Dask's ``MALLOC_TRIM_THRESHOLD_``
    of 64 KiB makes the builds' many short-lived arrays cost up to twice the CPU)."""
    distributed = _distributed()
    import dask

    with dask.config.set({_TRIM: None}):
        return distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                        dashboard_address=":0")


@contextmanager
def dask_client(scheduler: str) -> Iterator[Any]:
    """A ``distributed.Client`` for ``scheduler``, closed after (the cluster it started too).

    ``scheduler``: ``local:N`` starts a ``LocalCluster`` of N (>= 1) single-threaded worker
    processes with glibc's default memory trimming (see :func:`_local_cluster`; on clusters
    of your own, leave ``MALLOC_TRIM_THRESHOLD_`` unset likewise); anything else is the
    address of a running scheduler, ``host:port`` or ``protocol://host:port`` (e.g.
    ``tcp://10.0.0.5:8786``; a host named ``local`` needs the protocol), connected to within
    30 s.
    Raises :class:`~wayfinding.errors.InvalidQueryError` for a string that is neither.
    """
    text = scheduler.strip() if isinstance(scheduler, str) else None
    local = _LOCAL.fullmatch(text or "")
    if text is None or not (local or _ADDRESS.fullmatch(text)):
        raise InvalidQueryError(f"scheduler {scheduler!r} must be local:N (a LocalCluster of N "
                                "workers) or a scheduler address such as tcp://host:8786")
    distributed = _distributed()
    if local:
        workers = int(local.group(1))
        if workers < 1:
            raise InvalidQueryError(f"scheduler {scheduler!r}: a LocalCluster needs at least "
                                    "1 worker")
        with _local_cluster(workers) as cluster, distributed.Client(cluster) as client:
            yield client
        return
    with distributed.Client(text, timeout="30s") as client:
        yield client


@contextmanager
def _client(client: Any) -> Iterator[Any]:
    """The ``client`` given (a ``distributed.Client``), or a client of a new 2-worker
    ``LocalCluster`` (see :func:`dask_client`) closed after."""
    if client is not None:
        if not isinstance(client, _distributed().Client):
            raise InvalidQueryError(f"client must be a distributed.Client or None, got "
                                    f"{type(client).__name__}")
        yield client
        return
    with dask_client("local:2") as own:
        yield own


def _gather(futures: list[Any], label: str,
            show: bool | None) -> Iterator[tuple[Any, Any]]:
    """``(future, result)`` pairs as ``futures`` finish, with a progress bar over them; a
    failed or cancelled task raises its error."""
    done = _distributed().as_completed(futures, with_results=True)
    for f, result in progress_bar(done, len(futures), label=label, enabled=show is not False):
        if f.status != "finished":
            raise result if isinstance(result, BaseException) else f.exception()
        yield f, result


def _in_order(futures: list[Any], label: str, show: bool | None) -> list[Any]:
    """The results of ``futures`` in their order, gathered as they finish under a bar."""
    where = {f.key: i for i, f in enumerate(futures)}
    out: list[Any] = [None] * len(futures)
    for f, result in _gather(futures, label, show):
        out[where[f.key]] = result
    return out


def _each(piece: Callable[[Any, Any], Any], context: Any, items: list[Any]) -> list[Any]:
    """``piece(context, item)`` of each item, in order: one task's batch."""
    return [piece(context, item) for item in items]


def _batched(client: Any, piece: Callable[[Any, Any], Any], context: Any, items: list[Any],
             batch: int, label: str, show: bool | None) -> list[Any]:
    """``[piece(context, item) for item in items]`` as tasks of ``batch`` items each, with
    ``context`` sent to the workers once."""
    remote, = client.scatter([context], broadcast=False, hash=False)
    futures = [client.submit(_each, piece, remote, items[k:k + batch], pure=False)
               for k in range(0, len(items), batch)]
    return [r for part in _in_order(futures, label, show) for r in part]


__all__ = ["dask_client"]
