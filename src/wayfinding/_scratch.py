"""Per-thread search workspaces, grown on demand and reused across queries and worlds."""

from __future__ import annotations

import threading

from ._kernels._workspace import Workspace

_local = threading.local()


def thread_workspace(size: int) -> Workspace:
    """This thread's workspace, with room for at least ``size`` nodes."""
    ws = getattr(_local, "ws", None)
    if ws is None or ws.size < size:
        ws = Workspace(size)
        _local.ws = ws
    return ws
