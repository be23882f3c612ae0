"""Occupancy grid, hazard layers and object memory from sensor data (ROS-free).

* :class:`OccupancyMapper` -- depth images -> nav_msgs-style occupancy, through
  :class:`hazard_sim.navigation.observed_map.ObservedMap` (the same rules the embedded
  agents use: points in the body-height band are obstacles, floor points are free).
* :class:`HazardLayer` -- a hazard image (thermal Celsius or water level m) back-projected
  with the depth image onto the grid: per frame the maximum per cell, across frames the
  latest value (``peak`` keeps the maximum ever seen).
* :class:`ObjectMemory` -- what has been seen where: id, label, last pose, last time, hazard
  reading, state; records are :class:`hazard_sim.tasks.hazard.agents.memory.ObjectRecord` (extended
  with size and score), so the embedded agents' record type is reused.
* :class:`MappingCore` -- ties the three together per stamp, for the mapping node.

Stamps are float seconds. Points are map-frame metres.
"""
from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from hazard_sim.intrinsics import backproject
from hazard_sim.navigation.grid import FREE, OCCUPIED, UNKNOWN, GridSpec
from hazard_sim.navigation.maps import MapSpec, Window, new_layer, region
from hazard_sim.navigation.observed_map import ObservedMap
from hazard_sim.tasks.hazard.agents.memory import ObjectRecord
from perception_node.projection import project_points, scaled_K

__all__ = ["FREE", "OCCUPIED", "UNKNOWN", "GridSpec", "MapSpec", "depth_points", "OccupancyMapper",
           "HazardLayer", "LAYER_SCALES", "ObjectObservation", "TrackedObject", "ObjectMemory",
           "hazard_reading", "MappingCore", "HeightMapCore"]


def depth_points(depth: np.ndarray, K: np.ndarray, T_map_cam: np.ndarray, step: int = 1,
                 max_range: float | None = None) -> np.ndarray:
    """Map-frame points (H/step, W/step, 3) of a z-depth image; NaN where there is no
    valid depth (non-finite, <= 0, or beyond ``max_range``)."""
    d = np.asarray(depth, np.float32)[::step, ::step]
    bad = ~np.isfinite(d) | (d <= 0)
    if max_range is not None:
        bad |= d > max_range
    d = np.where(bad, np.nan, d)
    return backproject(d, scaled_K(K, step), np.asarray(T_map_cam, float))


# ====================================================================== occupancy
class OccupancyMapper:
    """Occupancy over ``bounds`` (xmin, ymin, xmax, ymax) from depth images.

    The map is dense, or tiled (``tile`` cells a side; None: tiled only when it has more
    than :data:`hazard_sim.navigation.maps.DENSE_CELL_LIMIT` cells, 0: dense), see
    :meth:`hazard_sim.navigation.maps.MapSpec.auto`.
    Points outside the bounds are dropped (ObservedMap would clamp them onto the border).
    ``ignore_boxes`` (centre, size) pairs remove points of movable objects, as the
    simulator's own map ignores them.
    """

    def __init__(self, bounds, resolution: float = 0.1, agent_radius: float = 0.25,
                 obstacle_band=(0.1, 1.9), step: int = 4, max_range: float | None = 10.0,
                 tile: int | None = None):
        self.spec = MapSpec.auto(bounds, resolution, tile)
        self.step = int(step)
        self.max_range = max_range
        self.map = ObservedMap(self.spec, agent_radius, tuple(obstacle_band), stride=1)
        self.frames = 0

    def in_bounds(self, points: np.ndarray) -> np.ndarray:
        x0, y0, x1, y1 = self.spec.bounds
        x, y = points[..., 0], points[..., 1]
        return (x >= x0) & (x < x1) & (y >= y0) & (y < y1)

    def integrate_points(self, points: np.ndarray, ignore_boxes=()) -> None:
        pts = np.array(points, float, copy=True)
        drop = ~self.in_bounds(np.nan_to_num(pts, nan=np.inf))
        for center, size in ignore_boxes:
            half = np.asarray(size, float) / 2 + 0.05
            inside = np.all(np.abs(pts - np.asarray(center, float)) <= half, axis=-1)
            drop |= inside
        pts[drop] = np.nan
        self.map.integrate(pts, stride=1)
        self.frames += 1

    def integrate_depth(self, depth, K, T_map_cam, ignore_boxes=()) -> np.ndarray:
        """Add one depth image; returns its (subsampled) map-frame points."""
        pts = depth_points(depth, K, T_map_cam, self.step, self.max_range)
        self.integrate_points(pts, ignore_boxes)
        return pts

    def clear_boxes(self, boxes, pad: float = 0.05) -> None:
        """Forget obstacle evidence under the footprints of (centre, size) boxes: objects
        recognised only after their first depth frame marked them."""
        x0, y0, _, _ = self.spec.bounds
        r = self.spec.resolution
        h, w = self.spec.shape
        for center, size in boxes:
            lo = np.asarray(center, float)[:2] - np.asarray(size, float)[:2] / 2 - pad
            hi = np.asarray(center, float)[:2] + np.asarray(size, float)[:2] / 2 + pad
            j0, i0 = max(0, int(np.floor((lo[0] - x0) / r))), max(0, int(np.floor((lo[1] - y0) / r)))
            j1, i1 = min(w, int(np.floor((hi[0] - x0) / r)) + 1), min(h, int(np.floor((hi[1] - y0) / r)) + 1)
            if i1 > i0 and j1 > j0:
                self.map.hits[i0:i1, j0:j1] = 0
        self.map._blocked = None

    def occupancy(self, window: Window | None = None) -> np.ndarray:
        """int8 (rows = y, cols = x) with -1 unknown, 0 free, 100 occupied; of ``window``
        (None: the whole map)."""
        return self.map.occupancy(window)


