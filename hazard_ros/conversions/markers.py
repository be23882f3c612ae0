"""World markers, 3-D detections and paths for RViz and the planners."""
from __future__ import annotations

import math

import numpy as np
from builtin_interfaces.msg import Time

from hazard_ros.conversions.poses import planar_matrix, to_ros_pose
from hazard_ros.conversions.stamps import to_ros_header


def _rgba(color, alpha: float = 1.0):
    from std_msgs.msg import ColorRGBA
    r, g, b = (float(c) / 255.0 for c in color[:3])
    return ColorRGBA(r=r, g=g, b=b, a=float(alpha))


def to_ros_markers(markers, stamp: Time, frame_id: str = "map", ns: str = "world", labels: bool = True,
                   clear: bool = True, alpha: float = 1.0):
    """visualization_msgs/MarkerArray of :class:`hazard_sim.core.markers.WorldMarker` s:
    CUBE / CYLINDER / SPHERE (pose + scale = size) or TRIANGLE_LIST (``mesh``: three points per
    triangle, per-vertex colours), marker id = the world id, namespace ``ns``; with ``labels``
    a TEXT_VIEW_FACING marker (namespace ``ns + "_labels"``) above each shape. ``clear``
    starts with a DELETEALL so markers of things that left the world disappear."""
    from visualization_msgs.msg import Marker, MarkerArray
    header = to_ros_header(stamp, frame_id)
    out = [Marker(header=header, ns=ns, action=Marker.DELETEALL)] if clear else []
    types = {"box": Marker.CUBE, "cylinder": Marker.CYLINDER, "sphere": Marker.SPHERE,
             "mesh": Marker.TRIANGLE_LIST}
    from geometry_msgs.msg import Point
    for m in markers:
        mk = Marker(header=header, ns=ns, id=int(m.id) % (1 << 31), type=types[m.shape], action=Marker.ADD)
        mk.color = _rgba(m.color, alpha)
        if m.shape == "mesh":
            mk.pose = to_ros_pose(m.pose())
            mk.scale.x = mk.scale.y = mk.scale.z = 1.0
            tri = np.asarray(m.faces, np.int64).reshape(-1)
            v = np.asarray(m.vertices, float)[tri]
            mk.points = [Point(x=float(a), y=float(b), z=float(c)) for a, b, c in v]
            if m.vertex_colors is not None:
                cols = np.asarray(m.vertex_colors, float)[tri] / 255.0
                from std_msgs.msg import ColorRGBA
                mk.colors = [ColorRGBA(r=float(r), g=float(g), b=float(b), a=float(alpha)) for r, g, b in cols]
            out.append(mk)
            continue
        mk.pose = to_ros_pose(m.pose())
        mk.scale.x, mk.scale.y, mk.scale.z = (max(float(s), 1e-3) for s in m.size)
        out.append(mk)
        if labels:
            txt = Marker(header=header, ns=ns + "_labels", id=mk.id, type=Marker.TEXT_VIEW_FACING,
                         action=Marker.ADD, text=str(m.label))
            txt.pose.position.x, txt.pose.position.y = float(m.position[0]), float(m.position[1])
            txt.pose.position.z = float(m.position[2]) + 0.5 * float(m.size[2]) + 0.5
            txt.pose.orientation.w = 1.0
            txt.scale.z = max(0.3, 0.5 * float(max(m.size)))
            txt.color = _rgba((255, 255, 255))
            out.append(txt)
    return MarkerArray(markers=out)


def to_ros_detection3d_array(items, stamp: Time, frame_id: str = "map"):
    """vision_msgs/Detection3DArray: one Detection3D per item, ``results[0].hypothesis.class_id``
    = its label, ``id`` = its id as text, bbox = its pose and size, score = its ``score``
    attribute (1 if none). Items are WorldMarkers or anything with ``id``, ``label``,
    ``position``, ``size`` and optionally ``rotation`` / ``score``."""
    from vision_msgs.msg import Detection3D, Detection3DArray, ObjectHypothesisWithPose
    out = Detection3DArray(header=to_ros_header(stamp, frame_id))
    for it in items:
        T = np.eye(4)
        T[:3, :3] = np.asarray(getattr(it, "rotation", None) if getattr(it, "rotation", None) is not None
                               else np.eye(3), float)
        T[:3, 3] = np.asarray(it.position, float)[:3]
        d = Detection3D(header=out.header, id=str(it.id))
        d.bbox.center = to_ros_pose(T)
        d.bbox.size.x, d.bbox.size.y, d.bbox.size.z = (float(v) for v in it.size)
        h = ObjectHypothesisWithPose()
        h.hypothesis.class_id = str(it.label)
        h.hypothesis.score = float(getattr(it, "score", 1.0))
        h.pose.pose = d.bbox.center
        d.results = [h]
        out.detections.append(d)
    return out


def from_ros_detection3d_array(msg) -> list[tuple[str, np.ndarray, float]]:
    """(class_id, centre (3,), score) of each detection's best hypothesis (centre of its bbox)."""
    out = []
    for d in msg.detections:
        if not d.results:
            raise ValueError(f"Detection3D {d.id!r} has no results (no class)")
        best = max(d.results, key=lambda r: r.hypothesis.score)
        p = d.bbox.center.position
        out.append((best.hypothesis.class_id, np.array([p.x, p.y, p.z]), float(best.hypothesis.score)))
    return out


def to_ros_path(points, stamp: Time, frame_id: str = "map", yaws=None):
    """nav_msgs/Path through (N, 3) points (orientation = ``yaws`` if given, else along the path)."""
    from geometry_msgs.msg import PoseStamped
    from nav_msgs.msg import Path
    pts = np.asarray(points, float).reshape(-1, 3)
    msg = Path(header=to_ros_header(stamp, frame_id))
    for k, p in enumerate(pts):
        if yaws is not None:
            yaw = float(yaws[k])
        else:
            d = pts[min(k + 1, len(pts) - 1)] - pts[max(k - 1, 0)]
            yaw = math.atan2(d[1], d[0]) if np.any(d[:2]) else 0.0
        ps = PoseStamped(header=msg.header)
        ps.pose = to_ros_pose(planar_matrix(p[0], p[1], yaw, p[2]))
        msg.poses.append(ps)
    return msg
