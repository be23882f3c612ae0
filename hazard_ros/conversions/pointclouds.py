"""(N, 3) float point arrays <-> ``sensor_msgs/PointCloud2``."""
from __future__ import annotations

import numpy as np
from builtin_interfaces.msg import Time
from sensor_msgs.msg import PointCloud2, PointField

from hazard_ros.conversions.images import bytes_array
from hazard_ros.conversions.stamps import to_ros_header

_XYZ_FIELDS = [PointField(name=n, offset=4 * k, datatype=PointField.FLOAT32, count=1)
               for k, n in enumerate("xyz")]
_POINTFIELD_DTYPES = {PointField.INT8: "i1", PointField.UINT8: "u1", PointField.INT16: "i2",
                      PointField.UINT16: "u2", PointField.INT32: "i4", PointField.UINT32: "u4",
                      PointField.FLOAT32: "f4", PointField.FLOAT64: "f8"}


def to_ros_pointcloud2(points: np.ndarray, stamp: Time, frame_id: str) -> PointCloud2:
    """Unordered PointCloud2 with float32 fields x, y, z of an (N, 3) array
    (non-finite points are dropped)."""
    pts = np.asarray(points, np.float32).reshape(-1, 3)
    pts = np.ascontiguousarray(pts[np.isfinite(pts).all(axis=1)], dtype="<f4")
    msg = PointCloud2(header=to_ros_header(stamp, frame_id), height=1, width=len(pts),
                      fields=[PointField(name=f.name, offset=f.offset, datatype=f.datatype, count=1)
                              for f in _XYZ_FIELDS],
                      is_bigendian=False, point_step=12, row_step=12 * len(pts), is_dense=True)
    msg.data = bytes_array(pts)
    return msg


def from_ros_pointcloud2(msg: PointCloud2) -> np.ndarray:
    """(N, 3) float32 x, y, z of any PointCloud2 that has those fields."""
    fields = {f.name: f for f in msg.fields}
    missing = [n for n in "xyz" if n not in fields]
    if missing:
        raise ValueError(f"PointCloud2 has no field(s) {missing}; fields: {sorted(fields)}")
    order = ">" if msg.is_bigendian else "<"
    dt = np.dtype({"names": list("xyz"),
                   "formats": [order + _POINTFIELD_DTYPES[fields[n].datatype] for n in "xyz"],
                   "offsets": [fields[n].offset for n in "xyz"], "itemsize": msg.point_step})
    n = msg.width * msg.height
    rows = np.frombuffer(msg.data, np.uint8, count=msg.row_step * msg.height).reshape(msg.height, msg.row_step)
    rec = np.ascontiguousarray(rows[:, :msg.width * msg.point_step]).view(dt).reshape(n)
    return np.stack([rec[c].astype(np.float32) for c in "xyz"], axis=1)
