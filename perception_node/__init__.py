"""Perception and mapping for hazard_stack.

ROS-free core (no rclpy import, unit-tested without a ROS context):

* :mod:`perception_node.detectors`  -- 2-D detectors behind one interface
  (ground truth from instance segmentation, ultralytics YOLO, YOLO-World).
* :mod:`perception_node.projection` -- 2-D detection -> 3-D point and box in the map
  frame; plus the small frame-bookkeeping helpers the nodes need (exact-stamp
  synchroniser, TF buffer).
* :mod:`perception_node.mapping`    -- ``MappingCore``: occupancy grid from depth
  (:mod:`~perception_node.occupancy`), the benchmark's field layers
  (:mod:`~perception_node.field_layers`), object memory (:mod:`~perception_node.object_memory`);
  a flying body's 2.5-D map (:mod:`~perception_node.height_map`).
* :mod:`perception_node.map_plugins` -- what a benchmark adds to the mapping node.

Thin ROS 2 nodes: :mod:`perception_node.perception_node` (entry ``perception_node``)
and :mod:`perception_node.mapping_node` (entry ``mapping_node``; its flying-body map kind
in :mod:`perception_node.height_mapping`).
"""
