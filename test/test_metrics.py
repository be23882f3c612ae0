"""Value rate, Step and Damage on constructed episodes (paper definitions)."""
import pytest

from hazard_sim.metrics import Rescue, aggregate, episode_metrics, value_rate


def test_value_rate_with_damage_discount():
    # targets worth 5, 5, 1, 1 (total 12); rescued: a 5 intact, a 5 damaged, a 1 intact
    rescued = [Rescue(1, "purse", 5, 100, False), Rescue(2, "camera", 5, 200, True), Rescue(3, "book", 1, 300, False)]
    assert value_rate(rescued, [5, 5, 1, 1]) == pytest.approx((5 + 2.5 + 1) / 12)


def test_episode_and_aggregate():
    e1 = episode_metrics([Rescue(1, "a", 1, 100, False), Rescue(2, "b", 1, 300, True)], [1, 1, 1, 1])
    assert e1["value_rate"] == pytest.approx(1.5 / 4)
    assert e1["step"] == 200 and e1["damage"] == 0.5
    e2 = episode_metrics([], [5])
    assert e2["value_rate"] == 0 and e2["step"] is None and e2["damage"] is None
    e3 = episode_metrics([Rescue(9, "c", 5, 50, False)], [5, 5])
    agg = aggregate([e1, e2, e3])
    # Value: mean of (0.375, 0, 0.5); Step: (100 + 300 + 50) / 3 rescued; Damage: 1 of 3 rescued
    assert agg["value"] == pytest.approx(100 * (0.375 + 0 + 0.5) / 3)
    assert agg["step"] == pytest.approx(150.0)
    assert agg["damage"] == pytest.approx(100 / 3)
    assert agg["rescued"] == 3 and agg["episodes"] == 3


def test_no_targets_is_an_error():
    with pytest.raises(ValueError):
        value_rate([], [])
    with pytest.raises(ValueError):
        aggregate([])
