"""The ``wayfinding`` command line: path, scen, index, render, generate (grids), world
(graphs and world graphs), navmesh and navmesh3d (navigation meshes in 2D and 3D), voxel,
field, crowd, vehicle, traffic and climb, clips, movement, locomotion, footsteps and motion
(planning with the body), constraints and multidomain (constraint-aware planning), demo and
serve.

Exit status: 0 on success, 1 when a scenario run finds mismatches, 2 on bad input (one line
on stderr: ``wayfinding: error: ...``), 130 when interrupted (Ctrl-C), 141 when the reader of
the output goes away (a closed pipe, as in ``wayfinding scen ... | head -1``; nothing more is
written), as for a command stopped by SIGINT or SIGPIPE.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

from .. import __version__
from ..errors import WayfindingError
from .args import Parser, join_negative_pairs
from .climbing import add_climb_parser
from .constraints import add_constraints_parsers
from .crowd import add_crowd_parser
from .demo import add_demo_parser
from .fields import add_fields_parser
from .generate import add_generate_parser
from .grid import add_grid_parsers
from .navmesh import add_navmesh_parser
from .navmesh3d import add_navmesh3d_parser
from .planning import add_planning_parsers
from .serve import add_serve_parser
from .traffic import add_traffic_parser
from .vehicles import add_vehicle_parser
from .voxel import add_voxel_parser
from .world import add_world_parser

#: What ``wayfinding --help`` says first.
DESCRIPTION = """\
A navigation toolkit for games: find and draw paths on grids, graphs and world graphs,
navigation meshes in 2D and 3D and voxel worlds; steer many agents with flow fields and
crowd models.  Each command below works on one family; `wayfinding COMMAND --help` tells
more."""

#: What ``wayfinding --help`` says last: the families and their commands, and the exit status.
EPILOG = """\
families and their commands:
  grids                  path, scen, index, render, generate: Moving AI .map and .scen
                         files, square grids with terrain costs; A*, Dijkstra, JPS, JPS+,
                         goal bounds, subgoal graphs, HPA* and any-angle paths (Theta*)
  graphs and world graphs
                         world: waypoint graphs, Dirichlet domains, visibility graphs and
                         probabilistic roadmaps built from a map's obstacles; hex grids
  navigation meshes 2D   navmesh: convex-polygon meshes for one agent radius and
                         clearance meshes for every radius; corridor and funnel paths
  navigation meshes 3D   navmesh3d: voxel navmeshes of 3D levels as Recast builds them;
                         paths, raycasts and nearest polygons
  voxels                 voxel: 3D voxel worlds (Moving AI .3dmap, voxelized meshes) and
                         sparse voxel octrees; 3D paths and .3dscen checks
  fields                 field: integration and flow fields towards a goal; continuum-crowd
                         scenes
  crowds                 crowd: standard scenarios under ORCA, RVO, VO, power-law and
                         anticipatory avoidance, with their metrics and GIFs
  vehicles and traversal
                         vehicle, traffic, climb: car paths by hybrid A* against their
                         lower bounds and pedestrians crossing a street of carriages;
                         routes per driver personality and lane lattices on road grids;
                         climb paths over ledges, pipes and ladders on a generated wall
  planning with the body
                         clips, movement, locomotion, footsteps, motion: animation clip
                         catalogues; the cheapest clip sequence to a goal pose on a plane,
                         map or navmesh; navmesh paths played clip by clip to their mark;
                         timed footsteps for a few characters avoiding each other's
                         bodies; motion models fitted to a character controller
  constraint-aware planning
                         constraints, multidomain: the multiplier field of a constraints
                         file (regions, discs, the space between objects, sides, lines of
                         sight; in, near and hard) and paths under several files side by
                         side (grid path and navmesh path take --constraints too); plans
                         across a static mesh, a density mesh, the grid and space-time
  every family           demo: an HTML page that solves and draws each of them
  service                serve: paths, distance maps, flow fields and crowds on grids,
                         navmeshes and voxel worlds over HTTP; the playground

exit status: 0 on success, 1 when a scenario run finds mismatches, 2 on bad input (one line
on stderr), 130 when interrupted, 141 when the output pipe is closed."""


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="wayfinding", description=DESCRIPTION, epilog=EPILOG,
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_grid_parsers(sub)
    add_demo_parser(sub)
    add_world_parser(sub)
    add_navmesh_parser(sub)
    add_navmesh3d_parser(sub)
    add_voxel_parser(sub)
    add_fields_parser(sub)
    add_crowd_parser(sub)
    add_vehicle_parser(sub)
    add_traffic_parser(sub)
    add_climb_parser(sub)
    add_planning_parsers(sub)
    add_constraints_parsers(sub)
    add_generate_parser(sub)
    add_serve_parser(sub)
    return parser


def _reason(exc: BaseException) -> str:
    """One line for a failed command."""
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        text = f"{exc.filename}: {exc.strerror}"
    elif isinstance(exc, MemoryError):
        text = f"out of memory{f' ({exc})' if str(exc) else ''}"
    else:
        text = str(exc) or type(exc).__name__
    return " ".join(text.split())


def _interrupted(args: argparse.Namespace) -> str:
    checkpoint = getattr(args, "checkpoint", None)
    if checkpoint is not None and os.path.exists(checkpoint):
        return (f"interrupted; the progress is saved in {checkpoint} (run the same command "
                "to resume)")
    return "interrupted"


def main(argv: list[str] | None = None) -> int:
    """Run one command line (default ``sys.argv[1:]``) and return its exit status."""
    parser = build_parser()
    args = parser.parse_args(join_negative_pairs(sys.argv[1:] if argv is None else argv))
    if args.command is None:
        parser.print_help()
        return 0
    try:
        with warnings.catch_warnings():
            # numpy's and GEOS's floating-point warnings on the way to an error: the error
            # line says what went wrong.
            warnings.simplefilter("ignore", RuntimeWarning)
            code = args.run(args)
        sys.stdout.flush()
        return code
    except KeyboardInterrupt:
        print(f"wayfinding: {_interrupted(args)}", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader is gone: send what is left to /dev/null, so that the flush at exit
        # does not fail too
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 141
    except (WayfindingError, ImportError, OSError, MemoryError) as exc:
        print(f"wayfinding: error: {_reason(exc)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())



