"""
Hierarchical search with HPA*
=============================

HPA* cuts the grid into clusters, links the entrances on their borders by exact in-cluster
costs, plans on that small abstract graph, then refines the plan into cells.  The picture
shows the clusters, their entrances and links, and the refined path; the path is legal and
never shorter than the optimum.
"""

from pathlib import Path

from wayfinding import find_path
from wayfinding.grid import HPAStar, generate
from wayfinding.viz.hierarchy import render_hierarchy_svg

dungeon = generate.rooms(64, 48, rooms=8, room_size=(6, 12), corridor=3, seed=5)
free = list(dungeon.iter_cells())
a, b = free[0], free[-1]
hpa = HPAStar.build(dungeon, cluster_size=8)
r = hpa.find_path(a, b)
best = find_path(dungeon, a, b)
print(f"HPA* length {r.cost:.3f}, optimum {best.cost:.3f} "
      f"({(r.cost / best.cost - 1) * 100:.2f}% longer)")
Path("hpa.svg").write_text(render_hierarchy_svg(hpa, path=r, start=a, goal=b))
