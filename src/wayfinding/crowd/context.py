"""Context steering: behaviours write interest and danger maps, one decision reads them.

A context map is a row of ``slots`` non-negative numbers per agent, an ``(n, slots)``
float64 array; :class:`ContextMap` says what the slots mean.  On a heading map slot ``i``
is the heading ``2 pi i / slots`` radians (counter-clockwise from +x, as ``atan2(y, x)``)
and slot ``slots - 1`` neighbours slot 0.  On a lateral map (racing) the slots span a
track's cross-section: slot 0 is the left edge (lateral offset ``-track_width / 2``), slot
``slots - 1`` the right edge (``+track_width / 2``), and nothing wraps.

Every frame each behaviour writes an *interest* map (where to go) and a *danger* map
(where not to go); behaviours are stateless and never decide.  :func:`combine` merges
maps slot by slot with max, so an obstacle hidden behind another adds nothing.  The
decision masks slots by danger (:func:`mask_min_danger`: every slot above the least
danger; :func:`mask_reachable`: everything beyond a rise in danger as seen from the
current slot), then :func:`choose` takes the highest remaining interest, refined to a
fraction of a slot by a parabola through it and its two neighbours.  Speed follows the
chosen interest (:func:`decide`, :func:`desired_velocity`, :func:`steer`); on a track
the danger crossed on the way gives the braking
(:func:`~wayfinding.crowd.racing.decide_racing`).  :func:`blur`
and :class:`TemporalBlend` post-process maps.  Writers: :func:`splat_linear`,
:func:`splat_pyramid`, :func:`splat_skirt`.  Behaviours: :func:`chase` and :func:`avoid`
on heading maps; the racing behaviours on a lateral map are in
:mod:`wayfinding.crowd.racing`.

Everything is vectorised over agents and slots; the cost is linear in the resolution, so
fewer slots for far-away agents is a level-of-detail knob.

Fray's example (Game AI Pro 2, Fig. 14.1): target A is near but behind an obstacle, B far but
clear.  Chase wants A most; avoid masks the headings towards A, so the agent turns to B
(west, slot 4 of 8) instead of stalling between the two:

>>> cmap = ContextMap(8)
>>> here = np.zeros((1, 2))
>>> interest = chase(cmap, here, [(0.0, -4.0), (-12.0, 0.0)], reach=np.pi / 4)
>>> danger = avoid(cmap, here, [(0.0, -2.0)], clearance=1.0, min_distance=3.0)
>>> choice = decide(cmap, interest, danger)
>>> choice.index.tolist(), np.degrees(cmap.heading(choice.slot)).round(6).tolist()
([4], [180.0])
>>> desired_velocity(cmap, choice, max_speed=2.0).round(3).tolist()
[[-0.909, 0.0]]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .._deprecated import positional_options
from .._validate import count, flag, positive_float
from ..errors import InvalidQueryError, brief
from .agents import Crowd

TAU = 2 * math.pi


# --------------------------------------------------------------------------- validation


def _floats(value: Any, name: str) -> np.ndarray:
    try:
        a = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidQueryError(f"{name} {brief(value)} must be numbers") from None
    if not np.isfinite(a).all():
        raise InvalidQueryError(f"{name} must be finite (got {brief(value)})")
    return a


def _per_agent(value: Any, n: int, name: str, *, zero: bool = False) -> np.ndarray:
    """A number or an ``(n,)`` array, each > 0 (>= 0 with ``zero``), as ``(n,)``."""
    a = _floats(value, name)
    if a.shape not in ((), (n,)):
        raise InvalidQueryError(f"{name} must be a number or an ({n},) array, not shape "
                                f"{a.shape}")
    if (a < 0).any() or (not zero and (a == 0).any()):
        raise InvalidQueryError(f"{name} {value!r} must be > 0" + (" (or 0)" if zero else ""))
    return np.broadcast_to(a, (n,))


def _mask(valid: Any, shape: tuple[int, int], name: str = "valid") -> np.ndarray:
    if valid is None:
        return np.ones(shape, dtype=bool)
    m = np.asarray(valid)
    if m.dtype != bool or m.shape not in (shape, shape[1:]):
        raise InvalidQueryError(f"{name} must be a bool array of shape {shape} or "
                                f"{shape[1:]}, not {m.dtype} {m.shape}")
    return np.broadcast_to(m, shape)


def _points(value: Any, n: int, name: str) -> np.ndarray:
    """``(k, 2)`` points shared by all agents, or ``(n, k, 2)`` per agent, as ``(n, k, 2)``."""
    p = _floats(value, name)
    if p.ndim == 2 and p.shape[1] == 2:
        return np.broadcast_to(p, (n,) + p.shape)
    if p.ndim == 3 and p.shape[0] == n and p.shape[2] == 2:
        return p
    raise InvalidQueryError(f"{name} must be a (k, 2) or ({n}, k, 2) array of points, not "
                            f"shape {p.shape}")


def _positions(value: Any, name: str = "position") -> np.ndarray:
    p = _floats(value, name)
    if p.ndim != 2 or p.shape[1] != 2:
        raise InvalidQueryError(f"{name} must be an (n, 2) array, not shape {p.shape}")
    return p


def _with_widths(value: Any, name: str, track_width: Any) -> tuple[np.ndarray, np.ndarray]:
    """``value`` and ``track_width`` (> 0) as float arrays of one shape."""
    v, w = _floats(value, name), _floats(track_width, "track_width")
    if (w <= 0).any():
        raise InvalidQueryError(f"track_width {track_width!r} must be > 0")
    try:
        bv, bw = np.broadcast_arrays(v, w)
    except ValueError:
        raise InvalidQueryError(f"track_width must be a number or match {name}'s shape "
                                f"{v.shape}, not {w.shape}") from None
    return bv, bw


def _angle_gap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a - b| for angles in radians, in [0, pi]."""
    return np.abs((a - b + math.pi) % TAU - math.pi)


