"""ESAR's sensors: four cameras (RGB, depth, instance segmentation), LiDAR, IMU, GPS and the
altimeter, each registered in the core's sensor registry and read through ``read_env``.

``cameras``: one entry per camera mount (``front_center``, ``front_left``, ``front_right``,
``bottom_center``) with ``rgb`` (H, W, 3) uint8, ``depth`` (H, W) float32 z-depth in m
(inf: sky), ``seg`` (H, W) int32 instance ids (ground truth), ``seg_visible`` (the
ground-truth segmentation track of the benchmark: ``seg`` where a detector could see the
thing, i.e. where the rendered contrast ``light * (1 - fog(d))`` is at least
``VISIBLE_CONTRAST``, or the thing gives its own light), ``K`` and ``pose``
(world-from-optical, 4x4). front_center is the env's main camera (also ``rgb`` /
``depth`` / ``seg``).

``lidar``: (N, 3) float32 points in the ``lidar_link`` frame from a 16-beam scanner (-30 to
+10 degrees elevation, 1 degree azimuth step over 360 degrees, range 300 m).
``imu``: orientation quaternion (x, y, z, w; yaw only), angular velocity (rad/s) and linear
acceleration (m/s^2, body frame, with gravity, as an accelerometer measures).
``gps``: latitude, longitude (deg WGS84) and altitude (m above the ellipsoid, here sea
level) from the map's geo-reference. ``altimeter``: barometric altitude (m above sea level)
and height above the ground below the UAV (m).
"""
from __future__ import annotations

import math

import numpy as np
from gymnasium import spaces

from hazard_sim.core.sensors import SENSORS, Sensor
from hazard_sim.embodiment.multirotor import CAMERAS
from hazard_sim.render.effects import fog_factor

VISIBLE_CONTRAST = 0.2
LIDAR_ELEV = np.radians(np.linspace(-30.0, 10.0, 16))
LIDAR_AZ = np.radians(np.arange(0.0, 360.0, 1.0))
LIDAR_RANGE = 300.0
GRAVITY = 9.81


def visible_mask(frame, effects, emissive_ids=(), focal: float | None = None) -> np.ndarray:
    """Pixels where a thing stands out enough to be detected under the light and the fog."""
    seg = frame.seg
    hit = np.isfinite(frame.depth)
    if effects is None:
        vis = hit
    else:
        contrast = np.full(seg.shape, float(effects.light), np.float32)
        if effects.foggy:
            d = frame.depth * _ray_scale(frame.depth.shape, focal)
            contrast = contrast * (1.0 - fog_factor(effects, np.where(hit, d, 0.0)))
        vis = hit & (contrast >= VISIBLE_CONTRAST)
    if len(emissive_ids):
        glow = np.isin(seg, list(emissive_ids))
        if effects is not None and effects.foggy:
            d = frame.depth * _ray_scale(frame.depth.shape, focal)
            glow &= fog_factor(effects, np.where(hit, d, 0.0)) < 0.97
        vis |= glow & hit
    return vis


_SCALE: dict = {}


def _ray_scale(shape, focal=None) -> np.ndarray:
    """Euclidean distance per unit z-depth of each pixel (focal length in pixels; default a
    90 degree lens)."""
    key = (shape, focal)
    if key not in _SCALE:
        h, w = shape
        f = focal or (w / 2.0) / math.tan(math.radians(45.0))
        u = (np.arange(w) - (w - 1) / 2) / f
        v = (np.arange(h) - (h - 1) / 2) / f
        _SCALE[key] = np.sqrt(1 + u[None, :] ** 2 + v[:, None] ** 2).astype(np.float32)
    return _SCALE[key]


