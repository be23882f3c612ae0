"""Hand-checked values of the flood and wind force models (pure numpy)."""
import numpy as np
import pytest

from hazard_sim.geometry import yaw_to_matrix
from hazard_sim.tasks.hazard.hazards.flood_forces import (
    FloodForceModel,
    box_z_extent,
    buoyancy,
    drag,
    submerged_fraction,
    uniform_flow,
)
from hazard_sim.tasks.hazard.hazards.wind_forces import WindModel, facing_area

G = 9.81


def rot_x(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


# ----------------------------------------------------------------- flood
def test_submerged_fraction_cases():
    bottoms = np.array([0.0, 0.0, 0.0, 1.0])
    tops = np.array([1.0, 1.0, 1.0, 1.5])
    h = np.array([0.5, -0.2, 3.0, 1.1])
    # half under; dry (water below); fully under; (1.1 - 1.0) / 0.5 = 0.2
    np.testing.assert_allclose(submerged_fraction(bottoms, tops, h), [0.5, 0.0, 1.0, 0.2])


def test_box_z_extent_uses_rotation():
    # Box 0.4 x 0.2 x 0.1 (halfs 0.2, 0.1, 0.05) rolled 90 deg about x: its y
    # axis points up, so it reaches +-0.1 in z around the centre at 1.0.
    b, t = box_z_extent(np.array([[0.0, 0.0, 1.0]]), np.array([[0.2, 0.1, 0.05]]),
                        rot_x(np.pi / 2)[None])
    np.testing.assert_allclose([b[0], t[0]], [0.9, 1.1], atol=1e-12)


def test_floating_box_buoyancy_equals_weight():
    # 0.4 x 0.4 x 0.2 m box, 8 kg (density 250): V = 0.032 m^3.
    # Equilibrium depth d = 8 / (1000 * 0.16) = 0.05 m -> fraction 0.05 / 0.2 = 0.25,
    # F = 1000 * 9.81 * 0.25 * 0.032 = 78.48 N = 8 * 9.81.
    frac = submerged_fraction(np.array([0.45]), np.array([0.65]), np.array([0.5]))
    np.testing.assert_allclose(frac, [0.25])
    f = buoyancy(np.array([0.032]), frac)
    np.testing.assert_allclose(f, [[0.0, 0.0, 8 * G]])


def test_drag_sign_and_magnitude():
    # v = 2 m/s along x in still water, A = 0.5 m^2, cd = 1, fully submerged:
    # F = -0.5 * 1000 * 1 * 0.5 * 2 * 2 = -1000 N along x.
    f = drag(np.array([[2.0, 0, 0]]), np.zeros(3), np.array([0.5]), np.array([1.0]))
    np.testing.assert_allclose(f, [[-1000.0, 0, 0]])
    # Object at rest in a 1 m/s current along +x, half submerged:
    # v_rel = -1 -> F = +0.5 * 1000 * 0.5 * 0.5 * 1 * 1 = +125 N (carried along).
    f = drag(np.zeros((1, 3)), np.array([1.0, 0, 0]), np.array([0.5]), np.array([0.5]))
    np.testing.assert_allclose(f, [[125.0, 0, 0]])
    # Dry object: no drag.
    f = drag(np.array([[3.0, 1, 0]]), np.zeros(3), np.array([0.5]), np.array([0.0]))
    np.testing.assert_allclose(f, 0.0)


def test_uniform_flow_direction():
    field = uniform_flow(np.pi / 2, 0.3)
    np.testing.assert_allclose(field(np.zeros((2, 3))), [[0, 0.3, 0]] * 2, atol=1e-12)


def test_flood_model_forces_by_hand():
    model = FloodForceModel(cd=1.0, linear_damping=0.0, angular_damping=0.0)
    # Box 1 x 0.4 x 0.2 m (halfs .5 .2 .1) upright, centre at z = 0.1, water 0.1 m:
    # fraction 0.5, V = 0.08 -> buoyancy 1000 * 9.81 * 0.04 = 392.4 N.
    # Moving 1 m/s along +y: facing area = x-z face = 1 * 0.2 = 0.2 m^2,
    # drag = -0.5 * 1000 * 1 * 0.2 * 0.5 * 1 * 1 = -50 N along y.
    c = np.array([[0.0, 0.0, 0.1]])
    f, t = model(c, np.array([[0.5, 0.2, 0.1]]), np.eye(3)[None],
                 np.array([[0, 1.0, 0, 0, 0, 0]]), lambda xy: np.full(len(xy), 0.1))
    np.testing.assert_allclose(f, [[0, -50.0, 392.4]])
    np.testing.assert_allclose(t, 0.0)


def test_flood_model_damping_and_cap():
    model = FloodForceModel(cd=0.0, linear_damping=2.0, angular_damping=3.0)
    halfs = np.array([[0.1, 0.1, 0.1]])  # 0.2 m cube, V = 0.008, fully submerged
    vel = np.array([[0.0, 0.0, -0.5, 0.0, 0.0, 2.0]])
    f, t = model(np.zeros((1, 3)), halfs, np.eye(3)[None], vel, 5.0)
    # linear: -2 * 1000 * 0.008 * (-0.5) = +8 N up, on top of buoyancy 78.48 N.
    np.testing.assert_allclose(f, [[0, 0, 1000 * G * 0.008 + 8.0]])
    # angular about z: -3 * 8 kg * (0.01 + 0.01) / 3 * 2 = -0.32 N m.
    np.testing.assert_allclose(t, [[0, 0, -0.32]])
    # Very light cube (0.01 kg) with dt = 0.005: damping capped to m |v| / dt = 1 N,
    # angular coefficient to m / dt = 2 kg/s -> -2 * 0.02 / 3 * 2 N m.
    f, t = model(np.zeros((1, 3)), halfs, np.eye(3)[None], vel, 5.0, masses=[0.01], dt=0.005)
    np.testing.assert_allclose(f, [[0, 0, 1000 * G * 0.008 + 1.0]])
    np.testing.assert_allclose(t, [[0, 0, -2 * 0.02 / 3 * 2]])


def test_flood_model_inactive_bodies_feel_nothing():
    f, t = FloodForceModel()(np.zeros((2, 3)), np.full((2, 3), 0.1), np.stack([np.eye(3)] * 2),
                             np.zeros((2, 6)), 1.0, active=[True, False])
    assert f[0, 2] > 0 and np.all(f[1] == 0) and np.all(t[1] == 0)


# ------------------------------------------------------------------ wind
def test_facing_area_rotated_box():
    # 1 x 0.5 x 0.2 m box yawed 30 deg, wind along x.  Seen from the wind the
    # box is 1 * sin30 + 0.5 * cos30 = 0.9330 m wide and 0.2 m tall -> 0.18660 m^2.
    a = facing_area(np.array([[0.5, 0.25, 0.1]]), yaw_to_matrix(np.pi / 6)[None], [1.0, 0, 0])
    np.testing.assert_allclose(a, [0.2 * (0.5 + 0.5 * np.cos(np.pi / 6))])
    # Seen from above: the 1 x 0.5 top face whatever the yaw.
    a = facing_area(np.array([[0.5, 0.25, 0.1]]), yaw_to_matrix(0.4)[None], [0, 0, -3.0])
    np.testing.assert_allclose(a, [0.5])


def _plate_wind(**kw):
    # A 1 x 1 m face (halfs 0.05, 0.5, 0.5) normal to a 10 m/s wind along +x.
    args = dict(turbulence=0.0, cross_fraction=0.0, torque_scale=0.0, rng=np.random.default_rng(1))
    args.update(kw)
    return WindModel(10.0, 0.0, **args), np.array([[0.05, 0.5, 0.5]]), np.eye(3)[None]


@pytest.mark.parametrize("resistance, expected", [
    (0.0, 122.5),      # 1.225 * 10 * 10 * 1
    (1.0, 30.625),     # felt 10 / 2 = 5 m/s -> 1.225 * 5 * 5 * 1
    (10.0, 1.012397),  # felt 10 / 11 m/s -> 122.5 / 121 (still movable at 10)
    (10.5, 0.0),       # resistance > 10: immovable
])
def test_wind_force_magnitude(resistance, expected):
    wind, halfs, rots = _plate_wind()
    f, t = wind.forces(halfs, rots, np.zeros((1, 6)), [resistance])
    np.testing.assert_allclose(f, [[expected, 0, 0]], rtol=1e-4)
    np.testing.assert_allclose(t, 0.0)


def test_wind_relative_velocity_and_cart():
    wind, halfs, rots = _plate_wind()
    # Object already drifting at 5 m/s downwind: v_rel = 5 -> 30.625 N.
    f, _ = wind.forces(halfs, rots, np.array([[5.0, 0, 0]]), [0.0])
    np.testing.assert_allclose(f, [[30.625, 0, 0]])
    # Faster than the wind: pushed back.  In a cart: nothing.
    f, _ = wind.forces(halfs, rots, np.array([[12.0, 0, 0]]), [0.0])
    np.testing.assert_allclose(f, [[-1.225 * 4, 0, 0]])
    f, t = wind.forces(halfs, rots, np.zeros((1, 3)), [0.0], in_cart_mask=[True])
    assert np.all(f == 0) and np.all(t == 0)


def test_wind_cross_force_torque_and_determinism():
    runs = []
    for _ in range(2):
        wind, halfs, rots = _plate_wind(turbulence=0.0, cross_fraction=0.05, torque_scale=0.1,
                                        rng=np.random.default_rng(7))
        wind.resample_turbulence(1)
        runs.append(wind.forces(halfs, rots, np.zeros((1, 6)), [0.0]))
    (f, t), (f2, t2) = runs
    assert np.array_equal(f, f2) and np.array_equal(t, t2)
    assert f[0, 0] == pytest.approx(122.5)               # along-wind part unchanged
    assert 0 < abs(f[0, 1]) <= 0.05 * 122.5 and f[0, 2] == 0   # horizontal cross force
    # torque about z bounded by 0.1 * |F| * horizontal half diagonal
    assert 0 < abs(t[0, 2]) <= 0.1 * 122.5 * np.hypot(0.05, 0.5)


def test_wind_turbulence_has_fixed_length():
    wind = WindModel(7.0, 1.0, turbulence=0.5, rng=np.random.default_rng(3))
    for _ in range(3):
        wind.resample_turbulence(4)
        assert np.linalg.norm(wind.velocity - 7.0 * wind.direction) == pytest.approx(0.5)
    felt = wind.felt_wind([0.0, 3.0, 11.0])
    np.testing.assert_allclose(felt[1], wind.velocity / 4)
    np.testing.assert_allclose(felt[2], 0.0)


def test_flood_water_height_only_queried_for_active_bodies():
    seen = []

    def height(xy):
        seen.append(xy.copy())
        return np.full(len(xy), 1.0)

    centers = np.array([[1.0, 2.0, 0.0], [1000.0, 1000.0, -100.0]])
    FloodForceModel()(centers, np.full((2, 3), 0.1), np.stack([np.eye(3)] * 2), np.zeros((2, 6)),
                      height, active=[True, False])
    np.testing.assert_allclose(np.concatenate(seen), [[1.0, 2.0]])


def test_wind_gain_and_stability_cap():
    wind, halfs, rots = _plate_wind(gain=3.0)
    f, _ = wind.forces(halfs, rots, np.zeros((1, 6)), [0.0])
    np.testing.assert_allclose(f, [[3 * 122.5, 0, 0]])
    # A 0.1 kg plate with dt = 0.005: capped at m |v_rel| / dt = 0.1 * 10 / 0.005 = 200 N.
    f, _ = wind.forces(halfs, rots, np.zeros((1, 6)), [0.0], masses=[0.1], dt=0.005)
    np.testing.assert_allclose(f, [[200.0, 0, 0]])