# --------------------------------------------------------------------------- the map


@positional_options("lateral")
@dataclass(frozen=True)
class ContextMap:
    """The meaning of a context map's slots: ``slots`` (>= 3) headings round the agent, or
    with ``lateral`` positions across a track.  Maps themselves are ``(n, slots)`` float64
    arrays of values >= 0, one row per agent; this object only converts and checks.

    Heading maps: slot ``i`` <-> heading ``2 pi i / slots`` radians, wrapping.  Lateral
    maps: slot ``i`` <-> offset ``(i / (slots - 1) - 1/2) * track_width`` from the track's
    centre line (world units, negative to the left), no wrap.
    """

    slots: int
    lateral: bool = field(default=False, kw_only=True)

    def __post_init__(self) -> None:
        count("slots", self.slots)
        if self.slots < 3:
            raise InvalidQueryError(f"slots {self.slots!r} must be an integer >= 3")
        object.__setattr__(self, "lateral", flag("lateral", self.lateral))

    @property
    def wraps(self) -> bool:
        """Whether slot ``slots - 1`` neighbours slot 0 (heading maps)."""
        return not self.lateral

    def zeros(self, n: int) -> np.ndarray:
        """An empty ``(n, slots)`` map."""
        return np.zeros((count("n", n, min=0), self.slots))

    @positional_options("name", "n")
    def check(self, values: Any, *, name: str = "map", n: int | None = None) -> np.ndarray:
        """``values`` as a finite ``(n, slots)`` float64 array of values >= 0 (no copy when
        it already is one), else a clear error naming it."""
        m = _floats(values, name) if not isinstance(values, np.ndarray) \
            or values.dtype != np.float64 else values
        if m.ndim != 2 or m.shape[1] != self.slots or (n is not None and len(m) != n):
            want = f"({'n' if n is None else n}, {self.slots})"
            raise InvalidQueryError(f"{name} must be a {want} array, not shape {m.shape}")
        if not np.isfinite(m).all() or (m < 0).any():
            raise InvalidQueryError(f"{name} must be finite and >= 0")
        return m

    # headings
    def _heading_map(self) -> None:
        if self.lateral:
            raise InvalidQueryError("a lateral map has offsets, not headings")

    def _lateral_map(self) -> None:
        if not self.lateral:
            raise InvalidQueryError("a heading map has headings, not lateral offsets")

    def headings(self) -> np.ndarray:
        """``(slots,)`` the slots' headings, radians."""
        self._heading_map()
        return np.arange(self.slots) * (TAU / self.slots)

    def heading(self, slot: Any) -> np.ndarray:
        """The heading (radians, in [0, 2 pi)) of (fractional) slot positions."""
        self._heading_map()
        return (_floats(slot, "slot") % self.slots) * (TAU / self.slots)

    def slot_of(self, heading: Any) -> np.ndarray:
        """The fractional slot position (in [0, slots)) of headings in radians."""
        self._heading_map()
        return (_floats(heading, "heading") % TAU) * (self.slots / TAU) % self.slots

    # lateral offsets
    @positional_options("n")
    def offsets(self, track_width: Any, *, n: int | None = None) -> np.ndarray:
        """``(n, slots)`` the slots' lateral offsets for each agent's ``track_width``."""
        self._lateral_map()
        w = _floats(track_width, "track_width")
        n = (len(w) if w.ndim else 1) if n is None else n
        w = _per_agent(w, n, "track_width")
        return (np.arange(self.slots) / (self.slots - 1) - 0.5) * w[:, None]

    def offset(self, slot: Any, track_width: Any) -> np.ndarray:
        """The lateral offset of (fractional) slot positions; ``track_width`` a number or
        one per position."""
        self._lateral_map()
        s, w = _with_widths(slot, "slot", track_width)
        return (s / (self.slots - 1) - 0.5) * w

    def slot_of_offset(self, offset: Any, track_width: Any) -> np.ndarray:
        """The fractional slot position of lateral offsets, clipped to the track."""
        self._lateral_map()
        u, w = _with_widths(offset, "offset", track_width)
        return np.clip((u / w + 0.5) * (self.slots - 1), 0, self.slots - 1)

    @positional_options("track_width", "n")
    def spacing(self, *, track_width: Any = None, n: int | None = None) -> Any:
        """The distance between neighbouring slots: radians on a heading map, world units
        (one per agent) on a lateral map."""
        if not self.lateral:
            return TAU / self.slots
        w = _floats(track_width, "track_width")
        return _per_agent(w, (len(w) if w.ndim else 1) if n is None else n,
                          "track_width") / (self.slots - 1)


