"""Climbing: traversal markup (ledges, pipes, ladders), climb graphs with explicit and jump
links, climb search and smoothed climbing paths."""

__all__: list[str] = []
