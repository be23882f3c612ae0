"""A benchmark's ROS side, declared next to its spec without ROS (the core never imports rclpy).

A spec's ``ros`` field holds a :class:`RosPieces`: the Trigger services its task offers, the
image topics of its processes' fields, the topics its sim-node plug-in publishes and takes,
the plug-in itself (a ``"module:Class"`` name in a ROS package, imported by ``sim_node`` only
when that benchmark runs), its decision node (or agent adapter), launch file and RViz config.
Topic and service types are ROS type names (``"sensor_msgs/msg/Image"``), not classes.
``sim_node`` builds everything else from the spec's body and sensors (docs/adding_a_benchmark.md).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: the type of a field image topic (one float per pixel, frame camera_optical_frame)
FIELD_IMAGE_TYPE = "sensor_msgs/msg/Image"


@dataclass(frozen=True)
class RosPieces:
    #: std_srvs/Trigger services -> the task action each runs (``env.step(action)``; every sensor
    #: is published at the action's last frame), or None where the plug-in serves it
    services: dict[str, Any] = field(default_factory=dict)
    #: a process field's channel -> the topic of its image (the first field of the world's processes)
    field_topics: dict[str, str] = field(default_factory=dict)
    #: "module:Class" of the sim-node plug-in (hazard_ros.plugins.SimPlugin); "" none
    plugin: str = ""
    #: services of other types than Trigger that the plug-in serves -> ROS type
    #: (e.g. a pick-up by object id, ``hazard_msgs/srv/PickUp``)
    typed_services: dict[str, str] = field(default_factory=dict)
    #: topics the plug-in publishes / takes -> ROS type
    topics: dict[str, str] = field(default_factory=dict)
    subscriptions: dict[str, str] = field(default_factory=dict)
    #: the console script of its decision node or agent adapter ("" none)
    decision: str = ""
    #: "module:Class" of the node the generic ``decision_node`` script makes for this benchmark
    #: (planner_node.decision_main), an rclpy Node with a ``run()`` ("" none)
    decision_class: str = ""
    #: its launch file and RViz config, relative to the repository / package share
    launch_file: str = ""
    rviz: str = ""

    def published(self) -> dict[str, str]:
        """Every topic beyond the generic ones that a sim node of this benchmark may publish."""
        return {**{t: FIELD_IMAGE_TYPE for t in self.field_topics.values()}, **self.topics}


#: a benchmark without a ``ros`` entry: the generic sensors and ``sim/step`` only
NO_ROS_PIECES = RosPieces()


def ros_pieces(spec) -> RosPieces:
    """The spec's :class:`RosPieces` (none declared: :data:`NO_ROS_PIECES`)."""
    pieces = getattr(spec, "ros", None)
    if pieces is None:
        return NO_ROS_PIECES
    if not isinstance(pieces, RosPieces):
        raise TypeError(f"benchmark {spec.id}: its spec's ros must be a RosPieces, got {type(pieces).__name__}")
    return pieces
