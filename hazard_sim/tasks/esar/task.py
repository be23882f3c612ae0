"""The ESAR task: fly, report clues, locate victims; and its measures SR, TSR, CDS, RS.

Agent output per step (``env.step(action)``): an action plus what the agent reports.

* a plain action name (the discrete set of the ESARBench authors' earlier aerial
  object-navigation work): ``forward`` (10 m), ``turn_left`` / ``turn_right`` (90 deg),
  ``turn_back`` (180 deg), ``ascend`` / ``descend`` (5 m), ``stop`` (end the mission);
  also ``hover`` (one second in place);
* or a dict ``{"action": A, "clues": [{"class": c, "position": [x, y, z]}, ...],
  "victims": [[x, y, z], ...]}`` where ``A`` is a name above,
  ``{"type": "velocity", "vx", "vy", "vz", "yaw_rate", "duration"}`` (body frame, m/s,
  rad/s, s; AirSim's moveByVelocityBodyFrame), or ``{"type": "goto", "position": [x, y, z],
  "speed": v}`` (local ENU metres).

Reported clues accumulate (at most ``MAX_CLUE_REPORTS``); victim estimates too (each with
the time it was first reported; at most the number of victims + ``EXTRA_VICTIM_REPORTS``,
so guessing everywhere does not pay). The mission ends on ``stop``, a crash, or the
map's time limit ``T_max`` (endurance).

Metrics (``EsarScoring``; thresholds and weights are ours, the paper's are not public):

* SR = located victims / victims, a victim located when the Hungarian (scipy
  ``linear_sum_assignment``) one-to-one matching of estimates to victims pairs it with an
  estimate within ``victim_radius`` (20 m);
* TSR = mean over victims of ``located_i * (1 - t_i / T_max)``, ``t_i`` the time its matched
  estimate was first reported;
* CDS = 100 * (0.5 * R_spatial + 0.5 * R_exact): R_spatial the fraction of clues matched
  (Hungarian) to a report within ``clue_radius`` (15 m) whatever its class, R_exact the
  fraction matched to a report within ``clue_radius`` with the right class;
* RS = 100 * (w_sr SR + w_safe C_safe + w_cds CDS / 100 + w_time E_time) with
  ``C_safe`` = 1 when the mission ended by ``stop`` without a crash, ``E_time`` = 1 - t_end /
  T_max when at least one victim was located (else 0); weights 0.6 / 0.1 / 0.2 / 0.1.

SR, TSR, CDS and RS are reported in percent.

Beside them, a diagnostic of wrong victim reports that scores nothing (``false_victims``):
each victim estimate the matching leaves unpaired is counted under the label of the nearest
true victim or clue within ``clue_radius`` of it (``victim``, ``clue:<class>``), or under
``nothing``. A detector that takes a tent for a person shows as ``{"clue:tent": 1}``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from gymnasium import spaces
from scipy.optimize import linear_sum_assignment

from hazard_sim.core.embodiment import MAX_ANGULAR_COMMAND, MAX_LINEAR_COMMAND, Twist
from hazard_sim.core.frames import FRAME_DT
from hazard_sim.core.outcome import OK, Outcome, Status, fail
from hazard_sim.core.task import Measure, Task
from hazard_sim.geometry import wrap_angle
from hazard_sim.tasks.esar.catalog import CLUES

DISCRETE = ("forward", "turn_left", "turn_right", "turn_back", "ascend", "descend", "stop")
ACTIONS = DISCRETE + ("hover",)
FORWARD_M, CLIMB_M, TURN_RAD = 10.0, 5.0, math.pi / 2
CRUISE = 5.0                 # m/s for discrete moves
MAX_CLUE_REPORTS = 60
EXTRA_VICTIM_REPORTS = 2
MAX_ACTION_S = 120.0         # one action's frame budget (goto, velocity)


class ActionError(ValueError):
    """An action the task cannot read (unknown name, malformed report, command beyond limits)."""


@dataclass(frozen=True)
class EsarScoring:
    victim_radius: float = 20.0
    clue_radius: float = 15.0
    w_sr: float = 0.6
    w_safe: float = 0.1
    w_cds: float = 0.2
    w_time: float = 0.1

    def __post_init__(self):
        if self.victim_radius <= 0 or self.clue_radius <= 0:
            raise ValueError("victim_radius and clue_radius must be > 0 m")
        ws = (self.w_sr, self.w_safe, self.w_cds, self.w_time)
        if min(ws) < 0 or abs(sum(ws) - 1.0) > 1e-9:
            raise ValueError(f"RS weights must be >= 0 and sum to 1, got {ws}")


@dataclass(frozen=True)
class EsarAction:
    name: str
    params: tuple = ()
    clues: tuple = ()
    victims: tuple = ()

    def __str__(self):
        extra = f" +{len(self.clues)} clues" if self.clues else ""
        extra += f" +{len(self.victims)} victims" if self.victims else ""
        p = ", ".join(f"{k}={v}" for k, v in self.params)
        return f"{self.name}({p}){extra}"


def _num(v, what):
    if isinstance(v, bool) or not isinstance(v, (int, float, np.floating, np.integer)) or not math.isfinite(float(v)):
        raise ActionError(f"{what} must be a finite number, got {v!r}")
    return float(v)


def _point(v, what):
    if not isinstance(v, (list, tuple, np.ndarray)) or len(v) not in (2, 3):
        raise ActionError(f"{what} must be [x, y] or [x, y, z] in metres, got {v!r}")
    return tuple(_num(x, what) for x in v)


def parse_action(action) -> EsarAction:
    if isinstance(action, EsarAction):
        return action
    if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
        if not 0 <= int(action) < len(DISCRETE):
            raise ActionError(f"action index {action} out of range 0..{len(DISCRETE) - 1} ({', '.join(DISCRETE)})")
        return EsarAction(DISCRETE[int(action)])
    if isinstance(action, str):
        if action not in ACTIONS:
            raise ActionError(f"unknown ESAR action {action!r}; known: {', '.join(ACTIONS)}, or a dict with "
                              f"'action', 'clues', 'victims'")
        return EsarAction(action)
    if not isinstance(action, dict):
        raise ActionError(f"an ESAR action is a name, an index or a dict, got {type(action).__name__}")
    unknown = set(action) - {"action", "clues", "victims"}
    if unknown:
        raise ActionError(f"unknown keys in the action dict: {', '.join(sorted(unknown))}")
    clues = []
    for c in action.get("clues") or ():
        if not isinstance(c, dict) or "class" not in c or "position" not in c:
            raise ActionError(f"a clue report is {{'class': name, 'position': [x, y, z]}}, got {c!r}")
        if not isinstance(c["class"], str) or c["class"] not in CLUES:
            raise ActionError(f"unknown clue class {c['class']!r}; known: {', '.join(CLUES)}")
        clues.append((c["class"], _point(c["position"], "clue position")))
    victims = tuple(_point(v, "victim estimate") for v in (action.get("victims") or ()))
    a = action.get("action", "hover")
    if isinstance(a, dict):
        kind = a.get("type")
        if kind == "velocity":
            keys = ("vx", "vy", "vz", "yaw_rate", "duration")
            bad = set(a) - set(keys) - {"type"}
            if bad:
                raise ActionError(f"unknown keys in a velocity command: {', '.join(sorted(bad))}")
            params = tuple((k, _num(a.get(k, 0.0 if k != "duration" else 1.0), k)) for k in keys)
            for k, v in params[:4]:
                limit = MAX_ANGULAR_COMMAND if k == "yaw_rate" else MAX_LINEAR_COMMAND
                if abs(v) > limit:
                    raise ActionError(f"velocity command {k} = {v:g} is beyond +-{limit:g}")
            d = dict(params)["duration"]
            if not 0 < d <= MAX_ACTION_S:
                raise ActionError(f"velocity command duration must be in (0, {MAX_ACTION_S}] s, got {d}")
            base = EsarAction("velocity", params)
        elif kind == "goto":
            pos = _point(a.get("position"), "goto position")
            speed = _num(a.get("speed", CRUISE), "goto speed")
            if speed <= 0:
                raise ActionError(f"goto speed must be > 0 m/s, got {speed}")
            base = EsarAction("goto", (("position", pos), ("speed", speed)))
        else:
            raise ActionError(f"an action dict's 'action' type must be 'velocity' or 'goto', got {kind!r}")
    else:
        base = parse_action(a)
    return EsarAction(base.name, base.params, tuple(clues), victims)


# ============================================================== controllers
def fly_to(env, target, speed=CRUISE, yaw=None, tol=0.5, max_s=MAX_ACTION_S) -> Outcome:
    """Fly to ``target`` (x, y, z) and stop there (and turn to ``yaw`` if given): velocity
    commands from a proportional law with braking (v <= sqrt(2 a d)), through ``env.drive``."""
    body = env.agent
    limit = body.spec.max_speed
    if speed > limit:
        return fail(Status.INVALID, f"speed {speed} m/s is beyond the UAV's limit {limit} m/s")
    target = np.asarray(target, float)
    for _ in range(int(max_s / FRAME_DT)):
        if body.crashed:
            return fail(Status.BLOCKED, f"crashed at {np.round(body.crash_point, 1).tolist()}")
        d = target - body.position
        yaw_err = 0.0 if yaw is None else wrap_angle(yaw - body.yaw)
        if np.linalg.norm(d) < tol and np.linalg.norm(body.vel) < 0.3 and abs(yaw_err) < math.radians(1.0):
            return OK
        n = np.linalg.norm(d[:2])
        vh = min(speed, math.sqrt(2 * body.spec.max_accel * 0.8 * n), 1.2 * n)
        vz = float(np.clip(1.2 * d[2], -body.spec.max_climb, body.spec.max_climb))
        vz = math.copysign(min(abs(vz), math.sqrt(2 * body.spec.max_vaccel * 0.8 * abs(d[2]))), d[2])
        w = d[:2] / n * vh if n > 1e-6 else np.zeros(2)
        c, s = math.cos(body.yaw), math.sin(body.yaw)
        wz = float(np.clip(3.0 * yaw_err, -body.spec.max_yaw_rate, body.spec.max_yaw_rate))
        r = env.drive(Twist(c * w[0] + s * w[1], -s * w[0] + c * w[1], vz, wz))
        if not r.advanced or _time_up(env):
            return fail(Status.TIME_UP, "the mission's time is up")
    return fail(Status.NOT_ARRIVED, f"not at {np.round(target, 1).tolist()} after {max_s:.0f} s")


def _time_up(env) -> bool:
    t = getattr(env.task, "max_frames", None)
    return t is not None and env.world.frame >= t


def fly_velocity(env, vx, vy, vz, yaw_rate, duration) -> Outcome:
    for _ in range(max(1, int(round(duration / FRAME_DT)))):
        r = env.drive(Twist(vx, vy, vz, yaw_rate))
        if env.agent.crashed:
            return fail(Status.BLOCKED, f"crashed at {np.round(env.agent.crash_point, 1).tolist()}")
        if not r.advanced or _time_up(env):
            return fail(Status.TIME_UP, "the mission's time is up")
    return OK


# ============================================================== the task
class EsarTask(Task):
    name = "esar"
    actions = ACTIONS

    def reset(self, env) -> None:
        ep = env.spec_dict
        self.t_max = float(env.world.scene.terrain.time_limit_s)
        self.max_frames = int(round(self.t_max / FRAME_DT))
        self.stopped = False
        self.clue_reports: list[tuple[str, tuple, float]] = []       # (class, position, time s)
        self.victim_reports: list[tuple[tuple, float]] = []          # (position, time s)
        self.rejected = 0
        self.n_victims = len(ep["victims"])

    def action_space(self):
        return spaces.Discrete(len(DISCRETE))

    def parse(self, action):
        return parse_action(action)

    def _record(self, env, act: EsarAction) -> str:
        t = env.world.frame * FRAME_DT
        msg = []
        for cls, pos in act.clues:
            if len(self.clue_reports) >= MAX_CLUE_REPORTS:
                self.rejected += 1
                msg.append(f"clue report limit {MAX_CLUE_REPORTS} reached")
                break
            self.clue_reports.append((cls, pos, t))
        cap = self.n_victims + EXTRA_VICTIM_REPORTS
        for pos in act.victims:
            if any(np.linalg.norm(np.subtract(pos[:2], p[:2])) < 2.0 for p, _ in self.victim_reports):
                continue                               # the same estimate again: keeps its first time
            if len(self.victim_reports) >= cap:
                self.rejected += 1
                msg.append(f"victim estimate limit {cap} reached")
                break
            self.victim_reports.append((pos, t))
        return "; ".join(msg)

    def report(self, env, items) -> str:
        """Reports that come without a flight action (the ROS sim node's ``report`` topic):
        ``items`` = (class, position (2,) or (3,), score) with class ``victim`` (a position
        estimate) or a clue class (``tent`` or ``clue:tent``). Recorded at the current time
        under the same caps as an action's; returns the caps' note ('' when all were taken).
        Raises ``ActionError`` (a ValueError) for an unknown class or a bad position."""
        clues, victims = [], []
        for cls, pos, *_ in items:
            name = str(cls)
            pos = [float(v) for v in np.asarray(pos, float).ravel()]
            if name == "victim":
                victims.append(pos)
            else:
                clues.append({"class": name[len("clue:"):] if name.startswith("clue:") else name, "position": pos})
        return self._record(env, parse_action({"action": "hover", "clues": clues, "victims": victims}))

    def reported_items(self, env=None) -> list:
        """Every report kept so far as plain items (``id``, ``label`` = ``victim`` or
        ``clue:<class>``, ``position``, ``size``, ``time_s``, ``score``): victims 0.., clues
        1000... With ``env``, ``score`` is 1 for a report that counts now (a victim estimate
        the Hungarian matching pairs with a victim within ``victim_radius``; a clue report
        matched with the right class within ``clue_radius``), else 0; without it, 1."""
        from types import SimpleNamespace
        vic = [SimpleNamespace(id=k, label="victim", position=_pad3(p), size=(2.0, 2.0, 2.0), time_s=t, score=1.0)
               for k, (p, t) in enumerate(self.victim_reports)]
        clu = [SimpleNamespace(id=1000 + k, label=f"clue:{c}", position=_pad3(p), size=(1.0, 1.0, 1.0), time_s=t,
                               score=1.0) for k, (c, p, t) in enumerate(self.clue_reports)]
        if env is not None:
            cfg = next((m.cfg for m in getattr(env, "measures", ()) if isinstance(getattr(m, "cfg", None),
                                                                                 EsarScoring)), EsarScoring())
            ep = env.spec_dict
            hit_v = {j for _, j in hungarian_matches([_pad3(v["position"]) for v in ep["victims"]],
                                                    [it.position for it in vic], cfg.victim_radius)}
            truth_c = [c["class"] for c in ep["clues"]]
            allowed = np.array([[tc == c for c, _, _ in self.clue_reports] for tc in truth_c], bool)
            hit_c = {j for _, j in hungarian_matches([_pad3(c["position"]) for c in ep["clues"]],
                                                    [it.position for it in clu], cfg.clue_radius,
                                                    allowed.reshape(len(truth_c), len(clu)))}
            for j, it in enumerate(vic):
                it.score = float(j in hit_v)
            for j, it in enumerate(clu):
                it.score = float(j in hit_c)
        return vic + clu

    def execute(self, env, act: EsarAction) -> Outcome:
        note = self._record(env, act)
        out = self._fly(env, act)
        if note and out.success:
            return Outcome(Status.SUCCEEDED, note)
        return out

    def _fly(self, env, act: EsarAction) -> Outcome:
        body = env.agent
        if body.crashed:
            return fail(Status.BLOCKED, "the UAV has crashed")
        if act.name == "stop":
            self.stopped = True
            return OK
        p, yaw = body.position, body.yaw
        heading = np.array([math.cos(yaw), math.sin(yaw), 0.0])
        if act.name == "forward":
            return fly_to(env, p + FORWARD_M * heading, CRUISE, yaw)
        if act.name in ("turn_left", "turn_right", "turn_back"):
            d = {"turn_left": TURN_RAD, "turn_right": -TURN_RAD, "turn_back": math.pi}[act.name]
            return fly_to(env, p, CRUISE, wrap_angle(yaw + d))
        if act.name in ("ascend", "descend"):
            dz = CLIMB_M if act.name == "ascend" else -CLIMB_M
            if act.name == "ascend" and p[2] + dz > body.ceiling:
                return fail(Status.INVALID,
                            f"ascending to {p[2] + dz:.0f} m would pass the ceiling {body.ceiling:.0f} m")
            return fly_to(env, p + [0, 0, dz], CRUISE, yaw)
        if act.name == "hover":
            return fly_velocity(env, 0, 0, 0, 0, 1.0)
        params = dict(act.params)
        if act.name == "velocity":
            lim = body.limits
            if math.hypot(params["vx"], params["vy"]) > lim.linear + 1e-9 or abs(params["vz"]) > lim.vertical + 1e-9 \
                    or abs(params["yaw_rate"]) > lim.angular + 1e-9:
                return fail(Status.INVALID, f"velocity command beyond the UAV's limits (horizontal {lim.linear} m/s, "
                                            f"vertical {lim.vertical} m/s, yaw rate {lim.angular:.2f} rad/s)")
            return fly_velocity(env, params["vx"], params["vy"], params["vz"], params["yaw_rate"], params["duration"])
        if act.name == "goto":
            pos = params["position"]
            z = pos[2] if len(pos) == 3 else p[2]
            if not env.world.scene.contains(pos):
                return fail(Status.INVALID, f"goto position {list(pos)} is outside the map {env.world.scene.bounds}")
            if z > body.ceiling:
                return fail(Status.INVALID, f"goto altitude {z:.0f} m is above the ceiling {body.ceiling:.0f} m")
            return fly_to(env, (pos[0], pos[1], z), params["speed"])
        return fail(Status.INVALID, f"cannot carry out {act}")

    def costs_a_frame(self, act) -> bool:
        return act.name != "stop"

    def terminated(self, env, act) -> bool:
        return self.stopped or env.agent.crashed or env.world.frame >= self.max_frames

    def describe(self, env) -> dict:
        ep = env.spec_dict
        t = env.world.scene.terrain
        return {"task": self.name, "map": ep["map"], "biome": t.biome, "victims": self.n_victims,
                "lkp": ep.get("lkp"), "time_limit_s": self.t_max, "weather": ep["weather"],
                "time_of_day": ep["time_of_day"], "clue_classes": list(CLUES), "bounds": list(t.bounds),
                "ceiling": env.agent.ceiling,
                "trails": [[round(float(x), 1), round(float(y), 1)] for x, y in t.trail[::4]],
                # what a detector looks for: segmentation label -> text prompt (open-vocabulary detectors)
                "detect_classes": dict({"victim": "person"}, **{f"clue:{c}": c.replace("_", " ") for c in CLUES}),
                "briefing": f"{self.n_victims} missing person(s) on the {ep['map']} map, last known position "
                            f"{ep.get('lkp')}; report clues and locate them within {self.t_max:.0f} s."}

    def observation(self, env) -> dict:
        b = env.agent
        return {"uav_state": np.array([*b.position, b.yaw, *b.vel, float(b.crashed)], np.float64),
                "time_s": np.float64(env.world.frame * FRAME_DT)}

    def observation_space(self, env) -> dict:
        return {"uav_state": spaces.Box(-np.inf, np.inf, (8,), np.float64),
                "time_s": spaces.Box(0, np.inf, (), np.float64)}

    def info(self, env) -> dict:
        return {"crashed": bool(env.agent.crashed), "reported_clues": len(self.clue_reports),
                "reported_victims": len(self.victim_reports)}

    def metrics(self, env) -> dict:
        return {"task": self.name}


# ============================================================== scoring
def hungarian_matches(truth: np.ndarray, pred: np.ndarray, radius: float, allowed=None) -> list[tuple[int, int]]:
    """One-to-one pairs (truth i, prediction j) within ``radius`` (m, horizontal distance)
    maximising the number of pairs, then minimising the total distance; ``allowed`` (T, P)
    bool masks pairs that may match (e.g. same class)."""
    truth, pred = np.asarray(truth, float).reshape(-1, 3)[:, :2], np.asarray(pred, float).reshape(-1, 3)[:, :2]
    if len(truth) == 0 or len(pred) == 0:
        return []
    d = np.linalg.norm(truth[:, None] - pred[None], axis=2)
    ok = d <= radius
    if allowed is not None:
        ok &= allowed
    big = 1e6
    cost = np.where(ok, d - big, 0.0)                  # every allowed pair beats no pair
    rows, cols = linear_sum_assignment(cost)
    return [(int(i), int(j)) for i, j in zip(rows, cols) if ok[i, j]]


def _pad3(p):
    p = list(p)
    return p + [0.0] * (3 - len(p))


def score(victims, victim_reports, clues, clue_reports, t_end, t_max, safe_completion, cfg: EsarScoring) -> dict:
    """The ESAR metrics from ground truth and reports (see the module doc).
    ``victims``: (V, 3); ``victim_reports``: [(position, time)]; ``clues``: [(class, (3,))];
    ``clue_reports``: [(class, position, time)]."""
    V = len(victims)
    vp = np.array([_pad3(p) for p, _ in victim_reports]).reshape(-1, 3)
    pairs = hungarian_matches(np.asarray(victims, float).reshape(-1, 3), vp, cfg.victim_radius)
    located = len(pairs)
    sr = located / V if V else 0.0
    tsr = sum(max(0.0, 1.0 - victim_reports[j][1] / t_max) for _, j in pairs) / V if V else 0.0
    C = len(clues)
    cp = np.array([_pad3(p) for _, p, _ in clue_reports]).reshape(-1, 3)
    ctrue = np.array([_pad3(p) for _, p in clues]).reshape(-1, 3)
    spatial = hungarian_matches(ctrue, cp, cfg.clue_radius)
    same = np.array([[c == r for r, _, _ in clue_reports] for c, _ in clues], bool).reshape(C, len(clue_reports))
    exact = hungarian_matches(ctrue, cp, cfg.clue_radius, same)
    r_sp = len(spatial) / C if C else 0.0
    r_ex = len(exact) / C if C else 0.0
    cds = 0.5 * r_sp + 0.5 * r_ex
    e_time = max(0.0, 1.0 - t_end / t_max) if located else 0.0
    rs = cfg.w_sr * sr + cfg.w_safe * float(safe_completion) + cfg.w_cds * cds + cfg.w_time * e_time
    return {"sr": round(100 * sr, 4), "tsr": round(100 * tsr, 4), "cds": round(100 * cds, 4), "rs": round(100 * rs, 4),
            "victims_found": located, "clues_found": len(spatial), "clues_exact": len(exact),
            "time_efficiency": round(e_time, 4)}


def false_victims(victims, victim_reports, clues, cfg: EsarScoring) -> dict[str, int]:
    """What the unpaired victim estimates lay on (see the module doc): label -> count.
    ``victims``: (V, 3); ``victim_reports``: [(position, time)]; ``clues``: [(class, (3,))]."""
    vp = np.array([_pad3(p) for p, _ in victim_reports]).reshape(-1, 3)
    paired = {j for _, j in hungarian_matches(np.asarray(victims, float).reshape(-1, 3), vp, cfg.victim_radius)}
    things = [("victim", _pad3(p)) for p in np.asarray(victims, float).reshape(-1, 3).tolist()] + \
        [(f"clue:{c}", _pad3(p)) for c, p in clues]
    out: dict[str, int] = {}
    for j in range(len(vp)):
        if j in paired:
            continue
        d = [math.hypot(p[0] - vp[j][0], p[1] - vp[j][1]) for _, p in things]
        k = int(np.argmin(d)) if d else -1
        label = things[k][0] if k >= 0 and d[k] <= cfg.clue_radius else "nothing"
        out[label] = out.get(label, 0) + 1
    return dict(sorted(out.items()))


class EsarMeasure(Measure):
    name = "esar"

    def __init__(self, cfg: EsarScoring | None = None):
        self.cfg = cfg or EsarScoring()

    def metrics(self, env) -> dict:
        task: EsarTask = env.task
        ep = env.spec_dict
        body = env.agent
        t_end = min(env.world.frame * FRAME_DT, task.t_max)
        safe = not body.crashed
        m = score([v["position"] for v in ep["victims"]], task.victim_reports,
                  [(c["class"], c["position"]) for c in ep["clues"]], task.clue_reports,
                  t_end, task.t_max, safe and task.stopped, self.cfg)
        m.update({"safe": safe, "crashed": bool(body.crashed), "stopped": task.stopped,
                  "victims": len(ep["victims"]), "clues": len(ep["clues"]), "time_s": round(t_end, 3),
                  "t_max_s": task.t_max, "tier": ep.get("tier"), "difficulty": ep.get("difficulty"),
                  "weather": ep["weather"], "time_of_day": ep["time_of_day"], "map": ep["map"],
                  "event": ep.get("event"), "snapshot": ep.get("snapshot"),
                  "distance_flown_m": round(body.distance, 2), "reports_rejected": task.rejected,
                  "victim_estimates": len(task.victim_reports), "clue_reports": len(task.clue_reports),
                  "false_victims": false_victims([v["position"] for v in ep["victims"]], task.victim_reports,
                                                 [(c["class"], c["position"]) for c in ep["clues"]], self.cfg),
                  "scoring": {"victim_radius": self.cfg.victim_radius, "clue_radius": self.cfg.clue_radius,
                              "weights": [self.cfg.w_sr, self.cfg.w_safe, self.cfg.w_cds, self.cfg.w_time]}})
        return m


__all__ = ["ACTIONS", "DISCRETE", "ActionError", "EsarAction", "EsarMeasure", "EsarScoring", "EsarTask",
           "false_victims", "fly_to", "fly_velocity", "hungarian_matches", "parse_action", "score"]
