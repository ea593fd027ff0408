"""Anticipatory avoidance by the time-to-collision power law (Karamouzas, Skinner and Guy,
"Universal power law governing pedestrian interactions", 2014).

Two agents interact through the energy E(tau) = k tau^-m exp(-tau / tau0) of their
time to collision tau (the first time their discs would touch, each going straight on);
each is pushed down the gradient of E with respect to its position, so it reacts to a
collision ahead long before it is near, and not at all to a neighbour it will not meet.
A goal force (preferred - velocity) / relaxation pulls towards the preferred velocity.

>>> from wayfinding.crowd import Crowd
>>> crowd = Crowd()
>>> a = crowd.add((-6.0, 0.0), goal=(6.0, 0.0), radius=0.3, max_speed=1.3)
>>> b = crowd.add((6.0, 0.1), goal=(-6.0, 0.1), radius=0.3, max_speed=1.3)
>>> law, closest = PowerLaw(), 12.0
>>> for _ in range(1000):
...     law.step(crowd, 0.02)
...     closest = min(closest, float(np.hypot(*(crowd.position[0] - crowd.position[1]))))
>>> closest > 0.6, bool(np.allclose(crowd.position_of(a), (6.0, 0.0), atol=0.05))
(True, True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._deprecated import positional_options, renamed_keywords, warn
from .._kernels import _forces
from .._validate import count, positive_float, reals
from ..errors import InvalidQueryError, brief
from .agents import Crowd

#: Pairs with a coordinate, velocity or radius beyond this are worked out in units of the
#: largest (``_kernels/_forces.pyx`` has the same rule).
_HUGE = 1e75


def time_to_collision(w: Any, v: Any, radius: Any) -> np.ndarray:
    """The first tau > 0 with ``|w - v tau| = radius`` (w: the other agent's position relative
    to this one, v: this one's velocity relative to the other); inf when they never touch
    going straight on.  Arrays of shape ``(..., 2)`` and ``(...)`` (finite; radius > 0)."""
    shape, (w, v), r = _pair_arrays(w, v, radius)
    return _time_to_collision(w, v, r).reshape(shape[:-1])


def _time_to_collision(w: np.ndarray, v: np.ndarray, radius: np.ndarray) -> np.ndarray:
    """:func:`time_to_collision` on float arrays already checked.  A pair with a value
    beyond 1e75 is worked out in units of the power of two above its largest (tau does
    not change with the units; no square overflows), as the force kernels do."""
    big = np.maximum(np.abs(w).max(-1, initial=0.0), np.abs(v).max(-1, initial=0.0))
    big = np.maximum(big, radius)
    if (big > _HUGE).any():
        units = np.where(big > _HUGE, np.ldexp(1.0, np.frexp(big)[1]), 1.0)
        w, v, radius = w / units[..., None], v / units[..., None], radius / units
    a = (v * v).sum(-1)
    b = (w * v).sum(-1)
    c = (w * w).sum(-1) - radius * radius
    disc = b * b - a * c
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        tau = (b - np.sqrt(np.maximum(disc, 0))) / a
    return np.where((disc > 0) & (a > 1e-12) & (tau > 0), tau, np.inf)


def _pair_arrays(w: Any, v: Any, radius: Any
                ) -> tuple[tuple[int, ...], list[np.ndarray], np.ndarray]:
    """Relative positions and velocities ``(..., 2)`` and summed radii ``(...)`` as the
    force kernels take them, checked (finite numbers, radii > 0, shapes that broadcast):
    the broadcast shape, ``[w, v]`` as contiguous ``(m, 2)`` and the radii ``(m,)``."""
    arrays = [reals(name, x) for name, x in (("w", w), ("v", v), ("radius", radius))]
    try:
        shape = np.broadcast_shapes(arrays[0].shape, arrays[1].shape, arrays[2].shape + (2,))
    except ValueError:
        shape = ()
    if not shape or shape[-1] != 2 or arrays[0].shape[-1:] != (2,) \
            or arrays[1].shape[-1:] != (2,):
        raise InvalidQueryError(f"w {brief(w)}, v {brief(v)} and radius {brief(radius)} "
                                "must broadcast to (..., 2), (..., 2) and (...)")
    for name, x, given in zip(("w", "v", "radius"), arrays, (w, v, radius)):
        if not np.isfinite(x).all() or (name == "radius" and not (x > 0).all()):
            raise InvalidQueryError(f"{name} {brief(given)} must be finite"
                                    + (" and > 0" if name == "radius" else ""))
    flat = [np.ascontiguousarray(np.broadcast_to(x, shape).reshape(-1, 2))
            for x in arrays[:2]]
    r = np.ascontiguousarray(np.broadcast_to(arrays[2], shape[:-1]).reshape(-1))
    return shape, flat, r


class ForceModel:
    """The explicit Euler step shared by the force models, which define
    ``forces(crowd, preferred, dt)`` (every agent's force, velocity change per second)."""

    forces: Callable[..., np.ndarray]

    @positional_options("preferred")
    def step(self, crowd: Crowd, dt: float, *, preferred: ArrayLike | None = None) -> None:
        """One explicit Euler step of ``dt`` seconds (0.02 suits the force models):
        velocity plus force times ``dt``, then :meth:`Crowd.step` (speed and acceleration
        limits)."""
        dt = positive_float("dt", dt)
        force = self.forces(crowd, preferred=preferred, dt=dt)
        crowd.step(dt, velocity=crowd.velocity + force * dt)


class PowerLaw(ForceModel):
    """The power-law model's parameters (the paper's: k 1.5, m 2, tau0 3 s) with its
    sample code's goal relaxation (0.5 s), largest force per neighbour (5) and sensing
    distance (``neighbour_dist``, 7); ``max_neighbours`` nearest within it (``None``: the
    crowd's)."""

    @renamed_keywords(sensing="neighbour_dist")
    def __init__(self, *, k: float = 1.5, m: float = 2.0, tau0: float = 3.0,
                 relaxation: float = 0.5, max_force: float = 5.0, neighbour_dist: float = 7.0,
                 max_neighbours: int | None = None):
        self.k, self.m = positive_float("k", k), positive_float("m", m)
        self.tau0, self.relaxation = positive_float("tau0", tau0), \
            positive_float("relaxation", relaxation)
        self.max_force = positive_float("max_force", max_force)
        self.neighbour_dist = positive_float("neighbour_dist", neighbour_dist)
        self.max_neighbours = None if max_neighbours is None \
            else count("max_neighbours", max_neighbours)

    @property
    def sensing(self) -> float:
        """Deprecated name of :attr:`neighbour_dist`."""
        warn("PowerLaw.sensing", "PowerLaw.neighbour_dist")
        return self.neighbour_dist

    def energy(self, tau: np.ndarray) -> np.ndarray:
        """E(tau) = k tau^-m exp(-tau / tau0) for times to collision tau >= 0 (inf at 0, 0
        where tau is inf)."""
        tau = reals("tau", tau)
        if np.isnan(tau).any() or (tau < 0).any():
            raise InvalidQueryError(f"tau {brief(tau)} must be >= 0 (inf allowed)")
        with np.errstate(divide="ignore", over="ignore"):
            return np.where(np.isfinite(tau),
                            self.k * tau ** -self.m * np.exp(-tau / self.tau0), 0.0)

    def pair_forces(self, w: Any, v: Any, radius: Any) -> np.ndarray:
        """The force on an agent from a neighbour at relative position ``w`` with relative
        velocity ``v`` (as :func:`time_to_collision`; ``(..., 2)``, radius ``(...)``):
        minus the gradient of E with respect to the agent's position, at most
        ``max_force`` long.  Overlapping pairs use a radius just under their distance.
        Compiled (``_kernels/_forces.pyx``)."""
        shape, flat, r = _pair_arrays(w, v, radius)
        out = np.empty_like(flat[0])
        _forces.pairs(_forces.POWER_LAW, flat[0], flat[1], r, self.k, self.m, self.tau0,
                      self.max_force, out)
        return out.reshape(shape)

    @positional_options("preferred", "dt")
    def forces(self, crowd: Crowd, *, preferred: ArrayLike | None = None, dt: float = 0.02
               ) -> np.ndarray:
        """Every agent's total force, ``(n, 2)``: the goal force towards ``preferred``
        (default :meth:`Crowd.preferred_velocity` for ``dt``) plus the avoidance forces of
        its neighbours within ``neighbour_dist``."""
        if not isinstance(crowd, Crowd):
            raise InvalidQueryError(f"expected a Crowd, got {type(crowd).__name__}")
        n = len(crowd)
        pref = crowd.velocities(preferred, dt)
        total = (pref - crowd.velocity) / self.relaxation
        if n < 2:
            return total
        rows, counts = crowd.neighbours(distance=self.neighbour_dist,
                                        max_neighbours=self.max_neighbours)
        _forces.neighbours(_forces.POWER_LAW, np.ascontiguousarray(crowd.position),
                           np.ascontiguousarray(crowd.velocity),
                           np.ascontiguousarray(crowd.radius), rows, counts, self.k, self.m,
                           self.tau0, self.max_force, total)
        return total
