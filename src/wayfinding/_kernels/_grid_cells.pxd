# The cells that grid queries hand straight to a kernel: (x, y) tuples of two ints.


cdef inline bint plain_cells(object start, object goal):
    """Whether ``start`` and ``goal`` are both tuples of two ints (anything else the caller
    normalises first)."""
    return (type(start) is tuple and type(goal) is tuple and len(<tuple> start) == 2
            and len(<tuple> goal) == 2 and type((<tuple> start)[0]) is int
            and type((<tuple> start)[1]) is int and type((<tuple> goal)[0]) is int
            and type((<tuple> goal)[1]) is int)
