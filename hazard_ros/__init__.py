"""ROS 2 side of hazard_stack: the simulator node, message conversions, a small TF
buffer, the launcher for pip-only machines and the MCAP recorder.

``conversions`` and ``tf_math`` never import rclpy (message classes only / numpy only),
so they can be used and tested without a ROS context.
"""