# --------------------------------------------------------------------------- writers


def _per_pair(value: Any, name: str, n: int, k: int, *, zero: bool) -> np.ndarray:
    """``value`` (a number, ``(n,)`` per agent, or ``(k,)``/``(n, k)``) broadcast to
    ``(n, k)``, checked > 0 (>= 0 with ``zero``)."""
    v = _floats(value, name)
    if v.shape == (n,):
        v = v[:, None]
    try:
        v = np.broadcast_to(v, (n, k))
    except ValueError:
        raise InvalidQueryError(f"{name} must be a number or broadcast to {(n, k)}, not "
                                f"shape {v.shape}") from None
    if (v < 0).any() or (not zero and (v == 0).any()):
        raise InvalidQueryError(f"{name} must be {'>=' if zero else '>'} 0 "
                                f"(got {float(v.min()):g})")
    return v


def _splat(cmap: ContextMap, at: Any, value: Any, plateau: Any, reach: Any, valid: Any,
           track_width: Any, into: Any, snap: bool) -> np.ndarray:
    """Write ``value * clip(1 - (d - plateau) / reach, 0, 1)`` (``d`` the distance of each
    slot from ``at``; with ``reach`` 0 a flat top over ``d <= plateau``), max into the map."""
    a = _floats(at, "at")
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2:
        raise InvalidQueryError(f"at must be an (n,) or (n, k) array, not shape {a.shape}")
    n, k = a.shape
    parts = {}
    for name, v in (("value", value), ("plateau", plateau), ("reach", reach)):
        parts[name] = _per_pair(v, name, n, k, zero=True)
    ok = _mask(valid, (n, k))
    if into is not None and not (isinstance(into, np.ndarray) and into.dtype == np.float64
                                 and into.flags.writeable):
        raise InvalidQueryError("into must be a writable float64 numpy array")
    out = cmap.zeros(n) if into is None else cmap.check(into, name="into", n=n)
    if cmap.lateral:
        where = cmap.offsets(track_width, n=n)                     # (n, slots)
        if snap:
            step = where[:, 1:2] - where[:, :1]
            a = np.clip(np.rint((a - where[:, :1]) / step), 0, cmap.slots - 1) * step \
                + where[:, :1]
        d = np.abs(where[:, None, :] - a[:, :, None])
    else:
        if track_width is not None:
            raise InvalidQueryError("track_width is for lateral maps only")
        if snap:
            a = np.rint(a * (cmap.slots / TAU)) * (TAU / cmap.slots)
        d = _angle_gap(cmap.headings()[None, None, :], a[:, :, None])
    over = d - parts["plateau"][..., None]
    r = parts["reach"][..., None]
    frac = np.where(over <= 0, 1.0,
                    np.clip(1 - np.divide(over, r, out=np.full(over.shape, np.inf),
                                          where=r > 0), 0, 1))
    written = np.where(ok[..., None], parts["value"][..., None] * frac, 0.0)
    if k:
        np.maximum(out, written.max(axis=1), out=out)
    return out


