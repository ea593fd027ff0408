"""A stand-in for stderr that says it is a terminal and keeps what is written, to test
progress bars (``monkeypatch.setattr("sys.stderr", Terminal())``; read ``.getvalue()``)."""

from __future__ import annotations

import io


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True
