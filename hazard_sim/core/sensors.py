"""Sensors: what the body's mounts observe, as observation entries and gym spaces.

Each sensor turns one rendered camera frame (and the world) into observation
entries (``read``); a sensor that needs more than the main camera's frame overrides
``read_env`` and gets the env.  ``rgbd``: ``rgb``, ``depth`` (z-depth, m), ``seg`` (instance ids);
``field``: ``field``, the camera-aligned image of the first world process that
offers a field (temperature in C, water level in m; zeros if none does).

:data:`FIELD_ALIAS` (``"hazard"``): the field image's older key, the same array under a second
name; deprecated, kept for one release (new code reads ``obs["field"]``).
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces

from hazard_sim.core.registry import Registry


class Sensor:
    name = "sensor"

    def space(self, h: int, w: int) -> dict:
        return {}

    def read(self, frame, world, fields: bool = True) -> dict:
        return {}

    def read_env(self, env, frame, fields: bool = True) -> dict:
        """What the env calls: by default :meth:`read`. Sensors that need the body or more
        views (several camera mounts, LiDAR, IMU, GPS) override this and use the env's
        frame API (``env.render_view``, ``env.cast_rays``, ``env.agent``)."""
        return self.read(frame, env.world, fields)


class RGBDSensor(Sensor):
    name = "rgbd"

    def space(self, h, w):
        return {"rgb": spaces.Box(0, 255, (h, w, 3), np.uint8),
                "depth": spaces.Box(0, np.inf, (h, w), np.float32),
                "seg": spaces.Box(0, np.iinfo(np.int32).max, (h, w), np.int32)}

    def read(self, frame, world, fields=True):
        return {"rgb": frame.rgb, "depth": frame.depth, "seg": frame.seg}


#: the observation key of the field image
FIELD_KEY = "field"
#: its older key (the same array), deprecated: kept for one release
FIELD_ALIAS = "hazard"


def field_entries(img) -> dict:
    """A field image as observation entries: under :data:`FIELD_KEY` and its alias."""
    return {FIELD_KEY: img, FIELD_ALIAS: img}


class FieldImageSensor(Sensor):
    """The image of a world process's field as the camera sees it (a temperature in C, a water
    level in m, ...), zeros where no process offers one."""
    name = "field"

    def space(self, h, w):
        return field_entries(spaces.Box(-np.inf, np.inf, (h, w), np.float32))

    def read(self, frame, world, fields=True):
        if not fields:
            return field_entries(None)
        for p in world.processes:
            if p.channel is not None:
                img = p.field_image(frame, world)
                if img is not None:
                    return field_entries(img)
        return field_entries(np.zeros(frame.depth.shape, np.float32))


SENSORS: Registry[type] = Registry("sensor")
SENSORS.register("rgbd", RGBDSensor)
SENSORS.register("field", FieldImageSensor)
