"""The fire model against values computed by hand (HAZARD's temperature and spread rules)."""
import numpy as np
import pytest

from hazard_sim.tasks.hazard.hazards.fire import (
    BURNING,
    BURNT,
    NORMAL,
    FireParams,
    FloorFire,
    ObjectTemperatures,
    environment_temperature,
    spread_probability,
)


def test_spread_probability_schedule():
    # 0.02 up to 30 ticks, linear to 1.0 at 50, then 1.0
    assert spread_probability(0) == pytest.approx(0.02)
    assert spread_probability(30) == pytest.approx(0.02)
    assert spread_probability(40) == pytest.approx(0.02 + 0.98 * 0.5)   # 0.51
    assert spread_probability(45) == pytest.approx(0.02 + 0.98 * 0.75)  # 0.755
    assert spread_probability(50) == pytest.approx(1.0)
    assert spread_probability(80) == pytest.approx(1.0)


def test_environment_temperature_two_objects():
    # A at 20 C, B burning at 600 C one metre away: w = (0.5 / 1)^2 = 0.25
    # T_env(A) = (20 * 1 + 600 * 0.25) / (1 + 0.25) = 136
    pos = np.array([[0.0, 0, 0], [1.0, 0, 0]])
    t_env = environment_temperature(pos, np.array([20.0, 600.0]), np.zeros((0, 3)), 600.0)
    assert t_env[0] == pytest.approx(136.0)


def test_temperature_update_three_objects():
    # A (0,0) 20 C, B (0.5,0) 100 C, C (0,2) burning 600 C.
    # A: w_B = (0.5/0.5)^2 = 1, w_C = (0.5/2)^2 = 0.0625
    #    T_env = (20 + 100 + 37.5) / 2.0625 = 76.3636..., T' = 0.97*20 + 0.03*76.3636 = 21.690909
    # B: w_A = 1, d_BC = sqrt(4.25), w_C = 0.25/4.25 = 0.0588235
    #    T_env = (20 + 20 + 600*0.0588235) / 2.0588235 = 36.571428, T' = 97 + 1.0971428 = 98.097143
    temps = ObjectTemperatures(np.array([500.0, 500.0, 200.0]), np.array([False, False, False]))
    temps.temps[:] = [20.0, 100.0, 600.0]
    temps.states[2] = BURNING
    pos = np.array([[0.0, 0, 0], [0.5, 0, 0], [0, 2.0, 0]])
    temps.update(pos, np.zeros((0, 3)))
    assert temps.temps[0] == pytest.approx(21.690909, abs=1e-5)
    assert temps.temps[1] == pytest.approx(98.097143, abs=1e-5)
    assert temps.temps[2] == 600.0 and temps.states[2] == BURNING


def test_burning_floor_cells_heat_objects_and_distance_is_clamped():
    # a burning cell 0.05 m away counts as 0.1 m: w = (0.5/0.1)^2 = 25
    # T_env = (20 + 600*25) / 26 = 577.6923
    pos = np.array([[0.0, 0.0, 0.0]])
    t_env = environment_temperature(pos, np.array([20.0]), np.array([[0.05, 0.0, 0.0]]), 600.0)
    assert t_env[0] == pytest.approx((20 + 600 * 25) / 26)


def test_ignition_fireproof_and_burnt():
    p = FireParams(burn_updates=3)
    temps = ObjectTemperatures(np.array([25.0, 25.0]), np.array([False, True]), p)
    pos = np.array([[0.0, 0, 0], [0.0, 0.2, 0]])
    source = np.array([[0.1, 0.1, 0.0]])
    ignited = temps.update(pos, source)
    # T' = 0.97*20 + 0.03*T_env > 25 for both (T_env is hundreds of degrees), but only the
    # non-fireproof one ignites
    assert list(ignited) == [0]
    assert temps.states.tolist() == [BURNING, NORMAL]
    assert temps.temps[0] == 600.0 and temps.temps[1] > 25.0
    for _ in range(3):
        temps.update(pos, source)
    assert temps.states[0] == BURNT


def test_floor_fire_tries_all_four_directions_at_full_scale_and_never_into_blocked_cells():
    p = FireParams()
    blocked = np.zeros((5, 5), bool)
    fire = FloorFire((0, 0, 1.0, 1.0), blocked, p)
    assert fire.ignite((0.5, 0.5))
    fire.since_spread[2, 2] = 240         # next tick: 250 frames = 50 clock units -> p = 1
    rng = np.random.default_rng(0)
    assert fire.tick(rng) == 0            # not at full scale yet: no spread however late
    fire.scale[2, 2] = p.scale_max
    fire.since_spread[2, 2] = 240
    assert fire.tick(rng) == 4            # p = 1 for each of the 4 directions
    assert fire.burning.sum() == 5
    assert fire.since_spread[2, 2] == 0   # the clock restarts after a spread
    # all neighbours blocked: nothing can catch
    walled = np.ones((5, 5), bool)
    walled[2, 2] = False
    f2 = FloorFire((0, 0, 1.0, 1.0), walled, p)
    f2.ignite((0.5, 0.5))
    f2.scale[2, 2] = p.scale_max
    f2.since_spread[2, 2] = 600
    for _ in range(10):
        f2.tick(rng)
    assert f2.burning.sum() == 1
    assert not f2.ignite((0.1, 0.1))      # a blocked cell cannot be lit


def test_spread_clock_counts_frames_in_units_of_5():
    fire = FloorFire((0, 0, 1.0, 1.0), None)
    fire.ignite((0.5, 0.5))
    fire.scale[2, 2] = fire.p.scale_max
    fire.since_spread[2, 2] = 190         # next tick: 200 frames = 40 units -> p = 0.02 + 0.98 / 2 = 0.51
    assert spread_probability(200 / 5) == pytest.approx(0.51)
    # with a generator whose 4 draws are known, exactly the draws below 0.51 catch
    draws = np.random.default_rng(7).random((1, 4))
    assert fire.tick(np.random.default_rng(7)) == int((draws < 0.51).sum())


def test_flame_grows_from_0_1_to_0_8_in_steps_of_0_05():
    fire = FloorFire((0, 0, 1.0, 1.0), None)
    fire.ignite((0.5, 0.5))
    fire.since_spread[:] = -10**6        # never spread in this test
    rng = np.random.default_rng(1)
    fire.tick(rng)
    assert fire.scale[2, 2] == pytest.approx(0.15)
    for _ in range(30):
        fire.tick(rng)
    assert fire.scale[2, 2] == pytest.approx(0.8)


def test_spread_rate_matches_probability_statistically():
    # many isolated full-scale cells early on -> p = 0.02 per direction: a cell spreads
    # when any of its 4 tries succeeds, 1 - 0.98^4 = 0.0776 of them
    fire = FloorFire((0, 0, 40.0, 40.0), None)
    fire.burning[::3, ::3] = True
    fire.scale[fire.burning] = fire.p.scale_max
    n = int(fire.burning.sum())
    rng = np.random.default_rng(3)
    before = fire.burning.copy()
    fire.tick(rng)
    spread = int((fire.since_spread[before] == 0).sum())
    assert abs(spread / n - (1 - 0.98 ** 4)) < 0.015
