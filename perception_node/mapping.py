"""Occupancy grid, field layers and object memory from sensor data (ROS-free).

:class:`MappingCore` ties together, per stamp:

* :class:`perception_node.occupancy.OccupancyMapper` -- depth images -> nav_msgs-style
  occupancy (the embedded agents' ``ObservedMap`` rules);
* :class:`perception_node.field_layers.FieldLayer` -- one per field the benchmark declares
  (:mod:`perception_node.map_plugins`): its images back-projected with the depth image
  onto the grid;
* :class:`perception_node.object_memory.ObjectMemory` -- what has been seen where.

A flying body's 2.5-D map is :class:`perception_node.height_map.HeightMapCore`.
Stamps are float seconds. Points are map-frame metres.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from hazard_sim.navigation.grid import FREE, OCCUPIED, UNKNOWN, GridSpec
from hazard_sim.navigation.maps import MapSpec
from perception_node.field_layers import FieldLayer, LayerScale, field_reading
from perception_node.height_map import HeightMapCore
from perception_node.object_memory import ObjectMemory, ObjectObservation, TrackedObject
from perception_node.occupancy import OccupancyMapper, depth_points

__all__ = ["FREE", "OCCUPIED", "UNKNOWN", "GridSpec", "MapSpec", "depth_points", "OccupancyMapper",
           "FieldLayer", "LayerScale", "field_reading", "ObjectObservation", "TrackedObject", "ObjectMemory",
           "MappingCore", "HeightMapCore"]


@dataclass
class _Frame:
    K: np.ndarray
    T: np.ndarray
    points: np.ndarray | None = None
    fields: dict = field(default_factory=dict)      # layer name -> full-resolution image


class MappingCore:
    """Occupancy + field layers + object memory, fed per stamp in any order.

    ``layers`` (name -> :class:`LayerScale`) are the field layers (:meth:`add_layer` adds
    more later). ``add_depth`` must come with K and the camera pose of that stamp. A field
    image that arrives before its depth image waits (up to ``frames_kept`` stamps).
    ``add_objects`` reads each object's field value from the field image of the same
    stamp when there is one, else from the layer: the task's ``channel`` (the
    simulator's observation channel, a layer name or null) when the task has one, else the
    one layer that has received images. With ``ignore_objects``, movable objects
    stay off the occupancy map (as in the simulator's own map): their footprints are
    cleared when they are seen and their points are skipped in later depth frames.
    """

    def __init__(self, bounds, resolution: float = 0.1, agent_radius: float = 0.25,
                 obstacle_band=(0.1, 1.9), step: int = 4, max_range: float | None = 10.0,
                 task: dict | None = None, frames_kept: int = 10, ignore_objects: bool = True,
                 match_radius: float = 0.75, tile: int | None = None, layers: dict | None = None):
        self.occupancy_map = OccupancyMapper(bounds, resolution, agent_radius, obstacle_band, step,
                                             max_range, tile)
        self.spec = self.occupancy_map.spec
        self.layers: dict[str, FieldLayer] = {}
        for name, scale in (layers or {}).items():
            self.add_layer(name, scale)
        self.memory = ObjectMemory(task, match_radius=match_radius)
        self.frames_kept = int(frames_kept)
        self.ignore_objects = bool(ignore_objects)
        self._frames: OrderedDict[float, _Frame] = OrderedDict()
        self._early_fields: OrderedDict[float, dict] = OrderedDict()
        self.last_depth_stamp: float | None = None

    @property
    def step(self) -> int:
        return self.occupancy_map.step

    def add_layer(self, name: str, scale: LayerScale) -> bool:
        """A field layer more; False when it is there already (its values are kept)."""
        if name in self.layers:
            return False
        self.layers[name] = FieldLayer(self.spec, name, scale)
        return True

    def set_task(self, task: dict | None) -> None:
        self.memory.set_task(task)

    def reading_layer(self) -> str | None:
        """The field layer objects are read from (see the class docstring); None: none known."""
        task = self.memory.task
        if "channel" in task:
            channel = task["channel"]
            return channel if channel in self.layers else None
        fed = [name for name, layer in self.layers.items() if layer.stamp is not None]
        return fed[0] if len(fed) == 1 else None

    def add_depth(self, stamp: float, depth, K, T_map_cam) -> list[str]:
        """Integrate a depth frame; returns the field layers updated by waiting images."""
        boxes = self.memory.in_scene_boxes() if self.ignore_objects else ()
        pts = self.occupancy_map.integrate_depth(depth, K, T_map_cam, boxes)
        frame = _Frame(np.asarray(K, float), np.asarray(T_map_cam, float), pts)
        self._frames[stamp] = frame
        while len(self._frames) > self.frames_kept:
            self._frames.popitem(last=False)
        self.last_depth_stamp = stamp
        updated = []
        for name, img in self._early_fields.pop(stamp, {}).items():
            if self._integrate_field(stamp, name, img):
                updated.append(name)
        return updated

    def add_field(self, stamp: float, name: str, image: np.ndarray) -> bool:
        """Add a field image; True if integrated now, False if it waits for its depth frame."""
        if name not in self.layers:
            raise ValueError(f"unknown field layer {name!r}: expected one of {sorted(self.layers)}")
        if stamp not in self._frames:
            self._early_fields.setdefault(stamp, {})[name] = np.asarray(image, np.float32)
            while len(self._early_fields) > self.frames_kept:
                self._early_fields.popitem(last=False)
            return False
        return self._integrate_field(stamp, name, image)

    def _integrate_field(self, stamp, name, image) -> bool:
        frame = self._frames[stamp]
        img = np.asarray(image, np.float32)
        sub = img[::self.step, ::self.step]
        if sub.shape != frame.points.shape[:2]:
            raise ValueError(f"{name} image {img.shape} does not match the depth image of the "
                             f"same stamp")
        self.layers[name].update(frame.points, sub, stamp)
        frame.fields[name] = img
        return True

    def add_objects(self, stamp: float, observations: list[ObjectObservation]) -> list[int]:
        layer = self.reading_layer()
        frame = self._frames.get(stamp)
        for obs in observations:
            if np.isfinite(obs.reading):
                continue
            names = [layer] if layer else list(self.layers)
            for name in names:
                if frame is not None and name in frame.fields:
                    obs.reading = field_reading(frame.fields[name], frame.K, frame.T, obs.position, obs.size)
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
        unit = self.layers[layer].scale.unit if layer else ""
        return self.memory.to_dict(stamp, frame_id, unit)

    def layers_info(self) -> dict:
        return {name: layer.info() for name, layer in self.layers.items()}
