"""The guard of objects whose calls share per-query scratch (``SingleThread._busy``): held
by one thread at a time, any number of times over on that thread, and never waited for.
Kernels take it in C (:meth:`Guard.take`, :meth:`Guard.give` in ``_guard.pxd``); Python
code through :meth:`Guard.acquire` and :meth:`Guard.release`.  Every change happens with
the GIL held, so no two threads change it at once."""

cimport cython


@cython.auto_pickle(False)
@cython.final
cdef class Guard:

    def acquire(self):
        """Hold the guard: True, or False at once when another thread holds it."""
        return self.take()

    def release(self):
        """Let go of one hold of this thread's."""
        if not self.depth or self.owner != PyThread_get_thread_ident():
            raise RuntimeError("release of a guard this thread does not hold")
        self.give()

    def __enter__(self):
        """Hold the guard while inside (RuntimeError when another thread holds it)."""
        if not self.take():
            raise RuntimeError("the guard is held by another thread")
        return self

    def __exit__(self, *exc):
        self.release()
