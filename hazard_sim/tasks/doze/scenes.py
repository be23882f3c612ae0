"""DOZE's ten furnished houses, generated deterministically from their names.

A house is a rectangle cut into rooms (living room, bedroom, kitchen, office,
playroom) joined by doors.  Furniture is built from several boxes each (a sofa
has a seat, a back and two arms; a table a top and four legs; a shelf sides and
boards), so it is a solid obstacle with a recognisable shape.  Objects from
:mod:`~hazard_sim.tasks.doze.library` are placed on, under, next to and in
furniture (spatial attributes), in colour / material / pattern / brand variants
(appearance attributes), plus open-vocabulary things, and whiteboards carry
notes (hints) drawn as text.  :func:`build_house` returns a :class:`House`.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np
from scipy import ndimage

from hazard_sim.core.frames import OBJECT_ID_BASE
from hazard_sim.geometry import Box
from hazard_sim.navigation.grid import GridSpec, inflate, rasterize_boxes
from hazard_sim.render.mesh import quad_mesh, text_texture
from hazard_sim.scenes.base import WALL_THICKNESS, Part, Scene, floor_part, wall_segments
from hazard_sim.tasks.doze.library import KINDS, OPEN_VOCAB
from hazard_sim.tasks.doze.shapes import Shape
from hazard_sim.tasks.doze.vocabulary import BRANDS, COLORS, MATERIALS, PATTERNS, attribute_color

SCENES = tuple(f"doze_{k:02d}" for k in range(10))
TRAIN_SCENES, TEST_SCENES = SCENES[:8], SCENES[8:]
ROBOT_RADIUS = 0.18
NAV_RESOLUTION = 0.1
BOARD_LABEL = "whiteboard"
NAMES = ("Tony", "Mia", "Sam", "Lena", "Omar", "Kate", "Ivan", "Zoe", "Ravi", "Nora")


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


@dataclass
class Item:
    """A placed object: its instance id, kind, attributes and where it is."""
    id: int
    kind: str
    category: str
    position: np.ndarray          # bottom centre (m)
    yaw: float
    size: np.ndarray              # extent of the mesh (x, y, z) before the yaw
    room: str
    relation: tuple | None = None  # ("on" | "under" | "next to" | "in", furniture category, furniture id)
    appearance: str | None = None  # colour, material, pattern or brand word
    group: str = ""                # spatial | appearance | open_vocab | hint | distractor

    @property
    def center(self) -> np.ndarray:
        return self.position + np.array([0.0, 0.0, self.size[2] / 2])

    def describe(self) -> dict:
        return {"id": self.id, "kind": self.kind, "category": self.category, "position":
                [round(float(v), 3) for v in self.position], "room": self.room, "relation": list(self.relation[:2])
                if self.relation else None, "appearance": self.appearance, "group": self.group}


@dataclass
class Board:
    id: int
    lines: tuple[str, ...]
    corners: np.ndarray           # (4, 3) top-left, top-right, bottom-right, bottom-left seen from the front
    normal: np.ndarray            # (2,) into the room
    room: str
    hint: dict | None = None      # {"owner", "kind", "relation", "furniture", "item"} for hint boards

    @property
    def center(self) -> np.ndarray:
        return self.corners.mean(0)


@dataclass
class House:
    name: str
    scene: Scene
    furniture: list[Furniture]
    items: list[Item]
    boards: list[Board]
    labels: dict[int, str]         # instance id -> label for every part / item / board
    part_labels: dict[str, str] = field(default_factory=dict)

    def item(self, item_id: int) -> Item:
        for it in self.items:
            if it.id == item_id:
                return it
        raise KeyError(f"scene {self.name} has no object {item_id}")

    def nav_grid(self, radius: float = ROBOT_RADIUS) -> tuple[GridSpec, np.ndarray]:
        """The navigation grid and its free cells (the robot's centre may stand there)."""
        return _nav_grid(self.name, radius)


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
def _layout(rng) -> tuple[float, float, list, list]:
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


def _door_zones(walls) -> list[tuple[float, float, float, float]]:
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


def _place_furniture(rng, rooms, zones):
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


def _furniture_parts(k, cat, center, yaw, pieces):
    c, s = np.cos(yaw), np.sin(yaw)
    R = np.array([[c, -s], [s, c]])
    parts = []
    for piece, pc, size, col in pieces:
        xy = center + R @ np.asarray(pc[:2], float)
        parts.append(Part(f"{cat}#{k}:{piece}", "furniture",
                          Box.from_yaw((xy[0], xy[1], pc[2]), np.asarray(size, float) / 2, yaw), tuple(col),
                          surface=piece in ("top", "seat", "worktop", "cabinet", "mattress", "body")))
    return parts


# ------------------------------------------------------------------ objects
SPATIAL_KINDS = ("pillow", "book", "mug", "teddy bear", "potted plant", "basketball", "laptop", "vase",
                 "tv remote", "backpack", "bowl", "apple", "alarm clock", "shoebox", "towel", "toy car",
                 "baseball bat", "sneaker", "cushion", "tissue box")
APPEARANCE_KINDS = ("mug", "vase", "bottle", "backpack", "teddy bear", "bucket", "cushion", "towel", "helmet",
                    "frisbee", "umbrella", "handbag", "toy car", "bowl", "thermos", "watering can", "candle",
                    "baseball cap", "cereal box", "soda can", "jar", "trash can")
#: appearance attributes per kind (colours for all, materials / patterns / brands where they make sense)
BRANDABLE = ("cereal box", "soda can")


def _appearance_attrs(kind: str) -> list[str]:
    attrs = list(COLORS)
    if kind in ("vase", "bowl", "bucket", "jar", "mug", "trash can", "candle"):
        attrs += ["metal", "glass", "golden", "ceramic", "wooden"]
    if kind in ("mug", "vase", "cushion", "towel", "umbrella", "backpack", "handbag", "baseball cap"):
        attrs += list(PATTERNS)
    if kind in BRANDABLE:
        attrs = [a for a in attrs if a not in ("white", "black")] + [f"brand:{b}" for b in BRANDS]
    return attrs


def _shape_for(kind: str, attr: str | None) -> Shape:
    k = KINDS[kind]
    if attr is None:
        return k.shape()
    if attr.startswith("brand:"):
        brand = attr.split(":", 1)[1]
        from hazard_sim.tasks.doze.builders import branded_box, can
        build = can(0.033, 0.12, brand) if kind == "soda can" else branded_box(0.2, 0.07, 0.3, brand)
        return build(k.color)
    if attr in MATERIALS and attr == "glass":
        return k.shape(MATERIALS["glass"])
    return k.shape(attribute_color(attr))


@dataclass
class _Slot:
    xy: np.ndarray
    z: float
    relation: tuple
    room: str
    max_h: float = 1.0


def _grid_slots(f: Furniture, z: float, relation, max_h: float, spacing: float = 0.26, margin: float = 0.1,
                depth_frac: float = 1.0):
    b = f.box
    hx, hy = b.half[0] - margin, b.half[1] * depth_frac - margin
    nx, ny = max(1, int(2 * hx / spacing)), max(1, int(2 * hy / spacing))
    R = b.rot[:2, :2]
    out = []
    for i in range(nx):
        for j in range(ny):
            lx = -hx + (i + 0.5) * 2 * hx / nx
            ly = -hy + (j + 0.5) * 2 * hy / ny
            out.append(_Slot(b.center[:2] + R @ [lx, ly], z, relation, f.room, max_h))
    return out


def _slots(furniture: list[Furniture], free_ok, rng) -> list[_Slot]:
    """Places objects can go: on tops, on shelf boards (in), under tables and beds, next to pieces."""
    out = []
    for f in furniture:
        b = f.box
        hx, hy = b.half[0], b.half[1]
        R = b.rot[:2, :2]
        rel_on = ("on", f.category, f.id)
        if f.category in ("sofa", "armchair"):
            n = max(1, int(2 * (hx - 0.25) / 0.35))
            for i in range(n):
                lx = -(hx - 0.25) + (i + 0.5) * 2 * (hx - 0.25) / n
                out.append(_Slot(b.center[:2] + R @ [lx, -0.15 * hy], f.top, rel_on, f.room, 0.45))
        elif f.category == "tv stand":
            for lx in (-0.6, -0.35, 0.35, 0.6):
                out.append(_Slot(b.center[:2] + R @ [lx, -0.12], f.top, rel_on, f.room, 0.35))
        elif f.category == "bed":
            out += _grid_slots(f, f.top, rel_on, 0.45, spacing=0.4, margin=0.25)
        elif f.top > 0 and not f.holds:
            out += _grid_slots(f, f.top, rel_on, 0.45)
        if f.holds:
            for z in f.shelf_heights:
                out += [_Slot(s.xy, z, ("in", f.category, f.id), f.room, 0.3)
                        for s in _grid_slots(f, z, None, 0.3, spacing=0.26, margin=0.08, depth_frac=0.5)]
        if f.under:
            out += _grid_slots(f, 0.0, ("under", f.category, f.id), 0.22 if f.category == "bed" else 0.5,
                               spacing=0.4, margin=0.15)
        # next to: on the floor beside the piece's left / right end
        for sgn in (-1, 1):
            for ly in (0.6, 0.0, -0.6):
                xy = b.center[:2] + R @ [sgn * (hx + 0.2), hy * ly]
                if free_ok(xy):
                    out.append(_Slot(xy, 0.0, ("next to", f.category, f.id), f.room, 1.6))
    rng.shuffle(out)
    return out


def _room_of(rooms, xy) -> str:
    for t, (x0, y0, x1, y1) in rooms:
        if x0 <= xy[0] <= x1 and y0 <= xy[1] <= y1:
            return t
    return rooms[0][0]


def _fit(shape: Shape, max_h: float, max_w: float = 0.3) -> Shape:
    lo, hi = shape.extent()
    ext = hi - lo
    s = min(1.0, max_h / max(ext[2], 1e-6), max_w / max(ext[0], ext[1], 1e-6))
    return shape if s >= 1.0 else shape.scaled(s)


@functools.lru_cache(maxsize=16)
def build_house(name: str) -> House:
    """The house ``name`` (one of :data:`SCENES`), built deterministically."""
    if name not in SCENES:
        raise KeyError(f"unknown DOZE scene {name!r}; known: {', '.join(SCENES)}")
    idx = SCENES.index(name)
    rng = np.random.default_rng([2024, idx])
    w, h, rooms, walls = _layout(rng)
    bounds = (0.0, 0.0, w, h)
    parts = [floor_part(bounds, (185, 165, 130))]
    for k, (a, b) in enumerate((((0, 0), (w, 0)), ((w, 0), (w, h)), ((w, h), (0, h)), ((0, h), (0, 0)))):
        parts += wall_segments(f"outer{k}", a, b, color=(235, 232, 222))
    for k, (a, b, doors) in enumerate(walls):
        parts += wall_segments(f"inner{k}", a, b, doors=doors, color=(225, 225, 215))
    placed = _place_furniture(rng, rooms, _door_zones(walls))
    furniture, labels_by_name = [], {}
    for k, (cat, rtype, center, yaw, (sx, sy), pieces, props) in enumerate(placed):
        fparts = _furniture_parts(k, cat, center, yaw, pieces)
        parts += fparts
        for p in fparts:
            labels_by_name[p.name] = "tv" if p.name.endswith(":tv") else cat
        furniture.append(Furniture(k, cat, rtype, Box.from_yaw((center[0], center[1], 0.5), (sx / 2, sy / 2, 0.5), yaw),
                                   props.get("top", 0.0), props.get("under", False), props.get("holds", False),
                                   props.get("shelves", ())))
    grid = GridSpec(bounds, NAV_RESOLUTION)
    solid = rasterize_boxes(grid, [p.box for p in parts if p.solid])

    def floor_free(xy):
        return bool(~solid[grid.to_cell(xy)]) and 0.2 < xy[0] < w - 0.2 and 0.2 < xy[1] < h - 0.2

    slots = _slots(furniture, floor_free, rng)
    items: list[Item] = []
    meshes = []
    next_id = [OBJECT_ID_BASE]

    def put(kind, slot: _Slot, group, attr=None, yaw=None):
        shape = _fit(_shape_for(kind, attr), slot.max_h)
        lo, hi = shape.extent()
        yaw = float(rng.uniform(-np.pi, np.pi)) if yaw is None else yaw
        pos = np.array([slot.xy[0], slot.xy[1], slot.z])
        iid = next_id[0]
        next_id[0] += 1
        meshes.extend(shape.meshes(iid, yaw, pos))
        it = Item(iid, kind, KINDS[kind].category, pos, yaw, hi - lo, slot.room, slot.relation, attr, group)
        items.append(it)
        return it

    used = [0]

    def take(pred):
        for k, s in enumerate(slots):
            if s is not None and pred(s):
                slots[k] = None
                used[0] += 1
                return s
        return None

    # open vocabulary: about 10 unusual things, one of each kind
    ov = [KINDS[str(n)] for n in rng.choice([k.name for k in OPEN_VOCAB], 10, replace=False)]
    for k in ov:
        s = take(lambda s: (s.relation[0] == "next to") if k.place == "floor" else s.relation[0] in ("on", "in"))
        if s is not None:
            put(k.name, s, "open_vocab")
    # spatial: categories in several relations (about 50 objects)
    sp_kinds = [str(k) for k in rng.choice(SPATIAL_KINDS, 10, replace=False)]
    for kind in sp_kinds:
        floor_kind = KINDS[kind].place == "floor"
        for _ in range(5):
            s = take(lambda s: (s.relation[0] in ("under", "next to")) if floor_kind else True)
            if s is not None:
                put(kind, s, "spatial")
    # appearance: categories in several colours / materials / patterns / brands (about 50 objects)
    ap_kinds = [str(k) for k in rng.choice([k for k in APPEARANCE_KINDS if k not in sp_kinds], 10, replace=False)]
    for kind in ap_kinds:
        attrs = [str(a) for a in rng.choice(_appearance_attrs(kind), 5, replace=False)]
        for a in attrs:
            s = take(lambda s: s.relation[0] in ("on", "in", "next to"))
            if s is not None:
                put(kind, s, "appearance", a)
    # hint objects: two instances of a kind; a whiteboard names the owner and where one of them is
    hint_kinds = [str(k) for k in rng.choice(["baseball bat", "tennis racket", "guitar", "skateboard", "umbrella",
                                                "violin", "helmet", "camera", "headphones", "trumpet"], 2,
                                               replace=False)]
    hint_items = []
    for kind in hint_kinds:
        floor_kind = KINDS[kind].place == "floor"
        pair = []
        for _ in range(2):
            s = take(lambda s: s.relation[0] in (("under", "next to") if floor_kind else ("on", "in", "under")))
            if s is not None:
                pair.append(put(kind, s, "hint"))
        if len(pair) == 2:
            hint_items.append(pair)
    # distractors: every other kind once where room is left, so the library shows across the scenes
    others = [k for k in KINDS.values() if not k.open_vocab and k.name not in sp_kinds + ap_kinds + hint_kinds]
    # (each scene starts at another place of one fixed order, so the scenes together show the whole library)
    order = np.random.default_rng(7).permutation(len(others))
    for k in np.roll(order, -idx * (len(others) // len(SCENES)))[:40]:
        kd = others[int(k)]
        s = take(lambda s: (s.relation[0] in ("next to", "under")) if kd.place == "floor" else
                 s.relation[0] in ("on", "in"))
        if s is not None:
            put(kd.name, s, "distractor")
    boards = _boards(rng, rooms, walls, w, h, hint_items, next_id, solid, grid)
    for b in boards:
        meshes.append(quad_mesh(b.corners, b.id, texture=_board_texture(b.lines)))
        meshes.append(_frame_mesh(b))
    scene = Scene(name, "indoor", bounds, parts, rooms=[(t, r) for t, r in rooms], meshes=meshes)
    labels = {}
    for pid, p in enumerate(parts, start=1):
        labels[pid] = labels_by_name.get(p.name, p.kind)
    labels.update({it.id: it.category for it in items})
    labels.update({b.id: BOARD_LABEL for b in boards})
    return House(name, scene, furniture, items, boards, labels, labels_by_name)


def _frame_mesh(b: Board):
    """The board's grey frame: a flat quad slightly larger than the board, just behind it."""
    c = b.corners.copy()
    mid = c.mean(0)
    back = np.r_[b.normal * -0.01, 0.0]
    big = mid + (c - mid) * np.array([1.05, 1.05, 1.08]) + back
    return quad_mesh(big, b.id, color=(140, 140, 145))


def _board_texture(lines) -> np.ndarray:
    # letters as large as people write on whiteboards: 8 cm capitals (72 px of a 720 px / 1.2 m board)
    return text_texture(list(lines), width=720, height=480, font_size=72, margin=28, line_spacing=1.3)


HINT_TEMPLATES = ("{owner}, your {kind} is {rel} the {furn}.",)
NOTES = (("Team meeting", "on Friday at 3 pm."), ("Buy milk, eggs", "and fresh bread."),
         ("Water the plants", "every Monday."), ("Call the plumber", "about the sink."),
         ("Dinner at 7 pm.", "Pasta tonight!"), ("Recycling goes out", "on Tuesday."))


def _wrap(text: str, width: int = 19) -> tuple[str, ...]:
    words, lines, cur = text.split(), [], ""
    for w_ in words:
        if cur and len(cur) + 1 + len(w_) > width:
            lines.append(cur)
            cur = w_
        else:
            cur = f"{cur} {w_}".strip()
    lines.append(cur)
    return tuple(lines)


def _boards(rng, rooms, walls, w, h, hint_items, next_id, solid, grid) -> list[Board]:
    """About four whiteboards a house on free stretches of room walls, facing into the rooms; the first
    ones carry the hints."""
    boards = []
    texts = []
    for pair in hint_items:
        target = pair[0]
        owner = str(rng.choice(NAMES))
        rel, furn = target.relation[0], target.relation[1]
        texts.append((_wrap(HINT_TEMPLATES[0].format(owner=owner, kind=target.kind, rel=rel, furn=furn)),
                      {"owner": owner, "kind": target.kind, "relation": rel, "furniture": furn, "item": target.id,
                       "others": [p.id for p in pair[1:]]}))
    for k in rng.permutation(len(NOTES))[:max(0, 4 - len(texts))]:
        texts.append((NOTES[int(k)], None))
    bw, bh, zc = 1.2, 0.8, 1.05
    for lines, hint in texts:
        for _ in range(60):
            t, (x0, y0, x1, y1) = rooms[int(rng.integers(len(rooms)))]
            side = int(rng.integers(4))
            off = WALL_THICKNESS / 2 + 0.01
            if side in (0, 2):
                if x1 - x0 < bw + 0.4:
                    continue
                cx = float(rng.uniform(x0 + bw / 2 + 0.2, x1 - bw / 2 - 0.2))
                cy = y0 + off if side == 0 else y1 - off
                normal = np.array([0.0, 1.0 if side == 0 else -1.0])
                along = np.array([-normal[1], normal[0]])
            else:
                if y1 - y0 < bw + 0.4:
                    continue
                cy = float(rng.uniform(y0 + bw / 2 + 0.2, y1 - bw / 2 - 0.2))
                cx = x0 + off if side == 3 else x1 - off
                normal = np.array([1.0 if side == 3 else -1.0, 0.0])
                along = np.array([-normal[1], normal[0]])
            # the wall behind must be solid along the board, and the floor in front clear of furniture
            behind = [np.array([cx, cy]) - normal * 0.06 + along * s for s in np.linspace(-bw / 2, bw / 2, 7)]
            front = [np.array([cx, cy]) + normal * d + along * s for d in (0.3, 0.6, 0.9)
                     for s in np.linspace(-bw / 2, bw / 2, 5)]
            if not all(solid[grid.to_cell(p)] for p in behind) or any(solid[grid.to_cell(p)] for p in front):
                continue
            if any(np.linalg.norm(b.center[:2] - [cx, cy]) < 2.0 for b in boards):
                continue
            # seen from the front (looking along -normal), the viewer's right is -normal turned by -90 degrees
            right = np.array([-normal[1], normal[0]])
            c = np.array([cx, cy])
            tl = np.r_[c - right * bw / 2, zc + bh / 2]
            tr = np.r_[c + right * bw / 2, zc + bh / 2]
            br = np.r_[c + right * bw / 2, zc - bh / 2]
            bl = np.r_[c - right * bw / 2, zc - bh / 2]
            iid = next_id[0]
            next_id[0] += 1
            boards.append(Board(iid, tuple(lines), np.array([tl, tr, br, bl]), normal, t, hint))
            break
    return boards


@functools.lru_cache(maxsize=32)
def _nav_grid(name: str, radius: float):
    house = build_house(name)
    grid = GridSpec(house.scene.bounds, NAV_RESOLUTION)
    solid = rasterize_boxes(grid, [p.box for p in house.scene.solids()])
    free = ~inflate(solid, radius * 0.8, NAV_RESOLUTION)
    # keep the largest connected region (the house's reachable floor)
    lab, n = ndimage.label(free)
    if n > 1:
        sizes = ndimage.sum(free, lab, range(1, n + 1))
        free = lab == (1 + int(np.argmax(sizes)))
    return grid, free


def navigable_area(name: str) -> float:
    grid, free = _nav_grid(name, ROBOT_RADIUS)
    return float(free.sum() * grid.resolution ** 2)


def scene_stats(name: str) -> dict:
    house = build_house(name)
    groups = {}
    for it in house.items:
        groups[it.group] = groups.get(it.group, 0) + 1
    return {"scene": name, "navigable_area_m2": round(navigable_area(name), 2), "rooms": len(house.scene.rooms),
            "furniture": len(house.furniture), "objects": len(house.items), "kinds": len({it.kind for it in
                                                                                       house.items}),
            "whiteboards": len(house.boards), **{f"objects_{k}": v for k, v in sorted(groups.items())},
            "triangles": int(sum(len(m.triangles) for m in house.scene.meshes))}
