#!/usr/bin/env bash
# The main job on the default scenario: HAZARD fire, test episode 24, greedy agent, seed 0
# (all 5 targets rescued, value 0.923; the greedy agent's median over the 25 fire test episodes is 0.94).
#  1. the full ROS 2 pipeline (simulator, perception, mapping, navigation, decision nodes as
#     separate processes over DDS, lock-step) from launch/hazard.launch.yaml; prints the
#     episode metrics and saves them to runs/quickstart/ros_metrics.json;
#  2. the same episode embedded (no middleware) with pictures written to runs/quickstart/
#     (topdown.png, topdown.gif, first_person.gif, frames/), and both metrics side by side.
# Extra arguments go to the launch file, e.g.  bash scripts/quickstart.sh task:=flood
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
OUT=runs/quickstart
mkdir -p "$OUT"
TASK=fire; EPISODE=24; AGENT=greedy
for kv in "$@"; do
  case "$kv" in task:=*) TASK="${kv#task:=}";; episode:=*) EPISODE="${kv#episode:=}";; agent:=*) AGENT="${kv#agent:=}";; esac
done
echo "== ROS 2 pipeline: $TASK episode $EPISODE, agent $AGENT (lock-step) =="
# the embedded runner's camera (256x256, 90 deg): lock-step ROS and embedded runs then agree
.venv/bin/hazard_launch --metrics-out "$OUT/ros_metrics.json" "task:=$TASK" "episode:=$EPISODE" "agent:=$AGENT" \
  camera_width:=256 camera_height:=256 "$@" \
  > "$OUT/ros_launch.log" 2>&1 || { tail -40 "$OUT/ros_launch.log"; echo "ROS pipeline failed (log: $OUT/ros_launch.log)"; exit 1; }
echo "== embedded run of the same episode, with pictures =="
.venv/bin/hazard run --task "$TASK" --split test --episode "$EPISODE" --agent "$AGENT" --seed 0 \
  --json --save-viz "$OUT" > "$OUT/embedded_metrics.json"
.venv/bin/python - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
ros = json.load(open(f"{out}/ros_metrics.json"))
emb = json.load(open(f"{out}/embedded_metrics.json"))
fmt = lambda v: "-" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))
print(f"{'':22}{'ROS pipeline':>14}{'embedded':>12}")
for k in ("value_rate", "step", "damage", "rescued_count", "targets", "frames"):
    print(f"{k:22}{fmt(ros.get(k)):>14}{fmt(emb.get(k)):>12}")
print(f"pictures: {out}/topdown.png {out}/topdown.gif {out}/first_person.gif {out}/frames/")
print(f"ROS log: {out}/ros_launch.log")
PY
