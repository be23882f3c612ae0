#!/usr/bin/env bash
# The paper's tables: every baseline agent on the test split of every task.
# Results go to runs/bench/ (JSON lines, resumable) and runs/bench/table_<task>_test.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
WORKERS="${WORKERS:-2}"
for t in fire flood wind; do
  .venv/bin/hazard table --task "$t" --split test --agents random,rule,greedy,mcts,mcts_value \
    --out-dir runs/bench --workers "$WORKERS"
done
