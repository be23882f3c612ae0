#!/usr/bin/env bash
# Set up ROS 2 (Kilted) for hazard_stack in a Python venv, from PyPI wheels.
#
#   bash scripts/setup_ros.sh [--force] [VENV]
#   VENV=/tmp/x bash scripts/setup_ros.sh
#
# VENV defaults to <repo>/.venv and is created if missing. The script
#   1. pip-installs the pinned ROS 2 wheels of requirements-ros.txt (rclpy, Fast
#      DDS, message packages, rosidl generators, ament CMake);
#   2. installs cmake (and a C/C++ toolchain) with apt-get if they are missing;
#   3. builds the interface packages under interfaces/ (tf2_msgs, vision_msgs, geographic_msgs,
#      nav2_msgs: standard packages that are not on PyPI; hazard_msgs: the project's own) with
#      CMake into the venv, skipping those that already import and are up to date.
# It is idempotent: a rerun with nothing changed takes about a second.
# --force (or FORCE=1) rebuilds the interface packages.
#
# Where a real ROS 2 install is sourced (ROS_DISTRO set and `ros2` on PATH)
# nothing is installed or built: the distro's own packages are used.
# See docs/ros2_on_pip.md.
set -euo pipefail

FORCE="${FORCE:-0}"
source "$(dirname "${BASH_SOURCE[0]}")/setup_args.sh" force FORCE "$@"
REQS="$REPO/requirements-ros.txt"
IFACE_DIR="$REPO/interfaces"
T0=$SECONDS

log()  { printf '[setup_ros] %s\n' "$*"; }
die()  { printf '[setup_ros] ERROR: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------- real ROS 2
if [[ -n "${ROS_DISTRO:-}" ]] && command -v ros2 >/dev/null 2>&1; then
  log "A ROS 2 install is sourced (ROS_DISTRO=$ROS_DISTRO, ros2 at $(command -v ros2))."
  log "Nothing is installed or built: the distro's packages are used."
  missing=()
  for pkg in rclpy tf2_msgs vision_msgs geographic_msgs nav2_msgs; do
    python3 -c "import $pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  if ((${#missing[@]})); then
    apt_names=""
    for pkg in "${missing[@]}"; do apt_names+=" ros-$ROS_DISTRO-${pkg//_/-}"; done
    die "these ROS 2 packages do not import with $(command -v python3): ${missing[*]}
    install them from the ROS apt repository, e.g.: sudo apt-get install$apt_names"
  fi
  log "rclpy, tf2_msgs, vision_msgs, geographic_msgs and nav2_msgs all import."
  # the project's own interfaces are in no distro: build them into the sourced workspace
  if ! python3 -c "import hazard_msgs" >/dev/null 2>&1; then
    die "the project's interface package hazard_msgs does not import: build it in your ROS 2 workspace,
    e.g.: colcon build --paths $IFACE_DIR/hazard_msgs && source install/setup.bash"
  fi
  log "hazard_msgs imports. Done."
  exit 0
fi
if [[ -n "${ROS_DISTRO:-}" ]]; then
  log "note: ROS_DISTRO=$ROS_DISTRO is set but no 'ros2' is on PATH; using PyPI wheels in the venv."
fi

# ------------------------------------------------------------ platform checks
[[ "$(uname -s)" == Linux && "$(uname -m)" == x86_64 ]] \
  || die "the ROS 2 wheels on PyPI exist only for Linux x86_64 (this is $(uname -s) $(uname -m)); install ROS 2 natively instead"
[[ -f "$REQS" ]] || die "missing $REQS"
[[ -d "$IFACE_DIR" ]] || die "missing $IFACE_DIR"

as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else return 1; fi
}
APT_UPDATED=0
apt_install() {
  command -v apt-get >/dev/null 2>&1 || return 1
  if [[ $APT_UPDATED -eq 0 ]]; then
    as_root apt-get update -qq || return 1
    APT_UPDATED=1
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"
}

# ------------------------------------------------------------------- the venv
if [[ ! -x "$VENV/bin/python" ]]; then
  PYBOOT=""
  for cand in python3.11 python3; do
    if command -v "$cand" >/dev/null 2>&1 \
       && [[ "$("$cand" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" == 3.11 ]]; then
      PYBOOT="$cand"; break
    fi
  done
  [[ -n "$PYBOOT" ]] || die "no Python 3.11 found to create $VENV (the ROS 2 wheels are cp311 only)"
  log "creating venv $VENV with $(command -v "$PYBOOT")"
  "$PYBOOT" -m venv "$VENV" || die "could not create the venv $VENV"
fi
VENV="$(cd "$VENV" && pwd)"
PY="$VENV/bin/python"

