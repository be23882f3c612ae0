# Quick start:  make run   (set up everything, run the default fire episode)
#               make test  (set up everything, run the test suite)
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: setup run run-embedded test bench-table bench-speed clean

setup:
	bash scripts/setup.sh

run: setup
	bash scripts/quickstart.sh

run-embedded: setup
	$(VENV)/bin/hazard run --task fire --split test --episode 0 --agent greedy --save-viz runs/quickstart

test: setup
	$(PY) -m pytest -q

bench-table: setup
	for t in fire flood wind; do $(VENV)/bin/hazard table --task $$t --split test --agents random,rule,greedy,mcts,mcts_value --out-dir runs/bench; done

bench-speed: setup
	$(PY) benchmarks/bench_hazard.py

clean:
	rm -rf runs build *.egg-info
