# Step counting shared by the subgoal queries (_subgoal_query, _subgoal_table): a path's cost
# is ``straight + diagonal * sqrt(2)`` from integer counts, so equal costs compare equal.


cdef inline void add_octile_steps(int dx, int dy, int* straight, int* diagonal) noexcept nogil:
    """Add to ``straight`` and ``diagonal`` the steps of an octile path over ``dx`` columns
    and ``dy`` rows (max(|dx|, |dy|) - min of them straight, min(|dx|, |dy|) diagonal)."""
    if dx < 0:
        dx = -dx
    if dy < 0:
        dy = -dy
    if dx >= dy:
        straight[0] += dx - dy
        diagonal[0] += dy
    else:
        straight[0] += dy - dx
        diagonal[0] += dx
