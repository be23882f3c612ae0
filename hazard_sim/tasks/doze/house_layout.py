"""A DOZE house's floor plan and furniture: rooms cut from a rectangle and joined by doors,
and furniture built from several boxes each (a sofa has a seat, a back and two arms; a table
a top and four legs; a shelf sides and boards) placed along the room walls.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hazard_sim.geometry import Box
from hazard_sim.scenes.base import WALL_THICKNESS, Part


@dataclass
class Furniture:
    id: int                       # index in the house
    category: str                 # "sofa", "table", ...
    room: str
    box: Box                      # the overall footprint box
    top: float                    # height of the surface objects stand on (0: none)
    under: bool = False           # objects can lie under it (tables, beds)
    holds: bool = False           # objects can be *in* it (shelves, baskets)
    shelf_heights: tuple = ()


# ------------------------------------------------------------------ furniture pieces
WOOD, DARK_WOOD, FABRIC = (150, 105, 60), (95, 65, 40), (90, 110, 150)


def _pieces(cat: str, rng) -> tuple[tuple[float, float], list, dict]:
    """Footprint (sx along the wall, sy depth) and the boxes [(piece, center, size, colour)] in a frame
    where the furniture's back is at y = +sy/2 (against the wall) and its front at -sy/2."""
    fab = tuple(int(v) for v in rng.choice([(90, 110, 150), (140, 60, 60), (90, 130, 90), (160, 150, 130)]))
    if cat == "sofa":
        sx, sy = 2.0, 0.9
        return (sx, sy), [("seat", (0, -0.05, 0.22), (sx - 0.3, sy - 0.2, 0.44), fab),
                          ("back", (0, sy / 2 - 0.1, 0.45), (sx, 0.2, 0.9), fab),
                          ("arm_l", (-sx / 2 + 0.1, -0.05, 0.3), (0.2, sy - 0.1, 0.6), fab),
                          ("arm_r", (sx / 2 - 0.1, -0.05, 0.3), (0.2, sy - 0.1, 0.6), fab)], \
            {"top": 0.44}
    if cat == "armchair":
        sx, sy = 0.9, 0.85
        return (sx, sy), [("seat", (0, -0.05, 0.22), (0.6, sy - 0.15, 0.44), fab),
                          ("back", (0, sy / 2 - 0.08, 0.45), (sx, 0.16, 0.9), fab),
                          ("arm_l", (-0.37, -0.05, 0.3), (0.16, sy - 0.1, 0.6), fab),
                          ("arm_r", (0.37, -0.05, 0.3), (0.16, sy - 0.1, 0.6), fab)], {"top": 0.44}
    if cat in ("table", "dining table", "coffee table", "desk", "side table"):
        dims = {"table": (1.4, 0.8, 0.75), "dining table": (1.6, 0.9, 0.75), "coffee table": (1.1, 0.6, 0.42),
                "desk": (1.3, 0.65, 0.75), "side table": (0.5, 0.5, 0.55)}[cat]
        sx, sy, h = dims
        col = WOOD if cat != "desk" else (200, 200, 195)
        parts = [("top", (0, 0, h - 0.02), (sx, sy, 0.04), col)]
        for i, (lx, ly) in enumerate(((-1, -1), (1, -1), (1, 1), (-1, 1))):
            parts.append((f"leg{i}", (lx * (sx / 2 - 0.05), ly * (sy / 2 - 0.05), (h - 0.04) / 2), (0.05, 0.05,
                                                                                                   h - 0.04),
                          DARK_WOOD))
        return (sx, sy), parts, {"top": h, "under": True}
    if cat == "bed":
        sx, sy = 1.6, 2.0
        sheet = tuple(int(v) for v in rng.choice([(230, 230, 240), (200, 220, 240), (240, 220, 200)]))
        return (sx, sy), [("frame", (0, 0, 0.15), (sx, sy, 0.3), DARK_WOOD),
                          ("mattress", (0, -0.05, 0.4), (sx - 0.1, sy - 0.2, 0.2), sheet),
                          ("headboard", (0, sy / 2 - 0.05, 0.55), (sx, 0.1, 1.1), DARK_WOOD)], \
            {"top": 0.5, "under": True}
    if cat in ("shelf", "bookshelf"):
        sx, sy, h = (1.0, 0.35, 1.6) if cat == "bookshelf" else (0.8, 0.35, 1.2)
        parts = [("side_l", (-sx / 2 + 0.02, 0, h / 2), (0.04, sy, h), WOOD),
                 ("side_r", (sx / 2 - 0.02, 0, h / 2), (0.04, sy, h), WOOD),
                 ("back", (0, sy / 2 - 0.01, h / 2), (sx, 0.02, h), DARK_WOOD)]
        levels = np.linspace(0.02, h - 0.02, 4 if cat == "bookshelf" else 3)
        for i, z in enumerate(levels):
            parts.append((f"board{i}", (0, 0, z), (sx - 0.08, sy, 0.03), WOOD))
        return (sx, sy), parts, {"top": h, "holds": True, "shelves": tuple(float(z + 0.015) for z in levels[:-1])}
    if cat == "tv stand":
        sx, sy = 1.5, 0.45
        return (sx, sy), [("cabinet", (0, 0, 0.25), (sx, sy, 0.5), DARK_WOOD),
                          ("tv", (0, 0.05, 0.85), (1.1, 0.06, 0.62), (20, 20, 25)),
                          ("tv_foot", (0, 0.05, 0.52), (0.3, 0.2, 0.04), (40, 40, 40))], {"top": 0.5}
    if cat == "counter":
        sx, sy = 2.2, 0.6
        return (sx, sy), [("cabinet", (0, 0, 0.43), (sx, sy, 0.86), (230, 230, 225)),
                          ("worktop", (0, 0, 0.88), (sx + 0.02, sy + 0.02, 0.04), (90, 90, 95)),
                          ("sink", (0.4, -0.05, 0.9), (0.5, 0.4, 0.01), (180, 185, 190))], {"top": 0.9}
    if cat == "fridge":
        sx, sy = 0.7, 0.7
        return (sx, sy), [("body", (0, 0, 0.9), (sx, sy, 1.8), (235, 235, 240)),
                          ("handle", (0.25, -sy / 2 - 0.02, 1.1), (0.03, 0.04, 0.5), (150, 150, 150))], {"top": 0.0}
    if cat == "wardrobe":
        sx, sy = 1.2, 0.6
        return (sx, sy), [("body", (0, 0, 1.0), (sx, sy, 2.0), WOOD),
                          ("door_gap", (0, -sy / 2 - 0.005, 1.0), (0.02, 0.01, 1.9), DARK_WOOD)], {"top": 0.0}
    if cat == "chair":
        sx, sy = 0.5, 0.5
        parts = [("seat", (0, 0, 0.45), (0.45, 0.45, 0.05), WOOD), ("back", (0, 0.2, 0.7), (0.45, 0.05, 0.5), WOOD)]
        for i, (lx, ly) in enumerate(((-1, -1), (1, -1), (1, 1), (-1, 1))):
            parts.append((f"leg{i}", (lx * 0.19, ly * 0.19, 0.22), (0.04, 0.04, 0.44), DARK_WOOD))
        return (sx, sy), parts, {"top": 0.47}
    if cat == "toy chest":
        return (0.9, 0.5), [("body", (0, 0, 0.25), (0.9, 0.5, 0.5), (70, 130, 200))], {"top": 0.5}
    if cat == "dresser":
        sx, sy = 1.0, 0.5
        parts = [("body", (0, 0, 0.45), (sx, sy, 0.9), (235, 225, 205))]
        for i, z in enumerate((0.2, 0.45, 0.7)):
            parts.append((f"drawer{i}", (0, -sy / 2 - 0.005, z), (0.8, 0.01, 0.18), (200, 185, 160)))
        return (sx, sy), parts, {"top": 0.9}
    raise KeyError(f"unknown furniture {cat!r}")


