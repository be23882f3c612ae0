"""Reading a launch file in ROS 2's YAML launch format: substitutions (``$(var ...)``,
``$(env ...)``, ``$(find-pkg-share ...)``, ``$(eval ...)``, ...), arguments, ``let``,
groups and conditions, and the processes (nodes, executables) it describes, with
their command lines. :mod:`hazard_ros.launcher` runs what this describes.

It means what ROS 2 Jazzy's own ``launch`` / ``launch_ros`` mean (launch 3.4.3, launch_ros 0.26.6;
``test/test_upstream_launch.py`` checks every project launch file against them), including
where upstream is surprising:

- an empty quoted argument (``''`` / ``""``) of ``$(equals)`` / ``$(not-equals)`` is an empty
  list upstream, compared as the text ``[]``: ``$(equals '$(var x)' '')`` is never true
  (a warning says so; test emptiness as ``$(equals '_$(var x)' _)``);
- a parameter value written as a plain string (``value: "0.5"``) stays a string; only values
  built from substitutions are read as YAML (``"$(var n)"`` -> 0.5), and YAML's own scalars
  (``value: 0.5``, ``value: true``) keep their type;
- ``include`` does not scope: the included file's ``let`` / ``arg`` / ``set_env`` hold after it;
- only a process with ``on_exit: shutdown`` ends the launch when it ends; a failed process
  fails the launch only where the launch includes ``exit_status.launch.py``
  (:data:`FAIL_ON_ERROR_POLICY`)."""
from __future__ import annotations

import math
import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from hazard_sim import paths

PACKAGE = "hazard_stack"
REPO_ROOT = Path(__file__).resolve().parents[1]


class LaunchError(Exception):
    """A user mistake in a launch file or on the command line."""


# ============================================================================ substitutions
@dataclass
class Subst:
    name: str
    args: list                  # each argument is a list of parts (str | Subst)


def parse_template(text: str) -> list:
    """Parts (str | Subst) of a launch string with ``$(...)`` substitutions."""
    parts, pos = _parse_parts(text, 0, stop="")
    return parts


def _parse_parts(s: str, i: int, stop: str):
    """Parse until an unescaped character of ``stop`` at this level (not consumed)."""
    parts, buf = [], []
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            buf.append(s[i + 1])
            i += 2
        elif c == "$" and s.startswith("$(", i):
            if buf:
                parts.append("".join(buf))
                buf = []
            sub, i = _parse_subst(s, i + 2)
            parts.append(sub)
        elif c in stop:
            break
        else:
            buf.append(c)
            i += 1
    if buf:
        parts.append("".join(buf))
    return parts, i


def _parse_subst(s: str, i: int):
    start = i
    while i < len(s) and (s[i].isalnum() or s[i] in "_-"):
        i += 1
    name = s[start:i]
    if not name:
        raise LaunchError(f"substitution without a name at column {start} of {s!r}")
    args = []
    while i < len(s) and s[i] == " ":
        while i < len(s) and s[i] == " ":
            i += 1
        if i < len(s) and s[i] in "'\"":
            q = s[i]
            arg, i = _parse_parts(s, i + 1, stop=q)
            if i >= len(s):
                raise LaunchError(f"unterminated {q} quote in {s!r}")
            i += 1
        else:
            arg, i = _parse_parts(s, i, stop=" )")
        args.append(arg)
    if i >= len(s) or s[i] != ")":
        raise LaunchError(f"unterminated substitution $({name} ... in {s!r}")
    return Subst(name, args), i + 1


def _truth(value: str, what: str) -> bool:
    v = value.strip().lower()
    if v in ("true", "1"):
        return True
    if v in ("false", "0"):
        return False
    raise LaunchError(f"{what} must be true/false/1/0, got {value!r}")


def _is_float(v: str) -> bool:
    try:
        float(v)
        return True
    except ValueError:
        return False


