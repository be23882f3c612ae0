"""hazard_ros.conversions and hazard_ros.tf_math: messages built in memory (no ROS
context), round trips, encodings and TF chain math. Skipped without the ROS message
packages (run `bash scripts/setup_ros.sh`)."""
from __future__ import annotations

import math

import numpy as np
import pytest

try:
    from rclpy.serialization import deserialize_message, serialize_message
    from sensor_msgs.msg import Image, PointCloud2, PointField
    from tf2_msgs.msg import TFMessage
    from vision_msgs.msg import LabelInfo
except Exception as exc:  # ImportError, or OSError from a missing shared library
    pytest.skip(f"ROS 2 message packages cannot be imported ({type(exc).__name__}: {exc}); "
                "run `bash scripts/setup_ros.sh`", allow_module_level=True)

from hazard_ros import conversions as conv
from hazard_ros import tf_math
from hazard_ros.tf_math import TfBuffer, TfLookupError

RNG = np.random.default_rng(7)


def random_rotation():
    q = RNG.normal(size=4)
    return tf_math.quaternion_to_matrix(q)


def random_transform():
    T = np.eye(4)
    T[:3, :3] = random_rotation()
    T[:3, 3] = RNG.uniform(-5, 5, 3)
    return T


def test_no_rclpy_import_in_pure_modules():
    import ast
    import inspect
    for mod in (conv, tf_math):
        tree = ast.parse(inspect.getsource(mod))
        names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        assert not any(n.split(".")[0] == "rclpy" for n in names), mod.__name__
    tree = ast.parse(inspect.getsource(tf_math))
    assert {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names} <= {"bisect", "math", "numpy"}


def test_stamps_are_exact_per_frame():
    for f in (0, 1, 9, 10, 15, 1499, 123456):
        t = conv.stamp_from_frame(f)
        assert t.nanosec < 1_000_000_000
        assert conv.frame_from_stamp(t) == f
        assert conv.time_to_sec(t) == pytest.approx(f * 0.1)
    assert (conv.stamp_from_frame(15).sec, conv.stamp_from_frame(15).nanosec) == (1, 500_000_000)
    assert conv.to_ros_clock(3).clock == conv.stamp_from_frame(3)
    with pytest.raises(ValueError):
        conv.stamp_from_frame(-1)


@pytest.mark.parametrize("arr,enc", [
    (RNG.integers(0, 256, (5, 7, 3), dtype=np.uint8), "rgb8"),
    (np.where(RNG.random((5, 7)) < 0.2, np.inf, RNG.random((5, 7))).astype(np.float32), "32FC1"),
    (RNG.integers(0, 2000, (5, 7), dtype=np.int32), "32SC1"),
    (RNG.integers(0, 256, (5, 7), dtype=np.uint8), "mono8"),
    (RNG.integers(0, 65535, (5, 7), dtype=np.uint16), "16UC1"),
])
def test_image_round_trip(arr, enc):
    stamp = conv.stamp_from_frame(12)
    msg = conv.to_ros_image(arr, stamp, "camera_optical_frame")
    assert (msg.encoding, msg.height, msg.width, msg.header.frame_id) == (enc, 5, 7, "camera_optical_frame")
    assert msg.step == 7 * arr.itemsize * (3 if arr.ndim == 3 else 1)
    again = deserialize_message(serialize_message(msg), Image)     # through CDR, as on the wire
    out = conv.from_ros_image(again)
    assert out.dtype == arr.dtype and np.array_equal(out, arr)


def test_image_padding_big_endian_and_errors():
    arr = np.arange(12, dtype=np.float32).reshape(3, 4)
    be = arr.astype(">f4")
    rows = [be[r].tobytes() + b"\0" * 4 for r in range(3)]        # 4 bytes of padding per row
    msg = Image(height=3, width=4, encoding="32FC1", is_bigendian=1, step=20, data=b"".join(rows))
    assert np.array_equal(conv.from_ros_image(msg), arr)
    with pytest.raises(ValueError, match="unsupported image encoding"):
        conv.from_ros_image(Image(height=1, width=1, encoding="yuv422", step=2, data=b"\0\0"))
    with pytest.raises(ValueError, match="too short"):
        conv.from_ros_image(Image(height=2, width=2, encoding="mono8", step=2, data=b"\0\0"))
    with pytest.raises(ValueError, match="needs 3 channel"):
        conv.to_ros_image(np.zeros((2, 2), np.uint8), conv.stamp_from_frame(0), "c", "rgb8")
    with pytest.raises(ValueError, match="no image encoding"):
        conv.to_ros_image(np.zeros((2, 2), np.complex64), conv.stamp_from_frame(0), "c")