def splat_linear(cmap: ContextMap, at: Any, value: Any, reach: Any, *, valid: Any = None,
                 track_width: Any = None, into: np.ndarray | None = None) -> np.ndarray:
    """Write ``value`` at ``at`` falling linearly to zero ``reach`` away (a tent sampled at
    each slot), combined into ``into`` (default a fresh map) by slot-wise max.

    ``at``: ``(n,)`` or ``(n, k)`` headings (radians) on a heading map, lateral offsets
    (world units) on a lateral map, which also needs ``track_width`` (a number or
    ``(n,)``); ``value`` and ``reach`` (>= 0, in the same units as ``at``) broadcast to
    it, a ``(n,)`` array per agent; ``valid`` (bool, like ``at``) skips entries.
    Returns the ``(n, slots)`` map (``into`` itself when given)."""
    return _splat(cmap, at, value, 0.0, reach, valid, track_width, into, snap=False)


def splat_pyramid(cmap: ContextMap, at: Any, value: Any, reach: Any, *, valid: Any = None,
                  track_width: Any = None, into: np.ndarray | None = None) -> np.ndarray:
    """Like :func:`splat_linear`, but centred on the slot nearest ``at``: that one slot
    gets the full ``value`` and the others step down evenly on both sides."""
    return _splat(cmap, at, value, 0.0, reach, valid, track_width, into, snap=True)


def splat_skirt(cmap: ContextMap, at: Any, value: Any, half_width: Any, skirt: Any, *,
                valid: Any = None, track_width: Any = None,
                into: np.ndarray | None = None) -> np.ndarray:
    """The full ``value`` within ``half_width`` of ``at`` (e.g. a car's body), then a skirt
    falling linearly to zero over a further ``skirt`` (wider for more caution).  Same
    arguments and units as :func:`splat_linear`."""
    return _splat(cmap, at, value, half_width, skirt, valid, track_width, into, snap=False)


# --------------------------------------------------------------------------- behaviours


def chase(cmap: ContextMap, position: ArrayLike, targets: ArrayLike, *, valid: Any = None,
          reach: float = math.pi / 2, distance_scale: float = 10.0) -> np.ndarray:
    """Interest towards every target: ``1 / (1 + distance / distance_scale)`` at its
    heading (so 1 on top of it, 1/2 at ``distance_scale``), falling linearly to zero
    ``reach`` radians either side.  No target is picked here.

    ``position``: ``(n, 2)``; ``targets``: ``(k, 2)`` for everyone or ``(n, k, 2)`` per
    agent, ``valid`` (bool ``(k,)`` or ``(n, k)``) marking the real ones.  A target on the
    agent itself has no heading and writes nothing.  Returns the ``(n, slots)`` interest.
    """
    cmap._heading_map()
    p = _positions(position)
    t = _points(targets, len(p), "targets")
    reach = positive_float("reach", reach)
    if reach > math.pi:
        raise InvalidQueryError(f"reach {reach!r} must be <= pi radians")
    scale = positive_float("distance_scale", distance_scale)
    ok = _mask(valid, (t.shape[0], t.shape[1]))
    to = t - p[:, None, :]
    dist = np.hypot(to[..., 0], to[..., 1])
    return splat_linear(cmap, np.arctan2(to[..., 1], to[..., 0]), 1 / (1 + dist / scale),
                        reach, valid=ok & (dist > 0))