# ros-wheels-bootstrapper re-executes the venv's Python once with LD_LIBRARY_PATH
# set, guarded by _ROS_WHEELS_BOOTSTRAP_COMPLETE. Never inherit that guard from
# a caller that was bootstrapped for a different venv.
vpy() { env -u _ROS_WHEELS_BOOTSTRAP_COMPLETE "$PY" "$@"; }

PYVER="$(vpy -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
[[ "$PYVER" == 3.11 ]] || die "$PY is Python $PYVER; the ROS 2 wheels on PyPI are for CPython 3.11 only"

STATE="$VENV/.hazard_stack_ros"
mkdir -p "$STATE"

# -------------------------------------------------------------- 1. the wheels
REQ_HASH="$(sha256sum "$REQS" | cut -d' ' -f1)"
if [[ -f "$STATE/requirements.sha256" && "$(cat "$STATE/requirements.sha256")" == "$REQ_HASH" ]] \
   && vpy -c 'import rclpy, rclpy.action, rosidl_generator_py, catkin_pkg' >/dev/null 2>&1; then
  log "ROS 2 wheels: up to date ($(basename "$REQS") unchanged)"
else
  log "ROS 2 wheels: pip install -r $(basename "$REQS") into $VENV"
  t=$SECONDS
  vpy -m pip install --disable-pip-version-check -q -r "$REQS" \
    || die "pip install -r $REQS failed (see the pip output above)"
  vpy -c 'import rclpy, rclpy.action' \
    || die "rclpy does not import after installing the wheels (see the error above)"
  echo "$REQ_HASH" > "$STATE/requirements.sha256"
  log "ROS 2 wheels: installed in $((SECONDS - t)) s"
fi

# ----------------------------------------------------------- 2. build tooling
# Only needed (and checked) when an interface package has to be (re)built.
ensure_build_tools() {
  if ! command -v cmake >/dev/null 2>&1; then
    log "cmake not found: apt-get install -y cmake"
    apt_install cmake || die "cmake is missing and could not be installed with apt-get (install CMake >= 3.16 yourself)"
  fi
  if ! command -v c++ >/dev/null 2>&1 || ! command -v cc >/dev/null 2>&1 || ! command -v make >/dev/null 2>&1; then
    log "C/C++ compiler or make not found: apt-get install -y g++ make"
    apt_install g++ make || die "a C/C++ compiler and make are needed to build interfaces/ and could not be installed with apt-get"
  fi
  PY_INCLUDE="$(vpy -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
  if [[ ! -f "$PY_INCLUDE/Python.h" ]]; then
    log "Python headers missing ($PY_INCLUDE/Python.h): apt-get install -y python3-dev"
    apt_install python3-dev || true
    [[ -f "$PY_INCLUDE/Python.h" ]] || die "Python.h not found in $PY_INCLUDE: install the development headers of $PY"
  fi
  NUMPY_INCLUDE="$(vpy -c 'import numpy; print(numpy.get_include())')" \
    || die "numpy does not import in $VENV (it comes with ros-rosidl-generator-py)"
}

# The message wheels' exported CMake targets (share/<pkg>/cmake/*Export.cmake)
# name the include directories of the machine they were built on
# (/opt/python/cp311-cp311/include/python3.11 and its numpy include), which do
# not exist here, so CMake refuses to generate. Point them at this venv's real
# Python and numpy include directories. Done on every run, since reinstalling a
# wheel brings the original files back.
fix_exported_include_dirs() {
  local f n=0
  while IFS= read -r -d '' f; do
    sed -i -E \
      -e "s#/opt/python/cp3[0-9]+-cp3[0-9]+/include/python3\.[0-9]+#${PY_INCLUDE}#g" \
      -e "s#/opt/python/cp3[0-9]+-cp3[0-9]+/lib/python3\.[0-9]+/site-packages/numpy/_core/include#${NUMPY_INCLUDE}#g" \
      "$f"
    n=$((n + 1))
  done < <(grep -rlZ --include='*.cmake' '/opt/python/cp3' "$VENV/share" 2>/dev/null || true)
  if ((n)); then
    log "pointed the Python/numpy include dirs of $n exported CMake file(s) at $PY_INCLUDE"
  fi
  # Anything else from the build machine left in an exported include path is a
  # problem we do not know how to fix: say so instead of failing obscurely.
  if grep -rl --include='*.cmake' '/opt/python/' "$VENV/share" >/dev/null 2>&1; then
    die "exported CMake files in $VENV/share still reference /opt/python/: $(grep -rl --include='*.cmake' '/opt/python/' "$VENV/share" | head -3 | tr '\n' ' ')"
  fi
}

