#!/usr/bin/env bash
# System libraries for the raster render backend: OpenGL in software (Mesa
# llvmpipe) through headless EGL, no display or GPU needed.
#
#   bash scripts/setup_gl.sh [--check] [VENV]
#
# Installs with apt-get (no recommends) only the Debian/Ubuntu packages that
# are missing:
#   libegl1          GLVND's libEGL.so.1 (it pulls in libegl-mesa0)
#   libegl-mesa0     Mesa's EGL vendor library (the surfaceless/device platforms)
#   libgl1-mesa-dri  Mesa's drivers, among them llvmpipe (swrast_dri.so)
#   libgl1           GLVND's libGL.so.1, which glcontext opens for the GL entry points
# The Python side (moderngl, glcontext) comes from requirements.txt.
# Idempotent: with everything present it only runs dpkg-query (well under a second).
# A failure to install is reported but not fatal (exit 0): the renderers then
# fall back to ray casting (hazard_sim.render.backend). GL_STRICT=1 makes it fatal.
# --check (or with a VENV that has moderngl) also creates an OpenGL context
# with VENV's python and prints the renderer it got.
set -euo pipefail

CHECK=0
source "$(dirname "${BASH_SOURCE[0]}")/setup_args.sh" check CHECK "$@"
PKGS=(libegl1 libegl-mesa0 libgl1-mesa-dri libgl1)
T0=$SECONDS

log()  { printf '[setup_gl] %s\n' "$*"; }
fail() {
  printf '[setup_gl] WARNING: %s; the raster render backend will be unavailable ' "$*" >&2
  printf '(renderers fall back to ray casting)\n' >&2
  [[ "${GL_STRICT:-0}" == 1 ]] && exit 1
  exit 0
}

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  fail "not a Debian/Ubuntu system: install Mesa's EGL and llvmpipe (${PKGS[*]}) yourself"
fi

need=()
for pkg in "${PKGS[@]}"; do
  [[ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" == "install ok installed" ]] \
    || need+=("$pkg")
done
if ((${#need[@]})); then
  log "installing Debian packages: ${need[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 || fail "not root and no sudo to install ${need[*]}"
    SUDO="sudo"
  fi
  $SUDO apt-get update -qq || fail "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    "${need[@]}" >/dev/null || fail "apt-get install ${need[*]} failed"
  log "installed in $((SECONDS - T0)) s"
fi

PY="$VENV/bin/python"
if [[ -x "$PY" ]] && { ((CHECK)) || "$PY" -c "import moderngl" >/dev/null 2>&1; }; then
  if out="$("$PY" - <<'EOF' 2>&1
import moderngl
ctx = moderngl.create_standalone_context(backend="egl", require=330)
print(ctx.info["GL_RENDERER"] + ", OpenGL " + ctx.info["GL_VERSION"])
EOF
)"; then
    log "headless OpenGL works: ${out##*$'\n'}"
  else
    fail "cannot create a headless OpenGL context: ${out##*$'\n'}"
  fi
fi