def avoid(cmap: ContextMap, position: ArrayLike, obstacles: Any, *, clearance: Any,
          min_distance: float, valid: Any = None, skirt: float = 0.0) -> np.ndarray:
    """Danger towards every obstacle nearer than ``min_distance`` (centre to centre):
    ``1 - distance / min_distance`` (closer is more dangerous), over every heading that
    would enter the disc of radius ``clearance`` round it (half-width
    ``asin(clearance / distance)``, a right angle once inside), widened by half a slot so
    that a safe slot's whole sector is safe, plus an optional linear ``skirt`` (radians).

    ``clearance``: the obstacle's radius plus the agent's plus any margin, > 0: a number,
    ``(n,)`` per agent or ``(n, k)``/``(k,)`` per obstacle.  ``obstacles`` and ``valid``
    as ``targets`` in :func:`chase`; an obstacle exactly on the agent writes nothing.
    Returns the ``(n, slots)`` danger."""
    cmap._heading_map()
    p = _positions(position)
    o = _points(obstacles, len(p), "obstacles")
    n, k = o.shape[:2]
    c = _per_pair(clearance, "clearance", n, k, zero=False)
    limit = positive_float("min_distance", min_distance)
    skirt = positive_float("skirt", skirt, allow_zero=True)
    ok = _mask(valid, (n, k))
    to = o - p[:, None, :]
    dist = np.hypot(to[..., 0], to[..., 1])
    near = ok & (dist > 0) & (dist < limit)
    ratio = np.divide(c, dist, out=np.ones_like(dist), where=dist > c)
    cone = np.arcsin(np.minimum(ratio, 1.0)) + cmap.spacing() / 2
    return splat_skirt(cmap, np.arctan2(to[..., 1], to[..., 0]),
                       np.clip(1 - dist / limit, 0, 1), cone, skirt, valid=near)


# --------------------------------------------------------------------------- processing


def combine(*maps: Any) -> np.ndarray:
    """The slot-wise maximum of maps of one shape (a fresh array)."""
    if not maps:
        raise InvalidQueryError("give at least one map")
    first = _floats(maps[0], "map")
    if first.ndim != 2:
        raise InvalidQueryError(f"maps must be (n, slots) arrays, not shape {first.shape}")
    out = first.copy()
    for m in maps[1:]:
        m = _floats(m, "map")
        if m.shape != out.shape:
            raise InvalidQueryError(f"maps must share one shape: {out.shape} and {m.shape}")
        np.maximum(out, m, out=out)
    return out


@positional_options("amount", "passes")
def blur(cmap: ContextMap, values: Any, *, amount: float = 0.25, passes: int = 1
         ) -> np.ndarray:
    """Smooth out spikes and troughs: each pass moves every slot towards its neighbours,
    ``(1 - 2 amount) * self + amount * (left + right)`` with ``0 <= amount <= 1/2``.  A
    heading map wraps round; a lateral map's edge slot counts itself as its missing
    neighbour.  Returns a fresh map."""
    m = cmap.check(values, name="values").copy()
    amount = positive_float("amount", amount, allow_zero=True)
    if amount > 0.5:
        raise InvalidQueryError(f"amount {amount!r} must be <= 0.5")
    for _ in range(count("passes", passes, min=0)):
        if cmap.wraps:
            left, right = np.roll(m, 1, axis=1), np.roll(m, -1, axis=1)
        else:
            left = np.concatenate([m[:, :1], m[:, :-1]], axis=1)
            right = np.concatenate([m[:, 1:], m[:, -1:]], axis=1)
        m = (1 - 2 * amount) * m + amount * (left + right)
    return m


