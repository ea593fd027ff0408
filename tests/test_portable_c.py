"""The kernels' portable C layer (``_kernels/_portable.pxd``): it compiles as C and as C++
with the C compiler found here and, where clang is on PATH, for the MSVC targets (x64, ARM64),
MinGW and macOS; its bit scans, atomics, aligned allocation and clock give the results of a
plain reference; the goal-bound box updates other compilers take (lane by lane) give those of
the vector ones; and no other kernel source names a compiler builtin or a POSIX clock
itself."""

from __future__ import annotations

import random
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

KERNELS = Path(__file__).resolve().parents[1] / "src" / "wayfinding" / "_kernels"
PORTABLE = KERNELS / "_portable.pxd"

pytestmark = pytest.mark.skipif(not PORTABLE.exists(),
                                reason=f"kernel sources not found under {KERNELS}")

CC = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
CLANG = shutil.which("clang")
MSVC_TARGETS = ("x86_64-pc-windows-msvc", "aarch64-pc-windows-msvc")
# Targets whose compilers are GCC-like, with the system headers of another machine.
OTHER_TARGETS = ("x86_64-w64-windows-gnu", "arm64-apple-macos11", "x86_64-apple-macos10.9")

# Stand-ins for the system headers of Windows and macOS, absent here, declaring only what the
# layer uses: clang's own resource headers give <intrin.h>, <stddef.h> and <stdint.h>.
SYSTEM_HEADERS = {
    "stdlib.h": """
        #include <stddef.h>
        #ifdef __cplusplus
        extern "C" {
        #endif
        void *malloc(size_t);
        void free(void *);
        int posix_memalign(void **, size_t, size_t);
        #ifdef __cplusplus
        }
        #endif
    """,
    "string.h": """
        #include <stddef.h>
        #ifdef __cplusplus
        extern "C"
        #endif
        void *memcpy(void *, const void *, size_t);
    """,
    "malloc.h": """
        #include <stddef.h>
        #ifdef __cplusplus
        extern "C" {
        #endif
        void *_aligned_malloc(size_t, size_t);
        void _aligned_free(void *);
        #ifdef __cplusplus
        }
        #endif
    """,
    "setjmp.h": "typedef struct { unsigned long long part[32]; } jmp_buf[1];",
    "time.h": "/* nothing used */",
    "windows.h": """
        typedef union _LARGE_INTEGER {
            struct { unsigned long LowPart; long HighPart; } u;
            long long QuadPart;
        } LARGE_INTEGER;
        #ifdef __cplusplus
        extern "C" {
        #endif
        __declspec(dllimport) int __stdcall QueryPerformanceCounter(LARGE_INTEGER *);
        __declspec(dllimport) int __stdcall QueryPerformanceFrequency(LARGE_INTEGER *);
        #ifdef __cplusplus
        }
        #endif
    """,
    "mach/mach_time.h": """
        #include <stdint.h>
        typedef struct { uint32_t numer; uint32_t denom; } mach_timebase_info_data_t;
        #ifdef __cplusplus
        extern "C" {
        #endif
        int mach_timebase_info(mach_timebase_info_data_t *);
        uint64_t mach_absolute_time(void);
        #ifdef __cplusplus
        }
        #endif
    """,
}

# Calls every function of the layer once (in MSVC mode clang warns of unused static functions;
# MSVC does not).
USE_ALL = """
int wf_use_all(void *p, int64_t *i, uint64_t *u, double *d) {
    int r = wf_ctz32(6u) + wf_ctz64(8ull) + wf_clz64(1ull);
    wf_prefetch_write(p);
    wf_pause();
    wf_store_release_i64(i, wf_load_acquire_i64(i));
    wf_store_seq_cst_i64(i, wf_increment_acq_rel_i64(i));
    wf_store_seq_cst_u64(u, wf_load_acquire_u64(u));
    r += wf_compare_swap_seq_cst_u64(u, 1, 2);
    wf_store_release_f64(d, wf_load_acquire_f64(d));
    wf_aligned_free(wf_aligned_alloc(64, 100));
    return r + (wf_monotonic() > 0.0);
}
"""


def verbatim_c(path: Path) -> str:
    """The C of the first ``cdef extern from *`` block of a Cython source."""
    found = re.search(r'cdef extern from \*:\n    """\n(.*?)\n    """', path.read_text(), re.S)
    assert found, f"no verbatim C block in {path.name}"
    return textwrap.dedent(found.group(1)) + "\n"


