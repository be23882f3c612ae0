"""Where a body stands to reach an object: one implementation for every navigator.

HAZARD's ``walk_to`` arrives when the body is within ``arrive_gap`` of the object;
where furniture keeps the body farther away (objects on tables, beds) it stops as
close as free space allows, trying larger rings (``EXTRAS``) up to the body's reach.
The embedded controller plans to these cells with A*; the ROS decision node sends the
first of them on its path as a NavigateToPose goal.
"""
from __future__ import annotations

import math

import numpy as np

from hazard_sim.navigation.grid import GridSpec, goal_cells_near, plan_path

EXTRAS = (0.0, 0.5, 1.0)     # m added to the arrival ring when no free cell lies inside it


def stand_off_cells(spec: GridSpec, blocked: np.ndarray, target_xy, target_radius: float, body_radius: float,
                    arrive_gap: float, reach: float, slack: float = 0.0) -> tuple[list[tuple[int, int]], float]:
    """Free cells from which the body reaches the object, and the extra ring (m) used.

    The ring is ``target_radius + body_radius + arrive_gap + extra - slack`` (at most
    ``reach``), for the first ``extra`` of :data:`EXTRAS` that has free cells; ``slack``
    is a navigator's position tolerance (it may stop that much short)."""
    goals: list[tuple[int, int]] = []
    extra = EXTRAS[0]
    for extra in EXTRAS:
        near = target_radius + body_radius + arrive_gap + extra - slack
        goals = goal_cells_near(spec, blocked, target_xy, min(near, reach))
        if goals:
            break
    return goals, extra


def stand_off_pose(spec: GridSpec, blocked: np.ndarray, robot_xy, target_xy, target_radius: float,
                   body_radius: float, arrive_gap: float, reach: float, slack: float = 0.0):
    """``(x, y, yaw, extra)``: the stand-off cell the robot reaches first on ``blocked``
    (A*), facing the target; ``extra`` > 0 when furniture keeps the body back. Falls back
    to the point at the ring's distance on the straight line from the target towards the
    robot when no free cell is reachable."""
    robot_xy = np.asarray(robot_xy, float)[:2]
    target_xy = np.asarray(target_xy, float)[:2]
    goals, extra = stand_off_cells(spec, blocked, target_xy, target_radius, body_radius, arrive_gap, reach, slack)
    end = None
    if goals:
        b = blocked.copy()
        start = spec.to_cell(robot_xy)
        b[start] = False
        cells = plan_path(b, start, goals)
        if cells:
            end = robot_xy if len(cells) == 1 else np.asarray(spec.to_world(cells[-1]), float)
    if end is None:
        ring = min(target_radius + body_radius + arrive_gap + extra - slack, reach)
        d = robot_xy - target_xy
        n = float(np.linalg.norm(d))
        end = robot_xy if n <= ring else target_xy + d / n * ring
    face = target_xy - end
    yaw = math.atan2(face[1], face[0]) if np.linalg.norm(face) > 1e-6 else 0.0
    return float(end[0]), float(end[1]), yaw, extra
