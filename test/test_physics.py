"""MuJoCo rigid world: contacts, walls, furniture, enable/disable, determinism,
and the flood and wind force models driving it."""
import numpy as np
import pytest

from hazard_sim.geometry import Box, quat_to_matrix
from hazard_sim.physics import BodySpec, RigidWorld
from hazard_sim.tasks.hazard.hazards.flood_forces import FloodForceModel
from hazard_sim.tasks.hazard.hazards.wind_forces import WindModel


def cube(name, center, half=0.1, mass=1.0, yaw=0.0):
    return BodySpec(name, Box.from_yaw(center, [half] * 3, yaw), mass)


def test_box_dropped_on_floor_rests():
    w = RigidWorld([], [cube("a", [0, 0, 1.0], yaw=0.5)])
    w.step(2.0)
    assert w.box(0).bottom == pytest.approx(0.0, abs=2e-3)
    np.testing.assert_allclose(w.positions()[0, :2], [0, 0], atol=1e-3)
    assert np.abs(w.velocities()).max() < 1e-2


def test_box_pushed_into_wall_stops_there():
    wall = Box.from_yaw([2.1, 0, 1.0], [0.1, 2.0, 1.0])  # face at x = 2.0
    w = RigidWorld([wall], [cube("a", [0, 0, 0.1])])
    # 50 N on 1 kg against friction 0.8 * 9.81 N: reaches the wall at ~3 m/s.
    w.step(3.0, forces=np.array([[50.0, 0, 0]]))
    x = w.positions()[0, 0]
    assert 1.88 < x < 1.9 + 5e-3


def test_object_on_rotated_table_top_stays():
    # A 2 x 0.6 m table top at 0.75 m, yawed 60 deg; the object sits 0.8 m along
    # the table's long axis, which is off the table unless the yaw is honoured.
    yaw = np.pi / 3
    table = Box.from_yaw([1.0, 1.0, 0.375], [1.0, 0.3, 0.375], yaw)
    along = 0.8 * np.array([np.cos(yaw), np.sin(yaw)])
    w = RigidWorld([table], [cube("cup", [1.0 + along[0], 1.0 + along[1], 0.80], half=0.05, mass=0.3)])
    w.settle(1.0)
    w.step(3.0)
    assert w.box(0).bottom == pytest.approx(0.75, abs=2e-3)
    np.testing.assert_allclose(w.positions()[0, :2], 1.0 + along, atol=5e-3)


def test_disable_and_enable():
    w = RigidWorld([], [cube("a", [0, 0, 0.1]), cube("b", [0.5, 0, 0.1])])
    w.settle(0.5)
    before_b = w.positions()[1].copy()
    w.disable(0)
    parked = w.positions()[0].copy()
    assert parked[2] < -10                                  # far away, below the floor
    w.step(1.0, forces=np.array([[100.0, 0, 0], [0, 0, 0]]))  # forces on a disabled body are ignored
    np.testing.assert_allclose(w.positions()[0], parked)
    np.testing.assert_allclose(w.positions()[1], before_b, atol=1e-4)  # undisturbed
    # Drop it back right on top of b: collisions are on again, it lands on b.
    w.enable(0, [0.5, 0, 0.5])
    assert w.enabled.all()
    w.step(2.0)
    assert w.box(0).bottom == pytest.approx(0.2, abs=3e-3)


def test_deterministic():
    def run():
        rng = np.random.default_rng(0)
        bodies = [cube(f"o{i}", [0.3 * i, 0.1 * i, 0.1 + 0.25 * i], mass=1.0 + i, yaw=0.3 * i) for i in range(6)]
        w = RigidWorld([Box.from_yaw([1, 1, 0.5], [0.3, 0.3, 0.5])], bodies)
        w.settle(0.5)
        f = rng.normal(0, 20, (6, 3))
        w.step_with(1.0, lambda p, v: (f - 2.0 * v[:, :3], None))
        return w.positions(), w.quats(), w.velocities()
    for a, b in zip(run(), run()):
        assert np.array_equal(a, b)


