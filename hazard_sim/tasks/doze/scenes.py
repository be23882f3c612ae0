"""DOZE's ten furnished houses, generated deterministically from their names.

A house is a rectangle cut into typed rooms (living room, kitchen, bedroom,
bathroom, office or playroom, and a hall between them) joined by doors.
Furniture is built from several boxes each (a sofa has a seat, a back and two
arms; a table a top and four legs; a shelf sides and
boards), so it is a solid obstacle with a recognisable shape.  Objects from
:mod:`~hazard_sim.tasks.doze.library` are placed on, under, next to and in
furniture (spatial attributes), in colour / material / pattern / brand variants
(appearance attributes), plus open-vocabulary things, each where such things are
usually found (:mod:`.placement_priors`: mugs on kitchen counters, pillows on beds,
with some exceptions), and whiteboards carry
notes (hints) drawn as text.  :func:`build_house` returns a :class:`House`.

Rooms and furniture are laid out in :mod:`.house_layout`, whiteboards in
:mod:`.whiteboards`; this module places the objects and builds the scene.
"""
from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass, field

import numpy as np
from scipy import ndimage

from hazard_sim.core.frames import OBJECT_ID_BASE
from hazard_sim.geometry import Box
from hazard_sim.navigation.grid import GridSpec, inflate, rasterize_boxes
from hazard_sim.render.mesh import quad_mesh
from hazard_sim.scenes.base import Scene, floor_part, wall_segments
from hazard_sim.tasks.doze.house_layout import Furniture, door_zones, floor_plan, furniture_parts, place_furniture
from hazard_sim.tasks.doze.library import KINDS, OPEN_VOCAB
from hazard_sim.tasks.doze.placement_priors import choose_slot
from hazard_sim.tasks.doze.shapes import Shape
from hazard_sim.tasks.doze.task import SUCCESS_DISTANCE
from hazard_sim.tasks.doze.vocabulary import BRANDS, COLORS, MATERIALS, PATTERNS, attribute_color
from hazard_sim.tasks.doze.whiteboards import Board, board_texture, frame_mesh, place_boards