ROOM_FURNITURE = {
    "living room": ["sofa", "tv stand", "coffee table", "side table", "bookshelf", "armchair", "side table"],
    "bedroom": ["bed", "side table", "dresser", "desk", "shelf", "wardrobe", "side table"],
    "kitchen": ["counter", "dining table", "shelf", "fridge", "side table", "counter"],
    "office": ["desk", "bookshelf", "shelf", "table", "armchair", "side table"],
    "playroom": ["toy chest", "table", "shelf", "sofa", "bookshelf", "side table"],
}
ROOM_TYPES = ("living room", "bedroom", "kitchen", "office", "playroom")
FLOOR_COLORS = {"living room": (185, 160, 120), "bedroom": (170, 150, 130), "kitchen": (200, 200, 195),
                "office": (160, 140, 110), "playroom": (190, 175, 140)}


# ------------------------------------------------------------------ layout
def floor_plan(rng) -> tuple[float, float, list, list]:
    """House size, rooms [(type, rect)] and interior walls [(a, b, doors)]."""
    w = float(rng.uniform(10.0, 11.4))
    h = float(rng.uniform(6.8, 7.8))
    top_n = int(rng.integers(2, 4))
    split_y = float(rng.uniform(0.45, 0.55) * h)
    xs_top = np.sort(rng.uniform(0.3, 0.7, top_n - 1)) * w if top_n == 3 else np.array([rng.uniform(0.4, 0.6) * w])
    if top_n == 3:
        xs_top = np.array([w / 3 + rng.uniform(-0.4, 0.4), 2 * w / 3 + rng.uniform(-0.4, 0.4)])
    x_bot = float(rng.uniform(0.4, 0.6) * w)
    types = list(rng.permutation(ROOM_TYPES))
    rects = []
    xb = [0.0, *xs_top.tolist(), w]
    for a, b in zip(xb[:-1], xb[1:]):
        rects.append((a, split_y, b, h))
    rects += [(0.0, 0.0, x_bot, split_y), (x_bot, 0.0, w, split_y)]
    if "living room" not in types[:len(rects)]:
        types[0] = "living room"
    rooms = [(types[k] if k < len(types) else "playroom", r) for k, r in enumerate(rects)]
    walls = []
    # the horizontal wall between the rows: a door into every top room (from whichever bottom room lies below)
    doors = []
    for a, b in zip(xb[:-1], xb[1:]):
        lo, hi = a + 0.6, b - 0.6
        c = float(rng.uniform(lo, hi - 0.9)) + 0.45 if hi - lo > 1.0 else (a + b) / 2
        if abs(c - x_bot) < 0.8:
            c = x_bot + 0.9 * (1 if c >= x_bot else -1)
        doors.append((c, 0.9))
    walls.append(((0.0, split_y), (w, split_y), doors))
    for x in xs_top:
        walls.append(((float(x), split_y), (float(x), h), [(float(rng.uniform(0.9, h - split_y - 0.9)), 0.9)]))
    walls.append(((x_bot, 0.0), (x_bot, split_y), [(float(rng.uniform(0.9, split_y - 0.9)), 0.9)]))
    return w, h, rooms, walls


