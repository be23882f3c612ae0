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


#: Furniture made of fixed boxes: footprint, pieces and surfaces (see :func:`_pieces` for the frame).
_FIXED = {
    "tv stand": ((1.5, 0.45), [("cabinet", (0, 0, 0.25), (1.5, 0.45, 0.5), DARK_WOOD),
        ("tv", (0, 0.05, 0.85), (1.1, 0.06, 0.62), (20, 20, 25)),
        ("tv_foot", (0, 0.05, 0.52), (0.3, 0.2, 0.04), (40, 40, 40))], {"top": 0.5}),
    "counter": ((2.2, 0.6), [("cabinet", (0, 0, 0.43), (2.2, 0.6, 0.86), (230, 230, 225)),
        ("worktop", (0, 0, 0.88), (2.2 + 0.02, 0.6 + 0.02, 0.04), (90, 90, 95)),
        ("sink", (0.4, -0.05, 0.9), (0.5, 0.4, 0.01), (180, 185, 190))], {"top": 0.9}),
    "fridge": ((0.7, 0.7), [("body", (0, 0, 0.9), (0.7, 0.7, 1.8), (235, 235, 240)),
        ("handle", (0.25, -0.7 / 2 - 0.02, 1.1), (0.03, 0.04, 0.5), (150, 150, 150))], {"top": 0.0}),
    "wardrobe": ((1.2, 0.6), [("body", (0, 0, 1.0), (1.2, 0.6, 2.0), WOOD),
        ("door_gap", (0, -0.6 / 2 - 0.005, 1.0), (0.02, 0.01, 1.9), DARK_WOOD)], {"top": 0.0}),
    "toy chest": ((0.9, 0.5), [("body", (0, 0, 0.25), (0.9, 0.5, 0.5), (70, 130, 200))], {"top": 0.5}),
    "bathtub": ((1.6, 0.75), [("body", (0, 0, 0.26), (1.6, 0.75, 0.52), (240, 240, 245)),
        ("basin", (0, 0, 0.525), (1.6 - 0.16, 0.75 - 0.16, 0.01), (200, 220, 235))], {"top": 0.53}),
    "toilet": ((0.42, 0.7), [("bowl", (0, -0.08, 0.2), (0.38, 0.5, 0.4), (245, 245, 248)),
        ("tank", (0, 0.26, 0.4), (0.42, 0.18, 0.8), (245, 245, 248))], {"top": 0.0}),
    "vanity": ((0.9, 0.5), [("cabinet", (0, 0, 0.41), (0.9, 0.5, 0.82), (215, 215, 210)),
        ("worktop", (0, 0, 0.84), (0.9, 0.5, 0.04), (235, 235, 240)),
        ("mirror", (0, 0.5 / 2 - 0.02, 1.45), (0.7, 0.03, 0.8), (170, 200, 215))], {"top": 0.86}),
    "stove": ((0.65, 0.6), [("body", (0, 0, 0.44), (0.65, 0.6, 0.88), (210, 210, 215)),
        ("cooktop", (0, 0, 0.89), (0.65 - 0.04, 0.6 - 0.04, 0.02), (25, 25, 28))], {"top": 0.9}),
    "shoe rack": ((0.9, 0.32), [("body", (0, 0, 0.24), (0.9, 0.32, 0.48), WOOD)], {"top": 0.48}),
}


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
        # a frame on legs (0.24 m clear under it: the "under the bed" places hold items up to 0.22 m,
        # which a solid base to the floor hid from every view), the mattress on it
        legs = [(f"leg{i}", (lx * (sx / 2 - 0.05), ly * (sy / 2 - 0.05), 0.12), (0.06, 0.06, 0.24), DARK_WOOD)
                for i, (lx, ly) in enumerate(((-1, -1), (1, -1), (1, 1), (-1, 1)))]
        return (sx, sy), [("frame", (0, 0, 0.27), (sx, sy, 0.06), DARK_WOOD), *legs,
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
    if cat == "chair":
        sx, sy = 0.5, 0.5
        parts = [("seat", (0, 0, 0.45), (0.45, 0.45, 0.05), WOOD), ("back", (0, 0.2, 0.7), (0.45, 0.05, 0.5), WOOD)]
        for i, (lx, ly) in enumerate(((-1, -1), (1, -1), (1, 1), (-1, 1))):
            parts.append((f"leg{i}", (lx * 0.19, ly * 0.19, 0.22), (0.04, 0.04, 0.44), DARK_WOOD))
        return (sx, sy), parts, {"top": 0.47}
    if cat == "dresser":
        sx, sy = 1.0, 0.5
        parts = [("body", (0, 0, 0.45), (sx, sy, 0.9), (235, 225, 205))]
        for i, z in enumerate((0.2, 0.45, 0.7)):
            parts.append((f"drawer{i}", (0, -sy / 2 - 0.005, z), (0.8, 0.01, 0.18), (200, 185, 160)))
        return (sx, sy), parts, {"top": 0.9}
    if cat in _FIXED:
        size, parts, meta = _FIXED[cat]
        return size, list(parts), dict(meta)
    raise KeyError(f"unknown furniture {cat!r}")


ROOM_FURNITURE = {
    "living room": ["sofa", "tv stand", "coffee table", "armchair", "bookshelf", "side table", "side table"],
    "kitchen": ["counter", "stove", "fridge", "dining table", "counter", "shelf"],
    "bedroom": ["bed", "side table", "wardrobe", "dresser", "side table", "shelf"],
    "bathroom": ["bathtub", "vanity", "toilet", "shelf"],
    "office": ["desk", "chair", "bookshelf", "shelf", "armchair", "side table"],
    "playroom": ["toy chest", "table", "shelf", "bookshelf", "sofa", "side table"],
    "hall": ["shoe rack", "side table"],
}
ROOM_TYPES = tuple(ROOM_FURNITURE)
FLOOR_COLORS = {"living room": (185, 160, 120), "bedroom": (170, 150, 130), "kitchen": (200, 200, 195),
                "office": (160, 140, 110), "playroom": (190, 175, 140), "bathroom": (215, 215, 220),
                "hall": (180, 170, 150)}
DOOR = 0.9                      # door width (m)
MAX_COVER = 0.38                # furniture covers at most this share of a room's floor


# ------------------------------------------------------------------ layout
def _row(rng, x0: float, x1: float, types: list[str]) -> list[tuple[str, float, float]]:
    """Rooms side by side between x0 and x1: (type, xa, xb); a bathroom is narrower (2.0-2.4 m)."""
    widths = np.array([rng.uniform(2.0, 2.4) if t == "bathroom" else rng.uniform(3.0, 4.0) for t in types])
    widths *= (x1 - x0) / widths.sum()
    edges = x0 + np.concatenate([[0.0], np.cumsum(widths)])
    return [(t, float(a), float(b)) for t, a, b in zip(types, edges[:-1], edges[1:])]


def _door_in(rng, a: float, b: float) -> float:
    """A door centre along a wall span [a, b], clear of its ends by 0.55 m."""
    lo, hi = a + 0.55 + DOOR / 2, b - 0.55 - DOOR / 2
    return float(rng.uniform(lo, hi)) if hi > lo else (a + b) / 2


def floor_plan(rng) -> tuple[float, float, list, list]:
    """House size, rooms [(type, rect)] and interior walls [(a, b, doors)].

    A living room spans the house's depth at its west end and opens onto a hall (corridor)
    that runs east between two rows of rooms: the kitchen next to the living room (often
    with its own door into it), a bedroom, an office or playroom, a bathroom.  Every room
    has a door onto the hall; a few neighbours share a door.  Rooms that are neighbours
    without a shared door are reached round by the hall, which is what makes the geodesic
    distance between two points much longer than the straight line (navigation complexity).
    """
    w = float(rng.uniform(10.6, 11.6))
    h = float(rng.uniform(7.4, 8.2))
    xl = float(rng.uniform(3.6, 4.2))                      # living room: x in [0, xl]
    cw = float(rng.uniform(1.4, 1.6))                      # hall width
    cy0 = float(h / 2 - cw / 2 + rng.uniform(-0.3, 0.3))
    cy1 = cy0 + cw
    extra = [str(t) for t in rng.permutation(["office", "playroom"])]
    top_types = ["kitchen", "bedroom"] if rng.random() < 0.5 else ["kitchen", extra.pop()]
    rest = ["bedroom"] if "bedroom" not in top_types else [extra.pop()]
    bot_types = [str(t) for t in rng.permutation(rest + ["bathroom"] + ([extra.pop()] if extra and
                                                                          w - xl > 7.4 else []))]
    top = _row(rng, xl, w, top_types)
    bot = _row(rng, xl, w, bot_types)
    rooms = [("living room", (0.0, 0.0, xl, h)), ("hall", (xl, cy0, w, cy1))]
    rooms += [(t, (a, cy1, b, h)) for t, a, b in top] + [(t, (a, 0.0, b, cy0)) for t, a, b in bot]
    # the living room's west wall of the hall: a wide opening, and a door into the kitchen / first bottom room
    kitchen_door = rng.random() < 0.6
    west = [(cy0 + cw / 2, cw - 0.3)]
    if kitchen_door:
        west.append((_door_in(rng, cy1, h), DOOR))
    if rng.random() < 0.3:
        west.append((_door_in(rng, 0.0, cy0), DOOR))
    walls = [((xl, 0.0), (xl, h), west)]
    for y, row in ((cy1, top), (cy0, bot)):
        doors = []
        for k, (t, a, b) in enumerate(row):
            if t == "kitchen" and kitchen_door and rng.random() < 0.5:
                continue                                   # the kitchen is entered from the living room
            doors.append((_door_in(rng, a, b) - xl, DOOR))
        walls.append(((xl, y), (w, y), doors))
    for (y0, y1), row in (((cy1, h), top), ((0.0, cy0), bot)):
        for (_, _, b), _next in zip(row[:-1], row[1:]):
            shared = [(_door_in(rng, 0.0, y1 - y0), DOOR)] if rng.random() < 0.25 else []
            walls.append(((b, y0), (b, y1), shared))
    return w, h, rooms, walls


def door_zones(walls) -> list[tuple[float, float, float, float]]:
    """Rectangles kept free of furniture at each door: 0.25 m beyond its sides along the wall and
    1.0 m into the rooms on both sides."""
    zones = []
    for a, b, doors in walls:
        a, b = np.asarray(a), np.asarray(b)
        u = (b - a) / np.linalg.norm(b - a)
        for c, wd in doors:
            p = a + u * c
            along, across = wd / 2 + 0.25, 1.0
            ex, ey = (along, across) if abs(u[0]) > abs(u[1]) else (across, along)
            zones.append((p[0] - ex, p[1] - ey, p[0] + ex, p[1] + ey))
    return zones


def _overlaps(r, rects, pad=0.0) -> bool:
    return any(r[0] < q[2] + pad and q[0] < r[2] + pad and r[1] < q[3] + pad and q[1] < r[3] + pad for q in rects)


def place_furniture(rng, rooms, zones):
    """Furniture against the walls of each room (clear of doors; side by side allowed), plus the
    centre pieces (coffee / dining tables, 0.6 m clear all round)."""
    placed = []    # (category, room, center, yaw, (sx, sy), pieces, props)
    taken = list(zones)
    centres: list = []       # centre pieces: 0.6 m clear all round (the robot passes between)
    for rtype, (x0, y0, x1, y1) in rooms:
        room_area, covered = (x1 - x0) * (y1 - y0), 0.0
        for cat in ROOM_FURNITURE[rtype]:
            (sx, sy), pieces, props = _pieces(cat, rng)
            if covered + sx * sy > MAX_COVER * room_area:
                continue                      # a small room gets the first pieces of its list only
            centre_piece = cat in ("coffee table", "dining table", "table")
            for _ in range(80):
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
                # pieces along the walls may stand side by side (a stove between counters); centre
                # pieces keep a passage round them
                pad = 0.6 if centre_piece else 0.05
                if not _overlaps(rect, taken, pad=pad) and not _overlaps(rect, centres, pad=0.6):
                    (centres if centre_piece else taken).append(rect)
                    covered += sx * sy
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
