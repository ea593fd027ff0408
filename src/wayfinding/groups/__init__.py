"""Groups and formations: groups of agents and of groups, formation shapes and slot
assignment, formation following, group-level planning and group avoidance."""

__all__: list[str] = []
