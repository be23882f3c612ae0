# Quick start:  make run   (set up everything, run the default fire episode)
#               make test  (set up everything, also the ultralytics environment .venv-yolo, lint with ruff,
#                           run the test suite)
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: setup setup-yolo run run-embedded test test-golden bench-table bench-speed clean

setup:
	bash scripts/setup.sh

# the optional ultralytics environment (.venv-yolo; VENV_YOLO=... overrides): detector training,
# ONNX export and the yolo / yolo_world backends (docs/perception.md). `make run` never builds it.
setup-yolo:
	bash scripts/setup_yolo.sh

run: setup
	bash scripts/quickstart.sh

run-embedded: setup
	$(VENV)/bin/hazard run --task fire --split test --episode 0 --agent greedy --save-viz runs/quickstart

# test_planner_nodes.py runs lock-step navigation against fake robots in-process; it runs in a
# pytest process of its own so that DDS participants left by earlier ROS test modules cannot
# slow its lock-step loops.
test: setup setup-yolo
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -q --ignore=test/test_planner_nodes.py
	$(PY) -m pytest -q test/test_planner_nodes.py

# all 30 golden HAZARD results (fire / flood / wind x greedy / rule x test episodes 0-4),
# then DOZE's and ESAR's (test/test_golden_doze_esar.py), then the quick start's episode over DDS
# against the embedded run to its end (test/test_ros_embedded_agreement.py), then two namespaced stacks on
# one domain at once (test/test_multi_robot.py)
test-golden: setup
	$(PY) -m pytest -q -m golden test/test_golden.py
	$(PY) -m pytest -q -m golden test/test_golden_doze_esar.py
	$(PY) -m pytest -q -m golden test/test_ros_embedded_agreement.py
	$(PY) -m pytest -q -m multirobot test/test_multi_robot.py

bench-table: setup
	bash scripts/bench_table.sh

bench-speed: setup
	$(PY) benchmarks/bench_hazard.py

clean:
	rm -rf runs build *.egg-info
