"""Path planning, navigation and decision making for hazard_stack.

- :mod:`planner_node.navigation`: ROS-free grid planning on an occupancy grid and a
  turn-then-go / pure-pursuit path follower (no rclpy import).
- :mod:`planner_node.observation`: ROS-free assembly of the observation / info dicts that
  the ``hazard_sim`` agents consume, from decoded sensor data.
- :mod:`planner_node.ros_commander`: a nav2_simple_commander-style client (``Navigator``).
- :mod:`planner_node.navigation_node`: the ``navigate_to_pose`` action server (entry
  ``navigation_node``).
- :mod:`planner_node.decision_node`: runs a ``hazard_sim`` agent over ROS (entry
  ``decision_node``).
"""
