"""sim_node's inputs: the simulation loop (free-run timer, ``sim/step``, the idle republisher),
``cmd_vel``, and the Trigger services that run one of the task's actions (the benchmark's
:class:`~hazard_sim.core.ros_pieces.RosPieces` names them). A mix-in of
:class:`hazard_ros.sim_node.SimNode`."""
from __future__ import annotations

import time

import numpy as np
from geometry_msgs.msg import Twist

from hazard_ros import conversions as conv
from hazard_ros import msg_guards as mg
from hazard_ros.sim_publishers import PATH_MAX_POSES, PATH_STEP_M
from hazard_sim.core.embodiment import Twist as BodyTwist
from hazard_sim.core.frames import FRAME_DT


class SimServices:
    """The input half of the sim node (see the module docstring)."""

    # ------------------------------------------------------------------ simulation
    def _advance_frame(self) -> None:
        """One frame under the current velocity command (zero after the time-out)."""
        env = self.env
        age = (env.world.frame - self.cmd_frame) * FRAME_DT
        twist = self.twist if age < self.p["cmd_vel_timeout"] - 1e-9 else BodyTwist()
        before = env.world.frame
        env.drive(twist)
        self._track(env.world.frame - before)

    def _track(self, frames: int) -> None:
        """Velocities / accelerations from the poses (planar tracker plus the height)."""
        env = self.env
        self.tracker.update(env.agent.xy, env.agent.yaw, frames)
        if frames > 0:
            dt = frames * FRAME_DT
            vz = (float(env.agent.z) - self.z_prev) / dt
            self.az, self.vz, self.z_prev = (vz - self.vz) / dt, vz, float(env.agent.z)
        p = env.agent.position
        if np.linalg.norm(p - self.path_points[-1]) >= PATH_STEP_M:
            self.path_points.append(p.copy())
            if len(self.path_points) > PATH_MAX_POSES:
                self.path_points = self.path_points[::2]

    def _on_timer(self) -> None:
        if self.env.done:
            return
        self._advance_frame()
        self._publish_frame()

    def _on_cmd_vel(self, msg: Twist) -> None:
        if mg.guard(self).accept("cmd_vel", mg.check_twist, msg) is None:
            return
        self._set_command(msg)

    def _set_command(self, msg: Twist) -> None:
        """The body's Twist from a cmd_vel: linear.y / .z only for a flying body (see the module
        docstring); the body clips it to its limits when it applies it."""
        vy, vz = (float(msg.linear.y), float(msg.linear.z)) if self.flies else (0.0, 0.0)   # finite: guarded
        self.twist = BodyTwist(float(msg.linear.x), vy, vz, float(msg.angular.z))
        self.cmd_frame = self.env.world.frame

    def _over(self, response) -> bool:
        if self.env.done:
            response.success = False
            response.message = f"episode is over (frame {self.env.world.frame}); metrics are on episode/metrics"
            return True
        return False

    def _on_idle(self) -> None:
        """Lock-step and nobody stepping: publish the current frame's state again for volatile
        subscribers (same stamps; the sensors' transient-local history serves late ones)."""
        now = time.monotonic()
        if self._last_step is not None and now - self._last_step < self.p["idle_republish"]:
            return
        frame = self.env.world.frame
        stamp = conv.stamp_from_frame(frame)
        self.pubs["/clock"].publish(conv.to_ros_clock(frame))
        self._publish_odom(stamp)
        if self._last_camera_info is not None:
            for topic in ("camera/color/camera_info", "camera/depth/camera_info"):
                self.pubs[topic].publish(self._last_camera_info)

    def _on_step(self, request, response):
        if not self.p["lockstep"]:
            response.success, response.message = False, "sim/step is only served in lock-step mode (lockstep:=true)"
            return response
        if self._over(response):
            return response
        self._last_step = time.monotonic()
        self._advance_frame()
        self._publish_frame()                 # the sensors due at this frame (their rates, in sim time)
        response.success, response.message = True, str(self.env.world.frame)
        return response

    # ------------------------------------------------------------------ the task's actions
    def action_service(self, action):
        """A Trigger handler that runs the task's ``action`` (refused once the episode is over)."""
        def serve(request, response):
            if self._over(response):
                return response
            return self.run_action(action, response)
        return serve

    def run_action(self, action, response):
        """``env.step(action)``; every sensor is published at the action's last frame and the
        result goes to ``episode/status`` and the response (a bug is answered, not raised)."""
        env = self.env
        before = env.world.frame
        try:
            _, _, _, _, info = env.step(action)
        except Exception as exc:          # a bug must not kill the node in the middle of a run
            self.get_logger().error(f"{action}: {type(exc).__name__}: {exc}")
            name = action if isinstance(action, str) else action[0]
            response.success, response.message = False, f"{name} failed: {type(exc).__name__}: {exc}"
            return response
        env.frames_seen.clear()
        self._track(env.world.frame - before)
        self.last_result = info["action_result"]
        self._publish_frame(everything=True)
        response.success = bool(self.last_result["success"])
        response.message = conv.to_trigger_message(
            self.last_result["status"],
            self.last_result["reason"] or f"{self.last_result['action']} done in {self.last_result['frames']} frames")
        return response
