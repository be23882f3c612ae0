#!/usr/bin/env bash
# The main job on the default scenario: fire episode 0 of the test split with the greedy agent.
# Prints the metrics and writes pictures of the episode to runs/quickstart/.
# (Once the ROS pipeline is installed this runs it through the launch file; see README.)
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
.venv/bin/hazard run --task fire --split test --episode 0 --agent greedy --seed 0 --save-viz runs/quickstart
