"""A node that sets itself up from its parameters in one step and leaves nothing behind when
that fails.

``SetupNode(name, **kwargs)`` creates the rclpy node, then calls the subclass's ``_setup()``
(declare parameters, check them, create publishers and subscriptions). When ``_setup`` raises
(``ValueError`` on a bad parameter, a detector that cannot load), the half-built node is
destroyed before the error propagates, so :func:`hazard_ros.ros_node_main.run_node` can report
it in one line and no subscription stays registered with the context.
"""
from __future__ import annotations

from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node


class SetupNode(Node):
    """See the module docstring."""

    def __init__(self, node_name: str, **kwargs):
        super().__init__(node_name, **kwargs)
        try:
            self._setup()
        except Exception:
            self.destroy_node()
            raise

    def _setup(self) -> None:
        """The subclass's set-up (every node built on this base defines it)."""
        raise NotImplementedError(f"{type(self).__name__} must define _setup()")

    def _declare(self, name: str, default, doc: str):
        """Declare parameter ``name`` (described by ``doc``) and return its value."""
        return self.declare_parameter(name, default, ParameterDescriptor(description=doc)).value
