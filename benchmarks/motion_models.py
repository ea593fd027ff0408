"""Motion models: fitting simulated character controllers and hitting marks with the fit.

Run from the repository root::

    python benchmarks/motion_models.py [--out BENCHMARKS.md] [--quick]

Each controller (:class:`~wayfinding.planning.motion_simulation.SimulatedController` with the
parameters below) is fitted by :func:`~wayfinding.planning.motion_fitting.fit_motion_model`
(rough speed range 1–4 m/s, 3 samples per command, 30 Hz): the fit's time and command count,
the speed range, the deceleration coefficients and their residuals.  Then the character walks
to marks 0.5–50 m ahead from rest, its control speed from
:meth:`~wayfinding.planning.motion_models.MotionModel.stop_control_speed` (a stop, once
triggered, is kept): the largest distance it ended short of or past its mark.  The same walk
with the naïve model steering assumes (a stop from ``v`` takes ``v² / (2 a)`` at the stop
animation's nominal deceleration ``a``, no lag) shows what the fit buys.  Last, the default
controller at twice the size (speeds, accelerations and lengths doubled) walks with the
default fit scaled by :meth:`~wayfinding.planning.motion_models.MotionModel.scaled`, and the
time of one cap.  The future-speed cap is measured the same way: from rest toward a point
that wants a lower speed.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time

from _report import fmt_us, publish, run_header, table

from wayfinding.planning.motion_fitting import fit_motion_model
from wayfinding.planning.motion_models import MotionModel
from wayfinding.planning.motion_simulation import (
    ControllerParams,
    SimulatedController,
    SimulationSettings,
)

SECTION = "## Motion models"
DT = 1.0 / 30.0
CONTROLLERS = {
    "default": ControllerParams(),
    "no blend lag": ControllerParams(blend_delay=0.0),
    "long lag, noisy": ControllerParams(blend_delay=0.3, jitter=0.05),
    "slow stop": ControllerParams(stop_deceleration=3.0, deceleration_falloff=0.8),
}
QUICK = ("default", "long lag, noisy")
MARKS = (0.5, 1.0, 2.0, 3.0, 5.0, 7.5, 10.0, 20.0, 50.0)
FUTURES = (1.0, 2.0, 4.0)
AHEAD = (5.0, 15.0, 30.0)


def walk(controller: SimulatedController, mark: float, limit) -> float:
    """Where the character stops when its control speed is ``limit(speed, remaining)``."""
    controller.reset(3)
    x = v = 0.0
    stopping = False
    for _ in range(int(120 / DT)):
        control = 0.0 if stopping else limit(v, max(mark - x, 0.0))
        stopping = control == 0.0
        x, _, _, v = controller.step(control, 0.0, DT)
        if stopping and v == 0.0:
            break
    return x


def errors(params: ControllerParams, limit) -> tuple[float, float]:
    """The most the walks ended short of and past their marks (m)."""
    ends = [walk(SimulatedController(params=params), m, limit) - m for m in MARKS]
    return max(0.0, -min(ends)), max(0.0, max(ends))


def arrival_excess(params: ControllerParams, model: MotionModel) -> tuple[float, float]:
    """From rest, capped by ``future_speed_cap`` toward a point needing each of
    :data:`FUTURES` at each of :data:`AHEAD` metres: the most the speed there fell below and
    rose above the speed wanted (m/s)."""
    gaps = []
    for future in FUTURES:
        for ahead in AHEAD:
            controller = SimulatedController(params=params)
            controller.reset(3)
            x = v = 0.0
            while x < ahead:
                x, _, _, v = controller.step(model.future_speed_cap(future, ahead - x), 0.0,
                                             DT)
            gaps.append(v - future)
    return max(0.0, -min(gaps)), max(0.0, max(gaps))


def fitted_limit(model: MotionModel):
    return lambda v, d: model.stop_control_speed(v, desired_speed=model.max_speed, distance=d)


def naive_limit(params: ControllerParams):
    def limit(v: float, d: float) -> float:
        cap = math.sqrt(2.0 * params.stop_deceleration * d)
        return 0.0 if v > cap else min(params.max_speed, cap)
    return limit


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--quick", action="store_true", help="two controllers")
    args = ap.parse_args(argv)
    t0, fits, marks = time.perf_counter(), [], []
    models = {}
    for name in (QUICK if args.quick else CONTROLLERS):
        params = CONTROLLERS[name]
        t = time.perf_counter()
        fit = fit_motion_model(SimulatedController(params=params), rough_min_speed=1.0,
                               rough_max_speed=4.0,
                               settings=SimulationSettings(jitter=params.jitter))
        spent = time.perf_counter() - t
        model = models[name] = fit.model
        if model is None or fit.deceleration is None:
            fits.append([name, f"{spent:.2f}", str(len(fit.runs)), "failed: "
                         + "; ".join(f"{w}: {r}" for w, r in fit.failures), "", "", ""])
            continue
        a, b, c = fit.deceleration.coefficients.tolist()
        fits.append([name, f"{spent:.2f}", str(len(fit.runs)),
                     f"{model.min_speed:g}–{model.max_speed:g}", f"{a:.3f}, {b:.3f}, {c:.3f}",
                     f"{fit.deceleration.rms:.3f}", f"{fit.deceleration.max_error:.3f}"])
        short, past = errors(params, fitted_limit(model))
        naive_short, naive_past = errors(params, naive_limit(params))
        slow, fast = arrival_excess(params, model)
        marks.append([name, f"{short:.3f}", f"{past:.3f}", f"{naive_short:.3f}",
                      f"{naive_past:.3f}", f"{slow:.3f}", f"{fast:.3f}"])
        print(f"  {fits[-1]} {marks[-1]}", file=sys.stderr, flush=True)
    base = CONTROLLERS["default"]
    big = dataclasses.replace(
        base, min_speed=2 * base.min_speed, max_speed=2 * base.max_speed,
        acceleration=2 * base.acceleration, deceleration=2 * base.deceleration,
        stop_deceleration=2 * base.stop_deceleration,
        lateral_acceleration=2 * base.lateral_acceleration)
    scaled = models["default"].scaled(scale=2.0)
    short, past = errors(big, fitted_limit(scaled))
    marks.append(["default at scale 2, model scaled", f"{short:.3f}", f"{past:.3f}", "", "",
                  "", ""])
    calls = 20000
    t = time.perf_counter()
    for k in range(calls):
        scaled.stop_control_speed(3.0, desired_speed=6.0, distance=0.001 * k)
    per_cap = (time.perf_counter() - t) / calls
    body = "\n\n".join([
        run_header("motion_models.py", argv, None, time.perf_counter() - t0),
        "Fits of simulated controllers (rough range 1–4 m/s, 3 samples per command, 30 Hz): "
        "fit time, commands run, the speed range found, the deceleration "
        "`dv(d) = a d² + b d + c √d` and the RMS and largest residual of its least-squares "
        "fit to the worst-case slow-downs, bounded never to exceed them (m/s).",
        table(["controller", "fit s", "commands", "range m/s", "a, b, c", "rms", "max"],
              fits),
        f"Walking from rest to marks {MARKS[0]:g}–{MARKS[-1]:g} m ahead under the stop "
        "trigger and its 95% cap: the most the character ended short of or past its mark "
        "(m), with the fitted model and with the naïve model (stops of `v² / 2a` at the stop "
        "animation's nominal deceleration, no lag).  Then, capped by `future_speed_cap` toward "
        f"a point {'/'.join(f'{a:g}' for a in AHEAD)} m ahead that wants "
        f"{'/'.join(f'{f:g}' for f in FUTURES)} m/s: the most the speed there fell below or "
        "rose above the speed wanted (m/s).",
        table(["controller", "short", "past", "naïve short", "naïve past", "arrival below",
               "arrival above"], marks),
        f"One `stop_control_speed` call: {fmt_us(per_cap)} µs."])
    publish(body, args.out, SECTION)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
