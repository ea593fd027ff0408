"""Traffic: lane-aware road networks, routes with per-driver costs, the lattice planner over
lanes, and predicted trajectories."""

__all__: list[str] = []
