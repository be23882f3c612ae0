"""Occupancy maps in map_server's file format (a YAML file and an image), ROS-free.

The YAML keys are map_server's: ``image`` (path, relative to the YAML file), ``resolution``
(m/cell), ``origin`` ([x, y, yaw] of the lower-left pixel; yaw must be 0 here),
``occupied_thresh`` (0.65), ``free_thresh`` (0.196), ``negate`` (0) and ``mode``
(``trinary``, the default, or ``scale``).  Pixels are read as map_server reads them:
``p = (255 - value) / 255`` (``value / 255`` with negate), occupied (100) above
occupied_thresh, free (0) below free_thresh, unknown (-1) between (``scale``: between is
``99 * (p - free) / (occupied - free)``).  The image's top row is the map's last row.
:func:`save_map` writes a map the same way (PGM, trinary) so that load(save(m)) == m.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import yaml


class MapFileError(Exception):
    """A map file that cannot be used; ``kind`` says which part: "missing", "metadata", "data"."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind, self.message = kind, message


def load_map(yaml_path) -> tuple[np.ndarray, float, tuple[float, float]]:
    """(int16 occupancy rows y with -1..100, resolution, origin xy) of a map_server YAML file."""
    path = Path(str(yaml_path).removeprefix("file://"))
    if not path.is_file():
        raise MapFileError("missing", f"map file {str(path)!r} does not exist")
    try:
        meta = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise MapFileError("metadata", f"{path}: not YAML: {exc}") from None
    if not isinstance(meta, dict) or "image" not in meta or "resolution" not in meta:
        raise MapFileError("metadata", f"{path}: needs the keys image and resolution")
    try:
        resolution = float(meta["resolution"])
        origin = [float(v) for v in meta.get("origin", [0.0, 0.0, 0.0])]
        occ_t, free_t = float(meta.get("occupied_thresh", 0.65)), float(meta.get("free_thresh", 0.196))
        negate = bool(int(meta.get("negate", 0)))
    except (TypeError, ValueError) as exc:
        raise MapFileError("metadata", f"{path}: bad value: {exc}") from None
    mode = str(meta.get("mode", "trinary"))
    if not resolution > 0 or len(origin) < 2 or not all(math.isfinite(v) for v in origin):
        raise MapFileError("metadata", f"{path}: resolution must be > 0 and origin [x, y, yaw] finite")
    if len(origin) > 2 and abs(origin[2]) > 1e-9:
        raise MapFileError("metadata", f"{path}: a rotated origin (yaw {origin[2]}) is not supported")
    if mode not in ("trinary", "scale"):
        raise MapFileError("metadata", f"{path}: mode {mode!r} is not supported (trinary, scale)")
    image = path.parent / str(meta["image"])
    try:
        from PIL import Image
        with Image.open(image) as im:
            pixels = np.asarray(im.convert("L"), dtype=np.float64)
    except (OSError, ValueError) as exc:
        raise MapFileError("data", f"{image}: cannot read the image: {exc}") from None
    p = pixels / 255.0 if negate else (255.0 - pixels) / 255.0
    data = np.full(p.shape, -1, np.int16)
    data[p > occ_t] = 100
    data[p < free_t] = 0
    if mode == "scale":
        mid = (p >= free_t) & (p <= occ_t)
        data[mid] = np.round(99.0 * (p[mid] - free_t) / (occ_t - free_t)).astype(np.int16)
    return data[::-1].copy(), resolution, (origin[0], origin[1])


def save_map(yaml_path, data: np.ndarray, resolution: float, origin=(0.0, 0.0)) -> None:
    """Write ``data`` (rows y, -1 / 0 / 100) as map_server's trinary YAML + PGM."""
    path = Path(yaml_path)
    pgm = path.with_suffix(".pgm")
    img = np.full(data.shape, 205, np.uint8)          # unknown
    img[data == 0] = 254
    img[data >= 65] = 0
    from PIL import Image
    Image.fromarray(img[::-1]).save(pgm)
    path.write_text(yaml.safe_dump({"image": pgm.name, "resolution": float(resolution), "mode": "trinary",
                                    "origin": [float(origin[0]), float(origin[1]), 0.0], "negate": 0,
                                    "occupied_thresh": 0.65, "free_thresh": 0.196}))


__all__ = ["load_map", "save_map", "MapFileError"]