class TemporalBlend:
    """Blend each agent's map with its own blended map of the previous call:
    ``(1 - weight) * current + weight * previous``, a global hysteresis that keeps a choice
    for a while after its reason fades, with no state in the behaviours.

    Rows are matched by agent id, so agents may come, go and be reordered between calls;
    a new agent (or one whose map changed resolution) starts from its current map, and
    agents missing from a call are forgotten.  Deterministic.  Blending alone cannot break
    an exact, unchanging alternation of two symmetric maps (the newest frame weighs most),
    but it holds a choice long enough for the agent's own movement to settle it.
    """

    @positional_options("weight")
    def __init__(self, *, weight: float = 0.5):
        self.weight = positive_float("weight", weight, allow_zero=True)
        if self.weight >= 1:
            raise InvalidQueryError(f"weight {weight!r} must be < 1")
        self.reset()

    def reset(self) -> None:
        """Forget every agent's history."""
        self._ids = np.zeros(0, dtype=np.int64)
        self._maps = np.zeros((0, 0))

    def __call__(self, ids: Any, values: Any) -> np.ndarray:
        """``values`` ``(n, slots)`` blended with the history of agents ``ids`` ``(n,)``
        (distinct integers, e.g. :attr:`Crowd.ids`); returns the blended maps and keeps
        them as the next call's history."""
        m = _floats(values, "values")
        if m.ndim != 2 or (m < 0).any():
            raise InvalidQueryError(f"values must be an (n, slots) array >= 0, not shape "
                                    f"{m.shape}")
        i = np.asarray(ids)
        if i.shape != (len(m),) or (i.size and i.dtype.kind not in "iu"):
            raise InvalidQueryError(f"ids must be {len(m)} integers, not {ids!r}")
        i = i.astype(np.int64)
        order = np.argsort(i, kind="stable")
        if (np.diff(i[order]) == 0).any():
            raise InvalidQueryError(f"ids must be distinct, not {ids!r}")
        out = m.copy()
        if len(self._ids) and self._maps.shape[1] == m.shape[1]:
            at = np.minimum(np.searchsorted(self._ids, i), len(self._ids) - 1)
            known = self._ids[at] == i
            out[known] = (1 - self.weight) * m[known] + self.weight * self._maps[at[known]]
        self._ids, self._maps = i[order], out[order]
        return out


# --------------------------------------------------------------------------- decision


class Choice(NamedTuple):
    """What :func:`choose` picked per agent: ``index`` ``(n,)`` int, the best allowed slot
    (ties to the lowest); ``slot`` ``(n,)`` float, its sub-slot refinement (within half a
    slot; in [0, slots)); ``interest`` ``(n,)``, the interest at ``index``."""

    index: np.ndarray  # type: ignore[assignment]  # the field shadows tuple.index
    slot: np.ndarray
    interest: np.ndarray


@positional_options("tolerance")
def mask_min_danger(danger: np.ndarray, *, tolerance: float = 0.0) -> np.ndarray:
    """``(n, slots)`` bool: the slots whose danger is at most the agent's least danger
    (plus ``tolerance``); every other slot is masked out."""
    d = _floats(danger, "danger")
    if d.ndim != 2 or d.shape[1] == 0:
        raise InvalidQueryError(f"danger must be an (n, slots) array, not shape {d.shape}")
    tolerance = positive_float("tolerance", tolerance, allow_zero=True)
    return d <= d.min(axis=1, keepdims=True) + tolerance


def mask_reachable(danger: np.ndarray, start: ArrayLike) -> np.ndarray:
    """``(n, slots)`` bool: the slots reachable from slot ``start`` (``(n,)`` ints) on a
    lateral map by walking left or right while the next slot's danger is *not higher*
    than the current one's (``<=``: a flat, clear track stays open; any rise stops the
    walk, so the agent never crosses higher danger, yet can always walk out of danger
    downhill)."""
    d = _floats(danger, "danger")
    if d.ndim != 2 or d.shape[1] == 0:
        raise InvalidQueryError(f"danger must be an (n, slots) array, not shape {d.shape}")
    n, slots = d.shape
    s = np.asarray(start)
    if s.shape != (n,) or (n and s.dtype.kind not in "iu") or (s < 0).any() \
            or (s >= slots).any():
        raise InvalidQueryError(f"start must be {n} slot indices in [0, {slots}), not "
                                f"{start!r}")
    s = s[:, None]
    edge = np.arange(slots - 1)[None, :]                  # edge t joins slots t and t + 1
    stop_right = (d[:, 1:] > d[:, :-1]) & (edge >= s)     # cannot step t -> t + 1
    stop_left = (d[:, :-1] > d[:, 1:]) & (edge < s)       # cannot step t + 1 -> t
    right = np.where(stop_right.any(1), stop_right.argmax(1), slots - 1)
    left = np.where(stop_left.any(1), slots - 2 - stop_left[:, ::-1].argmax(1), -1) + 1
    j = np.arange(slots)[None, :]
    return (j >= left[:, None]) & (j <= right[:, None])