def door_zones(walls) -> list[tuple[float, float, float, float]]:
    zones = []
    for a, b, doors in walls:
        a, b = np.asarray(a), np.asarray(b)
        u = (b - a) / np.linalg.norm(b - a)
        for c, wd in doors:
            p = a + u * c
            zones.append((p[0] - 0.9, p[1] - 0.9, p[0] + 0.9, p[1] + 0.9))
    return zones


def _overlaps(r, rects, pad=0.0) -> bool:
    return any(r[0] < q[2] + pad and q[0] < r[2] + pad and r[1] < q[3] + pad and q[1] < r[3] + pad for q in rects)


def place_furniture(rng, rooms, zones):
    """Furniture against the walls of each room (clear of doors, 0.5 m apart), plus the
    centre pieces (coffee / dining tables)."""
    placed = []    # (category, room, center, yaw, (sx, sy), pieces, props)
    taken = list(zones)
    for rtype, (x0, y0, x1, y1) in rooms:
        for cat in ROOM_FURNITURE[rtype]:
            (sx, sy), pieces, props = _pieces(cat, rng)
            centre_piece = cat in ("coffee table", "dining table", "table")
            for _ in range(40):
                if centre_piece:
                    yaw = float(rng.choice([0.0, np.pi / 2]))
                    ex, ey = (sx, sy) if yaw == 0 else (sy, sx)
                    cx = rng.uniform(x0 + ex / 2 + 0.8, max(x1 - ex / 2 - 0.8, x0 + ex / 2 + 0.81))
                    cy = rng.uniform(y0 + ey / 2 + 0.8, max(y1 - ey / 2 - 0.8, y0 + ey / 2 + 0.81))
                else:
                    side = int(rng.integers(4))     # 0 south, 1 east, 2 north, 3 west: the back against it
                    t = WALL_THICKNESS / 2 + 0.02
                    if side in (0, 2):
                        ex, ey = sx, sy
                        cx = rng.uniform(x0 + sx / 2 + t, max(x1 - sx / 2 - t, x0 + sx / 2 + t + 0.01))
                        cy = y0 + t + sy / 2 if side == 0 else y1 - t - sy / 2
                    else:
                        ex, ey = sy, sx
                        cy = rng.uniform(y0 + sx / 2 + t, max(y1 - sx / 2 - t, y0 + sx / 2 + t + 0.01))
                        cx = x0 + t + sy / 2 if side == 3 else x1 - t - sy / 2
                    # the back (+y of the piece's frame) points at the wall
                    yaw = {0: np.pi, 1: -np.pi / 2, 2: 0.0, 3: np.pi / 2}[side]
                rect = (cx - ex / 2, cy - ey / 2, cx + ex / 2, cy + ey / 2)
                if rect[0] < x0 or rect[2] > x1 or rect[1] < y0 or rect[3] > y1:
                    continue
                if not _overlaps(rect, taken, pad=0.5):
                    taken.append(rect)
                    placed.append((cat, rtype, np.array([cx, cy]), float(yaw), (sx, sy), pieces, props))
                    break
    return placed


def furniture_parts(k, cat, center, yaw, pieces):
    c, s = np.cos(yaw), np.sin(yaw)
    R = np.array([[c, -s], [s, c]])
    parts = []
    for piece, pc, size, col in pieces:
        xy = center + R @ np.asarray(pc[:2], float)
        parts.append(Part(f"{cat}#{k}:{piece}", "furniture",
                          Box.from_yaw((xy[0], xy[1], pc[2]), np.asarray(size, float) / 2, yaw), tuple(col),
                          surface=piece in ("top", "seat", "worktop", "cabinet", "mattress", "body")))
    return parts
