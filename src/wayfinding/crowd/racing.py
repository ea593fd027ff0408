"""Context steering on a race track: a lateral context map across the track (slot 0 the
left edge, the last slot the right edge), the racing behaviours that write it —
:func:`racing_line`, :func:`avoid_cars`, :func:`drafting` — over :class:`Cars` in track
coordinates, and :func:`decide_racing`, whose braking is the danger crossed on the way."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from typing import Any, NamedTuple

import numpy as np

from .._deprecated import positional_options
from .._validate import positive_float
from ..errors import InvalidQueryError
from .context import (
    Choice,
    ContextMap,
    _floats,
    _per_agent,
    choose,
    mask_reachable,
    splat_linear,
    splat_pyramid,
    splat_skirt,
)


@positional_options("racing_line", "track_width", "width", "length")
@dataclass(frozen=True, eq=False)
class Cars:
    """Cars on a track in track coordinates (world units and seconds), one entry per car:
    ``along`` the distance along the track (no lap wrap: give nearby cars consistent
    values), ``offset`` the lateral offset from the centre line (negative to the left),
    ``speed`` (>= 0), ``racing_speed`` (> 0, the racing line's speed where the car is),
    ``racing_line`` the line's lateral offset there, ``track_width`` (> 0); ``width`` and
    ``length`` (> 0) of each car.  Each of the last five is a number or one per car."""

    along: Any
    offset: Any
    speed: Any
    racing_speed: Any
    _: KW_ONLY
    racing_line: Any = 0.0
    track_width: Any = 12.0
    width: Any = 2.0
    length: Any = 5.0

    def __post_init__(self) -> None:
        along = _floats(self.along, "along")
        if along.ndim != 1:
            raise InvalidQueryError(f"along must be an (n,) array, not shape {along.shape}")
        n = len(along)
        fix = {"along": along}
        for name in ("offset", "speed", "racing_speed", "racing_line", "track_width",
                     "width", "length"):
            value = getattr(self, name)
            if name in ("offset", "racing_line"):
                a = _floats(value, name)
                if a.shape not in ((), (n,)):
                    raise InvalidQueryError(f"{name} must be a number or an ({n},) array, "
                                            f"not shape {a.shape}")
                a = np.broadcast_to(a, (n,))
            else:
                a = _per_agent(value, n, name, zero=name == "speed")
            fix[name] = a
        for name, a in fix.items():
            object.__setattr__(self, name, a)

    def __len__(self) -> int:
        return len(self.along)

    def slot(self, cmap: ContextMap) -> np.ndarray:
        """``(n,)`` int: the slot nearest each car's own offset."""
        return np.rint(cmap.slot_of_offset(self.offset, self.track_width)).astype(np.int64)

    def _gaps(self) -> np.ndarray:
        """``(n, n)``: how far car j is ahead of car i (centre to centre), inf on i == j."""
        gap = self.along[None, :] - self.along[:, None]
        np.fill_diagonal(gap, np.inf)
        return gap


def racing_line(cmap: ContextMap, cars: Cars, *, peak: float = 0.25,
                floor: float = 0.05) -> np.ndarray:
    """Interest across the whole track, ``peak`` at the racing line falling linearly to
    ``floor`` one track width away: never zero, so a car pushed wide still knows where
    the line is, and low so that other interest can outbid it."""
    cmap._lateral_map()
    peak = positive_float("peak", peak)
    floor = positive_float("floor", floor)
    if floor > peak:
        raise InvalidQueryError(f"floor {floor!r} must be <= peak {peak!r}")
    return splat_linear(cmap, cars.racing_line, peak - floor, cars.track_width,
                        track_width=cars.track_width) + floor


def avoid_cars(cmap: ContextMap, cars: Cars, *, look_ahead: float = 60.0,
               slow_fraction: float = 0.1, skirt: Any = 1.5) -> np.ndarray:
    """Danger at the other cars' offsets.  A car alongside (centres less than a car
    length apart along the track) is always danger 1.  A car ahead within
    ``look_ahead`` is danger only when well below racing speed (slower than
    ``(1 - slow_fraction) * racing_speed``): ``closeness * slowness``, closeness falling
    from 1 just ahead to 0 at ``look_ahead``, slowness ``1 - speed / racing_speed``.
    Cars ahead at racing speed and cars behind are ignored.

    Each is written over the offsets where the two cars would overlap (half the sum of
    their widths, plus half a slot) and a ``skirt`` beyond (world units; a number or one
    per car: wider for more cautious drivers)."""
    cmap._lateral_map()
    n = len(cars)
    look_ahead = positive_float("look_ahead", look_ahead)
    slow_fraction = positive_float("slow_fraction", slow_fraction, allow_zero=True)
    if slow_fraction >= 1:
        raise InvalidQueryError(f"slow_fraction {slow_fraction!r} must be < 1")
    skirt = _per_agent(skirt, n, "skirt", zero=True)
    gap = cars._gaps()
    length = cars.length[:, None]
    alongside = np.abs(gap) < length
    slow = cars.speed < (1 - slow_fraction) * cars.racing_speed
    ahead = (gap >= length) & (gap < look_ahead) & slow[None, :]
    closeness = np.clip(1 - (gap - length) / np.maximum(look_ahead - length, 1e-12), 0, 1)
    closeness = np.where(ahead, closeness, 0.0)
    slowness = 1 - cars.speed / cars.racing_speed
    danger = np.where(alongside, 1.0, np.clip(closeness * slowness[None, :], 0, 1))
    half = (cars.width[:, None] + cars.width[None, :]) / 2 \
        + cmap.spacing(track_width=cars.track_width, n=n)[:, None] / 2
    at = np.broadcast_to(cars.offset[None, :], (n, n))
    return splat_skirt(cmap, at, danger, half, skirt[:, None], valid=alongside | ahead,
                       track_width=cars.track_width)


def drafting(cmap: ContextMap, cars: Cars, *, max_gap: float = 40.0, reach: float = 3.0,
             gain: float = 1.0) -> np.ndarray:
    """Interest pyramids behind cars worth drafting: every car ahead (by more than a car
    length, less than ``max_gap``) scores ``gain * min(1, speed / racing_speed) * (1 -
    gap / max_gap)`` (fast and near score high), written at its offset falling to zero
    ``reach`` (world units) either side."""
    cmap._lateral_map()
    n = len(cars)
    max_gap = positive_float("max_gap", max_gap)
    reach = positive_float("reach", reach)
    gain = positive_float("gain", gain)
    gap = cars._gaps()
    ahead = (gap >= cars.length[:, None]) & (gap < max_gap)
    fast = np.minimum(1.0, cars.speed[None, :] / cars.racing_speed[:, None])
    score = np.where(ahead, gain * fast * np.clip(1 - gap / max_gap, 0, 1), 0.0)
    at = np.broadcast_to(cars.offset[None, :], (n, n))
    return splat_pyramid(cmap, at, score, reach, valid=ahead, track_width=cars.track_width)


class RacingChoice(NamedTuple):
    """What :func:`decide_racing` picked per car: ``offset`` ``(n,)`` the target lateral
    offset (world units), ``choice`` the :class:`Choice` on the lateral map, ``brake``
    ``(n,)`` in [0, 1]."""

    offset: np.ndarray
    choice: Choice
    brake: np.ndarray


def decide_racing(cmap: ContextMap, cars: Cars, interest: Any, danger: Any, *,
                  brake_threshold: float = 0.5, brake_gain: float = 1.0) -> RacingChoice:
    """The racing decision: mask what is not reachable from each car's own slot
    (:func:`mask_reachable`), :func:`choose` the best remaining offset, and brake by the
    highest danger on the slots from the car's slot to the chosen one (both included):
    ``min(1, brake_gain * danger)`` when it exceeds ``brake_threshold``, else 0 (so low
    danger can steer without slowing)."""
    cmap._lateral_map()
    n = len(cars)
    d = cmap.check(danger, name="danger", n=n)
    m = cmap.check(interest, name="interest", n=n)
    threshold = positive_float("brake_threshold", brake_threshold, allow_zero=True)
    gain_ = positive_float("brake_gain", brake_gain, allow_zero=True)
    start = cars.slot(cmap)
    choice = choose(cmap, m, mask_reachable(d, start))
    lo = np.minimum(start, choice.index)[:, None]
    hi = np.maximum(start, choice.index)[:, None]
    j = np.arange(cmap.slots)[None, :]
    worst = np.where((j >= lo) & (j <= hi), d, 0.0).max(axis=1) if n else np.zeros(0)
    brake = np.where(worst > threshold, np.minimum(1.0, gain_ * worst), 0.0)
    return RacingChoice(cmap.offset(choice.slot, cars.track_width), choice, brake)
