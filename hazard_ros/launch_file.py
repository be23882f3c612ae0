"""Reading a launch file in ROS 2's YAML launch format: substitutions (``$(var ...)``,
``$(env ...)``, ``$(find-pkg-share ...)``, ``$(eval ...)``, ...), arguments, ``let``,
groups and conditions, and the processes (nodes, executables) it describes, with
their command lines. :mod:`hazard_ros.launcher` runs what this describes."""
from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

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

    def __init__(self, launch_file: Path, variables: dict | None = None, env: dict | None = None):
        self.launch_file = launch_file
        self.vars = dict(variables or {})
        self.env = dict(env or {})          # set_env of this scope, given to later processes

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
        a = [self._perform(arg, where) for arg in sub.args]
        n = sub.name

        def need(k, k2=None):
            if not (k <= len(a) <= (k2 if k2 is not None else k)):
                raise LaunchError(f"{where}: $({n}) takes {k if k2 is None else f'{k}..{k2}'} "
                                  f"argument(s), got {len(a)}")
        if n == "var":
            need(1)
            if a[0] not in self.vars:
                raise LaunchError(f"{where}: undefined launch variable {a[0]!r}; defined: {sorted(self.vars)}")
            return self.vars[a[0]]
        if n == "env":
            need(1, 2)
            if a[0] in os.environ:
                return os.environ[a[0]]
            if len(a) == 2:
                return a[1]
            raise LaunchError(f"{where}: environment variable {a[0]!r} is not set")
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
                same = abs(float(x) - float(y)) <= 1e-9 * max(1.0, abs(float(x)), abs(float(y)))
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


def _is_bool(v: str) -> bool:
    return v.strip().lower() in ("true", "false", "1", "0")


def find_package_share(pkg: str) -> Path:
    """The share directory of a package: this repo for hazard_stack, else the ament index."""
    if pkg == PACKAGE:
        installed = Path(sys.prefix) / "share" / PACKAGE
        return installed if (installed / "launch").is_dir() and not (REPO_ROOT / "launch").is_dir() else REPO_ROOT
    for prefix in os.environ.get("AMENT_PREFIX_PATH", sys.prefix).split(os.pathsep):
        if prefix and (Path(prefix) / "share/ament_index/resource_index/packages" / pkg).exists():
            return Path(prefix) / "share" / pkg
    raise LaunchError(f"package {pkg!r} not found (AMENT_PREFIX_PATH / {sys.prefix})")


# ============================================================================ description
@dataclass
class Process:
    name: str
    cmd: list
    env: dict = field(default_factory=dict)
    is_node: bool = False
    exec: str = ""
    namespace: str = ""
    required: bool = False      # its end (whatever its exit code) ends the whole run


def _required(body, ctx, where: str, default: bool) -> bool:
    """``on_exit: shutdown`` (ROS 2 launch's spelling) makes a process required; every node is."""
    if "on_exit" not in body:
        return default
    value = ctx.evaluate(body["on_exit"], where)
    if value != "shutdown":
        raise LaunchError(f"{where}: on_exit must be 'shutdown' (the only action hazard_launch supports), "
                          f"got {value!r}")
    return True


@dataclass
class LaunchDescription:
    args: dict                  # name -> (default or None, description)
    processes: list


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
    return LaunchDescription(args, procs)


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


def _run_actions(actions, ctx: Context, overrides: dict, procs: list, where0: str) -> None:
    for kind, body, where in _entries(actions, where0):
        if kind == "arg":
            name = str(body["name"])
            if name in overrides:
                ctx.vars[name] = overrides[name]
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
        elif kind in ("set_env", "set-env"):
            if "name" not in body or "value" not in body:
                raise LaunchError(f"{where}: set_env needs name and value")
            ctx.env[str(body["name"])] = ctx.evaluate(body["value"], where)
        elif kind == "group":
            inner = Context(ctx.launch_file, ctx.vars, ctx.env) if body.get("scoped", True) else ctx
            _run_actions(body.get("children", []), inner, overrides, procs, where)
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
            procs.append(Process(name, cmd, _env(body, ctx, where), required=_required(body, ctx, where, False)))
        else:
            raise LaunchError(f"{where}: action {kind!r} is not supported by hazard_launch "
                              "(supported: arg, let, node, executable, group, set_env)")


def _param_text(value: str) -> str:
    """A value for ``-p name:=value`` (parsed as YAML by rcl): empty text must be quoted."""
    return "''" if value == "" else value


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
            ros += ["-p", f"{ctx.evaluate(p['name'], where)}:={_param_text(ctx.evaluate(p['value'], where))}"]
        else:
            raise LaunchError(f"{where}: param needs name and value (or from: FILE), got {p!r}")
    for r in body.get("remap", []) or []:
        if not isinstance(r, dict) or "from" not in r or "to" not in r:
            raise LaunchError(f"{where}: remap entries need from and to, got {r!r}")
        ros += ["-r", f"{ctx.evaluate(r['from'], where)}:={ctx.evaluate(r['to'], where)}"]
    extra = shlex.split(ctx.evaluate(body.get("ros_args", ""), where))
    return Process(name, cmd + ros + extra, _env(body, ctx, where), True, exe, ns, _required(body, ctx, where, True))


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
    """The console script of ``exe``: this venv's bin, ``<prefix>/lib/<pkg>``, PATH, or
    (a script declared but not installed) ``python -c`` calling its entry point."""
    bindir = Path(sys.executable).parent
    for cand in (bindir / exe, Path(sys.prefix) / "lib" / pkg / exe):
        if cand.is_file() and os.access(cand, os.X_OK):
            return str(cand)
    found = shutil.which(exe)
    if found:
        return found
    target = _entry_point(pkg, exe) or (_setup_py_entry(exe) if pkg == PACKAGE else None)
    if target:                                   # declared but its script is not installed (yet)
        module, func = target
        return [sys.executable, "-c", f"import sys; from {module} import {func} as f; sys.exit(f())"]
    raise LaunchError(f"{where}: executable {exe!r} of package {pkg!r} not found "
                      f"(looked in {bindir}, {Path(sys.prefix) / 'lib' / pkg} and PATH); "
                      "is the package installed (pip install -e .)?")