def compile_c(command: list[str], source: str, tmp_path: Path, name: str) -> Path:
    """Write ``source`` to ``tmp_path / name`` and run ``command`` on it; fails with the
    compiler's messages."""
    path = tmp_path / name
    path.write_text(source)
    done = subprocess.run([*command, str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"{' '.join(command)} {name}:\n{done.stdout}{done.stderr}"
    return path


@pytest.mark.skipif(CC is None, reason="no C compiler (cc, gcc or clang) on PATH")
@pytest.mark.parametrize("language", ["c", "c++"])
@pytest.mark.parametrize("compiler", ["cc", "clang"])
def test_compiles_with_the_compilers_found(compiler: str, language: str,
                                           tmp_path: Path) -> None:
    """As a kernel includes it (most functions unused): no warning either."""
    command = CC if compiler == "cc" else CLANG
    if command is None:
        pytest.skip(f"{compiler} is not on PATH")
    compile_c([command, "-x", language, "-Wall", "-Wextra", "-Werror", "-fsyntax-only"],
              verbatim_c(PORTABLE), tmp_path, "portable.c")


def _cross_mode(target: str, language: str, tmp_path: Path) -> list[str]:
    """clang's command to check C for ``target`` against the stand-in system headers
    (skips when this clang cannot compile for it)."""
    assert CLANG is not None
    headers = tmp_path / "system"
    for name, text in SYSTEM_HEADERS.items():
        (headers / name).parent.mkdir(parents=True, exist_ok=True)
        (headers / name).write_text(textwrap.dedent(text))
    mode = [CLANG, f"--target={target}", "-nostdlibinc", "-isystem", str(headers),
            "-x", language, "-fsyntax-only"]
    if "msvc" in target:
        mode[2:2] = ["-fms-extensions", "-fms-compatibility"]
    elif "apple" in target and language == "c++":
        mode[2:2] = ["-stdlib=libc++"]
    probe = subprocess.run([*mode, "-"], input="int x;\n", capture_output=True, text=True,
                           timeout=60)
    if probe.returncode != 0:
        pytest.skip(f"this clang cannot compile for {target}: {probe.stderr.strip()}")
    return mode


@pytest.mark.skipif(CLANG is None, reason="clang is not on PATH: MSVC targets not checked")
@pytest.mark.parametrize("language", ["c", "c++"])
@pytest.mark.parametrize("target", MSVC_TARGETS)
def test_compiles_for_msvc_targets(target: str, language: str, tmp_path: Path) -> None:
    mode = _cross_mode(target, language, tmp_path)
    # The MSVC branch is the one compiled: _MSC_VER without __GNUC__.
    source = verbatim_c(PORTABLE) + USE_ALL + "\n#if !defined(WF_MSVC)\n#error no MSVC\n#endif\n"
    compile_c([*mode, "-Wall", "-Wextra", "-Werror"], source, tmp_path, "portable.c")


@pytest.mark.skipif(CLANG is None, reason="clang is not on PATH: other systems not checked")
@pytest.mark.parametrize("language", ["c", "c++"])
@pytest.mark.parametrize("target", OTHER_TARGETS)
def test_compiles_for_mingw_and_macos(target: str, language: str, tmp_path: Path) -> None:
    mode = _cross_mode(target, language, tmp_path)
    compile_c([*mode, "-Wall", "-Wextra", "-Werror"], verbatim_c(PORTABLE), tmp_path,
              "portable.c")


def _reference_ctz(x: int) -> int:
    return (x & -x).bit_length() - 1


@pytest.mark.skipif(CC is None, reason="no C compiler (cc, gcc or clang) on PATH")
@pytest.mark.parametrize("language", ["c", "c++"])
def test_results_match_a_plain_reference(language: str, tmp_path: Path) -> None:
    assert CC is not None
    rng = random.Random(26)
    words = [1, 2, 1 << 63, (1 << 64) - 1, 0x8000_0001] + [
        rng.getrandbits(64) >> rng.randrange(64) | 1 << rng.randrange(64) for _ in range(300)]
    table = ",\n".join(f"    {w}ull" for w in words)
    program = verbatim_c(PORTABLE) + f"""
#include <stdio.h>
static const unsigned long long words[] = {{
{table}
}};
int main(void) {{
    size_t k;
    int64_t i = 5;
    uint64_t u = 7;
    double d = 1.5, t0, t1;
    void *m[3];
    for (k = 0; k < sizeof words / sizeof words[0]; k++)
        printf("bits %d %d %d\\n", wf_ctz64(words[k]), wf_clz64(words[k]),
               (unsigned int) words[k] ? wf_ctz32((unsigned int) words[k]) : -1);
    printf("i64 %lld", (long long) wf_load_acquire_i64(&i));
    wf_store_release_i64(&i, -3);
    printf(" %lld", (long long) i);
    wf_store_seq_cst_i64(&i, 9);
    printf(" %lld", (long long) wf_increment_acq_rel_i64(&i));
    printf(" %lld\\n", (long long) i);
    printf("u64 %llu", (unsigned long long) wf_load_acquire_u64(&u));
    wf_store_seq_cst_u64(&u, 18446744073709551615ull);
    printf(" %d", wf_compare_swap_seq_cst_u64(&u, 1, 2));
    printf(" %llu", (unsigned long long) u);
    printf(" %d", wf_compare_swap_seq_cst_u64(&u, 18446744073709551615ull, 2));
    printf(" %llu\\n", (unsigned long long) u);
    printf("f64 %g", wf_load_acquire_f64(&d));
    wf_store_release_f64(&d, -0.25);
    printf(" %g\\n", d);
    m[0] = wf_aligned_alloc(64, 100);
    m[1] = wf_aligned_alloc(64, 0);
    m[2] = wf_aligned_alloc(64, (size_t) -1);
    printf("alloc %d %d %d\\n", m[0] != NULL && ((size_t) m[0] & 63) == 0,
           m[1] != NULL && ((size_t) m[1] & 63) == 0, m[2] == NULL);
    wf_aligned_free(m[0]);
    wf_aligned_free(m[1]);
    t0 = wf_monotonic();
    for (k = 0; (t1 = wf_monotonic()) < t0 + 0.01 && k < 100000000; k++)
        ;
    printf("clock %d\\n", t1 >= t0 + 0.01 && t1 < t0 + 10.0);
    return 0;
}}
"""
    source = compile_c([CC, "-x", language, "-O2", "-Wall", "-Werror", "-o",
                        str(tmp_path / "portable")], program, tmp_path, "portable.c")
    out = subprocess.run([str(tmp_path / "portable")], capture_output=True, text=True,
                         timeout=60, check=True, cwd=source.parent).stdout.splitlines()
    expected = [f"bits {_reference_ctz(w)} {64 - w.bit_length()} "
                f"{_reference_ctz(w & 0xFFFF_FFFF) if w & 0xFFFF_FFFF else -1}" for w in words]
    expected += ["i64 5 -3 9 10", "u64 7 0 18446744073709551615 1 2", "f64 1.5 -0.25",
                 "alloc 1 1 1", "clock 1"]
    assert out == expected


@pytest.mark.skipif(CC is None, reason="no C compiler (cc, gcc or clang) on PATH")
def test_goal_bound_lanes_match_the_vector_path(tmp_path: Path) -> None:
    """``_goal_bounds``: the box updates compilers without vector extensions use (lane by
    lane, no SSE2) give the results of the vector ones, on random boxes and costs."""
    assert CC is not None
    block = verbatim_c(KERNELS / "_goal_bounds.pyx")
    lanes = block
    for condition in ("defined(__GNUC__)", "defined(__SSE2__) || defined(_M_X64) || "
                      "defined(_M_AMD64)", "defined(WF_SSE2)"):
        assert f"#if {condition}" in lanes, condition
        lanes = lanes.replace(f"#if {condition}", "#if 0")
    for name in ("wf_widen", "wf_merge", "wf_tight_pair"):
        lanes = lanes.replace(name, "lanes" + name[2:])
    program = block + lanes + r"""
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    unsigned short a[32], b[32], o1[32], o2[32];
    double g[64];
    int offset[8] = {-8, 1, 8, -1, -7, 9, 7, -9};
    double length[8] = {1, 1, 1, 1, 1.4142135623730951, 1.4142135623730951,
                        1.4142135623730951, 1.4142135623730951};
    unsigned int r0, r1, f0, f1, steps;
    unsigned short x, y;
    long bad = 0;
    int k, i;
    srand(26);
    for (k = 0; k < 20000; k++) {
        steps = (unsigned int) rand() & 255u;
        x = (unsigned short) rand();
        y = (unsigned short) (rand() % 7);
        for (i = 0; i < 32; i++) {
            a[i] = b[i] = (unsigned short) (rand() % 9 == 0 ? 0xFFFF : rand());
            o1[i] = o2[i] = (unsigned short) rand();
        }
        for (i = 0; i < 64; i++)
            g[i] = rand() % 5 + (rand() % 3 == 0 ? 0.4142135623730951 : 0.0);
        wf_widen(a, steps, x, y);
        lanes_widen(b, steps, x, y);
        wf_merge(o1, a, 32);
        lanes_merge(o2, b, 32);
        for (i = 0; i < 32; i++)
            bad += (a[i] != b[i]) + (o1[i] != o2[i]);
        wf_tight_pair(g, 20 + k % 20, offset, length, 1.0 + 1e-10, &r0, &r1);
        lanes_tight_pair(g, 20 + k % 20, offset, length, 1.0 + 1e-10, &f0, &f1);
        bad += (r0 != f0) + (r1 != f1);
    }
    printf("%ld\n", bad);
    return 0;
}
"""
    compile_c([CC, "-x", "c", "-O2", "-Wall", "-Werror", "-o", str(tmp_path / "lanes")],
              program, tmp_path, "lanes.c")
    out = subprocess.run([str(tmp_path / "lanes")], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    assert out.strip() == "0"


def test_no_kernel_names_a_compiler_builtin() -> None:
    offenders = [f"{path.name}:{n}: {line.strip()}"
                 for path in sorted([*KERNELS.glob("*.pyx"), *KERNELS.glob("*.pxd")])
                 if path != PORTABLE
                 for n, line in enumerate(path.read_text().splitlines(), 1)
                 if any(name in line for name in ("__builtin_", "__atomic_", "clock_gettime"))]
    assert not offenders, "use _portable.pxd:\n" + "\n".join(offenders)
