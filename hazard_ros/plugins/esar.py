"""ESAR's sim_node plug-in (hazard_sim/tasks/esar/ros.py declares it): reports of victims and
clues on ``report`` go to the task (``env.task.report``); accepted ones are echoed on ``reports``
and ``reports/markers``, refusals logged and in ``episode/status``."""
from __future__ import annotations

import numpy as np
from vision_msgs.msg import Detection3DArray

from hazard_ros import conversions as conv
from hazard_ros import msg_guards as mg
from hazard_ros import ros_qos as qos_profiles
from hazard_ros.plugins import SimPlugin
from hazard_sim.core.markers import WorldMarker

REPORT_COLORS = {True: (40, 220, 60), False: (255, 140, 0)}     # report counts now / does not


class EsarPlugin(SimPlugin):
    def __init__(self, node):
        super().__init__(node)
        node.advertise("reports", qos_profiles.LATCHED)
        node.advertise("reports/markers", qos_profiles.LATCHED)
        node.create_subscription(Detection3DArray, "report", self._on_report, 10)

    def _on_report(self, msg: Detection3DArray) -> None:
        """Each detection's best class_id ``victim`` (a victim's position estimate) or a clue
        class, at its bbox centre in ``map``."""
        node = self.node
        good = mg.guard(node).detections("report", msg)     # NaN / huge centres, no class: left out
        if not good:
            return
        msg.detections = good
        if node.env.done:
            node.get_logger().warning("report after the end of the episode ignored")
            return
        if msg.header.frame_id.lstrip("/") not in ("map", "odom", ""):
            node.get_logger().warning(f"report in frame {msg.header.frame_id!r} ignored: give positions in 'map'")
            return
        try:
            items = conv.from_ros_detection3d_array(msg)
            note = node.env.task.report(node.env, items)
        except ValueError as exc:
            node.get_logger().warning(f"report refused: {exc}")
            node.last_result = {"action": "report", "status": "invalid", "success": False, "frames": 0,
                                "reason": str(exc)}
            node._publish_status()
            return
        node.last_result = {"action": "report", "status": "succeeded", "success": True, "frames": 0,
                            "reason": note}
        self._publish_reports()
        node._publish_status()

    def _publish_reports(self) -> None:
        env, pubs = self.node.env, self.node.pubs
        stamp = conv.stamp_from_frame(env.world.frame)
        items = env.task.reported_items(env)
        pubs["reports"].publish(conv.to_ros_detection3d_array(items, stamp))
        shapes = [WorldMarker(int(it.id), str(it.label), np.asarray(it.position, float), tuple(it.size),
                              REPORT_COLORS[bool(getattr(it, "score", 1.0) > 0)],
                              "sphere" if it.label == "victim" else "box") for it in items]
        pubs["reports/markers"].publish(conv.to_ros_markers(shapes, stamp, ns="reports", alpha=0.8))