def test_velocities_are_world_frame():
    # A cube has isotropic inertia, so a world-z torque spins it about world z
    # whatever its orientation.
    q = np.array([0.8, 0.3, -0.4, 0.34])
    q /= np.linalg.norm(q)
    w = RigidWorld([], [BodySpec("c", Box(np.zeros(3), np.full(3, 0.1), quat_to_matrix(q)), 1.0)], floor=False)
    w.step(0.1, torques=np.array([[0, 0, 0.1]]))
    omega = w.velocities()[0, 3:]
    # I = m (2 * 0.1^2) / 3 = 1/150; omega_z = 0.1 * 0.1 / I = 1.5 rad/s.
    np.testing.assert_allclose(omega, [0, 0, 1.5], atol=1e-6)
    np.testing.assert_allclose(w.box(0).rot, quat_to_matrix(w.quats()[0]))


# ------------------------------------------------- hazards through the engine
def test_floating_box_settles_at_equilibrium_depth():
    # 0.4 x 0.4 x 0.2 m, 8 kg (density 250) released with its bottom on the
    # surface of 0.5 m deep water: floats with 8 / (1000 * 0.16) = 0.05 m under.
    w = RigidWorld([], [BodySpec("crate", Box.from_yaw([0, 0, 0.6], [0.2, 0.2, 0.1], 0.3), 8.0)])
    w.step_with(8.0, FloodForceModel().force_fn(w, lambda xy: np.full(len(xy), 0.5)))
    assert w.box(0).bottom == pytest.approx(0.45, abs=0.01)


def test_iron_box_sinks():
    # Same box at 2000 kg/m^3 (64 kg): buoyancy at most 313.9 N < 627.8 N weight.
    w = RigidWorld([], [BodySpec("iron", Box.from_yaw([0, 0, 0.6], [0.2, 0.2, 0.1]), 64.0)])
    w.step_with(4.0, FloodForceModel().force_fn(w, 0.5))
    assert w.box(0).bottom == pytest.approx(0.0, abs=2e-3)


def test_flood_current_carries_floating_box_to_wall():
    wall = Box.from_yaw([3.1, 0, 1.0], [0.1, 3.0, 1.0])
    w = RigidWorld([wall], [BodySpec("crate", Box.from_yaw([0, 0, 0.5], [0.2, 0.2, 0.1]), 8.0)])
    model = FloodForceModel(water_velocity=np.array([0.5, 0, 0]))
    w.step_with(15.0, model.force_fn(w, 0.5))
    x = w.positions()[0, 0]
    assert 2.7 < x < 2.8 + 5e-3  # drifted downstream and stopped at the wall face


def test_wind_moves_light_object_not_heavy_one():
    w = RigidWorld([], [cube("box", [0, 0, 0.2], half=0.2, mass=1.0), cube("safe", [0, 3, 0.2], half=0.2, mass=1.0)])
    wind = WindModel(10.0, 0.0, turbulence=0.0, rng=np.random.default_rng(0))
    wind.resample_turbulence(w.n)
    w.step_with(1.0, wind.force_fn(w, resistances=[0.0, 11.0]))
    p = w.positions()
    assert p[0, 0] > 1.0                      # 0.16 m^2 * 122.5 = 19.6 N >> friction 7.8 N
    np.testing.assert_allclose(p[1], [0, 3, 0.2], atol=2e-3)


def test_static_hold_force_is_half_the_friction_or_tipping_limit():
    from hazard_sim.tasks.hazard.hazards.wind_forces import static_hold_force
    flat = BodySpec("flat", Box.from_yaw([0, 0, 0.05], [0.2, 0.3, 0.05]), 2.0, friction=0.5)
    tall = BodySpec("tall", Box.from_yaw([1, 0, 0.4], [0.1, 0.2, 0.4]), 1.0, friction=0.8)
    w = RigidWorld([], [flat, tall])
    # flat: friction 0.5 < lever 0.2/0.05 -> 0.5 * 2 * 9.81 * 0.5; tall: lever 0.1/0.4 < 0.8
    np.testing.assert_allclose(static_hold_force(w), [0.5 * 2.0 * 9.81 * 0.5, 0.5 * 1.0 * 9.81 * 0.25])


def _resting_box_in_wind(speed, keep_resting):
    w = RigidWorld([], [cube("box", [0, 0, 0.1], half=0.1, mass=1.0)])
    w.enable_sleep()
    w.settle(1.0)
    w.step(1.0)                                    # at rest long enough for the engine to put it to sleep
    wind = WindModel(speed, 0.0, turbulence=0.0, cross_fraction=0.0, torque_scale=0.0,
                     rng=np.random.default_rng(0))
    wind.resample_turbulence(w.n)
    start = w.positions()[0].copy()
    fn = wind.force_fn(w, resistances=[0.0], keep_resting=keep_resting)
    for _ in range(30):                            # 3 s of 0.1 s frames, as the hazard steps it
        w.step_with(0.1, fn, every=4)
    return w, np.linalg.norm(w.positions()[0, :2] - start[:2])


