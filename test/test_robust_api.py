"""Issue 18, Python API: every body refuses a non-finite or absurd velocity command with the
same ``CommandError`` before anything changes, and every public env method called before
``reset()`` raises the same ``NotResetError`` as ``step``."""
from __future__ import annotations

import numpy as np
import pytest

from hazard_sim.core.embodiment import CommandError, Twist
from hazard_sim.core.env import EmbodiedEnv, NotResetError
from hazard_sim.render.camera import CameraSpec

BENCHMARKS = ("hazard/fire", "doze/level2", "esar")
CAMERA = CameraSpec(width=16, height=16)
NAN, INF = float("nan"), float("inf")
BAD_COMMANDS = [Twist(wz=NAN), Twist(vx=NAN), Twist(vy=NAN), Twist(vy=INF), Twist(vy=-INF), Twist(vz=NAN),
                Twist(vx=np.float32("nan")), Twist(vy=1e308), Twist(vy=-1e308), Twist(vx=1e308), Twist(wz=1e9),
                Twist(vx="1"), Twist(vx=None), Twist(wz=[1.0])]


@pytest.fixture(scope="module", params=BENCHMARKS)
def env(request):
    e = EmbodiedEnv(request.param, camera=CAMERA)
    e.reset()
    yield e
    e.close()


def _state(env):
    b = env.agent
    return (env.world.frame, tuple(np.round(b.xy, 9)), b.yaw, b.z, env.done)


def test_bad_commands_are_refused_before_anything_moves(env):
    for tw in BAD_COMMANDS:
        before = _state(env)
        with pytest.raises(CommandError, match="velocity command"):
            env.drive(tw)
        assert _state(env) == before, tw
    with pytest.raises(CommandError, match="Twist"):
        env.drive((1.0, 0.0))
    r = env.drive(Twist(vx=0.1, wz=0.1))          # the env is still usable
    assert r.advanced and np.isfinite(env.agent.yaw) and np.all(np.isfinite(env.agent.xy))
    # speeds beyond the body's limits but not absurd are clipped, as before
    r = env.drive(Twist(vx=50.0, wz=50.0))
    assert r.advanced and np.isfinite(env.agent.yaw)


def test_the_bodies_refuse_the_same_commands(env):
    for tw in (Twist(wz=NAN), Twist(vy=1e308)):
        with pytest.raises(CommandError):
            env.agent.apply(tw, 0.1, lambda p: True)


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_every_public_method_before_reset_says_call_reset(benchmark):
    e = EmbodiedEnv(benchmark, camera=CAMERA)
    calls = {"step": (0,), "drive": (Twist(),), "advance": (), "observe": (), "metrics": (), "render": (),
             "update_done": (), "is_free": ((0.0, 0.0),), "move_body": ((0.0, 0.0),), "speed_factor": (),
             "cast_rays": (np.zeros((1, 6)),), "render_view": (np.zeros(3), np.eye(3)),
             "line_blocked": ((0, 0), (1, 1)), "task_description": (), "sync_render_scene": ()}
    for name, args in calls.items():
        with pytest.raises(NotResetError, match=rf"call reset\(\) before {name}\(\)"):
            getattr(e, name)(*args)
    for prop in ("body", "out_of_time"):
        with pytest.raises(NotResetError, match="call reset"):
            getattr(e, prop)
    assert issubclass(NotResetError, RuntimeError)      # what step raised before


def test_the_hazard_env_says_call_reset_too():
    from hazard_sim.tasks.hazard.env import HazardEnv
    e = HazardEnv("fire", camera=CAMERA)
    with pytest.raises(NotResetError, match=r"call reset\(\) before value_rate\(\)"):
        e.value_rate()
    with pytest.raises(NotResetError, match="call reset"):
        e.rescued


def test_esar_reports_with_a_class_that_is_not_a_name_are_refused():
    from hazard_sim.tasks.esar.task import ActionError, parse_action
    for cls in (["tent"], {"a": 1}, 3, None):
        with pytest.raises(ActionError, match="unknown clue class"):
            parse_action({"action": "hover", "clues": [{"class": cls, "position": [0, 0, 0]}]})
    with pytest.raises(ActionError, match="beyond"):
        parse_action({"action": {"type": "velocity", "vy": 1e308}})
