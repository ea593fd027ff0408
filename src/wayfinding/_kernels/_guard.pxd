cdef extern from "pythread.h":
    unsigned long PyThread_get_thread_ident()


cdef class Guard:
    cdef unsigned long owner
    cdef Py_ssize_t depth

    cdef inline bint take(self):
        """Hold the guard for this thread unless another holds it; True when held."""
        cdef unsigned long me = PyThread_get_thread_ident()
        if self.depth and self.owner != me:
            return False
        self.owner = me
        self.depth += 1
        return True

    cdef inline void give(self):
        """Let go of one hold taken by :meth:`take`."""
        self.depth -= 1
