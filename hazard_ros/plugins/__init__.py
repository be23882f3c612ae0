"""sim_node plug-ins: the ROS-side code of a benchmark, where its spec's
:class:`~hazard_sim.core.ros_pieces.RosPieces` names one (``plugin="module:Class"``).

``sim_node`` imports the plug-in of the benchmark it runs, and no other, and makes it as
``Class(node)`` once its generic publishers exist. A plug-in advertises the topics its pieces
declare (``node.advertise(topic, qos)``), subscribes to its inputs, serves the services its
pieces leave to it (``serve(name)``), adds entries to the ``task`` JSON and objects to
``world/objects``; the core never imports these modules. :class:`SimPlugin` is the plug-in of a
benchmark without one: nothing beyond the generic node.
"""
from __future__ import annotations

import importlib


class SimPlugin:
    """The hooks a benchmark's plug-in may fill; each default adds nothing."""

    def __init__(self, node):
        self.node = node

    def serve(self, name: str):
        """The Trigger handler ``(request, response) -> response`` of service ``name`` (one its
        pieces map to None)."""
        raise KeyError(f"{type(self).__name__} serves no service {name!r}")

    def task_extras(self) -> dict:
        """Entries added to the ``task`` JSON."""
        return {}

    def world_objects(self) -> list:
        """Objects beyond the world's entities on ``world/objects`` (``WorldMarker``s)."""
        return []


def load_plugin(ref: str, node) -> SimPlugin:
    """The plug-in ``"module:Class"`` made for ``node`` (``""``: the generic :class:`SimPlugin`)."""
    if not ref:
        return SimPlugin(node)
    module, _, name = ref.partition(":")
    cls = getattr(importlib.import_module(module), name)
    if not (isinstance(cls, type) and issubclass(cls, SimPlugin)):
        raise TypeError(f"sim_node plug-in {ref} is not a hazard_ros.plugins.SimPlugin")
    return cls(node)