class Context:
    """Launch variables plus what substitutions need."""

    def __init__(self, launch_file: Path, variables: dict | None = None, env: dict | None = None,
                 policy: dict | None = None):
        self.launch_file = launch_file
        self.vars = dict(variables or {})
        self.env = dict(env or {})          # set_env of this scope, given to later processes
        self.remaps: list = []              # set_remap of this scope: (from, to) for every later node
        self.policy = {} if policy is None else policy   # launch-wide (shared by scopes): fail_on_error
        self.warned: set = set()

    def included(self, path: Path) -> Context:
        """The context of an included file: the same variables and environment (``include``
        does not scope, as upstream), its own ``$(dirname)``."""
        sub = Context(path, policy=self.policy)
        sub.vars, sub.env, sub.warned, sub.remaps = self.vars, self.env, self.warned, self.remaps
        return sub

    def evaluate(self, value, where: str = "") -> str:
        """Resolve every substitution of a YAML scalar (numbers / bools become text)."""
        if isinstance(value, bool):
            return str(value).lower()
        if value is None:
            return ""
        if not isinstance(value, (str, int, float)):
            raise LaunchError(f"{where}: expected a text value, got {type(value).__name__} {value!r}")
        return self._perform(parse_template(str(value)), where)

    def _perform(self, parts: list, where: str) -> str:
        return "".join(p if isinstance(p, str) else self._subst(p, where) for p in parts)

    def _subst(self, sub: Subst, where: str) -> str:
        n = sub.name
        if n == "env":             # its default is only evaluated when the variable is not set (upstream)
            if not 1 <= len(sub.args) <= 2:
                raise LaunchError(f"{where}: $(env) takes 1..2 argument(s), got {len(sub.args)}")
            name = self._perform(sub.args[0], where)
            if name in self.env:
                return self.env[name]
            if name in os.environ:
                return os.environ[name]
            if len(sub.args) == 2:
                return self._perform(sub.args[1], where)
            raise LaunchError(f"{where}: environment variable {name!r} is not set")
        if n in ("equals", "not-equals"):
            a = [self._empty_list_text(arg, n, where) for arg in sub.args]
        else:
            a = [self._perform(arg, where) for arg in sub.args]

        def need(k, k2=None):
            if not (k <= len(a) <= (k2 if k2 is not None else k)):
                raise LaunchError(f"{where}: $({n}) takes {k if k2 is None else f'{k}..{k2}'} "
                                  f"argument(s), got {len(a)}")
        if n == "var":
            need(1)
            if a[0] not in self.vars:
                raise LaunchError(f"{where}: undefined launch variable {a[0]!r}; defined: {sorted(self.vars)}")
            return self.vars[a[0]]
        if n == "find-pkg-share":
            need(1)
            return str(find_package_share(a[0]))
        if n == "dirname":
            need(0)
            return str(self.launch_file.parent)
        if n in ("equals", "not-equals"):
            need(2)
            x, y = a
            if _is_bool(x) and _is_bool(y):
                same = _truth(x, "") == _truth(y, "")
            elif _is_float(x) and _is_float(y):
                same = math.isclose(float(x), float(y))
            else:
                same = x == y
            return str(same == (n == "equals")).lower()
        if n == "not":
            need(1)
            return str(not _truth(a[0], f"{where}: $(not)")).lower()
        if n in ("and", "or"):
            need(2)
            vals = [_truth(v, f"{where}: $({n})") for v in a]
            return str(all(vals) if n == "and" else any(vals)).lower()
        raise LaunchError(f"{where}: substitution $({n}) is not supported by hazard_launch "
                          "(supported: var, env, find-pkg-share, dirname, equals, not-equals, not, and, or)")

    def _empty_list_text(self, parts: list, name: str, where: str) -> str:
        """An argument of $(equals) / $(not-equals): upstream turns an empty quoted argument
        into an empty list and compares it as ``str([])``, so ``'$(var x)'`` (empty) never
        equals ``''``. Followed here, with a warning."""
        if parts:
            return self._perform(parts, where)
        key = (where, name)
        if key not in self.warned:
            self.warned.add(key)
            print(f"hazard_launch: warning: {where}: $({name}) with an empty quoted argument: ROS 2 launch "
                  f"compares it as the text '[]', so it never matches an empty value; test emptiness as "
                  f"$({name} '_$(var NAME)' _)", file=sys.stderr)
        return "[]"


def _is_bool(v: str) -> bool:
    return v.strip().lower() in ("true", "false", "1", "0")


