"""Build the compiled kernels (Cython 3) alongside the pure-Python package."""

from pathlib import Path

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

KERNELS = sorted(p.stem for p in Path("src/wayfinding/_kernels").glob("*.pyx"))

# GCC leaves the fast march out of the continuum update (its one caller, already large) unless
# a large function may grow more; called apart, the update runs about 5% slower.
EXTRA_COMPILE_ARGS = {"_continuum_potential": ["--param", "large-function-growth=300"]}
# Kernels whose loops run on several threads (OpenMP, ``cython.parallel.prange``).
OPENMP = {"_goal_bounds"}
assert (EXTRA_COMPILE_ARGS.keys() | OPENMP) <= set(KERNELS), "flags for a kernel that is not there"

extensions = [
    Extension(
        f"wayfinding._kernels.{name}",
        [f"src/wayfinding/_kernels/{name}.pyx"],
        include_dirs=[np.get_include()],
        extra_compile_args=["-O3", *EXTRA_COMPILE_ARGS.get(name, []),
                            *(["-fopenmp"] if name in OPENMP else [])],
        extra_link_args=["-fopenmp"] if name in OPENMP else [],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for name in KERNELS
]

setup(
    ext_modules=cythonize(
        extensions,
        language_level=3,
        compiler_directives={
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    )
)