# ================================================================== hazard layers
@dataclass(frozen=True)
class LayerScale:
    """How a layer is packed into an OccupancyGrid: value = offset + scale * cell (0..100)."""

    unit: str
    offset: float
    scale: float

    def pack(self, values: np.ndarray) -> np.ndarray:
        out = np.full(values.shape, -1, np.int8)
        ok = np.isfinite(values)
        out[ok] = np.clip(np.rint((values[ok] - self.offset) / self.scale), 0, 100).astype(np.int8)
        return out

    def unpack(self, cells: np.ndarray) -> np.ndarray:
        cells = np.asarray(cells)
        return np.where(cells < 0, np.nan, self.offset + self.scale * cells.astype(float))


LAYER_SCALES = {
    "temperature": LayerScale("C", 0.0, 10.0),      # 0..1000 C (burning objects are ~600 C)
    "water_level": LayerScale("m", 0.0, 0.02),      # 0..2 m (HAZARD's flood tops out at 1.5 m)
}


class HazardLayer:
    """A hazard value per grid cell (NaN = never observed)."""

    def __init__(self, spec: GridSpec, name: str, scale: LayerScale | None = None):
        self.spec = spec
        self.name = name
        self.scale = scale or LAYER_SCALES[name]
        self.values = new_layer(spec, np.float32, np.nan)     # dense, or tiled for a tiled MapSpec
        self.peak = new_layer(spec, np.float32, np.nan)
        self.updated = new_layer(spec, np.float64, np.nan)    # stamp of the last value per cell
        self.stamp: float | None = None

    def update(self, points: np.ndarray, image: np.ndarray, stamp: float) -> int:
        """Per cell, the maximum of this frame's values replaces the old one; returns the
        number of cells updated. ``points`` (..., 3) and ``image`` (...) align pixel for pixel."""
        p = np.asarray(points, float).reshape(-1, 3)
        v = np.asarray(image, np.float32).reshape(-1)
        x0, y0, x1, y1 = self.spec.bounds
        ok = np.isfinite(p[:, 0]) & np.isfinite(v)
        ok &= (p[:, 0] >= x0) & (p[:, 0] < x1) & (p[:, 1] >= y0) & (p[:, 1] < y1)
        if not ok.any():
            return 0
        i, j = self.spec.to_cells(p[ok, :2])
        w = self.spec.shape[1]
        cells, inv = np.unique(i * w + j, return_inverse=True)     # the cells this frame saw
        frame = np.full(cells.size, -np.inf, np.float32)
        np.maximum.at(frame, inv, v[ok])
        ci, cj = cells // w, cells % w
        self.values[ci, cj] = frame
        self.peak[ci, cj] = np.fmax(self.peak[ci, cj], frame)
        self.updated[ci, cj] = stamp
        self.stamp = stamp
        return int(cells.size)

    def value_at(self, xy) -> float:
        return float(self.values[self.spec.to_cell(xy)])

    def occupancy(self, window: Window | None = None) -> np.ndarray:
        return self.scale.pack(region(self.values, window))

    def info(self) -> dict:
        return {"unit": self.scale.unit, "offset": self.scale.offset, "scale": self.scale.scale,
                "unknown": -1, "formula": "value = offset + scale * cell (cells 0..100, -1 unknown)"}


