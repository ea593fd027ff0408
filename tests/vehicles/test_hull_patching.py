"""Time-sliced navmesh patching for stopped vehicles and the avoidance signal."""

from __future__ import annotations

import pytest

from wayfinding.errors import InvalidGeometryError, InvalidQueryError
from wayfinding.vehicles.hull_patching import VehiclePatcher
from wayfinding.vehicles.hull_steering import Vehicle

pytest.importorskip("shapely")

STREET = [(0, 0), (0, 6), (40, 6), (40, 0)]


def blocker(x: float) -> Vehicle:
    """A vehicle across the whole street at ``x``, driving along it."""
    return Vehicle([(0.0, 0.0, 1.0, 3.5, 0.0)], position=(x, 3.0), velocity=(1.0, 0.0))


def test_stopped_vehicles_are_patched_one_per_step() -> None:
    carts = [blocker(x) for x in (10.0, 20.0, 30.0)]
    patcher = VehiclePatcher(STREET, carts, radius=0.3)
    assert patcher.navmesh.find_path((1, 3), (39, 3)).found
    assert len(patcher.hulls(0.3)) == 3
    for c in carts:
        c.move(c.position, 0.0)
    patcher.update()
    assert patcher.waiting == 3 and all(patcher.avoiding(c) for c in carts)
    seen = []
    for _ in range(3):
        patcher.step()
        seen.append([patcher.avoiding(c) for c in carts])
    assert seen == [[False, True, True], [False, False, True], [False, False, False]]
    assert patcher.hulls(0.3) == []
    assert patcher.navmesh.find_path((1, 3), (5, 3)).found
    assert not patcher.navmesh.find_path((1, 3), (15, 3)).found
    assert patcher.navmesh.find_path((12, 3), (18, 3)).found


def test_per_step_covers_several_vehicles() -> None:
    carts = [blocker(x) for x in (10.0, 20.0, 30.0)]
    patcher = VehiclePatcher(STREET, carts, per_step=2)
    for c in carts:
        c.move(c.position, 0.0)
    patcher.update()
    patcher.step()
    assert [patcher.avoiding(c) for c in carts] == [False, False, True]


def test_a_vehicle_moving_again_is_avoided_at_once_and_unpatched_later() -> None:
    cart = blocker(10.0)
    cart.move(cart.position, 0.0)
    patcher = VehiclePatcher(STREET, [cart])
    assert not patcher.avoiding(cart)
    assert not patcher.navmesh.find_path((1, 3), (39, 3)).found
    cart.move(cart.position, 0.0, velocity=(0.5, 0.0))
    patcher.update()
    assert patcher.avoiding(cart) and patcher.waiting == 1
    assert not patcher.navmesh.find_path((1, 3), (39, 3)).found
    patcher.step()
    assert patcher.waiting == 0 and patcher.navmesh.find_path((1, 3), (39, 3)).found


@pytest.mark.parametrize("change, freed, cut", [("moved", (10.0, 3.0), (30.0, 3.0)),
                                                ("lost a part", (10.0, 3.0), (13.0, 3.0))])
def test_a_stopped_vehicle_whose_hole_no_longer_fits_is_avoided_until_patched_again(
        change: str, freed: tuple, cut: tuple) -> None:
    cart = Vehicle([(0.0, 0.0, 1.0, 1.0, 0.0), (3.0, 0.0, 1.0, 1.0, 0.0)], position=(10.0, 3.0))
    patcher = VehiclePatcher(STREET, [cart])
    assert not patcher.avoiding(cart)
    assert patcher.navmesh.locate(freed) < 0
    if change == "moved":
        cart.move((30.0, 3.0), 0.0)            # towed away without a velocity
    else:
        cart.remove_part(0)                    # a horse lost where it stood
    patcher.update()
    assert patcher.avoiding(cart) and patcher.waiting == 1
    assert patcher.hulls(0.0)[0] is cart.hull(0.0)
    assert patcher.navmesh.locate(freed) < 0   # the old hole until the rebuild
    patcher.step()
    assert not patcher.avoiding(cart) and patcher.waiting == 0
    assert patcher.navmesh.locate(freed) >= 0 and patcher.navmesh.locate(cut) < 0
    patcher.update()
    assert patcher.waiting == 0


def test_patcher_refuses_bad_input() -> None:
    with pytest.raises(InvalidQueryError, match="per_step"):
        VehiclePatcher(STREET, [], per_step=0)
    with pytest.raises(InvalidGeometryError, match="radius"):
        VehiclePatcher(STREET, [], radius=-1.0)
    with pytest.raises(InvalidQueryError, match="Vehicle"):
        VehiclePatcher(STREET, ["cart"])  # type: ignore[list-item]
    with pytest.raises(InvalidQueryError, match="vehicles"):
        VehiclePatcher(STREET, None)  # type: ignore[arg-type]
    with pytest.raises(InvalidQueryError, match="not one of"):
        VehiclePatcher(STREET, []).avoiding(blocker(1.0))
