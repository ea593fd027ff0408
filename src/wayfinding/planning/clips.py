"""Animation clips as planning actions, and the catalogue of which clip may follow which.

A :class:`Clip` is one canned animation: its ``duration`` (seconds), the root motion it
applies in the character's frame at its start (``dx`` metres forward, ``dy`` metres to the
left, ``rotation`` radians counter-clockwise), the animation state it starts from and ends in
(``"standing"``, ``"walking"``...: a clip may follow another exactly when its start state is
the other's end state) and the root speeds at its ends (metres per second).

The root travels a circular arc (a straight line when it does not turn) when the clip's
displacement lies on the arc tangent to its start and end headings (to a relative 1e-9) and
leads forward, turning by less than half a turn: then :attr:`Clip.curvature` is that arc's
signed curvature.  Otherwise (a turn on the spot, a
sidestep, a step back) the root travels the straight segment from start to end while its
heading turns evenly, and the curvature is unbounded (``None``).

A :class:`ClipCatalogue` holds the clips by name and their state graph; it is saved to and
loaded from a JSON file::

    {"format": "wayfinding.clips", "version": 1,
     "clips": [{"name": "walk", "start_state": "walking", "end_state": "walking",
                "duration": 1.0, "dx": 1.4, "dy": 0.0, "rotation": 0.0,
                "start_speed": 1.4, "end_speed": 1.4}, ...]}

(``dx``, ``dy``, ``rotation`` and the speeds may be left out: they default to 0).
:func:`default_clips` builds a small biped catalogue.

>>> clips = default_clips()
>>> [c.name for c in clips.following("standing")][:3]
['stand', 'stand_to_walk', 'turn_left_45']
>>> walk = clips["walk"]
>>> walk.end_pose((0.0, 0.0, math.pi / 2)).round(6).tolist()
[0.0, 1.4, 1.570796]
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._io import atomic_write_text, read_text
from .._validate import finite_point, number
from ..errors import FileFormatError, InvalidQueryError, brief

#: The ``format`` and ``version`` a saved catalogue declares.
FORMAT, VERSION = "wayfinding.clips", 1

#: Relative tolerance of the test that a clip's displacement lies on its arc.
_ARC_TOL = 1e-9

_FIELDS = ("name", "start_state", "end_state", "duration", "dx", "dy", "rotation",
           "start_speed", "end_speed")
_REQUIRED = ("name", "start_state", "end_state", "duration")


def _label(what: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidQueryError(f"{what} {brief(value)} must be a non-empty string")
    return value


def local_to_world(pose: tuple[float, float, float], dx: Any, dy: Any) -> tuple[Any, Any]:
    """The world ``(x, y)`` of the offset ``dx`` forward, ``dy`` to the left of ``pose``
    ``(x, y, heading)``; ``dx`` and ``dy`` are numbers or arrays (broadcast together)."""
    x, y, h = pose
    c, s = math.cos(h), math.sin(h)
    return x + c * dx - s * dy, y + s * dx + c * dy


@dataclass(frozen=True, slots=True)
class Clip:
    """One animation clip, from its start to its end animation state; see the module
    docstring for the meaning of each field.

    ``duration`` > 0 seconds; ``dx``, ``dy`` finite metres; ``rotation`` finite radians in
    [-2π, 2π]; ``start_speed``, ``end_speed`` >= 0 metres per second; the states non-empty
    strings.  Bad values raise :class:`~wayfinding.errors.InvalidQueryError`.
    """

    name: str
    start_state: str
    end_state: str
    _: KW_ONLY
    duration: float
    dx: float = 0.0
    dy: float = 0.0
    rotation: float = 0.0
    start_speed: float = 0.0
    end_speed: float = 0.0
    #: The arc's signed curvature (1/metres), ``None`` when unbounded; set from the motion.
    curvature: float | None = field(init=False, compare=False)
    #: The root path's length in metres: the arc's, or the straight segment's.
    length: float = field(init=False, compare=False)

    def __post_init__(self) -> None:
        s = object.__setattr__
        s(self, "name", _label("clip name", self.name))
        where = f"clip {self.name!r}"
        s(self, "duration", number(f"{where} duration", self.duration, min=0.0, min_open=True))
        s(self, "dx", number(f"{where} dx", self.dx))
        s(self, "dy", number(f"{where} dy", self.dy))
        s(self, "rotation", number(f"{where} rotation", self.rotation, min=-2 * math.pi,
                                   max=2 * math.pi))
        s(self, "start_state", _label(f"{where} start_state", self.start_state))
        s(self, "end_state", _label(f"{where} end_state", self.end_state))
        s(self, "start_speed", number(f"{where} start_speed", self.start_speed, min=0.0))
        s(self, "end_speed", number(f"{where} end_speed", self.end_speed, min=0.0))
        curvature, length = _arc(self.dx, self.dy, self.rotation)
        s(self, "curvature", curvature)
        s(self, "length", length)

    @property
    def speed(self) -> float:
        """The root's mean speed over the clip: :attr:`length` / :attr:`duration` (m/s)."""
        return self.length / self.duration

    def end_pose(self, pose: ArrayLike) -> np.ndarray:
        """The pose ``(x, y, heading)`` after playing the clip from ``pose``: its root motion
        turned into the world by the start heading.  float64 ``(3,)``."""
        x, y, h = finite_point("pose", pose, 3).tolist()
        return np.array([*local_to_world((x, y, h), self.dx, self.dy), h + self.rotation])

    def root_path(self, pose: ArrayLike, step: float) -> np.ndarray:
        """Root poses ``(x, y, heading)`` along the clip played from ``pose``, start and end
        included, no two consecutive ones more than ``step`` metres apart (nor more than 15°
        of heading): float64 ``(n, 3)``."""
        step = number("step", step, min=0.0, min_open=True)
        x, y, h = finite_point("pose", pose, 3).tolist()
        n = max(1, math.ceil(self.length / step), math.ceil(abs(self.rotation) / (math.pi / 12)))
        t = np.linspace(0.0, 1.0, n + 1)
        turn = self.rotation * t
        if self.curvature is not None and self.curvature != 0.0:
            r = 1.0 / self.curvature
            lx, ly = r * np.sin(turn), r * (1.0 - np.cos(turn))
        else:
            lx, ly = self.dx * t, self.dy * t
        return np.column_stack([*local_to_world((x, y, h), lx, ly), h + turn])

    def to_dict(self) -> dict[str, Any]:
        """The clip as the JSON object a saved catalogue holds."""
        return {k: getattr(self, k) for k in _FIELDS}


