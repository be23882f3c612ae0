"""Every baseline agent completes an episode of each task, deciding from observations only."""
import numpy as np
import pytest

from hazard_sim.agents import Agent, agents_for, cli_kwargs, make_agent
from hazard_sim.runner import run_episode
from hazard_sim.tasks.hazard.agents import AGENTS


@pytest.mark.parametrize("task,limit", [("fire", None), ("flood", 500), ("wind", 600)])
@pytest.mark.parametrize("agent", sorted(a for a in AGENTS if a != "llm"))   # llm: test_llm.py, with a server
def test_agent_completes_episode(agent, task, limit):
    kw = {"simulations": 300} if agent.startswith("mcts") else None
    m = run_episode(task, "test", 1, agent, seed=0, agent_kwargs=kw, frame_limit=limit)
    assert m["frames"] <= (limit or 1500)
    assert m["actions"] > 0 and 0.0 <= m["value_rate"] <= 1.0
    assert m["rescued_count"] == len(m["rescued"])


def test_agents_do_not_read_simulator_state():
    # agents only get observation dicts and info; they hold no reference to the env or world
    import inspect

    import hazard_sim.tasks.hazard.agents.base as base
    import hazard_sim.tasks.hazard.agents.hazard_model as hazard_model
    import hazard_sim.tasks.hazard.agents.hazard_planner as hazard_planner
    import hazard_sim.tasks.hazard.agents.mcts as mcts
    import hazard_sim.tasks.hazard.agents.simple as simple
    for mod in (base, hazard_model, hazard_planner, mcts, simple):
        src = inspect.getsource(mod)
        assert "hazard_sim.tasks.hazard.env" not in src and "hazard_sim.world" not in src


def test_unknown_agent():
    with pytest.raises(KeyError, match="unknown agent"):
        make_agent("telepath", benchmark="hazard/fire")


def test_agents_come_from_the_benchmarks_group_only():
    # no default benchmark: an agent is made for a benchmark (or a named group), never for neither or both
    with pytest.raises(ValueError, match="give the benchmark"):
        make_agent("greedy")
    with pytest.raises(ValueError, match="give the benchmark"):
        make_agent("greedy", benchmark="hazard/fire", group="hazard")
    assert agents_for("fire") is agents_for("hazard/wind") and agents_for("fire")["greedy"] is AGENTS["greedy"]
    assert "greedy" not in agents_for("doze/level1") and "lawnmower" in agents_for("esar")
    assert type(make_agent("random", benchmark="esar")).__module__ == "hazard_sim.tasks.esar.agents"
    assert type(make_agent("random", group="hazard")) is AGENTS["random"]
    # every shipped agent follows the thin protocol (reset / act)
    for b in ("hazard/fire", "doze/level1", "esar"):
        for name, cls in agents_for(b).items():
            assert isinstance(cls.__new__(cls), Agent) and cls.name == name, (b, name)


def test_cli_options_come_from_the_agent_class():
    from types import SimpleNamespace
    a = SimpleNamespace(mcts_simulations=7, ppo_policy=None, llm_mode="cot", llm_model=None)
    assert cli_kwargs(AGENTS["mcts"], a) == cli_kwargs(AGENTS["mcts_value"], a) == {"simulations": 7}
    assert cli_kwargs(AGENTS["ppo"], a) == {} and cli_kwargs(AGENTS["greedy"], a) == {}
    assert cli_kwargs(AGENTS["llm"], a) == cli_kwargs(agents_for("esar")["llm"], a) == {"mode": "cot"}


def _mcts_in(hazard, category, size, pose, simulations, records):
    """An MCTS agent on an empty ``size`` x ``size`` m map at ``pose``, that knows the ``records``
    (``(id, (x, y))`` objects of ``category``, the task's only target category)."""
    import numpy as np

    from hazard_sim.navigation.grid import GridSpec
    from hazard_sim.navigation.observed_map import ObservedMap
    from hazard_sim.tasks.hazard.agents.memory import Memory, ObjectRecord
    ag = make_agent("mcts", benchmark="hazard/fire", simulations=simulations)
    ag.memory = Memory({"hazard": hazard, "targets": [{"category": category, "value": 1}]})
    ag.map = ObservedMap(GridSpec((0, 0, size, size), 0.1), 0.25)
    ag.memory.agent_pose = np.array([*pose, 0.0])
    recs = [ObjectRecord(i, category, np.array([x, y, 0.1]), 0, True, 1) for i, (x, y) in records]
    ag.memory.objects = {r.id: r for r in recs}
    return ag, recs


def test_mcts_prefers_the_cheaper_plan():
    """Two known targets: one 1 m away, one 6 m away; MCTS goes for the near one first."""
    ag, (near, far) = _mcts_in("fire", "book", 10, (1.0, 5.0), 500, [(1001, (2.0, 5.0)), (1002, (7.0, 5.0))])
    assert ag.plan([far, near]) == 1001


def test_mcts_takes_a_target_at_hand_instead_of_exploring():
    """The public code's action set: a simulated walk that arrives is followed by the pick-up
    (not by a walk on or an explore), so a target 0.7 m away beats exploring and the far ones,
    whatever the search's random draws (before, explore could win with a target in reach)."""
    for seed in range(4):
        ag, recs = _mcts_in("flood", "book", 12, (1.0, 6.0), 300,
                            [(1001, (1.7, 6.0)), (1002, (10.0, 2.0)), (1003, (10.0, 10.0)), (1004, (6.0, 11.0))])
        ag.rng = np.random.default_rng(seed)
        assert ag.plan(recs) == 1001, seed


