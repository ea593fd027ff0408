"""The states of a navigator's agents (:class:`~wayfinding.crowd.Navigator` and
:class:`~wayfinding.crowd.surface.Navigator3D` share them)."""

#: No target: the agent stays where it is.
IDLE = "idle"
#: Following its path.
MOVING = "moving"
#: Within the arrive distance of its target (pushed away, it walks back).
ARRIVED = "arrived"
#: Its target (or, on a 3D mesh, its position) has no path.
NO_PATH = "no path"
#: Stuck short of its target after its replans (it keeps trying).
STUCK = "stuck"
#: Crossing an off-mesh link on a 3D mesh: not steered, nobody's neighbour.
ON_LINK = "on link"