def _arc(dx: float, dy: float, rotation: float) -> tuple[float | None, float]:
    """The signed curvature (None: unbounded) and root path length of a clip's motion."""
    chord = math.hypot(dx, dy)
    if rotation == 0.0:
        return (0.0, chord) if dy == 0.0 and dx > 0.0 else (None, chord)
    half = rotation / 2.0
    # On the arc tangent to both headings the chord points along half the rotation.
    on_arc = dx > 0.0 and abs(rotation) < math.pi \
        and abs(dy - dx * math.tan(half)) <= _ARC_TOL * max(chord, 1.0)
    if not on_arc:
        return None, chord
    radius = chord / (2.0 * math.sin(abs(half)))
    return math.copysign(1.0 / radius, rotation), radius * abs(rotation)


class ClipCatalogue(Mapping[str, Clip]):
    """Clips by name (in the order given) and the state graph they form: a clip may follow
    another when its ``start_state`` is the other's ``end_state``.

    Names must be unique: a repeated name raises
    :class:`~wayfinding.errors.InvalidQueryError`, as does an empty catalogue.
    """

    def __init__(self, clips: Iterable[Clip]) -> None:
        items = list(clips)
        if not items:
            raise InvalidQueryError("a clip catalogue needs at least one clip")
        by_name: dict[str, Clip] = {}
        for clip in items:
            if not isinstance(clip, Clip):
                raise InvalidQueryError(f"clip {brief(clip)} must be a Clip")
            if clip.name in by_name:
                raise InvalidQueryError(f"clip name {clip.name!r} is repeated")
            by_name[clip.name] = clip
        self._clips = by_name
        self._from: dict[str, tuple[Clip, ...]] = {}
        for clip in items:
            self._from[clip.start_state] = self._from.get(clip.start_state, ()) + (clip,)

    def __getitem__(self, name: str) -> Clip:
        return self._clips[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._clips)

    def __len__(self) -> int:
        return len(self._clips)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ClipCatalogue):
            return NotImplemented
        return list(self._clips.values()) == list(other._clips.values())

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ClipCatalogue({len(self)} clips, states {sorted(self.states)})"

    @property
    def clips(self) -> tuple[Clip, ...]:
        """The clips in catalogue order."""
        return tuple(self._clips.values())

    @property
    def states(self) -> frozenset[str]:
        """Every animation state a clip starts from or ends in."""
        return frozenset(c.start_state for c in self._clips.values()) \
            | frozenset(c.end_state for c in self._clips.values())

    def following(self, state: str) -> tuple[Clip, ...]:
        """The clips that may play in animation ``state`` (those starting from it), in
        catalogue order; an unknown state raises
        :class:`~wayfinding.errors.InvalidQueryError`."""
        if not isinstance(state, str) or state not in self.states:
            raise InvalidQueryError(f"unknown animation state {brief(state)}; the catalogue "
                                    f"has {', '.join(sorted(self.states))}")
        return self._from.get(state, ())

    def successors(self, name: str) -> tuple[Clip, ...]:
        """The clips that may follow the clip called ``name``."""
        if not isinstance(name, str) or name not in self._clips:
            raise InvalidQueryError(f"unknown clip {brief(name)}")
        return self._from.get(self._clips[name].end_state, ())

    @property
    def max_speed(self) -> float:
        """The largest mean root speed of a clip (m/s): no sequence of clips moves its root
        faster on average."""
        return max(c.speed for c in self._clips.values())

    @property
    def max_curvature(self) -> float:
        """The largest absolute curvature of a clip's root path (1/m): ``inf`` when some clip
        moves off a forward arc (turns on the spot, sidesteps, steps back; see the module
        docstring), 0 when every clip goes straight ahead or stands still.  A clip that
        neither moves nor turns leaves the root where it is and does not count.

        When it is finite, every clip sequence's root path is a forward path whose heading
        turns continuously and never tighter than radius ``1 / max_curvature``, so it is at
        least as long as the Dubins path between its start and end poses
        (:func:`~wayfinding.paths.turning_path` with that radius)."""
        return max((math.inf if c.curvature is None else abs(c.curvature)
                    for c in self._clips.values()
                    if c.dx != 0.0 or c.dy != 0.0 or c.rotation != 0.0), default=0.0)

    def to_json(self) -> str:
        """The catalogue as the JSON text :meth:`save` writes."""
        return json.dumps({"format": FORMAT, "version": VERSION,
                           "clips": [c.to_dict() for c in self._clips.values()]}, indent=1)

    def save(self, path: str | os.PathLike) -> Path:
        """Write the catalogue to the JSON file ``path`` atomically; returns the path."""
        return atomic_write_text(path, self.to_json() + "\n")

    @classmethod
    def load(cls, path: str | os.PathLike) -> ClipCatalogue:
        """Read a catalogue saved by :meth:`save` (or written by hand in its format).  A
        missing or malformed file, or a bad field, raises
        :class:`~wayfinding.errors.FileFormatError` naming the file and the field."""
        return cls.from_json(read_text(path, FileFormatError), path=path)

    @classmethod
    def from_json(cls, text: str, *, path: object = "<json>") -> ClipCatalogue:
        """Parse a catalogue from JSON ``text``; errors name ``path`` as the file."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise FileFormatError(f"not JSON ({exc.msg})", path, exc.lineno) from None
        except RecursionError:
            raise FileFormatError("nested deeper than JSON is read", path) from None
        if not isinstance(data, dict):
            raise FileFormatError("the top level must be a JSON object", path)
        if data.get("format") != FORMAT:
            raise FileFormatError(f"format {brief(data.get('format'))} must be {FORMAT!r}",
                                  path)
        if data.get("version") != VERSION or isinstance(data.get("version"), bool):
            raise FileFormatError(f"version {brief(data.get('version'))} cannot be read (this "
                                  f"version reads {VERSION})", path)
        entries = data.get("clips")
        if not isinstance(entries, list) or not entries:
            raise FileFormatError("clips must be a non-empty list", path)
        clips = [_clip_from(entry, f"clips[{i}]", path) for i, entry in enumerate(entries)]
        try:
            return cls(clips)
        except InvalidQueryError as exc:
            raise FileFormatError(f"clips: {exc}", path) from None


def _clip_from(entry: Any, where: str, path: object) -> Clip:
    """One clip of a catalogue file; a bad field raises the file's error naming it."""
    if not isinstance(entry, dict):
        raise FileFormatError(f"{where} must be a JSON object", path)
    unknown = sorted(set(entry) - set(_FIELDS))
    if unknown:
        raise FileFormatError(f"{where} has unknown field {unknown[0]!r}", path)
    for key in _REQUIRED:
        if key not in entry:
            raise FileFormatError(f"{where} lacks the field {key!r}", path)
    try:
        return Clip(**entry)
    except InvalidQueryError as exc:
        raise FileFormatError(f"{where}: {exc}", path) from None


