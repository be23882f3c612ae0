"""Path planning, navigation and decision making for hazard_stack.

- :mod:`planner_node.navigation`: ROS-free grid planning on an occupancy grid and a
  turn-then-go / pure-pursuit path follower (no rclpy import).
- :mod:`planner_node.observation`: ROS-free assembly of the observation / info dicts that
  the ``hazard_sim`` agents consume, from decoded sensor data.
- :mod:`planner_node.ros_commander` (+ :mod:`planner_node.commander_api`): a
  nav2_simple_commander-style client (``Navigator``).
- ROS-free navigation core besides it: :mod:`planner_node.following` (path followers, the
  gait, ``GoalRunner``), :mod:`planner_node.behavior_control`, :mod:`planner_node.costmap`,
  :mod:`planner_node.smoothing`.
- :mod:`planner_node.navigation_node`: Nav2's servers (entry ``navigation_node``), one thin
  module each over that core: ``navigate_to_pose`` (with :mod:`planner_node.nav_inputs`,
  :mod:`planner_node.nav_goal`), :mod:`planner_node.approach`, :mod:`planner_node.behaviors`,
  :mod:`planner_node.planner_server`, :mod:`planner_node.controller_server`,
  :mod:`planner_node.smoother_server`, :mod:`planner_node.nav_costmaps`,
  :mod:`planner_node.nav_lifecycle`, :mod:`planner_node.map_server`.
- :mod:`planner_node.decision_main` (entry ``decision_node``): runs the decision node the
  benchmark declares (``RosPieces.decision_class``); the shipped ones are in
  :mod:`planner_node.plugins`, one module per benchmark, on :mod:`planner_node.decision_base`.
"""
