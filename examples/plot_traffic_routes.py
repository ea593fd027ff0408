"""
Traffic: two drivers across a city
==================================

A generated road grid with a highway every third row and column.  Route A* runs lane by lane
with each driver personality's costs: the cautious driver pays more for highways and for every
turn, the reckless one half a highway's length, so they take different ways across the city.
"""

from wayfinding.traffic import RoutePlanner, driver, road_grid
from wayfinding.viz.traffic import save_road_routes

city = road_grid(8, 5, spacing=100.0, highway_every=3)
first, last = city.road_lanes(0)[0], city.road_lanes(len(city.roads) - 1)[0]
routes = []
for name in ("cautious", "reckless"):
    route = RoutePlanner(city, driver=driver(name)).find_route(first.id, last.id)
    print(f"{name}: cost {route.cost:.1f} over {len(route.path)} lanes")
    routes.append(route.path)
save_road_routes("traffic-routes.png", city, routes=routes, labels=["cautious", "reckless"])
