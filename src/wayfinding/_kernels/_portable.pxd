# Bit scans, prefetches, spin-wait hints, atomics, aligned allocation and a monotonic clock for
# the kernels, written once for each compiler family: GCC and clang (Linux, macOS, MinGW) take
# the builtins, MSVC (x64 and ARM64) the intrinsics of <intrin.h>; allocation and the clock
# follow the system (Windows, macOS, other POSIX).  The C below is valid as C and as C++; no
# kernel names a compiler builtin or a POSIX clock itself (tests/test_portable_c.py checks).
#
# Atomics: the suffix names the memory order (acquire, release, acq_rel, seq_cst).  Under
# MSVC, aligned 64-bit loads and stores are single instructions on both targets; an acquire
# load is the load and then a barrier, a release store a barrier and then the store (a
# compiler barrier on x64, whose stores are not reordered with each other nor loads with
# each other, a ``dmb ish`` on ARM64), and the read-modify-write operations are the
# _Interlocked functions, full barriers on both targets.
from libc.stdint cimport int64_t, uint64_t

cdef extern from *:
    """
    #ifndef WF_PORTABLE_H
    #define WF_PORTABLE_H
    #include <stddef.h>
    #include <stdint.h>
    #include <stdlib.h>
    #include <string.h>
    #include <time.h>
    #if defined(_WIN32)
    #include <malloc.h>
    #ifndef WIN32_LEAN_AND_MEAN
    #define WIN32_LEAN_AND_MEAN
    #endif
    #ifndef NOMINMAX
    #define NOMINMAX
    #endif
    #include <windows.h>
    #elif defined(__APPLE__)
    #include <mach/mach_time.h>
    #endif

    #if defined(_MSC_VER) && !defined(__GNUC__)
    #define WF_MSVC 1
    #include <intrin.h>
    #if defined(_M_ARM64) || defined(_M_ARM64EC)
    #define WF_MSVC_ARM64 1
    #define WF_BARRIER() __dmb(0xB)
    #define WF_LOAD64(p) __iso_volatile_load64((const volatile __int64 *) (p))
    #define WF_STORE64(p, v) __iso_volatile_store64((volatile __int64 *) (p), (v))
    #elif defined(_M_X64) || defined(_M_AMD64)
    #define WF_BARRIER() _ReadWriteBarrier()
    #define WF_LOAD64(p) (*(const volatile __int64 *) (p))
    #define WF_STORE64(p, v) (*(volatile __int64 *) (p) = (v))
    #else
    #error "with MSVC the kernels build for x64 and ARM64 only"
    #endif
    #elif !defined(__GNUC__)
    #error "the kernels build with GCC, clang or MSVC"
    #endif

    /* Each kernel uses some of these: no warning for the others.  MSVC's C takes __inline
       in every language mode. */
    #if defined(__GNUC__)
    #define WF_INLINE static inline __attribute__((unused))
    #else
    #define WF_INLINE static __inline
    #endif

    /* Index of the lowest set bit of x (x != 0). */
    WF_INLINE int wf_ctz32(unsigned int x) {
    #if defined(WF_MSVC)
        unsigned long at;
        _BitScanForward(&at, x);
        return (int) at;
    #else
        return __builtin_ctz(x);
    #endif
    }

    /* Index of the lowest set bit of x (x != 0). */
    WF_INLINE int wf_ctz64(unsigned long long x) {
    #if defined(WF_MSVC)
        unsigned long at;
        _BitScanForward64(&at, x);
        return (int) at;
    #else
        return __builtin_ctzll(x);
    #endif
    }

    /* Number of zero bits above the highest set bit of x (x != 0). */
    WF_INLINE int wf_clz64(unsigned long long x) {
    #if defined(WF_MSVC)
        unsigned long at;
        _BitScanReverse64(&at, x);
        return 63 - (int) at;
    #else
        return __builtin_clzll(x);
    #endif
    }

    /* Fetch the cache line at ``at`` into every cache level, to be written. */
    WF_INLINE void wf_prefetch_write(const void *at) {
    #if defined(WF_MSVC_ARM64) && defined(__clang__)
        __builtin_prefetch(at, 1, 3);
    #elif defined(WF_MSVC_ARM64)
        __prefetch(at);
    #elif defined(WF_MSVC)
        _mm_prefetch((const char *) at, _MM_HINT_T0);
    #else
        __builtin_prefetch(at, 1, 3);
    #endif
    }

    /* Tell the core that this thread spins waiting for another (x86 ``pause``). */
    WF_INLINE void wf_pause(void) {
    #if defined(WF_MSVC_ARM64)
        __yield();
    #elif defined(WF_MSVC)
        _mm_pause();
    #elif defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
    #endif
    }

    WF_INLINE int64_t wf_load_acquire_i64(const int64_t *at) {
    #if defined(WF_MSVC)
        int64_t value = WF_LOAD64(at);
        WF_BARRIER();
        return value;
    #else
        return __atomic_load_n(at, __ATOMIC_ACQUIRE);
    #endif
    }

    WF_INLINE void wf_store_release_i64(int64_t *at, int64_t value) {
    #if defined(WF_MSVC)
        WF_BARRIER();
        WF_STORE64(at, value);
    #else
        __atomic_store_n(at, value, __ATOMIC_RELEASE);
    #endif
    }

    WF_INLINE void wf_store_seq_cst_i64(int64_t *at, int64_t value) {
    #if defined(WF_MSVC)
        _InterlockedExchange64((volatile __int64 *) at, value);
    #else
        __atomic_store_n(at, value, __ATOMIC_SEQ_CST);
    #endif
    }

    /* Add one to *at; the value before. */
    WF_INLINE int64_t wf_increment_acq_rel_i64(int64_t *at) {
    #if defined(WF_MSVC)
        return _InterlockedExchangeAdd64((volatile __int64 *) at, 1);
    #else
        return __atomic_fetch_add(at, 1, __ATOMIC_ACQ_REL);
    #endif
    }

    WF_INLINE uint64_t wf_load_acquire_u64(const uint64_t *at) {
    #if defined(WF_MSVC)
        uint64_t value = (uint64_t) WF_LOAD64(at);
        WF_BARRIER();
        return value;
    #else
        return __atomic_load_n(at, __ATOMIC_ACQUIRE);
    #endif
    }

    WF_INLINE void wf_store_seq_cst_u64(uint64_t *at, uint64_t value) {
    #if defined(WF_MSVC)
        _InterlockedExchange64((volatile __int64 *) at, (__int64) value);
    #else
        __atomic_store_n(at, value, __ATOMIC_SEQ_CST);
    #endif
    }

    /* Replace *at by value if it holds expected: 1 if it did, else 0. */
    WF_INLINE int wf_compare_swap_seq_cst_u64(uint64_t *at, uint64_t expected,
                                                  uint64_t value) {
    #if defined(WF_MSVC)
        return _InterlockedCompareExchange64((volatile __int64 *) at, (__int64) value,
                                             (__int64) expected) == (__int64) expected;
    #else
        return __atomic_compare_exchange_n(at, &expected, value, 0, __ATOMIC_SEQ_CST,
                                           __ATOMIC_SEQ_CST);
    #endif
    }

    WF_INLINE double wf_load_acquire_f64(const double *at) {
        double value;
    #if defined(WF_MSVC)
        __int64 bits = WF_LOAD64(at);
        WF_BARRIER();
        memcpy(&value, &bits, sizeof value);
    #else
        __atomic_load(at, &value, __ATOMIC_ACQUIRE);
    #endif
        return value;
    }

    WF_INLINE void wf_store_release_f64(double *at, double value) {
    #if defined(WF_MSVC)
        __int64 bits;
        memcpy(&bits, &value, sizeof bits);
        WF_BARRIER();
        WF_STORE64(at, bits);
    #else
        __atomic_store(at, &value, __ATOMIC_RELEASE);
    #endif
    }

    /* ``size`` bytes at a multiple of ``alignment`` (a power of two), or NULL; free them
       with wf_aligned_free.  The size is rounded up to a multiple of the alignment, as C11
       aligned_alloc requires. */
    WF_INLINE void *wf_aligned_alloc(size_t alignment, size_t size) {
        size_t whole = (size + alignment - 1) & ~(alignment - 1);
        if (whole < size)
            return NULL;
    #if defined(_WIN32)
        return _aligned_malloc(whole ? whole : alignment, alignment);
    #elif defined(__APPLE__)
        void *at;
        return posix_memalign(&at, alignment, whole ? whole : alignment) == 0 ? at : NULL;
    #else
        return aligned_alloc(alignment, whole ? whole : alignment);
    #endif
    }

    /* Seconds on a clock that never goes back (from an arbitrary origin). */
    WF_INLINE double wf_monotonic(void) {
    #if defined(_WIN32)
        LARGE_INTEGER count, frequency;
        QueryPerformanceCounter(&count);
        QueryPerformanceFrequency(&frequency);
        return (double) count.QuadPart / (double) frequency.QuadPart;
    #elif defined(__APPLE__)
        mach_timebase_info_data_t base;
        mach_timebase_info(&base);
        return 1e-9 * ((double) mach_absolute_time() * base.numer / base.denom);
    #else
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec + 1e-9 * ts.tv_nsec;
    #endif
    }

    WF_INLINE void wf_aligned_free(void *at) {
    #if defined(_WIN32)
        _aligned_free(at);
    #else
        free(at);
    #endif
    }
    #endif
    """
    int ctz32 "wf_ctz32"(unsigned int x) noexcept nogil
    int ctz64 "wf_ctz64"(uint64_t x) noexcept nogil
    int clz64 "wf_clz64"(uint64_t x) noexcept nogil
    void prefetch_write "wf_prefetch_write"(const void* at) noexcept nogil
    void pause "wf_pause"() noexcept nogil
    int64_t load_acquire_i64 "wf_load_acquire_i64"(const int64_t* at) noexcept nogil
    void store_release_i64 "wf_store_release_i64"(int64_t* at, int64_t value) noexcept nogil
    void store_seq_cst_i64 "wf_store_seq_cst_i64"(int64_t* at, int64_t value) noexcept nogil
    int64_t increment_acq_rel_i64 "wf_increment_acq_rel_i64"(int64_t* at) noexcept nogil
    uint64_t load_acquire_u64 "wf_load_acquire_u64"(const uint64_t* at) noexcept nogil
    void store_seq_cst_u64 "wf_store_seq_cst_u64"(uint64_t* at, uint64_t value) noexcept nogil
    bint compare_swap_seq_cst_u64 "wf_compare_swap_seq_cst_u64"(
        uint64_t* at, uint64_t expected, uint64_t value) noexcept nogil
    double load_acquire_f64 "wf_load_acquire_f64"(const double* at) noexcept nogil
    void store_release_f64 "wf_store_release_f64"(double* at, double value) noexcept nogil
    void* aligned_alloc "wf_aligned_alloc"(size_t alignment, size_t size) noexcept nogil
    void aligned_free "wf_aligned_free"(void* at) noexcept nogil
    double monotonic "wf_monotonic"() noexcept nogil