def test_camera_info_round_trip():
    from hazard_sim.render.camera import CameraSpec
    cam = CameraSpec(640, 480, 90.0)
    msg = conv.to_ros_camera_info(cam.intrinsics(), cam.width, cam.height, conv.stamp_from_frame(1), "cam")
    assert (msg.width, msg.height, msg.distortion_model) == (640, 480, "plumb_bob")
    assert np.allclose(conv.from_ros_camera_info(msg), cam.intrinsics())
    assert np.allclose(np.reshape(msg.p, (3, 4))[:, :3], cam.intrinsics())
    from sensor_msgs.msg import CameraInfo
    with pytest.raises(ValueError, match="uncalibrated"):
        conv.from_ros_camera_info(CameraInfo())


def test_quaternions_and_transforms():
    for _ in range(50):
        R = random_rotation()
        q = tf_math.matrix_to_quaternion(R)
        assert q[3] >= 0 and np.isclose(np.linalg.norm(q), 1)
        assert np.allclose(tf_math.quaternion_to_matrix(q), R)
    for R in (np.diag([1.0, -1, -1]), np.diag([-1.0, 1, -1]), np.diag([-1.0, -1, 1])):   # 180 degree turns
        assert np.allclose(tf_math.quaternion_to_matrix(tf_math.matrix_to_quaternion(R)), R)
    T = random_transform()
    msg = conv.to_ros_transform(T, conv.stamp_from_frame(4), "map", "odom")
    assert (msg.header.frame_id, msg.child_frame_id) == ("map", "odom")
    assert np.allclose(conv.from_ros_transform(msg), T) and np.allclose(conv.from_ros_transform(msg.transform), T)
    assert np.allclose(conv.from_ros_pose(conv.to_ros_pose(T)), T)
    tfm = deserialize_message(serialize_message(conv.to_ros_tf_message([msg])), TFMessage)
    assert np.allclose(conv.from_ros_transform(tfm.transforms[0]), T)
    assert conv.quaternion_to_yaw(conv.yaw_to_quaternion(2.5)) == pytest.approx(2.5)
    assert np.allclose(conv.planar_matrix(1, 2, 0.3)[:3, :3], tf_math.quaternion_to_matrix(
        [0, 0, math.sin(0.15), math.cos(0.15)]))


def test_odometry_imu():
    odom = conv.to_ros_odometry(1.0, -2.0, 0.7, 0.5, -0.2, conv.stamp_from_frame(3))
    assert (odom.header.frame_id, odom.child_frame_id) == ("odom", "base_link")
    assert conv.from_ros_odometry(odom) == pytest.approx((1.0, -2.0, 0.7))
    assert (odom.twist.twist.linear.x, odom.twist.twist.angular.z) == (0.5, -0.2)
    imu = conv.to_ros_imu(-1.0, 0.3, (0.1, 0.0), conv.stamp_from_frame(3))
    assert imu.header.frame_id == "imu_link"
    assert conv.quaternion_to_yaw(imu.orientation) == pytest.approx(-1.0)
    assert imu.linear_acceleration.z == pytest.approx(conv.GRAVITY)


def test_navsatfix_local_tangent_plane():
    datum = (40.4433, -79.9436, 300.0)
    for xyz in ((0.0, 0.0, 0.0), (10.0, -3.0, 1.7), (-150.0, 220.0, 5.0)):
        msg = conv.to_ros_navsatfix(xyz, datum, conv.stamp_from_frame(0))
        assert np.allclose(conv.from_ros_navsatfix(msg, datum), xyz, atol=1e-6)
    # 1 m north is about 1 / 111 km of latitude; east is scaled by cos(lat)
    north = conv.to_ros_navsatfix((0, 1, 0), datum, conv.stamp_from_frame(0))
    east = conv.to_ros_navsatfix((1, 0, 0), datum, conv.stamp_from_frame(0))
    assert (north.latitude - datum[0]) * 111_000 == pytest.approx(1.0, rel=0.01)
    assert (east.longitude - datum[1]) * 111_320 * math.cos(math.radians(datum[0])) == pytest.approx(1.0, rel=0.01)
    assert north.status.status >= 0 and north.position_covariance_type == 2