# ----------------------------------------------- 3. build interface packages
# Order: a package that depends on another one in interfaces/ comes after it.
PKG_ORDER="$(vpy - "$IFACE_DIR" <<'EOF'
import pathlib, sys, xml.etree.ElementTree as ET
root = pathlib.Path(sys.argv[1])
deps = {}
for xml in sorted(root.glob('*/package.xml')):
    t = ET.parse(xml).getroot()
    name = t.findtext('name').strip()
    if xml.parent.name != name:
        sys.exit(f'{xml}: package name {name!r} differs from its folder name')
    deps[name] = {e.text.strip() for e in t if e.tag in ('depend', 'build_depend')}
done = []
while len(done) < len(deps):
    ready = [n for n in sorted(deps) if n not in done and not (deps[n] & set(deps)) - set(done)]
    if not ready:
        sys.exit('dependency cycle among ' + ', '.join(sorted(set(deps) - set(done))))
    done += ready
print('\n'.join(done))
EOF
)" || die "could not read the package.xml files under $IFACE_DIR"
mapfile -t PKGS <<<"$PKG_ORDER"

# Import every interface module of the package and load its C type support.
check_import() {
  vpy - "$1" >/dev/null 2>&1 <<'EOF'
import importlib, sys
pkg = sys.argv[1]
found = False
for kind in ('msg', 'srv', 'action'):
    try:
        mod = importlib.import_module(f'{pkg}.{kind}')
    except ModuleNotFoundError:
        continue
    for name in dir(mod):
        obj = getattr(mod, name)
        if isinstance(obj, type) and hasattr(obj, '__import_type_support__'):
            obj.__import_type_support__()
            found = True
sys.exit(0 if found else 1)
EOF
}

src_hash() {  # sources of one package + the pinned toolchain
  (cd "$IFACE_DIR/$1" && find . -type f ! -name '*.pyc' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
   sha256sum "$REQS" | cut -d' ' -f1) | sha256sum | cut -d' ' -f1
}

BUILD_ROOT=""
cleanup() { [[ -n "$BUILD_ROOT" && -d "$BUILD_ROOT" ]] && rm -rf "$BUILD_ROOT"; return 0; }
trap cleanup EXIT

prepared=0
for pkg in "${PKGS[@]}"; do
  want="$(src_hash "$pkg")"
  stamp="$STATE/$pkg.sha256"
  if [[ "$FORCE" != 1 ]] && check_import "$pkg"; then
    if [[ ! -f "$stamp" ]]; then
      log "$pkg: already imports and was not built by this script: using it as it is"
      continue
    elif [[ "$(cat "$stamp")" == "$want" ]]; then
      log "$pkg: up to date"
      continue
    fi
    log "$pkg: sources changed since the last build: rebuilding"
  fi
  if ((prepared == 0)); then ensure_build_tools; fix_exported_include_dirs; prepared=1; fi
  [[ -n "$BUILD_ROOT" ]] || BUILD_ROOT="$(mktemp -d "${TMPDIR:-/tmp}/hazard_ros_build.XXXXXX")"
  b="$BUILD_ROOT/$pkg"; mkdir -p "$b"
  t=$SECONDS
  log "$pkg: building into $VENV"
  export_env=(env -u _ROS_WHEELS_BOOTSTRAP_COMPLETE AMENT_PREFIX_PATH="$VENV" CMAKE_PREFIX_PATH="$VENV")
  if ! "${export_env[@]}" cmake -S "$IFACE_DIR/$pkg" -B "$b" \
        -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_PREFIX_PATH="$VENV" \
        -DCMAKE_INSTALL_PREFIX="$VENV" \
        -DPython3_EXECUTABLE="$PY" \
        -DPYTHON_EXECUTABLE="$PY" \
        -DBUILD_TESTING=OFF >"$b/configure.log" 2>&1; then
    tail -n 40 "$b/configure.log" >&2
    cp "$b/configure.log" "$STATE/$pkg.configure.log"
    die "$pkg: CMake configure failed (full log: $STATE/$pkg.configure.log)"
  fi
  if ! "${export_env[@]}" cmake --build "$b" -j "$(nproc)" >"$b/build.log" 2>&1; then
    tail -n 30 "$b/build.log" >&2
    cp "$b/build.log" "$STATE/$pkg.build.log"
    die "$pkg: build failed (full log: $STATE/$pkg.build.log)"
  fi
  if ! "${export_env[@]}" cmake --install "$b" >"$b/install.log" 2>&1; then
    tail -n 40 "$b/install.log" >&2
    die "$pkg: install into $VENV failed"
  fi
  check_import "$pkg" || {
    vpy -c "import $pkg.msg" || true
    die "$pkg: built and installed but does not import with $PY"
  }
  echo "$want" > "$stamp"
  rm -f "$STATE/$pkg.configure.log" "$STATE/$pkg.build.log"
  log "$pkg: built and installed in $((SECONDS - t)) s"
done

log "done in $((SECONDS - T0)) s. Use $PY (no environment setup needed: the"
log "ros-wheels-bootstrapper .pth sets LD_LIBRARY_PATH when that Python starts)."
