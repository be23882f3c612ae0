"""HAZARD's RL setup (public code): a Gymnasium wrapper with six discrete actions, a 5-channel
top-down map observation built from the agent's own observations, the rescue reward, and PPO
training with stable-baselines3 (``hazard train-ppo``).

``hazard_sim.tasks.hazard.rl.env.HazardRLEnv``, ``hazard_sim.tasks.hazard.rl.actions`` (the action mapping and
``RLActor``), ``hazard_sim.tasks.hazard.rl.observation`` (the map), ``hazard_sim.tasks.hazard.rl.reward``,
``hazard_sim.tasks.hazard.rl.policy`` (network, checked loading; imports torch), ``hazard_sim.tasks.hazard.rl.train``.
"""