def test_mcts_plans_with_no_cart_known_in_wind():
    """Wind, holding nothing, carts not yet seen: the search must not fail on an empty action set."""
    ag, (rec,) = _mcts_in("wind", "bag", 16, (1.0, 1.0), 200, [(1001, (3.0, 1.0))])
    assert ag.plan([rec]) in (1001, None)


def test_random_agent_is_the_public_codes_persistent_random():
    """policy/random.py: plans only among explore / walk_to a known target / pick_up / drop, and a
    walk started is repeated (not given up) while it is still available."""
    from hazard_sim.core.env import EmbodiedEnv
    from hazard_sim.render.camera import CameraSpec
    env = EmbodiedEnv("hazard/fire", split="train", episode=0, camera=CameraSpec(64, 64))
    obs, info = env.reset(seed=0)
    agent = make_agent("random", benchmark="hazard/fire", seed=3)
    agent.reset(obs, info)
    acts, statuses, streaks = [], [], []
    for _ in range(60):
        a = agent.act(obs, info)
        streaks.append(agent.fail_streak)
        if a[0] in ("turn_by", "move_by"):        # only the shared shake-loose move of a stuck body
            assert agent.fail_streak >= 3
        else:
            assert a[0] in ("explore", "walk_to", "pick_up", "drop")
        obs, _, term, trunc, info = env.step(a)
        acts.append(a)
        statuses.append(info["action_result"]["status"])
        if term or trunc:
            break
    assert acts[0] == ("explore",)
    walks = [k for k, a in enumerate(acts[:-1]) if a[0] == "walk_to" and statuses[k] == "not_arrived"]
    assert walks, "no capped walk in 60 actions"
    went_on = [k for k in walks if streaks[k + 1] == 0]       # the walk got somewhere (not stuck)
    assert went_on
    for k in went_on:                             # ... so it goes on with the next call
        assert acts[k + 1] == acts[k]
    env.close()


@pytest.mark.parametrize("label", ["cart", "container"])
def test_memory_keeps_a_cart_by_the_simulators_label_or_the_detectors_class(label):
    """Wind's agents drop into carts: a cart seen as the simulator's part ``cart`` or as a
    detector's ``container`` (the dataset's class for carts) is a container at its median point."""
    from hazard_sim.tasks.hazard.agents.memory import Memory
    m = Memory({"hazard": "wind", "container": "cart", "targets": [{"category": "bag", "value": 1}]})
    seg = np.zeros((8, 8), np.int32)
    seg[2:6, 2:6] = 11
    obs = {"frame": 3, "agent_pose": np.zeros(3), "held": -1, "seg": seg, "depth": np.full((8, 8), 2.0),
           "camera_K": np.array([[4.0, 0, 4], [0, 4.0, 4], [0, 0, 1]]), "camera_pose": np.eye(4),
           "field": np.zeros((8, 8))}
    m.integrate(obs, {11: label})
    assert list(m.containers) == [11]
    assert m.containers[11] == pytest.approx([-0.25, -0.25, 2.0])        # median pixel 3.5: (3.5 - 4) / 4 * 2 m
    m2 = Memory(m.task)
    m2.integrate(obs, {11: "wall"})
    assert m2.containers == {}


def test_greedy_as_the_public_code_runs_it_goes_for_the_costliest_target():
    """policy/fire_flood_heuristic.py takes the largest cost/value: the farthest target of the
    lowest value, a vulnerable one's value halved; explore when every walk is cheaper than 2.5."""
    from hazard_sim.tasks.hazard.agents.memory import Memory, ObjectRecord
    ag = make_agent("greedy_public", benchmark="hazard/fire")
    ag.memory = Memory({"hazard": "fire", "targets": [{"category": "book", "value": 1},
                                                      {"category": "laptop", "value": 5}]})
    ag.memory.agent_pose = np.zeros(3)
    near = ObjectRecord(1, "book", np.array([2.0, 0.0, 0.1]), 0, True, 1)         # cost 1.0
    far = ObjectRecord(2, "book", np.array([8.0, 0.0, 0.1]), 0, True, 1)          # cost 4.0
    rich = ObjectRecord(3, "laptop", np.array([12.0, 0.0, 0.1]), 0, True, 5)      # cost 6 / 5 = 1.2
    assert ag.choose([near, far, rich]) == 2
    rich.readings = [(0, 60.0), (10, 90.0)]              # heading for 120 C: vulnerable, value 2.5
    hot_far = ObjectRecord(4, "laptop", np.array([30.0, 0.0, 0.1]), 0, True, 5)   # cost 10 / 5 = 2.0
    hot_far.readings = [(0, 95.0), (10, 130.0)]          # vulnerable too: 10 / 2.5 = 4.0 beats 2.4
    assert ag.choose([near, rich, hot_far]) == 4
    assert ag.choose([near, rich]) is None               # every walk cheaper than exploring
    ag.last_action = ("explore",)
    assert ag.choose([near, rich]) == 3                  # no explore twice: rich 6 / 2.5 = 2.4 > 1.0
