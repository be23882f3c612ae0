"""Outdoor street regions (16 m x 16 m patches) for the wind task.

Each region has roads (visual), buildings and trees that block motion, and three
shopping carts that are the safe containers.  Region ``park`` is the test region.
As in the public HAZARD code the patch has no fence (:data:`FENCE` off): objects the
wind blows out of it are lost (the wind hazard takes them out of the scene).
"""
from __future__ import annotations

from hazard_sim.geometry import Box
from hazard_sim.scenes.base import Part, Scene, block, floor_part, wall_segments

SIZE = 16.0
ROAD = (70, 70, 75)
GRASS = (110, 150, 90)
BUILDING = (190, 170, 150)
TREE = (60, 110, 50)
CART = (200, 30, 30)
CART_SIZE = (0.9, 0.6, 1.0)
#: a 1 m fence around the patch keeps blown objects in (not HAZARD's setting; kept for experiments)
FENCE = False


def _road(name, x0, y0, x1, y1) -> Part:
    return Part(name, "road", Box.from_yaw(((x0 + x1) / 2, (y0 + y1) / 2, 0.001),
                                           ((x1 - x0) / 2, (y1 - y0) / 2, 0.001)), ROAD)


def _cart(k, x, y, yaw=0.0) -> Part:
    return block(f"cart_{k}", "cart", x, y, CART_SIZE[0], CART_SIZE[1], CART_SIZE[2], CART, yaw=yaw)


def _region(name, roads, buildings, trees, carts) -> Scene:
    parts = [floor_part((0, 0, SIZE, SIZE), GRASS)]
    if FENCE:   # a 1 m fence closes the patch: blown objects pile up against it instead of leaving
        for side, a, b in (("s", (0, 0), (SIZE, 0)), ("n", (0, SIZE), (SIZE, SIZE)),
                           ("w", (0, 0), (0, SIZE)), ("e", (SIZE, 0), (SIZE, SIZE))):
            parts += wall_segments(f"fence_{side}", a, b, height=1.0, color=(150, 120, 90))
    parts += [_road(f"road_{i}", *r) for i, r in enumerate(roads)]
    parts += [block(f"building_{i}", "building", *b, BUILDING) for i, b in enumerate(buildings)]
    parts += [block(f"tree_{i}", "tree", x, y, 0.4, 0.4, 3.0, TREE) for i, (x, y) in enumerate(trees)]
    parts += [_cart(i, *c) for i, c in enumerate(carts)]
    return Scene(name, "outdoor", (0, 0, SIZE, SIZE), parts, [(name, (0, 0, SIZE, SIZE))])


def crossroad() -> Scene:
    return _region("crossroad", [(0, 6.5, 16, 9.5), (6.5, 0, 9.5, 16)],
                   [(2.5, 2.5, 4, 4, 6), (13.5, 2.5, 4, 4, 8), (2.5, 13.5, 4, 4, 7), (13.5, 13.5, 4, 4, 5)],
                   [(5.5, 5.5), (10.5, 10.5)], [(5.0, 8.0), (11.0, 8.0), (8.0, 12.5)])


def plaza() -> Scene:
    return _region("plaza", [(0, 0, 16, 2.5)],
                   [(8, 15, 10, 2, 9), (1, 9, 2, 8, 6)],
                   [(5, 6), (11, 6), (5, 11), (11, 11)], [(8.0, 8.0), (4.0, 4.0), (13.0, 10.0)])


def street() -> Scene:
    return _region("street", [(0, 7, 16, 10)],
                   [(3, 2.5, 5, 5, 6), (10, 2.5, 6, 5, 8), (4, 14, 7, 4, 7), (12.5, 14, 5, 4, 6)],
                   [(7, 6), (14, 11)], [(2.0, 11.0), (8.5, 6.0), (14.0, 6.0)])


def park() -> Scene:
    return _region("park", [(7, 0, 9, 16), (0, 12, 16, 13.5)],
                   [(2.5, 14.8, 5, 2.4, 5), (13, 14.8, 6, 2.4, 6)],
                   [(3, 3), (4, 8), (12, 4), (13, 9), (5.5, 5.5), (11, 7)],
                   [(6.0, 10.5), (10.5, 3.0), (2.0, 6.0)])


REGIONS = {f.__name__: f for f in (crossroad, plaza, street, park)}
TRAIN_REGIONS = ("crossroad", "plaza", "street")
TEST_REGIONS = ("park",)
