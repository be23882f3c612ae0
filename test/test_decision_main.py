"""The generic decision_node script picks the benchmark's declared decision node class."""
import pytest

pytest.importorskip("rclpy")

from planner_node.decision_main import benchmark_for, decision_class  # noqa: E402


def test_the_benchmark_parameter_wins_then_task_then_the_agents_group():
    assert benchmark_for("random", benchmark="doze/level2") == "doze/level2"
    assert benchmark_for("random", task="flood") == "hazard/flood"          # the older spelling
    assert benchmark_for("greedy").startswith("hazard/")                     # only HAZARD has greedy
    assert benchmark_for("l3mvn", benchmark="").startswith("doze/")         # only DOZE has l3mvn
    with pytest.raises(ValueError, match="several benchmarks"):
        benchmark_for("random")                                              # HAZARD's, DOZE's, ESAR's
    with pytest.raises(ValueError, match="several benchmarks"):
        benchmark_for("frontier")                                            # DOZE's and ESAR's
    with pytest.raises(ValueError, match="no benchmark has an agent 'nobody'"):
        benchmark_for("nobody")


def test_each_benchmark_names_its_node_class():
    from planner_node.plugins.doze import DozeDecisionNode
    from planner_node.plugins.esar import EsarReporter
    from planner_node.plugins.hazard import DecisionNode
    assert decision_class("hazard/wind") is DecisionNode
    assert decision_class("doze/level3") is DozeDecisionNode
    assert decision_class("esar") is EsarReporter                          # its reporting path


def test_a_benchmark_without_a_decision_node_gets_a_clear_error(monkeypatch):
    from hazard_sim.core import spec as spec_mod
    from hazard_sim.core.ros_pieces import RosPieces
    real = spec_mod.get_spec("esar")
    bare = type("Bare", (), {"id": real.id, "ros": RosPieces()})()
    monkeypatch.setattr(spec_mod, "get_spec", lambda name: bare)
    with pytest.raises(ValueError, match="declares no decision node"):
        decision_class("esar")
