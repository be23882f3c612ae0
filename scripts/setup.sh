#!/usr/bin/env bash
# Set up hazard_stack on a fresh Debian/Ubuntu machine (idempotent; a rerun takes seconds).
#   1. Debian packages: libusb-1.0-0 and libgomp1 (Open3D needs them at import), cmake
#      (to build the ROS interface packages); only what is missing, with apt-get.
#   2. A virtual environment .venv with the pinned Python dependencies (requirements.txt)
#      and this package installed editable (`pip install -e .`).
#   3. Mesa's software OpenGL through EGL (scripts/setup_gl.sh) for the fast raster renderer.
#   4. ROS 2 from PyPI wheels plus the interface packages built from interfaces/
#      (scripts/setup_ros.sh); skipped where a ROS 2 install is sourced.
#   5. The package laid out in the venv as colcon lays out an install prefix (the ament index
#      entry, share/hazard_stack/, lib/hazard_stack/<exe>: python -m hazard_ros.install_prefix).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VENV:-$REPO/.venv}"
PY="${PYTHON:-python3}"
log() { printf '[setup] %s\n' "$*"; }

need=()
for pkg in libusb-1.0-0 libgomp1 cmake; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if ((${#need[@]})); then
  log "installing Debian packages: ${need[*]}"
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

if [[ ! -x "$VENV/bin/python" ]]; then
  log "creating $VENV"
  "$PY" -m venv "$VENV"
fi
stamp="$VENV/.hazard_requirements.sha"
want="$(cat "$REPO/requirements.txt" "$REPO/setup.py" | sha256sum | cut -d' ' -f1)"
if [[ "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
  log "installing Python dependencies (requirements.txt)"
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "$VENV/bin/python" -m pip install -q -r "$REPO/requirements.txt"
  "$VENV/bin/python" -m pip install -q --no-deps -e "$REPO"
  echo "$want" > "$stamp"
fi
bash "$REPO/scripts/setup_gl.sh" "$VENV"
bash "$REPO/scripts/setup_ros.sh" "$VENV"
# the colcon-style prefix (ament index entry, share/hazard_stack, lib/hazard_stack/<exe>) in the venv,
# so that `ros2 launch hazard_stack ...` and launch_ros find the package as on a ROS 2 install
"$VENV/bin/python" -m hazard_ros.install_prefix --prefix "$VENV"
log "ready: $VENV"
