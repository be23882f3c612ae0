"""DOZE: scenes and object library, people, the task's metrics, the dataset, bad input, CLI."""
from __future__ import annotations

import gzip
import json
import math

import numpy as np
import pytest
from helpers import cli_runs

from hazard_sim.core.env import EmbodiedEnv
from hazard_sim.core.spec import get_spec
from hazard_sim.navigation.grid import GridSpec, rasterize_boxes
from hazard_sim.render.camera import CameraSpec
from hazard_sim.tasks.doze import dataset as ds
from hazard_sim.tasks.doze.library import KINDS, OPEN_VOCAB
from hazard_sim.tasks.doze.people import PERSON_RADIUS, PeopleProcess, people_count
from hazard_sim.tasks.doze.scenes import SCENES, build_house, navigable_area
from hazard_sim.tasks.doze.task import ActionError, spl

CAM = CameraSpec(64, 64)


def episode(scene="doze_08", level=1, xy=None, yaw=0.0, people=0, goal_ids=None, **kw):
    house = build_house(scene)
    grid, free = house.nav_grid()
    if xy is None:
        xy = grid.to_world(np.argwhere(free)[len(np.argwhere(free)) // 2])
    ep = {"id": "test", "index": 0, "scene": scene, "level": level, "goal_type": "open_vocab",
          "goal_object": "a thing", "goal_ids": goal_ids or [house.items[0].id], "hint_ids": [],
          "initial_position": [float(xy[0]), float(xy[1]), 0.9], "initial_orientation": math.degrees(yaw),
          "initial_horizon": 10.0, "shortest_path": [], "shortest_path_length": 1.0, "people": people}
    ep.update(kw)
    return ep


def straight_run(scene="doze_08", need=1.2):
    """A start cell with ``need`` m of free floor straight ahead along +x, and the cell ``need`` m ahead."""
    house = build_house(scene)
    grid, free = house.nav_grid()
    k = int(round(need / grid.resolution)) + 3
    for i, j in np.argwhere(free):
        if j + k < free.shape[1] and free[i, j:j + k].all():
            return grid.to_world((i, j))
    raise AssertionError("no straight run")


# ------------------------------------------------------------------ scenes and library
def test_library_and_scenes_meet_the_counts():
    assert len(KINDS) >= 150 and len(OPEN_VOCAB) >= 10
    kinds, areas = set(), []
    per = {"open_vocab": [], "spatial": [], "appearance": [], "boards": []}
    for s in SCENES:
        h = build_house(s)
        kinds |= {it.kind for it in h.items}
        areas.append(navigable_area(s))
        for g in ("open_vocab", "spatial", "appearance"):
            per[g].append(sum(it.group == g for it in h.items))
        per["boards"].append(len(h.boards))
        assert len(h.scene.rooms) >= 4
        cats = {f.category for f in h.furniture}
        assert {"sofa", "bed"} & cats and len(h.furniture) >= 10
    assert len(kinds) >= 150
    assert 40.0 <= np.mean(areas) <= 55.0
    assert np.mean(per["open_vocab"]) >= 8 and np.mean(per["spatial"]) >= 45
    assert np.mean(per["appearance"]) >= 45 and np.mean(per["boards"]) >= 3.5


def test_object_meshes_are_shapes_not_boxes():
    for name in ("basketball", "mug", "table lamp", "genie lamp", "stone lion statue", "kitten on a skateboard"):
        shape = KINDS[name].shape()
        assert shape.triangles() > 50, name
    ball = KINDS["basketball"].shape().parts[0]
    assert len({tuple(c) for c in ball.c}) >= 2            # seams drawn in another colour
    lo, hi = KINDS["mug"].shape().extent()
    assert hi[0] - lo[0] > hi[1] - lo[1] + 0.02            # the handle sticks out on one side


def test_segmentation_labels_name_categories_and_people():
    ep = episode(level=2, people=3)
    env = EmbodiedEnv("doze/level2", episode_spec=ep, camera=CAM)
    obs, info = env.reset()
    labels = info["labels"]
    assert sum(v == "person" for v in labels.values()) == 3
    assert "sofa" in labels.values() or "bed" in labels.values()
    assert "whiteboard" in labels.values()
    assert not any("#" in v for v in labels.values())       # category names only, no instance names


# ------------------------------------------------------------------ people
def _scene():
    return build_house("doze_08").scene


def test_fixed_paths_repeat_and_are_fixed_per_scene():
    a = PeopleProcess(_scene(), 2, np.random.default_rng(1), people=2, route_seed=8)
    b = PeopleProcess(_scene(), 2, np.random.default_rng(2), people=2, route_seed=8)
    for pa, pb in zip(a.people, b.people):
        assert np.allclose(np.array(pa.waypoints), np.array(pb.waypoints))
    p = a.people[0]
    reached = []
    for _ in range(3000):
        before = p.target
        a.step_frame(None)
        if p.target != before:
            reached.append(before)
    n = len(p.waypoints)
    assert len(reached) >= 2 * n
    assert all(reached[k + 1] == (reached[k] + 1) % n for k in range(len(reached) - 1))   # the loop repeats


def test_random_walkers_stay_in_free_space_and_move():
    scene = _scene()
    proc = PeopleProcess(scene, 3, np.random.default_rng(3), people=4)
    grid = GridSpec(scene.bounds, 0.05)
    solid = rasterize_boxes(grid, [p.box for p in scene.solids()], pad=PERSON_RADIUS - 0.05)
    start = proc.positions().copy()
    for _ in range(400):
        proc.step_frame(None)
        for xy in proc.positions():
            assert not solid[grid.to_cell(xy)]
    assert np.linalg.norm(proc.positions() - start, axis=1).max() > 1.0


def test_static_people_stand_near_the_goal_and_density():
    goal = build_house("doze_08").items[5].position[:2]
    proc = PeopleProcess(_scene(), 1, np.random.default_rng(4), people=3, goal_xy=goal)
    d = np.linalg.norm(proc.positions()[:2] - goal, axis=1)
    assert (d <= 1.2).all()
    before = proc.positions().copy()
    for _ in range(50):
        proc.step_frame(None)
    assert np.allclose(proc.positions(), before)
    rng = np.random.default_rng(0)
    counts = [people_count(50.0, rng) for _ in range(200)]
    assert min(counts) == 2 and max(counts) == 3              # 4..6 per 100 m^2 of 50 m^2
    with pytest.raises(ValueError, match="level"):
        PeopleProcess(_scene(), 4, rng)



# level 1 episodes 12 and 255 had their two bystanders on one spot in the goal's nook, level 2's
# 316 two walkers starting on one loop point, level 3's 124 two walkers on one cell (before the fix)
@pytest.mark.parametrize("level,episodes", [(1, [12, 255, *range(0, 40, 3)]), (2, [316, 320]), (3, [124, 304])])
def test_people_are_never_placed_on_one_spot(level, episodes):
    from hazard_sim.tasks.doze.people import SEPARATION
    spec = get_spec(f"doze/level{level}")
    for i in episodes:
        ep = spec.dataset.load("test", i, None)
        rng = np.random.default_rng([0, ep["index"]])
        world = spec.build_world(ep, rng)
        xy = [make(world, ep, rng) for make in spec.processes][0].positions()
        d = np.linalg.norm(xy[:, None] - xy[None], axis=2) + np.eye(len(xy)) * 1e9
        assert d.min() >= SEPARATION > 2 * PERSON_RADIUS, (level, i, d.min())
        if level == 1:      # the two bystanders still stand around the goal (a nook for one: just beyond)
            goal = world.house.item(ep["goal_ids"][0]).position[:2]
            assert (np.linalg.norm(xy[:2] - goal, axis=1) <= 1.6).all(), (i, xy[:2], goal)


# ------------------------------------------------------------------ task and metrics
def test_spl_and_success_on_a_constructed_episode():
    xy = straight_run()
    house = build_house("doze_08")
    goal = house.items[0]
    env = EmbodiedEnv("doze/level1", episode_spec=episode(xy=xy, goal_ids=[goal.id], shortest_path_length=0.8),
                      camera=CAM)
    env.reset()
    for _ in range(4):
        _, _, term, _, info = env.step("MoveAhead")
        assert info["action_result"]["status"] == "succeeded"
    assert env.agent.xy == pytest.approx(np.asarray(xy) + [1.0, 0.0])
    env.task.goal_xy = env.agent.xy[None] + [[0.5, 0.0]]     # put the goal 0.5 m ahead: a success
    _, _, term, _, _ = env.step("Done")
    m = env.metrics()
    assert term and m["success"] and m["steps"] == 5
    assert m["path_length"] == pytest.approx(1.0)
    assert m["spl"] == pytest.approx(0.8 / 1.0)                # shortest 0.8 over max(1.0, 0.8)
    assert spl(True, 2.0, 1.5) == 1.0 and spl(False, 2.0, 3.0) == 0.0
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step("MoveAhead")


def test_done_too_far_fails_and_rotation_is_30_degrees():
    env = EmbodiedEnv("doze/level1", episode_spec=episode(), camera=CAM)
    env.reset()
    yaw0 = env.agent.yaw
    env.step("RotateLeft")
    env.step(2)                                                # RotateRight by index
    env.step("RotateRight")
    assert (env.agent.yaw - yaw0 + math.pi) % (2 * math.pi) - math.pi == pytest.approx(-math.pi / 6)
    env.task.goal_xy = env.agent.xy[None] + [[1.1, 0.0]]
    env.step("Done")
    m = env.metrics()
    assert not m["success"] and m["spl"] == 0.0 and m["distance_to_goal"] == pytest.approx(1.1)


def test_collisions_count_steps_within_0_2_m_of_a_person():
    env = EmbodiedEnv("doze/level1", episode_spec=episode(people=1), camera=CAM)
    env.reset()
    person = env.world.process("people").people[0]
    ahead = np.array([math.cos(env.agent.yaw), math.sin(env.agent.yaw)])
    person.xy = env.agent.xy + (0.18 + PERSON_RADIUS + 0.17) * ahead     # gap 0.17 m
    env.step("RotateLeft")
    person.xy = env.agent.xy + (0.18 + PERSON_RADIUS + 0.22) * ahead     # gap 0.22 m: no collision
    env.step("RotateLeft")
    person.xy = env.agent.xy + 5.0 * ahead
    env.step("RotateRight")
    env.step("RotateRight")
    m = env.metrics()
    assert m["collisions"] == 1 and m["steps"] == 4 and m["cr"] == pytest.approx(0.25)


def test_a_person_blocks_move_ahead():
    xy = straight_run()
    env = EmbodiedEnv("doze/level1", episode_spec=episode(xy=xy, people=1), camera=CAM)
    env.reset()
    env.world.process("people").people[0].xy = np.asarray(xy) + [0.45, 0.0]
    _, _, _, _, info = env.step("MoveAhead")
    assert info["action_result"]["status"] == "blocked"
    assert env.agent.xy[0] < xy[0] + 0.1 and env.metrics()["collisions"] == 1


def test_velocity_driving_counts_steps_as_the_discrete_actions_do():
    """cmd_vel at the LoCoBot's limits for five frames moves the body exactly as MoveAhead /
    RotateLeft; the task counts five driven frames as a step (ROS drives it this way)."""
    from hazard_sim.core.embodiment import Twist
    xy = straight_run()
    a = EmbodiedEnv("doze/level1", episode_spec=episode(xy=xy, people=1), camera=CAM)
    b = EmbodiedEnv("doze/level1", episode_spec=episode(xy=xy, people=1), camera=CAM)
    a.reset()
    b.reset()
    for env in (a, b):
        env.world.process("people").people[0].xy = np.asarray(xy) + [0.0, 0.18 + PERSON_RADIUS + 0.17]   # a collision
    lim = a.agent.spec.limits()
    for act, cmd in (("MoveAhead", Twist(vx=lim.linear)), ("RotateLeft", Twist(wz=lim.angular)),
                     ("RotateRight", Twist(wz=-lim.angular)), ("MoveAhead", Twist(vx=lim.linear))):
        a.step(act)
        for k in range(5):
            r = b.drive(cmd)
            assert r.advanced and (b.task.pending_step() == (k < 4))
    assert b.agent.xy.tolist() == a.agent.xy.tolist() and b.agent.yaw == a.agent.yaw
    assert b.world.frame == a.world.frame == 20
    b.drive(Twist())                                # a step under way counts
    ma, mb = a.metrics(), b.metrics()
    assert ma["steps"] == 4 and mb["steps"] == 5
    assert ma["collisions"] == mb["collisions"] >= 1 and ma["path_length"] == mb["path_length"]
    b.step("Done")                                  # Done closes the pending step and is one more
    assert b.metrics()["steps"] == 6 and b.done


def test_a_person_blocks_cmd_vel_and_the_status_says_so():
    from hazard_sim.core.embodiment import Twist
    xy = straight_run()
    env = EmbodiedEnv("doze/level1", episode_spec=episode(xy=xy, people=1), camera=CAM)
    env.reset()
    env.world.process("people").people[0].xy = np.asarray(xy) + [0.18 + PERSON_RADIUS + 0.02, 0.0]   # a step closes it
    r = env.drive(Twist(vx=0.5))
    assert r.advanced and r.bumped and not r.moved and env.agent.xy.tolist() == list(xy)
    assert env.task.info(env)["blocked_frame"] is True
    env.world.process("people").people[0].xy = np.asarray(xy) + [3.0, 3.0]
    r = env.drive(Twist(vx=0.5))
    assert r.moved and env.task.info(env)["blocked_frame"] is False


# ------------------------------------------------------------------ dataset
def test_dataset_counts_schema_and_geodesic_paths():
    total = 0
    for level in ds.LEVELS:
        for split in ds.SPLITS:
            eps = ds.load_split(level, split)
            total += len(eps)
            assert {e["scene"] for e in eps} <= set(ds.TRAIN_SCENES if split == "train" else ds.TEST_SCENES)
    assert total >= 3000
    eps = ds.load_split(1, "test")
    assert {e["goal_type"] for e in eps} == set(ds.GOAL_TYPES)
    by_goal = {}
    for e in eps:
        by_goal.setdefault((e["scene"], e["goal_object"], tuple(e["goal_ids"])), []).append(e)
    assert all(len(v) == ds.STARTS_PER_GOAL for v in by_goal.values())
    for e in eps[::40]:
        house = build_house(e["scene"])
        start = np.array(e["initial_position"][:2])
        path = np.array(e["shortest_path"])
        goals = np.array([house.item(i).position[:2] for i in e["goal_ids"]])
        assert np.linalg.norm(path[0] - start) < 0.1
        assert np.linalg.norm(goals - path[-1], axis=1).min() <= 1.0
        seg = np.linalg.norm(np.diff(path, axis=0), axis=1).sum()
        assert e["shortest_path_length"] == pytest.approx(seg, abs=0.15)
        assert e["shortest_path_length"] + 1.0 >= np.linalg.norm(goals - start, axis=1).min() - 1e-6
    hint = [e for e in eps if e["goal_type"] == "hint"][0]
    assert hint["hint_ids"] and "'s " in hint["goal_object"]


def test_dataset_generation_is_deterministic():
    again = ds.generate_level(2, "test")
    assert again == [dict(e) for e in ds.load_split(2, "test")]


def test_bad_input_gives_clear_errors(tmp_path):
    with pytest.raises(ds.DatasetError, match="unknown scene"):
        EmbodiedEnv("doze/level1", episode_spec=episode() | {"scene": "nowhere"}, camera=CAM).reset()
    with pytest.raises(ds.DatasetError, match="unknown goal object id"):
        EmbodiedEnv("doze/level1", episode_spec=episode(goal_ids=[99999]), camera=CAM).reset()
    with pytest.raises(ds.DatasetError, match="missing field 'goal_object'"):
        ep = episode()
        del ep["goal_object"]
        EmbodiedEnv("doze/level1", episode_spec=ep, camera=CAM).reset()
    with pytest.raises(ds.DatasetError, match="level 2 episode given to doze/level1"):
        EmbodiedEnv("doze/level1", episode_spec=episode(level=2), camera=CAM).reset()
    with pytest.raises(ds.DatasetError, match="navigable floor"):
        EmbodiedEnv("doze/level1", episode_spec=episode(xy=(0.01, 0.01)), camera=CAM).reset()
    bad = tmp_path / "level1_test.json.gz"
    bad.write_bytes(b"not gzip at all")
    with pytest.raises(ds.DatasetError, match="level1_test.json.gz: not valid JSON"):
        ds.load(1, "test", 0, root=tmp_path)
    with gzip.open(tmp_path / "level2_test.json.gz", "wt") as fh:
        json.dump({"benchmark": "doze/level2", "split": "test", "version": 1, "episodes": [{"id": 3}]}, fh)
    with pytest.raises(ds.DatasetError, match="episode 0: id must be a string, got int 3"):
        ds.load(2, "test", 0, root=tmp_path)
    with pytest.raises(IndexError, match="episodes 0..623"):
        ds.load(1, "test", 10 ** 6)
    env = EmbodiedEnv("doze/level1", episode_spec=episode(), camera=CAM)
    env.reset()
    with pytest.raises(ActionError, match="unknown DOZE action 'Jump'"):
        env.step("Jump")
    with pytest.raises(ActionError, match="out of range"):
        env.step(7)


# ------------------------------------------------------------------ spec, CLI
def test_specs_registered_with_limits():
    import gymnasium
    for level in (1, 2, 3):
        spec = get_spec(f"doze/level{level}")
        assert spec.max_steps == 500 and spec.agents == "doze" and spec.options["level"] == level
        env = gymnasium.make(spec.gym_id, camera=CAM)
        assert env.spec.max_episode_steps == 500
    body = get_spec("doze/level1").body_spec
    assert (body.radius, body.height, body.move_step, body.turn_step_deg) == (0.18, 0.9, 0.25, 30.0)
    assert body.limits().linear == pytest.approx(0.5) and body.limits().angular == pytest.approx(math.radians(60))


def test_cli_run_json_is_deterministic(capsys):
    args = ["run", "--benchmark", "doze/level3", "--split", "test", "--episode", "5", "--agent", "frontier",
            "--seed", "1", "--width", "48", "--height", "48", "--json"]
    outs = [json.loads(out) for out in cli_runs(args, capsys)]
    for m in outs:
        m.pop("wall_time_s")
    assert outs[0] == outs[1]
    for k in ("success", "spl", "collisions", "steps", "distance_to_goal", "level", "goal_type", "goal"):
        assert k in outs[0]
    assert outs[0]["level"] == 3 and outs[0]["goal"] == ds.load(3, "test", 5)["goal_object"]


def test_walking_people_are_redrawn_in_place_with_the_same_pixels():
    """The raster backend writes the posed people into their vertex buffer instead of building
    new buffers every frame; the frames equal those of freshly built buffers."""
    ep = episode(level=3, people=6)
    env = EmbodiedEnv("doze/level3", episode_spec=ep, camera=CAM)
    env.reset()
    if env.render_backend != "raster":
        pytest.skip("in-place update is the raster backend's")
    group = env.renderer._groups[1]
    for _ in range(4):
        env.step("RotateLeft")
    assert env.renderer._groups[1] is group                 # updated, not rebuilt
    a = env.observe(update_map=False)
    group.release()
    env.renderer._groups[1], env._dyn_key = None, None
    b = env.observe(update_map=False)
    assert env.renderer._groups[1] is not group
    assert (a["seg"] >= 900).any()
    for k in ("rgb", "depth", "seg"):
        assert np.array_equal(a[k], b[k]), k


def test_a_person_waits_for_a_robot_in_the_way_and_walks_on():
    """A robot standing on a person's route: the person stops short of it (never overlapping)
    and reaches its goal once the robot leaves."""
    from types import SimpleNamespace

    from hazard_sim.tasks.doze.people import FRAME_DT, ROBOT_RADIUS, WALK_SPEED, walk_along
    proc = PeopleProcess(_scene(), 3, np.random.default_rng(3), people=1)
    p = proc.people[0]
    p.pause = 0
    p.route = proc._route(p.xy, proc._walk_goal())
    assert len(p.route) > 15
    robot = np.asarray(p.route[12], float)          # about 1.2 m ahead on the route
    world = SimpleNamespace(body_discs=[(robot, ROBOT_RADIUS)])
    gaps = []
    for _ in range(200):
        proc.step_frame(world)
        gaps.append(float(np.linalg.norm(p.xy - robot)))
    assert min(gaps) >= ROBOT_RADIUS + PERSON_RADIUS - 1e-9
    # it waits right in front of the robot: it stops when its next step (one frame's walk) would overlap
    assert gaps[-1] < ROBOT_RADIUS + PERSON_RADIUS + WALK_SPEED * FRAME_DT
    assert not p.moving
    world.body_discs = []                            # the robot drives away: the person walks on
    proc.step_frame(world)
    assert p.moving
    xy, route, _ = walk_along(np.zeros(2), [np.array([1.0, 0.0]), np.array([1.0, 1.0])], 1.5, 0.0)
    assert np.allclose(xy, [1.0, 0.5]) and len(route) == 1


def test_people_never_pass_through_the_robot_in_a_level3_episode():
    """Issue 17's case (level-3 test episode 552): a person's centre came within 0.006 m of the
    robot's. Over the whole episode with a random agent, no person overlaps the robot's body."""
    from hazard_sim.core.env import EmbodiedEnv
    from hazard_sim.tasks.doze.people import ROBOT_RADIUS
    env = EmbodiedEnv("doze/level3", split="test", episode=552, camera=CAM)
    env.reset(seed=0)
    people = env.world.process("people")
    rng = np.random.default_rng(0)
    closest = np.inf
    from hazard_sim.tasks.doze.task import ACTIONS
    for _ in range(120):
        act = ACTIONS[int(rng.integers(len(ACTIONS)))]
        if act == "Done":
            continue
        env.step(act)
        d = np.linalg.norm(people.positions() - env.agent.xy[:2], axis=1)
        closest = min(closest, float(d.min()) - ROBOT_RADIUS - PERSON_RADIUS)
        if env.done:
            break
    assert closest >= -1e-9, f"a person overlapped the robot by {-closest:.3f} m"


def test_an_item_under_a_bed_can_be_seen():
    """Level-1 test episode 296: Kate's skateboard lies under the bed (a hint goal). The bed stood
    on a solid base to the floor, which hid it from every view (0 pixels over 300 poses around
    it); on legs, the robot's camera sees it from some poses around the bed."""
    from hazard_sim.perception.dataset_render import _look
    from hazard_sim.runner import make_env
    env = make_env("doze/level1", "test", 296, seed=0).unwrapped
    env.reset()
    try:
        item = next(it for it in env.world.house.items if it.id == 1110)
        assert item.relation[:2] == ("under", "bed")
        target = np.asarray(item.position, float) + [0.0, 0.0, 0.05]
        rng = np.random.default_rng(0)
        seen = 0
        for _ in range(300):
            d, a = rng.uniform(0.5, 3.0), rng.uniform(-math.pi, math.pi)
            xy = target[:2] + d * np.array([math.cos(a), math.sin(a)])
            if env.is_free(xy):
                _look(env, xy, target, rng)
                seen = max(seen, int((env.observe(update_map=False)["seg"] == item.id).sum()))
        assert seen >= 10, seen
    finally:
        env.close()
