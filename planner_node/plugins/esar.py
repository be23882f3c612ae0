"""ESAR's decision node: its reporting path from perception (thin ROS 2 node, ``decision_node
benchmark:=esar/<map>``; ``RosPieces.decision_class`` in hazard_sim/tasks/esar/ros.py).

Subscribes ``detections_3d`` (vision_msgs/Detection3DArray in ``map``, the perception node's
output) and publishes each new victim or clue on ``report`` (vision_msgs/Detection3DArray,
frame ``map``: class_id ``victim`` or ``clue:<class>``, bbox centre = the position estimate),
the topic the simulator scores (docs/esar.md, "Reports"). The choice of what is new is
:class:`hazard_sim.tasks.esar.reporting.ReportFilter` (parameter ``merge_radius``, m). The
simulator's ground-truth topics are not read: what is reported is what perception saw.
"""
from __future__ import annotations

import threading

from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node
from vision_msgs.msg import Detection3D, Detection3DArray, ObjectHypothesisWithPose

from hazard_sim.tasks.esar.reporting import MERGE_RADIUS_M, ReportFilter

PUBLISHED_TOPICS = [("report", "vision_msgs/msg/Detection3DArray")]
SUBSCRIBED_TOPICS = [("detections_3d", "vision_msgs/msg/Detection3DArray")]


class EsarReporter(Node):
    def __init__(self, **kwargs):
        super().__init__("decision_node", **kwargs)
        self.declare_parameter("benchmark", "")      # read by decision_main, which chose this class
        self._stopped = threading.Event()
        radius = float(self.declare_parameter("merge_radius", MERGE_RADIUS_M, ParameterDescriptor(
            description="a detection within this many m of an earlier report of its label is that thing")).value)
        self.map_frame = str(self.declare_parameter("map_frame", "map").value)
        self.filter = ReportFilter(radius)
        self.sent = 0
        self.pub = self.create_publisher(Detection3DArray, "report", 10)
        self.create_subscription(Detection3DArray, "detections_3d", self._on_detections, 10)

    def _on_detections(self, msg: Detection3DArray) -> None:
        if msg.header.frame_id != self.map_frame:
            self.get_logger().warning(f"detections in frame {msg.header.frame_id!r} ignored (expected "
                                      f"{self.map_frame!r})", throttle_duration_sec=5.0)
            return
        items = []
        for d in msg.detections:
            if not d.results:
                continue
            best = max(d.results, key=lambda r: r.hypothesis.score)
            c = d.bbox.center.position
            items.append((best.hypothesis.class_id, (c.x, c.y, c.z), d.id))
        new = self.filter.new_reports(items)
        if not new:
            return
        out = Detection3DArray(header=msg.header)
        for label, p in new:
            det = Detection3D(header=msg.header)
            hyp = ObjectHypothesisWithPose()
            hyp.hypothesis.class_id, hyp.hypothesis.score = label, 1.0
            det.bbox.center.position.x, det.bbox.center.position.y, det.bbox.center.position.z = (float(v) for v in p)
            det.bbox.center.orientation.w = 1.0
            det.results.append(hyp)
            out.detections.append(det)
        self.pub.publish(out)
        self.sent += len(new)
        self.get_logger().info(f"reported {', '.join(lab for lab, _ in new)} ({self.sent} in all)")

    def run(self) -> None:
        """The node's main loop (decision_main runs it): reports go out from the detections'
        callback, so this only waits for the stop (a signal raises in the main thread)."""
        while not self._stopped.wait(0.5):
            pass

    def on_shutdown(self) -> None:
        self._stopped.set()
