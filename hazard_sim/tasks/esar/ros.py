"""ESAR's ROS side (hazard_sim.core.ros_pieces; no rclpy here): reports of victims and clues (the
plug-in takes them on ``report`` and echoes the accepted ones), the mission's stop, the reporter
(its decision node), launch file and RViz config; the UAV's four cameras and altimeter come from its body."""
from __future__ import annotations

from hazard_sim.core.ros_pieces import RosPieces

ROS = RosPieces(
    services={"stop": "stop", "done": "stop"},     # done: the same stop (the agent declares the mission over)
    plugin="hazard_ros.plugins.esar:EsarPlugin",
    # every accepted report so far (class_id "victim" or the clue class; score 1 where it counts now)
    # and the same for RViz (victims as spheres, clues as cubes; green counts, orange does not)
    topics={"reports": "vision_msgs/msg/Detection3DArray", "reports/markers": "visualization_msgs/msg/MarkerArray"},
    subscriptions={"report": "vision_msgs/msg/Detection3DArray"},
    decision="decision_node",
    decision_class="planner_node.plugins.esar:EsarReporter",
    launch_file="launch/esar.launch.yaml",
    rviz="rviz/esar.rviz",
)