SCENES = tuple(f"doze_{k:02d}" for k in range(10))
TRAIN_SCENES, TEST_SCENES = SCENES[:8], SCENES[8:]
ROBOT_RADIUS = 0.18
NAV_RESOLUTION = 0.1
BOARD_LABEL = "whiteboard"


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
    w, h, rooms, walls = floor_plan(rng)
    bounds = (0.0, 0.0, w, h)
    parts = [floor_part(bounds, (185, 165, 130))]
    for k, (a, b) in enumerate((((0, 0), (w, 0)), ((w, 0), (w, h)), ((w, h), (0, h)), ((0, h), (0, 0)))):
        parts += wall_segments(f"outer{k}", a, b, color=(235, 232, 222))
    for k, (a, b, doors) in enumerate(walls):
        parts += wall_segments(f"inner{k}", a, b, doors=doors, color=(225, 225, 215))
    placed = place_furniture(rng, rooms, door_zones(walls))
    furniture, labels_by_name = [], {}
    for k, (cat, rtype, center, yaw, (sx, sy), pieces, props) in enumerate(placed):
        fparts = furniture_parts(k, cat, center, yaw, pieces)
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
        yaw = float(rng.uniform(-np.pi, np.pi)) if yaw is None else yaw
        iid = next_id[0]
        next_id[0] += 1
        it, its_meshes = _item_at(iid, kind, slot, yaw, attr, group)
        meshes.extend(its_meshes)
        items.append(it)
        return it

    used = [0]

    def take(kind, pred, optional=False):
        """A free slot for ``kind`` that ``pred`` allows, drawn by the kind's room and furniture priors."""
        free = [k for k, s in enumerate(slots) if s is not None and pred(s)]
        if not free:
            return None
        pick = choose_slot(rng, kind, [slots[i] for i in free], optional)
        if pick is None:
            return None
        k = free[pick]
        s, slots[k] = slots[k], None
        used[0] += 1
        return s

    # open vocabulary: about 10 unusual things, one of each kind
    ov = [KINDS[str(n)] for n in rng.choice([k.name for k in OPEN_VOCAB], 10, replace=False)]
    for k in ov:
        s = take(k.name, lambda s: (s.relation[0] == "next to") if k.place == "floor" else
                 s.relation[0] in ("on", "in"))
        if s is not None:
            put(k.name, s, "open_vocab")
    # spatial: categories in several relations (about 50 objects)
    sp_kinds = [str(k) for k in rng.choice(SPATIAL_KINDS, 10, replace=False)]
    for kind in sp_kinds:
        floor_kind = KINDS[kind].place == "floor"
        for _ in range(5):
            s = take(kind, lambda s: (s.relation[0] in ("under", "next to")) if floor_kind else True)
            if s is not None:
                put(kind, s, "spatial")
    # appearance: categories in several colours / materials / patterns / brands (about 50 objects)
    ap_kinds = [str(k) for k in rng.choice([k for k in APPEARANCE_KINDS if k not in sp_kinds], 10, replace=False)]
    for kind in ap_kinds:
        attrs = [str(a) for a in rng.choice(_appearance_attrs(kind), 5, replace=False)]
        for a in attrs:
            s = take(kind, lambda s: s.relation[0] in ("on", "in", "next to"))
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
            s = take(kind, lambda s: s.relation[0] in (("under", "next to") if floor_kind else ("on", "in", "under")))
            if s is not None:
                pair.append(put(kind, s, "hint"))
        if len(pair) == 2:
            hint_items.append(pair)
    # distractors: every other kind once where room is left, so the library shows across the scenes
    others = [k for k in KINDS.values() if not k.open_vocab and k.name not in sp_kinds + ap_kinds + hint_kinds]
    # (each scene starts at another place of one fixed order, so the scenes together show the whole library)
    order = np.random.default_rng(7).permutation(len(others))
    for k in np.roll(order, -idx * (len(others) // len(SCENES)))[:70]:
        kd = others[int(k)]
        s = take(kd.name, lambda s: (s.relation[0] in ("next to", "under")) if kd.place == "floor" else
                 s.relation[0] in ("on", "in"), optional=True)
        if s is not None:
            put(kd.name, s, "distractor")
    boards = place_boards(rng, rooms, walls, w, h, hint_items, next_id, solid, grid)
    _separate_hint_pairs(idx, hint_items, slots, _free_floor(grid, solid), grid, items, meshes)
    for b in boards:
        meshes.append(quad_mesh(b.corners, b.id, texture=board_texture(b.lines)))
        meshes.append(frame_mesh(b))
    scene = Scene(name, "indoor", bounds, parts, rooms=[(t, r) for t, r in rooms], meshes=meshes)
    labels = {}
    for pid, p in enumerate(parts, start=1):
        labels[pid] = labels_by_name.get(p.name, p.kind)
    labels.update({it.id: it.category for it in items})
    labels.update({b.id: BOARD_LABEL for b in boards})
    return House(name, scene, furniture, items, boards, labels, labels_by_name)


def _item_at(iid: int, kind: str, slot: _Slot, yaw: float, attr, group) -> tuple[Item, list]:
    """The item ``iid`` of ``kind`` (appearance ``attr``) placed at ``slot`` turned by ``yaw``, its
    shape fitted to the slot's height, and its meshes."""
    shape = _fit(_shape_for(kind, attr), slot.max_h)
    lo, hi = shape.extent()
    pos = np.array([slot.xy[0], slot.xy[1], slot.z])
    it = Item(iid, kind, KINDS[kind].category, pos, yaw, hi - lo, slot.room, slot.relation, attr, group)
    return it, shape.meshes(iid, yaw, pos)


def _separate_hint_pairs(idx, hint_items, slots, free, grid, items, meshes) -> None:
    """Move a hint pair's second instance where the note cannot also describe it.

    A note names its thing's relation and piece ("Kate, your skateboard is under the bed"); a second
    instance drawn from the same kinds of places may land under the same bed (or in the same kind of
    shelf), where reading the note cannot tell the two apart.  Such a second instance is moved, after
    every other object and board is placed and with a random stream of its own (so the rest of the
    house is unchanged), to a free place of the same kinds that the note does not describe, from which
    the robot can reach it (a free cell within :data:`~.task.SUCCESS_DISTANCE`), drawn by its kind's
    priors: in the same relation to another kind of piece where there is one (under a table instead
    of under the bed: as hidden as before, and inside a piece's footprint as before, so the free
    floor the robots map does not change), else in another relation."""
    rng = np.random.default_rng([2024, idx, 1])
    centres = grid.centres()[free]
    reach = SUCCESS_DISTANCE - grid.resolution / 2
    for target, *others in hint_items:
        floor_kind = KINDS[target.kind].place == "floor"
        rels = ("under", "next to") if floor_kind else ("on", "in", "under")
        for other in others:
            if other.relation[:2] != target.relation[:2]:
                continue
            cands = [s for s in slots if s is not None and s.relation[0] in rels
                     and s.relation[:2] != target.relation[:2]
                     and (np.linalg.norm(centres - s.xy, axis=1) <= reach).any()]
            if not cands:
                raise RuntimeError(f"scene {idx}: no place for the second {target.kind} that its note does not name")
            alike = [s for s in cands if s.relation[0] == target.relation[0]]
            cands = alike or cands           # the same kind of place (under another piece) where there is one
            s = cands[choose_slot(rng, other.kind, cands)]
            slots[next(k for k, x in enumerate(slots) if x is s)] = None
            moved, its_meshes = _item_at(other.id, other.kind, s, other.yaw, other.appearance, other.group)
            meshes[:] = [m for m in meshes if m.id != other.id] + its_meshes
            items[next(k for k, x in enumerate(items) if x is other)] = moved


def _free_floor(grid: GridSpec, solid: np.ndarray, radius: float = ROBOT_RADIUS) -> np.ndarray:
    """Cells the robot's centre may stand on: off the solids grown by 0.8 x ``radius``, in the largest
    connected region (the house's reachable floor)."""
    free = ~inflate(solid, radius * 0.8, NAV_RESOLUTION)
    lab, n = ndimage.label(free)
    if n > 1:
        sizes = ndimage.sum(free, lab, range(1, n + 1))
        free = lab == (1 + int(np.argmax(sizes)))
    return free


@functools.lru_cache(maxsize=32)
def _nav_grid(name: str, radius: float):
    house = build_house(name)
    grid = GridSpec(house.scene.bounds, NAV_RESOLUTION)
    return grid, _free_floor(grid, rasterize_boxes(grid, [p.box for p in house.scene.solids()]), radius)


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


def _canonical(obj, depth: int = 0):
    """``obj`` as plain JSON values for hashing: dataclasses and objects by their fields,
    arrays and floats rounded to 5 decimals (what a house holds: parts, items, boards, meshes)."""
    if depth > 12:
        raise ValueError("house fingerprint: nesting too deep")
    if isinstance(obj, (str, bool, int, type(None))):
        return obj
    if isinstance(obj, (float, np.floating)):
        return round(float(obj), 5)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.ndarray):
        a = np.round(obj.astype(float), 5) if obj.dtype.kind == "f" else obj
        return {"shape": list(obj.shape), "sha": hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]}
    if isinstance(obj, dict):
        return {str(k): _canonical(v, depth + 1) for k, v in sorted(obj.items(), key=lambda kv: str(kv[0]))}
    if isinstance(obj, (list, tuple)):
        return [_canonical(v, depth + 1) for v in obj]
    if hasattr(obj, "__dict__"):
        return {type(obj).__name__: _canonical(vars(obj), depth + 1)}
    # a repr could hold a memory address and change the fingerprint from run to run
    raise TypeError(f"house fingerprint: no canonical form for {type(obj).__name__}")


@functools.lru_cache(maxsize=16)
def house_fingerprint(name: str) -> str:
    """sha256 (16 hex digits) of everything a house is made of: its scene's parts, rooms and
    meshes, furniture, items, whiteboards and labels. Sweeps store it with the episode file's
    (:func:`hazard_sim.tasks.doze.dataset.fingerprint`): a change to how houses are generated
    (beds given legs, an object moved) makes earlier results another configuration, never
    silently reused."""
    h = build_house(name)
    doc = {"scene": _canonical(vars(h.scene)), "furniture": _canonical(h.furniture),
           "items": _canonical(h.items), "boards": _canonical(h.boards), "labels": _canonical(h.labels),
           "part_labels": _canonical(h.part_labels)}
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:16]