def test_resting_body_under_weak_wind_stays_asleep():
    # 4 m/s: 1.225 * 16 * 0.04 m^2 = 0.78 N, below half of friction (0.5 * 0.8 * 9.81 = 3.9 N)
    w, moved = _resting_box_in_wind(4.0, keep_resting=True)
    assert w.sleeping[0] and moved == 0.0
    w, moved = _resting_box_in_wind(4.0, keep_resting=False)
    assert not w.sleeping[0] and moved < 0.05     # the force keeps it awake; friction holds it


def test_strong_wind_wakes_and_moves_a_resting_body():
    # 14 m/s: 1.225 * 196 * 0.04 = 9.6 N, above friction (7.8 N): it slides
    w, moved = _resting_box_in_wind(14.0, keep_resting=True)
    assert not w.sleeping[0] and moved > 0.5


@pytest.mark.parametrize("half_z", [0.005, 0.02])
def test_thin_object_does_not_tunnel_through_thin_wall_at_10ms(half_z):
    """The hazards step at 10 ms: a thin board pushed hard at the thinnest wall of the
    indoor scenes (10 cm) stops at it, with three times the fastest floating body's speed."""
    wall = Box.from_yaw([2.05, 0, 1.0], [0.05, 2.0, 1.0])          # face at x = 2.0
    board = BodySpec("board", Box.from_yaw([1.0, 0, half_z], [0.15, 0.1, half_z], 0.0), 0.2)
    w = RigidWorld([wall], [board])
    w.set_timestep(0.01)
    assert w.timestep == 0.01 and w.n_substeps(0.1) == 10
    w.set_pose(0, [1.0, 0, half_z])
    w._qvel[0, 0] = 6.0                                             # 6 m/s: 6 cm per step
    w.step(1.0)
    assert w.positions()[0, 0] < 2.0 - 0.14                         # still on the near side of the wall


@pytest.mark.parametrize("bad", [0.0, -0.01, 0.5])
def test_set_timestep_rejects_bad_values(bad):
    w = RigidWorld([], [cube("a", [0, 0, 0.1])])
    with pytest.raises(ValueError, match="physics timestep"):
        w.set_timestep(bad)


def _quats_to_matrices_reference(q):
    """The entry-by-entry formula quats_to_matrices replaced."""
    q = np.asarray(q, float)
    q = q * (np.sqrt(2.0) / np.linalg.norm(q, axis=1, keepdims=True))
    w, x, y, z = q.T
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz, wx, wy, wz = x * y, x * z, y * z, w * x, w * y, w * z
    r = np.empty((len(q), 3, 3))
    r[:, 0, 0], r[:, 0, 1], r[:, 0, 2] = 1 - yy - zz, xy - wz, xz + wy
    r[:, 1, 0], r[:, 1, 1], r[:, 1, 2] = xy + wz, 1 - xx - zz, yz - wx
    r[:, 2, 0], r[:, 2, 1], r[:, 2, 2] = xz - wy, yz + wx, 1 - xx - yy
    return r


def test_quats_to_matrices_bit_identical_to_entrywise_formula():
    from hazard_sim.physics.rigid import quats_to_matrices
    rng = np.random.default_rng(3)
    q = np.concatenate([rng.normal(size=(5000, 4)), [[1, 0, 0, 0], [0, 0, 0, 1], [0.5, -0.5, 0.5, -0.5]],
                        np.eye(4), -np.eye(4)])
    r = quats_to_matrices(q)
    assert r.tobytes() == _quats_to_matrices_reference(q).tobytes()
    # the layout matters too: a matmul with strided matrices rounds differently
    assert r.flags.c_contiguous
    strided = np.concatenate([np.zeros((len(q), 3)), q], axis=1)[:, 3:]      # as MuJoCo's qpos view
    r2 = quats_to_matrices(strided)
    assert r2.flags.c_contiguous and r2.tobytes() == r.tobytes()
    np.testing.assert_allclose(r @ r.transpose(0, 2, 1), np.broadcast_to(np.eye(3), r.shape), atol=1e-12)