def _arc_clip(name: str, state: str, length: float, rotation: float, duration: float,
              speed: float) -> Clip:
    """A clip from ``state`` to itself whose root travels an arc of ``length`` metres turning
    by ``rotation`` radians at ``speed``."""
    r = length / abs(rotation)
    return Clip(name, state, state, duration=duration, dx=r * math.sin(abs(rotation)),
                dy=math.copysign(r * (1.0 - math.cos(rotation)), rotation),
                rotation=rotation, start_speed=speed, end_speed=speed)


def default_clips() -> ClipCatalogue:
    """A small biped catalogue (metres, seconds) over the states ``"standing"``,
    ``"walking"`` (1.4 m/s) and ``"running"`` (4 m/s): standing still, turns on the spot by
    45° and 90°, sidesteps, stand-to-walk and walk-to-stand, walking straight and in 30° arcs,
    walk-to-run and run-to-walk, running straight and in 15° arcs."""
    walk, run = 1.4, 4.0
    st, wk, rn = "standing", "walking", "running"
    q, e = math.pi / 4, math.pi / 2
    return ClipCatalogue([
        Clip("stand", st, st, duration=0.5),
        Clip("stand_to_walk", st, wk, duration=0.8, dx=0.6, end_speed=walk),
        Clip("turn_left_45", st, st, duration=0.6, rotation=q),
        Clip("turn_right_45", st, st, duration=0.6, rotation=-q),
        Clip("turn_left_90", st, st, duration=0.9, rotation=e),
        Clip("turn_right_90", st, st, duration=0.9, rotation=-e),
        Clip("sidestep_left", st, st, duration=0.8, dy=0.5),
        Clip("sidestep_right", st, st, duration=0.8, dy=-0.5),
        Clip("walk", wk, wk, duration=1.0, dx=walk, start_speed=walk, end_speed=walk),
        _arc_clip("walk_turn_left_30", wk, walk, math.pi / 6, 1.0, walk),
        _arc_clip("walk_turn_right_30", wk, walk, -math.pi / 6, 1.0, walk),
        Clip("walk_to_stand", wk, st, duration=0.8, dx=0.6, start_speed=walk),
        Clip("walk_to_run", wk, rn, duration=0.8, dx=2.1, start_speed=walk, end_speed=run),
        Clip("run_to_walk", rn, wk, duration=0.8, dx=2.1, start_speed=run, end_speed=walk),
        Clip("run", rn, rn, duration=0.5, dx=2.0, start_speed=run, end_speed=run),
        _arc_clip("run_turn_left_15", rn, 2.0, math.pi / 12, 0.5, run),
        _arc_clip("run_turn_right_15", rn, 2.0, -math.pi / 12, 0.5, run),
    ])
