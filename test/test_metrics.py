"""Value rate, Step and Damage on constructed episodes, against hand-computed values of
the public HAZARD code's definitions (``utils/calc_value.py``)."""
import pytest

from hazard_sim.tasks.hazard.metrics import Rescue, aggregate, episode_metrics, value_rate


def test_value_rate_with_damage_discount():
    # targets worth 5, 5, 1, 1 (total 12); rescued: a 5 intact, a 5 damaged, a 1 intact
    rescued = [Rescue(1, "purse", 5, 100, False), Rescue(2, "camera", 5, 200, True), Rescue(3, "book", 1, 300, False)]
    assert value_rate(rescued, [5, 5, 1, 1]) == pytest.approx((5 + 2.5 + 1) / 12)


def test_episode_step_is_last_rescue_frame_over_rescues():
    # rescues at frames 100 and 300: Step = 300 / 2 = 150, the old mean rescue frame = 200
    e1 = episode_metrics([Rescue(1, "a", 1, 100, False), Rescue(2, "b", 1, 300, True)], [1, 1, 1, 1])
    assert e1["value_rate"] == pytest.approx(1.5 / 4)
    assert e1["step"] == 150 and e1["mean_rescue_frame"] == 200
    assert e1["damage"] == 0.5 and e1["damaged_count"] == 1 and e1["last_rescue_frame"] == 300
    e2 = episode_metrics([], [5])
    assert e2["value_rate"] == 0 and e2["step"] is None and e2["damage"] is None
    assert e2["mean_rescue_frame"] is None and e2["last_rescue_frame"] == 0


def test_aggregate_as_the_public_code():
    e1 = episode_metrics([Rescue(1, "a", 1, 100, False), Rescue(2, "b", 1, 300, True)], [1, 1, 1, 1])
    e2 = episode_metrics([], [5])
    e3 = episode_metrics([Rescue(9, "c", 5, 50, False)], [5, 5])
    e4 = episode_metrics([Rescue(4, "d", 5, 400, True), Rescue(5, "e", 1, 20, True), Rescue(6, "f", 1, 700, False)],
                         [5, 1, 1, 1])
    agg = aggregate([e1, e2, e3, e4])
    # Value: mean of (1.5/4, 0, 5/10, (2.5 + 0.5 + 1)/8)
    assert agg["value"] == pytest.approx(100 * (0.375 + 0 + 0.5 + 0.5) / 4)
    # Step: last rescue frames 300 + 0 + 50 + 700 = 1050 over 6 rescued objects
    assert agg["step"] == pytest.approx(1050 / 6)
    # the old column: every rescue frame (100 + 300 + 50 + 400 + 20 + 700) / 6
    assert agg["mean_rescue_frame"] == pytest.approx(1570 / 6)
    # Damage: discount below 0.6 for 1 + 0 + 0 + 2 of 6 rescued
    assert agg["damage"] == pytest.approx(100 * 3 / 6)
    assert agg["rescued"] == 6 and agg["episodes"] == 4


def test_aggregate_of_older_results_reads_the_rescues():
    old = {"value_rate": 0.5, "rescued_count": 2, "damaged_count": 0, "rescue_frames_sum": 300,
           "rescued": [{"frame": 100}, {"frame": 200}]}
    assert aggregate([old])["step"] == pytest.approx(100.0)
    with pytest.raises(KeyError, match="last_rescue_frame"):
        aggregate([{"value_rate": 0.5, "rescued_count": 1, "damaged_count": 0, "rescue_frames_sum": 9}])


def test_no_rescue_at_all():
    agg = aggregate([episode_metrics([], [1]), episode_metrics([], [5, 1])])
    assert agg["value"] == 0 and agg["step"] is None and agg["damage"] is None and agg["rescued"] == 0


def test_no_targets_is_an_error():
    with pytest.raises(ValueError):
        value_rate([], [])
    with pytest.raises(ValueError):
        aggregate([])


def test_leaderboard_counts_are_the_default_test_sweep():
    from types import SimpleNamespace

    from hazard_sim.cli import _episodes
    from hazard_sim.core.spec import get_spec
    for task, n in (("fire", 25), ("flood", 25), ("wind", 20)):
        ds = get_spec(task).dataset
        assert ds.sweep_count("test") == n
        assert ds.sweep_count("train") == ds.count("train") == 75     # no leaderboard: every episode
        assert _episodes(SimpleNamespace(benchmark=get_spec(task).id, split="test", episodes=None)) == list(range(n))
    assert len(_episodes(SimpleNamespace(benchmark="hazard/wind", split="test", episodes=25))) == 25


def test_table_has_the_old_mean_frame_column():
    from hazard_sim.tasks.hazard.paper import table_rows
    row = {"agent": "greedy", "split": "test", "episodes": 2, **aggregate(
        [episode_metrics([Rescue(1, "a", 1, 100, False), Rescue(2, "b", 1, 300, True)], [1, 1])])}
    text = table_rows("hazard/fire", [row])
    assert "MeanF" in text and " 150.0 " in text and " 200.0 " in text and "35.4" in text
