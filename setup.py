"""Build the compiled kernels (Cython 3) alongside the pure-Python package.

The kernels are cythonized when they are built (into the build folder), not when setup.py is
read, so an sdist holds the ``.pyx`` sources only and building it needs a C/C++ compiler
(Cython and numpy come as build requirements).  Flags depend on the compiler: GCC and clang
(Linux, macOS, MinGW) or MSVC.
"""

import os
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

KERNELS = sorted(p.stem for p in Path("src/wayfinding/_kernels").glob("*.pyx"))

# Per kernel and compiler family ("gcc", "clang", "msvc"): flags beyond the optimisation level.
EXTRA_COMPILE_ARGS = {
    # GCC leaves the fast march out of the continuum update (its one caller, already large)
    # unless a large function may grow more; called apart, the update runs about 5% slower.
    "_continuum_potential": {"gcc": ["--param", "large-function-growth=300"]},
    # GCC refuses to inline the A* relaxation into the jump search on its unit-growth limit.
    "_jps": {"gcc": ["--param=inline-unit-growth=300"]},
    # Clearance values are compared for equality with a plain evaluation: no fused multiply-add.
    "_clearance": {"gcc": ["-ffp-contract=off"], "clang": ["-ffp-contract=off"],
                   "msvc": ["/fp:precise"]},
    # The car planner repeats the Python paths' arithmetic bit for bit: no fused multiply-add.
    "_hybrid": {"gcc": ["-ffp-contract=off"], "clang": ["-ffp-contract=off"],
                "msvc": ["/fp:precise"]},
    # The movement planner repeats the Python definitions' arithmetic: no fused multiply-add.
    "_movement": {"gcc": ["-ffp-contract=off"], "clang": ["-ffp-contract=off"],
                  "msvc": ["/fp:precise"]},
    # The Reeds–Shepp and Dubins words round as the library defines them: no fused multiply-add.
    "_turning": {"gcc": ["-ffp-contract=off"], "clang": ["-ffp-contract=off"],
                 "msvc": ["/fp:precise"]},
}
# Kernels whose loops run on several threads (OpenMP, ``cython.parallel.prange``).  Apple's
# clang has no OpenMP runtime: there these loops run on the calling thread.
OPENMP = {"_goal_bounds"}
OPENMP_FLAGS = {"gcc": ["-fopenmp"], "msvc": ["/openmp"]}
OPTIMIZE = {"gcc": ["-O3"], "clang": ["-O3"], "msvc": ["/O2"]}
assert (EXTRA_COMPILE_ARGS.keys() | OPENMP) <= set(KERNELS), "flags for a kernel that is not there"

DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
}


def compiler_family(compiler) -> str:
    """``"msvc"``, ``"clang"`` or ``"gcc"`` for a distutils compiler object."""
    if compiler.compiler_type == "msvc":
        return "msvc"
    command = " ".join(getattr(compiler, "compiler_so", None) or [])
    return "clang" if "clang" in command or sys.platform == "darwin" else "gcc"


class BuildKernels(build_ext):
    """Cythonize the kernels into the build folder (never beside the sources, so builds against
    different numpy versions do not share generated C), then compile them, one per core, with
    their compiler's flags."""

    def finalize_options(self) -> None:
        if self.parallel is None:
            self.parallel = True    # one compiler per core
        super().finalize_options()

    def build_extensions(self) -> None:
        import numpy as np
        from Cython.Build import cythonize

        generated = cythonize(self.extensions, compiler_directives=DIRECTIVES,
                              build_dir=os.path.join(self.build_temp, "cython"),
                              nthreads=os.cpu_count() if os.name == "posix" else 0)
        family = compiler_family(self.compiler)
        for ext, c in zip(self.extensions, generated, strict=True):
            ext.sources, ext.language = c.sources, c.language
            name = ext.name.rsplit(".", 1)[1]
            threads = OPENMP_FLAGS.get(family, []) if name in OPENMP else []
            ext.extra_compile_args = [*OPTIMIZE[family],
                                      *EXTRA_COMPILE_ARGS.get(name, {}).get(family, []), *threads]
            ext.extra_link_args = threads if family == "gcc" else []
            ext.include_dirs.append(np.get_include())
        super().build_extensions()


extensions = [
    Extension(
        f"wayfinding._kernels.{name}",
        [f"src/wayfinding/_kernels/{name}.pyx"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for name in KERNELS
]

setup(ext_modules=extensions, cmdclass={"build_ext": BuildKernels})
