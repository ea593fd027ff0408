"""Build the compiled kernels (Cython 3) alongside the pure-Python package."""

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

KERNELS = ["_workspace", "_gridsearch", "_gridops", "_csrsearch"]

extensions = [
    Extension(
        f"wayfinding._kernels.{name}",
        [f"src/wayfinding/_kernels/{name}.pyx"],
        include_dirs=[np.get_include()],
        extra_compile_args=["-O3"],
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
