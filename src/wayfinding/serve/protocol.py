"""How the service reads requests and writes answers: JSON bodies under the size limit,
path results as JSON, arrays as JSON or as raw little-endian bytes."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ..results import PathResult
from .limits import BadCoordinates, BadRequest, Limits, Refused

if TYPE_CHECKING:       # starlette is imported when an app is made: wayfinding imports without it
    from starlette.requests import Request
    from starlette.responses import Response

#: The media type of the binary form of an array answer.
BINARY = "application/octet-stream"


def error(status: int, error: str, detail: str) -> Response:
    """A JSON error answer ``{"error", "detail"}``."""
    from starlette.responses import JSONResponse

    return JSONResponse({"error": error, "detail": detail}, status_code=status)


async def body(request: Request, limits: Limits) -> dict[str, Any]:
    """The request's JSON object, read up to :attr:`Limits.max_body_bytes` (413 beyond, 400
    when it is not a JSON object)."""
    size = request.headers.get("content-length")
    limit = limits.max_body_bytes
    if size is not None and size.isdigit() and int(size) > limit:
        raise Refused(413, "too large", f"the body has {size} bytes, over the limit of {limit}")
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > limit:
            raise Refused(413, "too large", f"the body is over the limit of {limit} bytes")
    try:
        value = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise Refused(400, "bad JSON", f"the body is not JSON: {exc}") from None
    except RecursionError:
        raise Refused(400, "bad JSON", "the body nests deeper than JSON is read") from None
    if not isinstance(value, dict):
        raise Refused(400, "bad JSON", "the body must be a JSON object")
    return value


def coordinates(value: Any, field: str, size: tuple[int, ...]) -> tuple[int, ...]:
    """``value`` as integer coordinates inside a world of ``size`` (``(width, height)`` or
    ``(nx, ny, nz)``): 400 ``bad coordinates`` otherwise (blocked cells are the caller's
    check)."""
    if not (isinstance(value, list) and len(value) == len(size)
            and all(type(v) is int for v in value)):
        names = ", ".join("xyz"[:len(size)])
        raise BadCoordinates(f"{field} must be [{names}] integers, got {json.dumps(value)}")
    if not all(0 <= v < n for v, n in zip(value, size)):
        raise BadCoordinates(f"{field} {value} is outside the {'x'.join(map(str, size))} world")
    return tuple(value)


def option(body: Mapping[str, Any], name: str, default: Any, options: tuple[Any, ...]) -> Any:
    """``body[name]`` (``default`` when absent), one of ``options``: 400 otherwise."""
    value = body.get(name, default)
    if not any(type(value) is type(o) and value == o for o in options):
        raise BadRequest(f"{name} {json.dumps(value)} is not one of "
                         f"{', '.join(json.dumps(o) for o in options)}")
    return value


def number(value: float) -> float | None:
    """A float for JSON: ``None`` for inf or NaN."""
    return float(value) if np.isfinite(value) else None


def numbers(array: np.ndarray) -> list[Any]:
    """A float array as nested lists, ``None`` where not finite."""
    a = np.asarray(array, dtype=np.float64).astype(object)
    a[~np.isfinite(np.asarray(array, dtype=np.float64))] = None
    rows: list[Any] = a.tolist()
    return rows


def path_json(result: PathResult) -> dict[str, Any]:
    """A path result as a JSON-ready dict: ``path``, ``cost`` (``None`` when not found),
    ``found``, ``status``, ``algorithm`` and ``stats``."""
    s = result.stats
    return {"path": np.asarray(result.path).tolist(), "cost": number(result.cost),
            "found": bool(result.found), "status": result.status.value,
            "algorithm": result.algorithm,
            "stats": {"expanded": s.expanded, "generated": s.generated,
                      "reopened": s.reopened, "updated": s.updated,
                      "max_open": s.max_open, "elapsed": s.elapsed}}


def wants_binary(request: Request) -> bool:
    """Whether the request asks for the binary form (``Accept: application/octet-stream``)."""
    return BINARY in request.headers.get("accept", "")


def binary(array: np.ndarray) -> Response:
    """``array`` as raw little-endian bytes in C order, its shape (``X-Shape``, comma
    separated) and numpy dtype (``X-Dtype``, e.g. ``<f8``, ``|u1``) in the headers."""
    from starlette.responses import Response

    a = np.ascontiguousarray(array)
    a = a.astype(a.dtype.newbyteorder("<"), copy=False)
    return Response(a.tobytes(), media_type=BINARY, headers={
        "X-Shape": ",".join(str(n) for n in a.shape), "X-Dtype": a.dtype.str})
