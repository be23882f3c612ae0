"""Water level over time and space (HAZARD: +0.01 m per 10 frames, 3 deg slope, 1.5 m)."""
import numpy as np
import pytest

from hazard_sim.tasks.hazard.hazards.flood_level import FloodSurface

BOUNDS = (0.0, 0.0, 12.0, 8.0)
TAN3 = np.tan(np.radians(3.0))


@pytest.mark.parametrize("frame,level", [(0, 0.0), (9, 0.0), (10, 0.01), (100, 0.1), (505, 0.5),
                                         (1500, 1.5), (2000, 1.5)])
def test_level_at_source_rises_0_01_per_10_frames_up_to_1_5(frame, level):
    s = FloodSurface(BOUNDS, "w")
    s.set_frame(frame)
    assert s.level == pytest.approx(level)
    assert s.height_at(np.array([0.0, 4.0])) == pytest.approx(level)


def test_slope_of_3_degrees_away_from_the_source_wall():
    s = FloodSurface(BOUNDS, "w")
    s.set_frame(500)                               # level 0.5 m
    assert s.height_at(np.array([5.0, 1.0])) == pytest.approx(0.5 - 5 * TAN3)   # 0.23796
    dry_from = 0.5 / TAN3                          # 9.54 m
    assert s.height_at(np.array([dry_from + 0.1, 1.0])) == 0.0
    e = FloodSurface(BOUNDS, "e")                  # from the east wall, flowing west
    e.set_frame(500)
    assert e.height_at(np.array([12.0 - 5.0, 1.0])) == pytest.approx(0.5 - 5 * TAN3)


def test_slope_flattens_after_reaching_max():
    s = FloodSurface(BOUNDS, "s")
    s.set_frame(1500 + 100)                        # 0.1 m of "catch-up" on the far side
    far = 8.0
    assert s.height_at(np.array([3.0, far])) == pytest.approx(1.5 - (far * TAN3 - 0.1))
    s.set_frame(1500 + 1000)                       # long after: flat
    assert s.height_at(np.array([3.0, far])) == pytest.approx(1.5)


def test_unknown_source_wall():
    with pytest.raises(ValueError, match="unknown source wall"):
        FloodSurface(BOUNDS, "up")
