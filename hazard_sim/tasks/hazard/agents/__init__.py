"""HAZARD's agents: the rescue routine (:mod:`.base`), the random / rule / greedy baselines,
MCTS and its value-aware and hazard-model variants, the LLM agent, the PPO agent, and the
agents' object memory."""