def choose(cmap: ContextMap, interest: Any, allowed: Any) -> Choice:
    """Per agent, the allowed slot of highest interest (never a masked one, even when all
    interest is zero; an agent with no allowed slot is an error), refined by the vertex
    of the parabola through it and its two neighbours (masked neighbours count as zero
    interest), the offset clamped to half a slot.  Equal neighbours give the slot
    itself; on a lateral map an edge slot is not refined."""
    m = cmap.check(interest, name="interest")
    ok = np.asarray(allowed)
    if ok.dtype != bool or ok.shape != m.shape:
        raise InvalidQueryError(f"allowed must be a bool array of shape {m.shape}")
    if not ok.any(axis=1).all():
        raise InvalidQueryError("every agent needs at least one allowed slot")
    n, slots = m.shape
    masked = np.where(ok, m, 0.0)
    index = np.where(ok, m, -np.inf).argmax(axis=1)
    rows = np.arange(n)
    b = masked[rows, index]
    if cmap.wraps:
        a, c = masked[rows, (index - 1) % slots], masked[rows, (index + 1) % slots]
    else:
        a, c = masked[rows, np.maximum(index - 1, 0)], masked[rows, np.minimum(index + 1,
                                                                               slots - 1)]
        a = np.where(index == 0, c, a)                    # mirrored: no refinement
        c = np.where(index == slots - 1, a, c)
    curve = a - 2 * b + c
    shift = np.divide(0.5 * (a - c), curve, out=np.zeros(n), where=curve < 0)
    shift = np.clip(shift, -0.5, 0.5)
    slot = index + shift
    slot = slot % slots if cmap.wraps else np.clip(slot, 0, slots - 1)
    return Choice(index, slot, b)


def decide(cmap: ContextMap, interest: Any, danger: Any, *, tolerance: float = 0.0) -> Choice:
    """The generic decision: mask every slot above the least danger
    (:func:`mask_min_danger`), then :func:`choose`."""
    d = cmap.check(danger, name="danger")
    return choose(cmap, cmap.check(interest, name="interest", n=len(d)),
                  mask_min_danger(d, tolerance=tolerance))


def desired_velocity(cmap: ContextMap, choice: Choice, max_speed: Any, *,
                     gain: Any = None) -> np.ndarray:
    """``(n, 2)`` velocities along the chosen (sub-slot) headings at
    ``min(max_speed, gain * interest)``; ``gain`` (speed per unit of interest; a number or
    ``(n,)``) defaults to ``max_speed``, so interest 1 means top speed."""
    n = len(choice.index)
    top = _per_agent(max_speed, n, "max_speed", zero=True)
    g = top if gain is None else _per_agent(gain, n, "gain", zero=True)
    speed = np.minimum(top, g * choice.interest)
    angle = cmap.heading(choice.slot)
    return np.stack([np.cos(angle), np.sin(angle)], axis=1) * speed[:, None]


def steer(crowd: Crowd, cmap: ContextMap, interest: Any, danger: Any, *, gain: Any = None,
          tolerance: float = 0.0) -> np.ndarray:
    """Context steering for a :class:`Crowd`: :func:`decide`, then the steering
    ``desired_velocity - velocity`` (``(n, 2)``, like the behaviours of
    :mod:`wayfinding.crowd.steering`), capped by each agent's ``max_speed``."""
    choice = decide(cmap, cmap.check(interest, name="interest", n=len(crowd)),
                    cmap.check(danger, name="danger", n=len(crowd)), tolerance=tolerance)
    return desired_velocity(cmap, choice, crowd.max_speed, gain=gain) - crowd.velocity