def find_package_share(pkg: str) -> Path:
    """``<prefix>/share/<pkg>`` of the first prefix whose ament index lists ``pkg``
    (``$AMENT_PREFIX_PATH``, then ``sys.prefix``: the venv the project's setup lays out as an
    install prefix), as ``$(find-pkg-share)`` finds it upstream. A checkout whose setup has not
    run yet falls back to the checkout itself for hazard_stack."""
    share = paths.share_dir(pkg)
    if share is not None:
        return share
    if pkg == PACKAGE and (REPO_ROOT / "launch").is_dir():
        return REPO_ROOT
    raise LaunchError(f"package {pkg!r} not found in the ament index of "
                      f"{os.pathsep.join(map(str, paths.ament_prefixes()))} (is its install prefix on "
                      "AMENT_PREFIX_PATH? for hazard_stack: run scripts/setup.sh)")


# ============================================================================ description
@dataclass
class Process:
    name: str
    cmd: list
    env: dict = field(default_factory=dict)
    is_node: bool = False
    exec: str = ""
    namespace: str = ""
    required: bool = False      # on_exit: shutdown: its end (whatever its exit code) ends the launch
    pkg: str = ""               # a node's package


def _required(body, ctx, where: str) -> bool:
    """``on_exit: shutdown`` makes a process's end end the launch (ROS 2 launch's only on_exit
    action in YAML; without it, a node or executable may end and the launch runs on)."""
    if "on_exit" not in body:
        return False
    value = ctx.evaluate(body["on_exit"], where)
    if value != "shutdown":
        raise LaunchError(f"{where}: on_exit must be 'shutdown' (the only action ROS 2 launch's YAML front end "
                          f"supports), got {value!r}")
    return True


#: A Python launch file that hazard_launch does not run but whose whole meaning it implements:
#: ``FAIL_ON_ERROR_POLICY = "fail_on_process_error"`` in its text (launch/exit_status.launch.py):
#: a process that exits non-zero while the launch is not shutting down fails the launch (exit 1).
FAIL_ON_ERROR_POLICY = "fail_on_process_error"
_POLICY_LINE = re.compile(r"^HAZARD_LAUNCH_POLICY\s*=\s*[\"']([\w-]+)[\"']\s*$", re.M)


@dataclass
class LaunchDescription:
    args: dict                  # name -> (default or None, description)
    processes: list
    fail_on_error: bool = False     # an included exit_status.launch.py: a failed process fails the launch


def _entries(data, where):
    if not isinstance(data, list):
        raise LaunchError(f"{where}: expected a list of actions, got {type(data).__name__}")
    for k, item in enumerate(data):
        if not isinstance(item, dict) or len(item) != 1:
            raise LaunchError(f"{where}[{k}]: each action is a one-key mapping like `- node: {{...}}`, got {item!r}")
        (kind, body), = item.items()
        if not isinstance(body, dict):
            raise LaunchError(f"{where}[{k}] ({kind}): expected a mapping, got {body!r}")
        yield kind, body, f"{where}[{k}] {kind} {body.get('name', body.get('exec', ''))}".rstrip()


def read_launch_file(path: Path) -> list:
    try:
        data = yaml.safe_load(Path(path).read_text())
    except FileNotFoundError:
        raise LaunchError(f"launch file not found: {path}") from None
    except yaml.YAMLError as exc:
        raise LaunchError(f"launch file {path} is not valid YAML: {exc}") from None
    if not isinstance(data, dict) or "launch" not in data:
        raise LaunchError(f"{path}: not a ROS 2 YAML launch file (the top level must be `launch:` with a list)")
    return data["launch"]


def declared_args(actions) -> dict:
    """name -> (default or None, description) of every ``arg`` (also inside groups)."""
    out = {}
    for kind, body, where in _entries(actions, "launch"):
        if kind == "arg":
            if "name" not in body:
                raise LaunchError(f"{where}: arg without a name")
            out[str(body["name"])] = (body.get("default"), str(body.get("description", "")))
        elif kind == "group":
            out.update(declared_args(body.get("children", [])))
    return out


