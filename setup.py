"""Build the compiled kernels (Cython 3) alongside the pure-Python package."""

import tempfile
from pathlib import Path

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools._distutils.ccompiler import new_compiler
from setuptools._distutils.errors import CompileError, LinkError
from setuptools._distutils.sysconfig import customize_compiler

KERNELS = sorted(p.stem for p in Path("src/wayfinding/_kernels").glob("*.pyx"))
OPENMP = {"_continuum"}  # kernels that run a second thread when the compiler has OpenMP


def openmp_flags() -> list[str]:
    """["-fopenmp"] if the C compiler builds and links an OpenMP program with it, else []
    (the kernels then run on one thread)."""
    compiler = new_compiler()
    customize_compiler(compiler)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "omp.c"
        src.write_text("#include <omp.h>\nint main(void) { return omp_get_num_procs() < 1; }\n")
        try:
            objects = compiler.compile([str(src)], output_dir=tmp, extra_postargs=["-fopenmp"])
            compiler.link_executable(objects, str(Path(tmp) / "omp"),
                                     extra_postargs=["-fopenmp"])
        except (CompileError, LinkError):
            return []
    return ["-fopenmp"]


OMP = openmp_flags()

extensions = [
    Extension(
        f"wayfinding._kernels.{name}",
        [f"src/wayfinding/_kernels/{name}.pyx"],
        include_dirs=[np.get_include()],
        extra_compile_args=["-O3"] + (OMP if name in OPENMP else []),
        extra_link_args=OMP if name in OPENMP else [],
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