def test_pointcloud_round_trip_and_foreign_layout():
    pts = RNG.uniform(-10, 10, (100, 3)).astype(np.float32)
    pts[5] = np.nan
    msg = conv.to_ros_pointcloud2(pts, conv.stamp_from_frame(2), "lidar_link")
    assert [f.name for f in msg.fields] == ["x", "y", "z"] and msg.point_step == 12 and msg.width == 99
    again = deserialize_message(serialize_message(msg), PointCloud2)
    assert np.array_equal(conv.from_ros_pointcloud2(again), np.delete(pts, 5, axis=0))
    # another driver's layout: x, y, z, intensity with padding (point_step 16)
    rec = np.zeros(4, dtype=[("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("i", "<f4")])
    rec["x"], rec["y"], rec["z"] = 1, 2, 3
    fields = [PointField(name=n, offset=4 * k, datatype=PointField.FLOAT32, count=1) for k, n in enumerate("xyzi")]
    foreign = PointCloud2(height=2, width=2, fields=fields, point_step=16, row_step=32, data=rec.tobytes())
    assert np.array_equal(conv.from_ros_pointcloud2(foreign), np.tile([1, 2, 3], (4, 1)).astype(np.float32))
    with pytest.raises(ValueError, match="no field"):
        conv.from_ros_pointcloud2(PointCloud2(fields=fields[:2]))


def test_label_info_and_json():
    labels = {900: "fire", 1001: "candle", 3: "wall"}
    msg = deserialize_message(serialize_message(conv.to_ros_label_info(labels, conv.stamp_from_frame(0))), LabelInfo)
    assert conv.from_ros_label_info(msg) == labels
    with pytest.raises(ValueError, match="uint16"):
        conv.to_ros_label_info({70000: "x"}, conv.stamp_from_frame(0))
    s = conv.to_ros_json({"a": np.int64(3), "b": np.array([1.5, 2.0]), "c": {2, 1}})
    assert conv.from_ros_json(s) == {"a": 3, "b": [1.5, 2.0], "c": [1, 2]}
    from std_msgs.msg import String
    with pytest.raises(ValueError, match="JSON"):
        conv.from_ros_json(String(data="not json"))


def test_tf_buffer_chain_and_errors():
    buf = TfBuffer()
    map_odom, odom_base, base_cam, cam_opt, base_lidar = (random_transform() for _ in range(5))
    stamp = conv.stamp_from_frame(10)
    static = conv.to_ros_tf_message([conv.to_ros_transform(map_odom, stamp, "map", "odom"),
                                     conv.to_ros_transform(base_cam, stamp, "base_link", "camera_link"),
                                     conv.to_ros_transform(cam_opt, stamp, "camera_link", "camera_optical_frame"),
                                     conv.to_ros_transform(base_lidar, stamp, "base_link", "lidar_link")])
    assert buf.add_message(static, static=True) == 4
    buf.add_message(conv.to_ros_tf_message([conv.to_ros_transform(odom_base, stamp, "odom", "base_link")]))
    assert np.allclose(buf.lookup("map", "camera_optical_frame"), map_odom @ odom_base @ base_cam @ cam_opt)
    # across branches: camera optical -> lidar
    want = np.linalg.inv(base_cam @ cam_opt) @ base_lidar
    assert np.allclose(buf.lookup("camera_optical_frame", "lidar_link"), want)
    assert np.allclose(buf.lookup("lidar_link", "map") @ buf.lookup("map", "lidar_link"), np.eye(4))
    assert np.allclose(buf.lookup("odom", "odom"), np.eye(4))
    with pytest.raises(TfLookupError, match="unknown frame 'nowhere'"):
        buf.lookup("map", "nowhere")
    buf.set_transform(np.eye(4), "world", "other")
    with pytest.raises(TfLookupError, match="not connected"):
        buf.lookup("map", "other")
    with pytest.raises(ValueError, match="already has parent"):
        buf.set_transform(np.eye(4), "map", "base_link")


def test_tf_buffer_time_interpolation():
    buf = TfBuffer(history=10)
    a, b = conv.planar_matrix(0, 0, 0.0), conv.planar_matrix(2, 0, 1.0)
    buf.set_transform(a, "odom", "base_link", 1_000_000_000)
    buf.set_transform(b, "odom", "base_link", 2_000_000_000)
    mid = buf.lookup("odom", "base_link", 1_500_000_000)
    assert np.allclose(mid, conv.planar_matrix(1, 0, 0.5))
    assert np.allclose(buf.lookup("odom", "base_link"), b)                 # latest
    with pytest.raises(TfLookupError, match="after the newest"):
        buf.lookup("odom", "base_link", 3_000_000_000)
    buf.set_transform(conv.planar_matrix(5, 0, 0), "odom", "base_link", 500_000_000)   # out of order
    assert np.allclose(buf.lookup("odom", "base_link", 500_000_000), conv.planar_matrix(5, 0, 0))
    for k in range(20):
        buf.set_transform(a, "odom", "base_link", 3_000_000_000 + k)
    with pytest.raises(TfLookupError, match="before the oldest"):
        buf.lookup("odom", "base_link", 1_000_000_000)
