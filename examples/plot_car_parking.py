"""
Cars: parallel parking and a street crossing
============================================

Hybrid A* parks a car 3 m long, turning no tighter than 2.5 m, in a 4.5 m gap between two
parked cars: blue where it drives forward, red in reverse, its outline every car length and at
the cusp.  Then pedestrians cross a two-lane street of horse-drawn carriages, steering round
each carriage's merged hull and braking to pass behind it.
"""

import numpy as np

from wayfinding.grid import Grid
from wayfinding.vehicles import plan_car_path, street_crossing
from wayfinding.viz.vehicles import animate_crossing, save_car_path

free = np.ones((14, 44), dtype=bool)          # a street 22 m x 7 m of 0.5 m cells
free[[0, -1]] = False
free[1:5, :14] = free[1:5, 23:] = False       # the two parked cars
street = Grid(free, cell_size=0.5)
car = plan_car_path(street, (2.0, 5.0, 0.0), (9.25, 1.7, 0.0), turning_radius=2.5,
                    length=3.0, width=1.4)
print(f"parked: {car.length:.2f} m with {car.cusps} cusp")
save_car_path("car-parking.png", street, car, length=3.0, width=1.4)

run = street_crossing(pedestrians=4, seed=1, duration=30.0)
s = run.summary()
print(f"{s['arrived']} of {s['pedestrians']} pedestrians crossed, least gap {s['least_gap']:.2f} m")
animate_crossing("street-crossing.gif", run, frames=80)
