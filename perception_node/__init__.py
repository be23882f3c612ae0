"""Perception and mapping for hazard_stack.

ROS-free core (no rclpy import, unit-tested without a ROS context):

* :mod:`perception_node.detectors`  -- 2-D detectors behind one interface
  (ground truth from instance segmentation, ultralytics YOLO, YOLO-World).
* :mod:`perception_node.projection` -- 2-D detection -> 3-D point and box in the map
  frame; plus the small frame-bookkeeping helpers the nodes need (exact-stamp
  synchroniser, TF buffer).
* :mod:`perception_node.mapping`    -- occupancy grid from depth, field layers
  (temperature, water level), object memory.

Thin ROS 2 nodes: :mod:`perception_node.perception_node` (entry ``perception_node``)
and :mod:`perception_node.mapping_node` (entry ``mapping_node``).
"""