def hazard_reading(image: np.ndarray, K, T_map_cam, center, size, core: float = 0.5) -> float:
    """Median of a hazard image over the central ``core`` part of where a map-frame box
    (centre, size) appears in the image; NaN when it is not in view."""
    c, s = np.asarray(center, float), np.asarray(size, float)
    corners = c + 0.5 * s * np.array([[a, b, d] for a in (-1, 1) for b in (-1, 1) for d in (-1, 1)])
    uv, z = project_points(np.vstack([c, corners]), np.asarray(K, float), T_map_cam)
    if not np.all(z > 1e-6):
        return float("nan")
    h, w = image.shape[:2]
    (uc, vc), ext = uv[0], uv[1:]
    hu = max(0.5, (ext[:, 0].max() - ext[:, 0].min()) * core / 2)
    hv = max(0.5, (ext[:, 1].max() - ext[:, 1].min()) * core / 2)
    u0, u1 = max(0, int(math.floor(uc - hu + 0.5))), min(w, int(math.floor(uc + hu + 0.5)) + 1)
    v0, v1 = max(0, int(math.floor(vc - hv + 0.5))), min(h, int(math.floor(vc + hv + 0.5)) + 1)
    if u1 <= u0 or v1 <= v0:
        return float("nan")
    patch = np.asarray(image[v0:v1, u0:u1], float)
    patch = patch[np.isfinite(patch)]
    return float(np.median(patch)) if patch.size else float("nan")


# ==================================================================== object memory
@dataclass
class ObjectObservation:
    """One object seen in one frame (from a Detection3D)."""

    label: str
    position: np.ndarray
    size: np.ndarray = field(default_factory=lambda: np.zeros(3))
    score: float = 1.0
    instance_id: int | None = None
    reading: float = float("nan")


@dataclass
class TrackedObject(ObjectRecord):
    """:class:`ObjectRecord` with the extras a detector gives. ``last_seen`` and the times
    in ``readings`` are stamps in seconds (the embedded agents use frames)."""

    size: np.ndarray = field(default_factory=lambda: np.zeros(3))
    score: float = 0.0
    first_seen: float = 0.0
    times_seen: int = 0
    is_container: bool = False

    def reading_rate_per_s(self) -> float:
        pts = [(t, r) for t, r in self.readings if np.isfinite(r)]
        if len(pts) < 2:
            return 0.0
        (t0, r0), (t1, r1) = pts[-2], pts[-1]
        return 0.0 if t1 == t0 else (r1 - r0) / (t1 - t0)


def _finite_or_none(x):
    x = float(x)
    return x if math.isfinite(x) else None