class MultiCamera(Sensor):
    name = "esar_cameras"

    def space(self, h, w):
        one = spaces.Dict({"rgb": spaces.Box(0, 255, (h, w, 3), np.uint8),
                           "depth": spaces.Box(0, np.inf, (h, w), np.float32),
                           "seg": spaces.Box(0, np.iinfo(np.int32).max, (h, w), np.int32),
                           "seg_visible": spaces.Box(0, np.iinfo(np.int32).max, (h, w), np.int32),
                           "K": spaces.Box(-np.inf, np.inf, (3, 3), np.float64),
                           "pose": spaces.Box(-np.inf, np.inf, (4, 4), np.float64)})
        return {"cameras": spaces.Dict({c: one for c in CAMERAS})}

    def read_env(self, env, frame, fields=True):
        fx = env._effects()
        emissive = getattr(env.world, "emissive_ids", ())
        out = {}
        K = env.camera.intrinsics()
        for c in CAMERAS:
            T = env.agent.frame_pose(f"camera_{c}_optical_frame")
            f = frame if c == "front_center" else env.render_view(T[:3, 3], T[:3, :3])
            seg_vis = np.where(visible_mask(f, fx, emissive, env.camera.focal), f.seg, 0).astype(np.int32)
            out[c] = {"rgb": f.rgb, "depth": f.depth, "seg": f.seg, "seg_visible": seg_vis, "K": K, "pose": T}
        return {"cameras": out}


class Lidar(Sensor):
    name = "esar_lidar"

    def __init__(self):
        el, az = np.meshgrid(LIDAR_ELEV, LIDAR_AZ, indexing="ij")
        self.dirs = np.stack([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)], -1).reshape(-1, 3)

    def space(self, h, w):
        return {"lidar": spaces.Box(-np.inf, np.inf, (len(self.dirs), 3), np.float32)}

    def read_env(self, env, frame, fields=True):
        T = env.agent.frame_pose("lidar_link")
        d_world = self.dirs @ T[:3, :3].T
        rays = np.hstack([np.repeat(T[:3, 3][None], len(d_world), 0), d_world]).astype(np.float32)
        r = env.cast_rays(rays)
        r = np.where(np.isfinite(r) & (r <= LIDAR_RANGE), r, np.nan)
        pts = (self.dirs * r[:, None]).astype(np.float32)
        return {"lidar": pts}


class Imu(Sensor):
    name = "esar_imu"

    def space(self, h, w):
        return {"imu": spaces.Dict({"orientation": spaces.Box(-1, 1, (4,), np.float64),
                                    "angular_velocity": spaces.Box(-np.inf, np.inf, (3,), np.float64),
                                    "linear_acceleration": spaces.Box(-np.inf, np.inf, (3,), np.float64)})}

    def read_env(self, env, frame, fields=True):
        b = env.agent
        c, s = math.cos(b.yaw), math.sin(b.yaw)
        a = getattr(b, "accel", np.zeros(3)) + np.array([0.0, 0.0, GRAVITY])
        body_a = np.array([c * a[0] + s * a[1], -s * a[0] + c * a[1], a[2]])
        return {"imu": {"orientation": np.array([0.0, 0.0, math.sin(b.yaw / 2), math.cos(b.yaw / 2)]),
                        "angular_velocity": np.array([0.0, 0.0, getattr(b, "yaw_rate", 0.0)]),
                        "linear_acceleration": body_a}}


class Gps(Sensor):
    name = "esar_gps"

    def space(self, h, w):
        return {"gps": spaces.Box(-np.inf, np.inf, (3,), np.float64)}

    def read_env(self, env, frame, fields=True):
        lat, lon, alt = env.world.scene.terrain.gps(env.agent.position)
        return {"gps": np.array([lat, lon, alt])}


class Altimeter(Sensor):
    name = "esar_altimeter"

    def space(self, h, w):
        return {"altitude": spaces.Box(-np.inf, np.inf, (2,), np.float64)}

    def read_env(self, env, frame, fields=True):
        p = env.agent.position
        return {"altitude": np.array([p[2], p[2] - env.world.scene.terrain.surface_at(p)])}


for _cls in (MultiCamera, Lidar, Imu, Gps, Altimeter):
    SENSORS.register(_cls.name, _cls, replace=True)
