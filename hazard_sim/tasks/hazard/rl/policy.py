"""The PPO policy's network and the checked loading of a saved policy file.

:class:`MapCNN` is a small convolutional encoder for the (5, S, S) map (about 40k weights with
the actor and critic heads, so a saved policy with its optimiser state is about 0.6 MB).
:func:`load_policy` loads a stable-baselines3 ``.zip`` and checks that it was trained for
this interface (observation and action spaces) and this task; every way it can go wrong
raises :class:`PolicyError` (a ValueError) or ``FileNotFoundError`` with a specific message.
"""
from __future__ import annotations

import zipfile
from pathlib import Path

import torch
from stable_baselines3 import PPO
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from hazard_sim.paths import data_path
from hazard_sim.tasks.hazard.rl.actions import ACTION_NAMES
from hazard_sim.tasks.hazard.rl.observation import CHANNELS, MAP_SIZE

POLICY_DIR = data_path("policies")
#: what a policy file carries besides its weights (SB3 ``save(include=...)``): task, map size, ...
META_KEY = "hazard_meta"


class PolicyError(ValueError):
    """A policy file that exists but cannot be used (not SB3, other spaces, other task)."""


def default_policy_path(hazard: str) -> Path:
    return POLICY_DIR / f"ppo_{hazard}.zip"


class MapCNN(BaseFeaturesExtractor):
    """Conv 3x3 (16) -> 3x3/2 (32) -> 3x3/2 (32) -> 3x3/2 (16) -> linear (64), ReLUs."""

    def __init__(self, observation_space, features_dim: int = 64):
        super().__init__(observation_space, features_dim)
        c, h, w = observation_space.shape
        nn = torch.nn
        self.cnn = nn.Sequential(
            nn.Conv2d(c, 16, 3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(32, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Flatten())
        with torch.no_grad():
            n = self.cnn(torch.zeros(1, c, h, w)).shape[1]
        self.linear = nn.Sequential(nn.Linear(n, features_dim), nn.ReLU())

    def forward(self, x):
        return self.linear(self.cnn(x))


def policy_kwargs() -> dict:
    return {"features_extractor_class": MapCNN, "features_extractor_kwargs": {"features_dim": 64},
            "net_arch": {"pi": [64], "vf": [64]}, "normalize_images": False}


def load_policy(path, hazard: str, map_size: int = MAP_SIZE):
    """The SB3 PPO model in ``path`` (the shipped ``data/policies/ppo_<hazard>.zip`` if None),
    checked against this task and observation layout."""
    p = Path(path) if path is not None else default_policy_path(hazard)
    if not p.exists():
        hint = (f"pass --ppo-policy PATH or train one: hazard train-ppo --task {hazard}" if path is not None else
                f"the shipped policy is missing; train one with: hazard train-ppo --task {hazard} "
                f"--out-dir {POLICY_DIR}")
        raise FileNotFoundError(f"PPO policy {p} not found ({hint})")
    if p.is_dir():
        raise PolicyError(f"PPO policy {p} is a directory; give the .zip file")
    if not zipfile.is_zipfile(p):
        raise PolicyError(f"PPO policy {p} is not a stable-baselines3 policy file (not a zip archive)")
    with zipfile.ZipFile(p) as z:
        if not {"data", "policy.pth"} <= set(z.namelist()):
            raise PolicyError(f"PPO policy {p} is not a stable-baselines3 policy file (no data / policy.pth)")
    torch.set_num_threads(1)
    try:
        # the network's kwargs are ours, not unpickled from the file: files written before the RL
        # package moved into tasks/hazard/ name MapCNN by its old module path
        model = PPO.load(p, device="cpu", custom_objects={"policy_kwargs": policy_kwargs()})
    except Exception as e:        # SB3 raises many kinds for a damaged or foreign file
        raise PolicyError(f"PPO policy {p} cannot be loaded: {type(e).__name__}: {e}") from None
    want_obs = (len(CHANNELS), map_size, map_size)
    got_obs = tuple(getattr(model.observation_space, "shape", ()) or ())
    got_n = getattr(model.action_space, "n", None)
    if got_obs != want_obs or got_n != len(ACTION_NAMES):
        raise PolicyError(f"PPO policy {p} does not match HAZARD's RL interface: it takes observations "
                          f"{got_obs} and {got_n} actions, expected {want_obs} and {len(ACTION_NAMES)}")
    meta = getattr(model, META_KEY, None) or {}
    trained = meta.get("task")
    if trained is not None and trained != hazard:
        raise PolicyError(f"PPO policy {p} was trained for hazard/{trained}, not hazard/{hazard}")
    return model
