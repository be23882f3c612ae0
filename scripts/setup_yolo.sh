#!/usr/bin/env bash
# Optional ultralytics environment for the perception pipeline (dataset training, export, the
# `yolo` / `yolo_world` backends). `make run` never calls this; `make setup-yolo` and `make test` do.
# Idempotent: a stamp file holds the hash of the pins below and of setup.py; a rerun takes seconds.
#
#   VENV_YOLO=/path bash scripts/setup_yolo.sh     (default: $REPO/.venv-yolo)
#
# Why this pairing (docs/perception.md, "The ultralytics environment"): the only CPU build of torch
# on this machine's index is 2.13.0+cpu, and every torchvision wheel published for Linux links
# libtorch_cuda / libc10_cuda, so torchvision (0.28.0) beside a CPU torch fails to import its
# operators (`torchvision::nms does not exist`) and `import torchvision` fails. torch 2.14.1 with
# torchvision 0.29.1 (the CUDA build: torch 1.2 GB and its nvidia-* libraries 3.2 GB; 7.8 GB with
# the project's requirements) is the lightest pairing that imports, predicts, trains and exports;
# it runs on CPU and uses a GPU where there is one.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VENV_YOLO:-$REPO/.venv-yolo}"
PY="${PYTHON:-python3}"
log() { printf '[setup-yolo] %s\n' "$*"; }

PINS=(
  "torch==2.14.1"
  "torchvision==0.29.1"
  "ultralytics==8.4.190"
  "onnx==1.23.2"
  "onnxslim==0.1.98"
  "onnxruntime==1.32.0"
)

if [[ ! -x "$VENV/bin/python" ]]; then
  log "creating $VENV"
  "$PY" -m venv "$VENV"
fi
stamp="$VENV/.hazard_yolo.sha"
want="$( (printf '%s\n' "${PINS[@]}"; cat "$REPO/requirements.txt" "$REPO/setup.py") | sha256sum | cut -d' ' -f1)"
if [[ "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
  log "installing ${PINS[*]} and the project's requirements (a few minutes)"
  "$VENV/bin/python" -m pip install -q --upgrade pip
  # the project's requirements less their torch pin (the CPU build the main .venv uses)
  reqs="$VENV/.hazard_requirements_yolo.txt"
  grep -vE '^torch==' "$REPO/requirements.txt" > "$reqs"
  "$VENV/bin/python" -m pip install -q "${PINS[@]}" -r "$reqs"
  "$VENV/bin/python" -m pip install -q --no-deps -e "$REPO"
  echo "$want" > "$stamp"
fi

# Fully offline ultralytics: its config dir lives in the venv (hazard_sim.perception.training sets
# YOLO_CONFIG_DIR to it), with the font that training plots need (otherwise every run tries to
# download Arial.ttf) and settings that switch off hub sync and analytics.
cfg="$VENV/ultralytics-config/Ultralytics"
mkdir -p "$cfg"
if [[ ! -s "$cfg/Arial.ttf" ]]; then
  font="$("$VENV/bin/python" -c 'import matplotlib, os; print(os.path.join(os.path.dirname(matplotlib.__file__), "mpl-data/fonts/ttf/DejaVuSans.ttf"))')"
  cp "$font" "$cfg/Arial.ttf"
  cp "$font" "$cfg/Arial.Unicode.ttf"
fi
YOLO_CONFIG_DIR="$VENV/ultralytics-config" YOLO_OFFLINE=1 "$VENV/bin/python" - <<'PYEOF'
from ultralytics import settings
off = ("sync", "hub", "tensorboard", "wandb", "mlflow", "clearml", "comet", "dvc", "neptune", "raytune",
       "vscode_msg", "openvino_msg")
settings.update({k: False for k in off if k in settings})
PYEOF
log "ready: $VENV"
