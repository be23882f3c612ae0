"""DOZE's ROS side (hazard_sim.core.ros_pieces; no rclpy here): the agent's Done, the decision
node, launch file and RViz config; the people come with the generic world topics."""
from __future__ import annotations

from hazard_sim.core.ros_pieces import RosPieces

ROS = RosPieces(
    services={"done": ("stop",)},            # Done: the episode ends where the robot stands
    decision="decision_node",
    decision_class="planner_node.plugins.doze:DozeDecisionNode",
    launch_file="launch/doze.launch.yaml",
    rviz="rviz/doze.rviz",
)
