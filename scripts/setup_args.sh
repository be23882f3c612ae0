# The command line the setup scripts share, sourced by them:
#
#   source "$(dirname "${BASH_SOURCE[0]}")/setup_args.sh" FLAG VAR "$@"
#
# sets REPO (the checkout), VENV (the script's VENV argument, else $VENV, else $REPO/.venv) and
# VAR=1 when --FLAG is given (VAR keeps its value otherwise); -h / --help prints the calling
# script's header comment and exits 0; any other option exits 2 with one line.
SETUP_SCRIPT="${BASH_SOURCE[1]}"
REPO="$(cd "$(dirname "$SETUP_SCRIPT")/.." && pwd)"
_setup_flag="$1"
_setup_var="$2"
shift 2
_setup_venv=""
for arg in "$@"; do
  case "$arg" in
    "--$_setup_flag") printf -v "$_setup_var" 1 ;;
    -h|--help) sed -n '2,20p' "$SETUP_SCRIPT" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "$(basename "$SETUP_SCRIPT"): unknown option: $arg" >&2; exit 2 ;;
    *) _setup_venv="$arg" ;;
  esac
done
VENV="${_setup_venv:-${VENV:-$REPO/.venv}}"
unset _setup_flag _setup_var _setup_venv
