"""Flood object states as the public HAZARD code keeps them: damage on first contact."""
import numpy as np

from hazard_sim.tasks.hazard.dataset import load_episode
from hazard_sim.tasks.hazard.env import HazardEnv
from hazard_sim.tasks.hazard.hazards.flood_hazard import flood_state


def test_state_transitions():
    # dry stays normal; a wet non-waterproof object is flooded, for good
    assert flood_state("normal", False, False, False) == "normal"
    assert flood_state("normal", True, False, False) == "flooded"
    assert flood_state("flooded", False, False, False) == "flooded"
    # buoyant: floating while in the water; a flooded one stays flooded after leaving it
    assert flood_state("normal", True, False, True) == "flooded_floating"
    assert flood_state("flooded_floating", False, False, True) == "flooded"
    assert flood_state("normal", True, True, True) == "floating"
    assert flood_state("floating", False, True, True) == "normal"
    # waterproof and heavy: wet but never damaged
    assert flood_state("normal", True, True, False) == "normal"


def test_damage_on_first_contact_not_half_submerged():
    ep = load_episode("flood", "test", 0)
    ep["flood"]["source_wall"] = "w"
    # a laptop lying flat (3 cm tall, not waterproof) and an iron box (waterproof) at x = 1.0
    ep["objects"][0].update(position=[1.0, 1.5, 0.015], support="floor", category="laptop", yaw=0.0)
    ep["objects"][1].update(position=[1.0, 2.5, 0.15], support="floor", category="iron_box", yaw=0.0)
    env = HazardEnv("flood", "test", episode_spec=ep)
    env.reset()
    laptop = env.world.get(ep["objects"][0]["id"])
    box = env.world.get(ep["objects"][1]["id"])
    hz = env.world.process("flood")
    # run until the surface first reaches above the floor under the laptop's far corner
    while hz.surface.height_at(laptop.box.footprint()).max() <= 0.0:
        env.advance(1)
    env.advance(10)                                      # 1 cm more water: it touches the laptop
    corners = laptop.box.corners()
    assert (hz.surface.height_at(corners[:, :2]) > corners[:, 2]).any()
    assert laptop.damaged and laptop.state in ("flooded", "flooded_floating")
    env.advance(300)
    assert box.state in ("normal", "floating") and not box.damaged     # waterproof: never damaged
    assert np.isfinite(box.position).all()
