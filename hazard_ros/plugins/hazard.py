"""HAZARD's sim_node plug-in (hazard_sim/tasks/hazard/ros.py declares it): ``pick_up`` (Trigger)
takes the nearest observed, reachable target; ``pick_up_object`` (hazard_msgs/srv/PickUp) takes
the object the agent names by its instance id, under the task's own pick_up rules (observed,
within reach, not behind a wall), exactly as the embedded ``pick_up(object)``; id 0 is the
Trigger's choice. The task's containers that are scene parts (the carts) are on
``world/objects`` by their true boxes, as the embedded controllers locate them."""
from __future__ import annotations

import numpy as np

from hazard_ros import conversions as conv
from hazard_ros.plugins import SimPlugin
from hazard_sim import teleop
from hazard_sim.core.markers import WorldMarker


class HazardPlugin(SimPlugin):
    def __init__(self, node):
        super().__init__(node)
        self._containers: list | None = None
        try:
            from hazard_msgs.srv import PickUp
        except ImportError:                   # the project's interfaces are not built here
            node.get_logger().warning("hazard_msgs does not import (build it: bash scripts/setup_ros.sh): "
                                      "pick_up_object is not served, only the pick_up Trigger")
        else:
            node.create_service(PickUp, "pick_up_object", self._on_pick_up_object)

    def serve(self, name: str):
        if name != "pick_up":
            return super().serve(name)
        return self._on_pick_up

    def _on_pick_up_object(self, request, response):
        """``hazard_msgs/srv/PickUp``: the named object (0: the nearest, as the Trigger)."""
        object_id = int(request.object_id)
        if object_id == 0:
            return self._on_pick_up(request, response)
        if self.node._over(response):
            return response
        return self.node.run_action(("pick_up", object_id), response)

    def _on_pick_up(self, request, response):
        node = self.node
        if node._over(response):
            return response
        target, reason, status = teleop.nearest_reachable_target(node.env)
        if target is None:
            response.success, response.message = False, conv.to_trigger_message(status, f"pick_up: {reason}")
            node.last_result = {"action": "pick_up()", "status": str(status), "success": False, "frames": 0,
                                "reason": reason}
            node._publish_status()
            return response
        return node.run_action(("pick_up", target), response)

    def world_objects(self) -> list:
        """The task's containers that are scene parts as box markers (once: they never move)."""
        if self._containers is None:
            env, out = self.node.env, []
            for pid, name in (env.task_description().get("containers") or {}).items():
                try:
                    box = env.world.scene.part(str(name)).box
                except (KeyError, AttributeError):
                    continue
                out.append(WorldMarker(int(pid), str(name), np.asarray(box.center, float).copy(),
                                       tuple(float(v) for v in 2.0 * np.asarray(box.half, float)),
                                       rotation=np.asarray(box.rot, float).copy(), static=True))
            self._containers = out
        return self._containers