class ObjectMemory:
    """Object records keyed by id.

    Observations with an instance id (ground truth) update that record; others are
    associated with the nearest record of the same label within ``match_radius`` m that
    was not matched in the same update, or get a new id from ``first_track_id`` upward.
    ``task`` (the ``task`` topic JSON) marks targets (``is_target``, ``value``) and
    containers (``cart...``). ``apply_status`` takes the simulator's held / rescued ids.
    """

    def __init__(self, task: dict | None = None, match_radius: float = 0.75, history: int = 20,
                 first_track_id: int = 1_000_000):
        self.match_radius = float(match_radius)
        self.history = int(history)
        self._next_id = int(first_track_id)
        self.objects: dict[int, TrackedObject] = {}
        self.task: dict = {}
        self.targets: dict[str, dict] = {}
        self.container_labels: set[str] = {"cart"}
        self.set_task(task)

    def set_task(self, task: dict | None) -> None:
        self.task = dict(task or {})
        self.targets = {t["category"]: t for t in self.task.get("targets", []) if "category" in t}
        self.container_labels = {"cart"} | set(map(str, (self.task.get("containers") or {}).values()))
        for rec in self.objects.values():
            t = self.targets.get(rec.category)
            rec.is_target, rec.value = t is not None, int(t["value"]) if t else 0
            rec.is_container = self._is_container(rec.category)

    def _is_container(self, label: str) -> bool:
        return label in self.container_labels or label.startswith("cart")

    def _match(self, obs: ObjectObservation, taken: set[int]) -> int | None:
        best, best_d = None, self.match_radius
        for oid, rec in self.objects.items():
            if oid in taken or rec.category != obs.label or rec.status in ("held", "rescued"):
                continue
            d = float(np.linalg.norm(rec.position[:2] - np.asarray(obs.position, float)[:2]))
            if d <= best_d:
                best, best_d = oid, d
        return best

    def update(self, observations: list[ObjectObservation], stamp: float) -> list[int]:
        """Integrate one frame's observations; returns the ids updated."""
        taken: set[int] = set()
        ids: list[int] = []
        order = sorted(range(len(observations)),
                       key=lambda k: (observations[k].instance_id is None, -observations[k].score))
        for k in order:
            obs = observations[k]
            pos = np.asarray(obs.position, float).reshape(3)
            if not np.all(np.isfinite(pos)):
                continue
            oid = obs.instance_id if obs.instance_id is not None else self._match(obs, taken)
            if oid is None:
                oid = self._next_id
                self._next_id += 1
            oid = int(oid)
            taken.add(oid)
            rec = self.objects.get(oid)
            if rec is None:
                t = self.targets.get(obs.label)
                rec = TrackedObject(oid, obs.label, pos, stamp, t is not None, int(t["value"]) if t else 0,
                                    first_seen=stamp, is_container=self._is_container(obs.label))
                self.objects[oid] = rec
            elif rec.category != obs.label and obs.instance_id is None:
                continue
            rec.category = obs.label
            rec.position = pos
            rec.size = np.asarray(obs.size, float).reshape(3)
            rec.score = float(obs.score)
            rec.last_seen = float(stamp)
            rec.times_seen += 1
            if np.isfinite(obs.reading):
                rec.reading = float(obs.reading)
                if rec.readings and rec.readings[-1][0] == stamp:
                    rec.readings[-1] = (stamp, rec.reading)
                else:
                    rec.readings.append((float(stamp), rec.reading))
                    del rec.readings[:-self.history]
            if rec.status == "held":            # seen in the scene again
                rec.status = "scene"
            ids.append(oid)
        return ids

    def apply_status(self, held: int | None, rescued_ids=()) -> bool:
        """Simulator status (``episode/status``): held object id (-1/None for none) and
        rescued ids. Returns True when a state changed."""
        rescued = {int(i) for i in rescued_ids or ()}
        held = -1 if held is None else int(held)
        changed = False
        for oid, rec in self.objects.items():
            new = ("rescued" if oid in rescued else "held" if oid == held
                   else "scene" if rec.status in ("held", "rescued") else rec.status)
            if new != rec.status:
                rec.status, changed = new, True
        return changed

    def in_scene_boxes(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """(centre, size) of objects believed to be in the scene (to keep them off the map)."""
        return [(r.position, r.size) for r in self.objects.values()
                if r.status == "scene" and not r.is_container and np.all(r.size > 0)]

    def to_dict(self, stamp: float | None = None, frame_id: str = "map", unit: str = "") -> dict:
        objs = []
        for oid in sorted(self.objects):
            r = self.objects[oid]
            objs.append({
                "id": oid, "label": r.category,
                "position": [round(float(a), 4) for a in r.position],
                "size": [round(float(a), 4) for a in r.size],
                "last_seen": r.last_seen, "first_seen": r.first_seen, "times_seen": r.times_seen,
                "score": round(r.score, 4), "reading": _finite_or_none(r.reading),
                "reading_rate": round(r.reading_rate_per_s(), 6),
                "state": r.status, "is_target": r.is_target, "value": r.value,
                "is_container": r.is_container,
            })
        return {"stamp": stamp, "frame_id": frame_id, "hazard": self.task.get("hazard"),
                "reading_unit": unit, "objects": objs}


# ===================================================================== mapping core
@dataclass
class _Frame:
    K: np.ndarray
    T: np.ndarray
    points: np.ndarray | None = None
    hazards: dict = field(default_factory=dict)      # layer name -> full-resolution image


class MappingCore:
    """Occupancy + hazard layers + object memory, fed per stamp in any order.

    ``add_depth`` must come with K and the camera pose of that stamp. A hazard image
    that arrives before its depth image waits (up to ``frames_kept`` stamps).
    ``add_objects`` reads each object's hazard value from the hazard image of the same
    stamp when there is one, else from the layer: the task's ``channel`` (the
    simulator's observation channel, a layer name or null) when the task has one, else the
    one layer that has received images. With ``ignore_objects``, movable objects
    stay off the occupancy map (as in the simulator's own map): their footprints are
    cleared when they are seen and their points are skipped in later depth frames.
    """

    def __init__(self, bounds, resolution: float = 0.1, agent_radius: float = 0.25,
                 obstacle_band=(0.1, 1.9), step: int = 4, max_range: float | None = 10.0,
                 task: dict | None = None, frames_kept: int = 10, ignore_objects: bool = True,
                 match_radius: float = 0.75, tile: int | None = None):
        self.occupancy_map = OccupancyMapper(bounds, resolution, agent_radius, obstacle_band, step,
                                             max_range, tile)
        self.spec = self.occupancy_map.spec
        self.layers = {name: HazardLayer(self.spec, name) for name in LAYER_SCALES}
        self.memory = ObjectMemory(task, match_radius=match_radius)
        self.frames_kept = int(frames_kept)
        self.ignore_objects = bool(ignore_objects)
        self._frames: OrderedDict[float, _Frame] = OrderedDict()
        self._early_hazards: OrderedDict[float, dict] = OrderedDict()
        self.last_depth_stamp: float | None = None

    @property
    def step(self) -> int:
        return self.occupancy_map.step

    def set_task(self, task: dict | None) -> None:
        self.memory.set_task(task)

    def reading_layer(self) -> str | None:
        """The hazard layer objects are read from (see the class docstring); None: none known."""
        task = self.memory.task
        if "channel" in task:
            channel = task["channel"]
            return channel if channel in self.layers else None
        fed = [name for name, layer in self.layers.items() if layer.stamp is not None]
        return fed[0] if len(fed) == 1 else None

    def add_depth(self, stamp: float, depth, K, T_map_cam) -> list[str]:
        """Integrate a depth frame; returns the hazard layers updated by waiting images."""
        boxes = self.memory.in_scene_boxes() if self.ignore_objects else ()
        pts = self.occupancy_map.integrate_depth(depth, K, T_map_cam, boxes)
        frame = _Frame(np.asarray(K, float), np.asarray(T_map_cam, float), pts)
        self._frames[stamp] = frame
        while len(self._frames) > self.frames_kept:
            self._frames.popitem(last=False)
        self.last_depth_stamp = stamp
        updated = []
        for name, img in self._early_hazards.pop(stamp, {}).items():
            if self._integrate_hazard(stamp, name, img):
                updated.append(name)
        return updated

    def add_hazard(self, stamp: float, name: str, image: np.ndarray) -> bool:
        """Add a hazard image; True if integrated now, False if it waits for its depth frame."""
        if name not in self.layers:
            raise ValueError(f"unknown hazard layer {name!r}: expected one of {sorted(self.layers)}")
        if stamp not in self._frames:
            self._early_hazards.setdefault(stamp, {})[name] = np.asarray(image, np.float32)
            while len(self._early_hazards) > self.frames_kept:
                self._early_hazards.popitem(last=False)
            return False
        return self._integrate_hazard(stamp, name, image)

    def _integrate_hazard(self, stamp, name, image) -> bool:
        frame = self._frames[stamp]
        img = np.asarray(image, np.float32)
        sub = img[::self.step, ::self.step]
        if sub.shape != frame.points.shape[:2]:
            raise ValueError(f"{name} image {img.shape} does not match the depth image of the "
                             f"same stamp")
        self.layers[name].update(frame.points, sub, stamp)
        frame.hazards[name] = img
        return True

    def add_objects(self, stamp: float, observations: list[ObjectObservation]) -> list[int]:
        layer = self.reading_layer()
        frame = self._frames.get(stamp)
        for obs in observations:
            if np.isfinite(obs.reading):
                continue
            names = [layer] if layer else list(self.layers)
            for name in names:
                if frame is not None and name in frame.hazards:
                    obs.reading = hazard_reading(frame.hazards[name], frame.K, frame.T,
                                                 obs.position, obs.size)
                elif layer is not None and self.layers[name].stamp is not None:
                    obs.reading = self.layers[name].value_at(np.asarray(obs.position)[:2])
                if np.isfinite(obs.reading):
                    break
        ids = self.memory.update(observations, stamp)
        if self.ignore_objects:
            recs = [self.memory.objects[i] for i in ids]
            self.occupancy_map.clear_boxes([(r.position, r.size) for r in recs
                                            if r.status == "scene" and not r.is_container
                                            and np.all(r.size > 0)])
        return ids

    def memory_dict(self, stamp: float | None = None, frame_id: str = "map") -> dict:
        layer = self.reading_layer()
        unit = LAYER_SCALES[layer].unit if layer else ""
        return self.memory.to_dict(stamp, frame_id, unit)

    def layers_info(self) -> dict:
        return {name: layer.info() for name, layer in self.layers.items()}


# ====================================================================== 2.5-D height map (flying bodies)
class HeightMapCore:
    """A 2.5-D map for a flying body (the mapping node's mode when the task says the body
    flies): the highest point seen per cell (``hazard_sim.navigation.maps.HeightLayer``, what
    the embedded ESAR baselines use), from the depth images of every camera.

    * :meth:`add_depth` back-projects a z-depth image (every ``step``-th pixel, up to
      ``max_range`` m) with the camera's map pose and keeps the maximum height per cell;
    * :meth:`obstacles` is the obstacle-at-altitude layer for nav_msgs/OccupancyGrid: 100
      where the known height is above ``altitude - clearance`` (the body cannot fly through
      at that altitude), 0 where it is known and below, -1 where nothing was seen;
    * :meth:`height_points` are the known cells as (N, 3) points (cell centre, height), for
      a PointCloud2 elevation map.
    """

    def __init__(self, bounds, resolution: float = 10.0, step: int = 4, max_range: float = 1500.0,
                 clearance: float = 10.0, tile: int | None = None):
        from hazard_sim.navigation.maps import HeightLayer
        if not resolution > 0 or step < 1 or not max_range > 0:
            raise ValueError(f"height map needs resolution > 0, step >= 1 and max_range > 0, got "
                             f"{resolution}, {step}, {max_range}")
        self.spec = MapSpec.auto(bounds, float(resolution), tile)
        self.heights = HeightLayer(self.spec)
        self.step, self.max_range, self.clearance = int(step), float(max_range), float(clearance)
        self.frames = 0

    def add_depth(self, depth: np.ndarray, K: np.ndarray, T_map_cam: np.ndarray) -> int:
        """Add one depth image; returns the number of points used."""
        pts = depth_points(depth, K, T_map_cam, self.step, self.max_range)
        self.frames += 1
        return self.heights.add_points(pts)

    def known(self, window: Window | None = None) -> np.ndarray:
        return region(self.heights, window)

    def obstacles(self, altitude: float, window: Window | None = None, clearance: float | None = None) -> np.ndarray:
        h = self.known(window)
        c = self.clearance if clearance is None else float(clearance)
        out = np.full(h.shape, UNKNOWN, np.int8)
        seen = np.isfinite(h)
        out[seen] = np.where(h[seen] > altitude - c, OCCUPIED, FREE)
        return out

    def height_points(self, window: Window | None = None) -> np.ndarray:
        h = self.known(window)
        i, j = np.nonzero(np.isfinite(h))
        grid = self.spec if window is None else window.grid
        x = grid.bounds[0] + (j + 0.5) * grid.resolution
        y = grid.bounds[1] + (i + 0.5) * grid.resolution
        return np.stack([x, y, h[i, j]], axis=1).astype(np.float32)