def describe(path: Path, overrides: dict) -> LaunchDescription:
    """Resolve a launch file with command-line ``name:=value`` overrides."""
    path = Path(path).resolve()
    actions = read_launch_file(path)
    args = declared_args(actions)
    unknown = sorted(set(overrides) - set(args))
    if unknown:
        raise LaunchError(f"unknown launch argument(s) {', '.join(unknown)}; "
                          f"{path.name} declares: {', '.join(sorted(args)) or '(none)'}")
    ctx = Context(path)
    procs: list[Process] = []
    _run_actions(actions, ctx, overrides, procs, "launch")
    names = [p.name for p in procs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise LaunchError(f"two processes share the name(s) {dup}; give each node a unique name")
    return LaunchDescription(args, procs, ctx.policy.get(FAIL_ON_ERROR_POLICY, False))


def _include(body, ctx: Context, procs: list, where: str, depth: int) -> None:
    """``include`` (upstream IncludeLaunchDescription: its ``arg`` values are set as launch
    variables of the including scope, then the file's actions run in that scope)."""
    if "file" not in body:
        raise LaunchError(f"{where}: include needs file")
    path = Path(ctx.evaluate(body["file"], where))
    if not path.is_absolute():
        path = Path.cwd() / path
    if depth > 20:
        raise LaunchError(f"{where}: includes nested more than 20 deep (does {path.name} include itself?)")
    for a in body.get("arg", []) or []:
        if not isinstance(a, dict) or "name" not in a or "value" not in a:
            raise LaunchError(f"{where}: include arg entries need name and value, got {a!r}")
        ctx.vars[ctx.evaluate(a["name"], where)] = ctx.evaluate(a["value"], where)
    if path.suffix == ".py":
        try:
            text = path.read_text()
        except OSError as exc:
            raise LaunchError(f"{where}: cannot read {path}: {exc.strerror or exc}") from None
        m = _POLICY_LINE.search(text)
        if m is None or m.group(1) != FAIL_ON_ERROR_POLICY:
            raise LaunchError(f"{where}: {path} is a Python launch file: hazard_launch runs YAML launch files "
                              "only (run this one with ROS 2's `ros2 launch`)")
        ctx.policy[FAIL_ON_ERROR_POLICY] = True
        return
    sub = ctx.included(path.resolve())
    _run_actions(read_launch_file(path), sub, {}, procs, f"{where} ({path.name})", depth + 1)


def _condition(body, ctx, where) -> bool:
    if "if" in body and not _truth(ctx.evaluate(body["if"], where), f"{where}: if"):
        return False
    if "unless" in body and _truth(ctx.evaluate(body["unless"], where), f"{where}: unless"):
        return False
    return True


def _env(body, ctx, where) -> dict:
    env = dict(ctx.env)
    for e in body.get("env", []) or []:
        if not isinstance(e, dict) or "name" not in e:
            raise LaunchError(f"{where}: env entries need name and value")
        env[str(e["name"])] = ctx.evaluate(e.get("value", ""), where)
    return env


def _run_actions(actions, ctx: Context, overrides: dict, procs: list, where0: str, depth: int = 0) -> None:
    for kind, body, where in _entries(actions, where0):
        if kind == "arg":
            name = str(body["name"])
            if name in overrides:
                ctx.vars[name] = overrides[name]
            elif name in ctx.vars:          # already set (by an including file): upstream keeps it
                pass
            elif "default" in body:
                ctx.vars[name] = ctx.evaluate(body["default"], where)
            elif name not in ctx.vars:
                raise LaunchError(f"launch argument {name!r} has no default: pass {name}:=VALUE")
            continue
        if not _condition(body, ctx, where):
            continue
        if kind == "let":
            if "name" not in body or "value" not in body:
                raise LaunchError(f"{where}: let needs name and value")
            ctx.vars[str(body["name"])] = ctx.evaluate(body["value"], where)
        elif kind == "set_remap":       # launch_ros SetRemap: a remap rule for the nodes after it in its scope
            if "from" not in body or "to" not in body:
                raise LaunchError(f"{where}: set_remap needs from and to")
            ctx.remaps.append((ctx.evaluate(body["from"], where), ctx.evaluate(body["to"], where)))
        elif kind in ("set_env", "set-env"):
            if "name" not in body or "value" not in body:
                raise LaunchError(f"{where}: set_env needs name and value")
            ctx.env[str(body["name"])] = ctx.evaluate(body["value"], where)
        elif kind == "group":
            inner = Context(ctx.launch_file, ctx.vars, ctx.env, ctx.policy) if body.get("scoped", True) else ctx
            inner.warned = ctx.warned
            if inner is not ctx:
                inner.remaps = list(ctx.remaps)
            _run_actions(body.get("children", []), inner, overrides, procs, where, depth)
        elif kind == "include":
            _include(body, ctx, procs, where, depth)
        elif kind == "node":
            procs.append(_node_process(body, ctx, where))
        elif kind == "executable":
            if "cmd" not in body:
                raise LaunchError(f"{where}: executable needs cmd")
            cmd = shlex.split(ctx.evaluate(body["cmd"], where))
            if not cmd:
                raise LaunchError(f"{where}: empty cmd")
            cmd += shlex.split(ctx.evaluate(body.get("args", ""), where))
            name = ctx.evaluate(body.get("name", Path(cmd[0]).name), where)
            procs.append(Process(name, cmd, _env(body, ctx, where), required=_required(body, ctx, where)))
        else:
            raise LaunchError(f"{where}: action {kind!r} is not supported by hazard_launch "
                              "(supported: arg, let, node, executable, group, include, set_env, set_remap)")


class _Quiet(yaml.SafeDumper):
    """YAML for one ``-p name:=value`` rule: flow style, no document end marker."""


def param_value(raw, ctx: Context, where: str, name: str):
    """A node parameter's typed value as launch_ros gives it (``evaluate_parameter_dict``):

    - YAML's own scalars keep their type (``value: 0.5`` is a double, ``value: true`` a bool);
    - plain text without a substitution stays a string (``value: "0.5"`` is the string "0.5");
    - text with substitutions is performed, then read as YAML (empty: ``''``) and must give a
      bool, int, float, string or a list of one of them (``"$(var n)"`` with n=3 is an int);
    - a list: each item by these rules, all of one type.
    """
    if isinstance(raw, bool) or isinstance(raw, (int, float)):
        return raw
    if raw is None:
        raise LaunchError(f"{where}: parameter {name!r} has no value")
    if isinstance(raw, str):
        parts = parse_template(raw)
        if not any(isinstance(x, Subst) for x in parts):
            return "".join(parts)
        text = ctx._perform(parts, where) or "''"
        try:
            value = yaml.safe_load(text)
        except yaml.YAMLError:
            raise LaunchError(f"{where}: the value of parameter {name!r} ({text!r}) is not valid YAML; "
                              "ROS 2 launch reads values built from substitutions as YAML") from None
        if isinstance(value, list):
            return _uniform(value, where, name)
        if not isinstance(value, (bool, int, float, str)):
            raise LaunchError(f"{where}: parameter {name!r} evaluates to {text!r}, a YAML "
                              f"{type(value).__name__}: allowed are bool, int, float, string and lists of one")
        return value
    if isinstance(raw, list):
        return _uniform([param_value(x, ctx, where, name) for x in raw], where, name)
    raise LaunchError(f"{where}: parameter {name!r}: unexpected value {raw!r}")


def _uniform(values: list, where: str, name: str) -> list:
    kinds = {type(v) for v in values}
    if not values or len(kinds) > 1 or not kinds <= {bool, int, float, str}:
        raise LaunchError(f"{where}: parameter {name!r} must be a non-empty list of items of one type "
                          f"(bool, int, float or string), got {values!r}")
    return values


def param_rule(name: str, value) -> str:
    """``name:=value`` in YAML, as launch_ros writes it (rcl reads it back with the same type)."""
    text = yaml.dump(value, Dumper=_Quiet, default_flow_style=True, width=1 << 30)
    if text.endswith("\n...\n"):
        text = text[:-5]
    return f"{name}:={text.strip()}"


def _node_process(body, ctx: Context, where: str) -> Process:
    for key in ("pkg", "exec"):
        if key not in body:
            raise LaunchError(f"{where}: node needs {key}")
    pkg, exe = ctx.evaluate(body["pkg"], where), ctx.evaluate(body["exec"], where)
    name = ctx.evaluate(body.get("name", exe), where)
    ns = ctx.evaluate(body.get("namespace", ""), where)
    found = find_executable(pkg, exe, where)
    cmd = list(found) if isinstance(found, list) else [found]
    cmd += shlex.split(ctx.evaluate(body.get("args", ""), where))
    ros = ["--ros-args", "-r", f"__node:={name}"]
    if ns:
        ros += ["-r", f"__ns:={ns if ns.startswith('/') else '/' + ns}"]
    for p in body.get("param", []) or []:
        if not isinstance(p, dict):
            raise LaunchError(f"{where}: param entries are mappings, got {p!r}")
        if "from" in p:
            ros += ["--params-file", ctx.evaluate(p["from"], where)]
        elif "name" in p and "value" in p:
            pname = ctx.evaluate(p["name"], where)
            ros += ["-p", param_rule(pname, param_value(p["value"], ctx, where, pname))]
        else:
            raise LaunchError(f"{where}: param needs name and value (or from: FILE), got {p!r}")
    for src, dst in ctx.remaps:                   # upstream: the scope's set_remap rules first, then the node's
        ros += ["-r", f"{src}:={dst}"]
    for r in body.get("remap", []) or []:
        if not isinstance(r, dict) or "from" not in r or "to" not in r:
            raise LaunchError(f"{where}: remap entries need from and to, got {r!r}")
        ros += ["-r", f"{ctx.evaluate(r['from'], where)}:={ctx.evaluate(r['to'], where)}"]
    extra = shlex.split(ctx.evaluate(body.get("ros_args", ""), where))
    return Process(name, cmd + ros + extra, _env(body, ctx, where), True, exe, ns, _required(body, ctx, where), pkg)


def _entry_point(pkg: str, exe: str) -> tuple[str, str] | None:
    """(module, function) of a console script declared by the installed package."""
    from importlib import metadata
    try:
        for ep in metadata.distribution(pkg).entry_points:
            if ep.group == "console_scripts" and ep.name == exe and ":" in ep.value:
                module, func = ep.value.split(":", 1)
                return module.strip(), func.strip()
    except metadata.PackageNotFoundError:
        pass
    return None


def _setup_py_entry(exe: str) -> tuple[str, str] | None:
    """(module, function) of a console script in this checkout's setup.py (declared
    there but not installed yet)."""
    setup = REPO_ROOT / "setup.py"
    if not setup.is_file():
        return None
    m = re.search(rf"[\"']\s*{re.escape(exe)}\s*=\s*([\w.]+)\s*:\s*(\w+)\s*[\"']", setup.read_text())
    return (m.group(1), m.group(2)) if m else None


def find_executable(pkg: str, exe: str, where: str = "") -> str | list:
    """``<prefix>/lib/<pkg>/<exe>`` of the package's install prefix, as launch_ros finds a node's
    executable. A package in no ament index (a checkout whose setup has not run) falls back to
    this venv's bin, PATH, or ``python -c`` calling the entry point its setup.py declares."""
    prefix = paths.package_prefix(pkg)
    if prefix is not None:
        cand = prefix / "lib" / pkg / exe
        if cand.is_file() and os.access(cand, os.X_OK):
            return str(cand)
        raise LaunchError(f"{where}: executable {exe!r} not found in {cand.parent} (package {pkg!r} of prefix "
                          f"{prefix}){' (rerun scripts/setup.sh)' if pkg == PACKAGE else ''}")
    bindir = Path(sys.executable).parent
    cand = bindir / exe
    if cand.is_file() and os.access(cand, os.X_OK):
        return str(cand)
    found = shutil.which(exe)
    if found:
        return found
    target = _entry_point(pkg, exe) or (_setup_py_entry(exe) if pkg == PACKAGE else None)
    if target:                                   # declared but its script is not installed (yet)
        module, func = target
        return [sys.executable, "-c", f"import sys; from {module} import {func} as f; sys.exit(f())"]
    searched = os.pathsep.join(map(str, paths.ament_prefixes()))
    raise LaunchError(f"{where}: package {pkg!r} is in no ament index ({searched}) "
                      f"and no executable {exe!r} was found in {bindir} or on PATH; is the package installed "
                      "(scripts/setup.sh; colcon build)?")
