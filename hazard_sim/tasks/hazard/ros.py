"""HAZARD's ROS side (hazard_sim.core.ros_pieces; no rclpy here): the rescue services, the fire's
temperature and the flood's water-level images, the decision node, launch file and RViz config."""
from __future__ import annotations

from hazard_sim.core.ros_pieces import RosPieces

ROS = RosPieces(
    # pick_up: the nearest observed reachable target (the plug-in chooses it); drop: into the bag /
    # the nearest container; done and stop: the task's stop action
    services={"pick_up": None, "drop": ("drop",), "done": ("stop",), "stop": "stop"},
    # pick_up_object: the object the agent names (HAZARD's pick_up(object)), by instance id
    typed_services={"pick_up_object": "hazard_msgs/srv/PickUp"},
    field_topics={"temperature": "thermal/image_raw", "water_level": "water_level/image_raw"},
    # the task's containers that are scene parts (the carts) beside the entities on world/objects
    plugin="hazard_ros.plugins.hazard:HazardPlugin",
    decision="decision_node",
    decision_class="planner_node.plugins.hazard:DecisionNode",
    launch_file="launch/hazard.launch.yaml",
    rviz="rviz/hazard.rviz",
)
