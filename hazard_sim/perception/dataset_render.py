"""``hazard perception dataset``: labelled frames from the simulator, in the ultralytics format.

Frames come from the benchmarks' own envs (:class:`hazard_sim.core.env.EmbodiedEnv`) and their
ground-truth instance segmentation (ESAR: ``seg_visible``, what fog and darkness leave
visible). The camera is the body's own: HAZARD's and DOZE's ground robot is put at random free
poses 0.6-4 m from a random object and turned towards it (yaw jittered), with the world
advanced between shots so fires spread, water rises, wind blows and people walk; ESAR's UAV is
put 4-45 m above and up to 40 m beside a victim or clue, turned towards it, and all four of its
cameras are kept. Every choice is drawn from ``numpy.random.default_rng([seed, benchmark,
episode])``, so a rerun writes the same frames, and a frame already written is skipped
(resumable).

Splits: HAZARD and DOZE ``train`` episodes give the training frames and their ``test`` episodes
the held-out frames. ESAR ships only a ``test`` split (600 tasks over events, each event seen in
several snapshots); its events are split instead: events with ``event % 5 == 4`` are held out,
the rest train, so no held-out victim or clue was ever seen in training.

Class set (one model for the three benchmarks, coarse groups; :data:`CLASSES`):

* ``person``: DOZE's people and ESAR's victims (every posture).
* ``fire``: HAZARD's flames.
* ``valuable``: HAZARD targets of value 5 (purse, laptop, ...; the catalogue's ``value``).
* ``object``: HAZARD targets of value 1 and every DOZE object (its open-vocabulary kinds are
  one class: the detector proposes objects; naming them is the open-vocabulary backend's job).
* ``clue``: ESAR's 12 clue kinds.
* ``container``: shopping carts (scene parts, not entities: the only scene part labelled; an
  outdoor rescue drops what it carries into one, so its agents must find one).

The long-tailed catalogues (114 names) are not learnable from a few thousand frames on a CPU in
a few hours (issue 19); these six groups are what the agents need to decide with: HAZARD's
score weighs value, DOZE and ESAR look for people, ESAR reports clues, carts take the rescued.

Other class sets (``--classes NAME``, :data:`CLASS_SETS`) are registered by the benchmarks'
packages (:func:`register_class_set`): a set renders only its benchmarks, labels the scene
parts it names (part label -> class) and can aim shots at them.

Output (``--out``, default ``runs/perception/dataset``): ``images/{train,val}/*.png``,
``labels/{train,val}/*.txt`` (``class cx cy w h`` normalised, then the instance polygon when
``--polygons``), ``data.yaml``, ``classes.txt`` and ``objects.jsonl``: one line per labelled
object with its frame, split, benchmark, class, source label, box, pixel count and conditions
(``under_water``, ``behind_flames``, ``night``, ``fog``), which :mod:`.evaluation` reads.
"""
from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from hazard_sim.arg_types import IMAGE_SIZE, SEED, float_in, int_in
from hazard_sim.core.frames import EFFECT_ID_BASE
from hazard_sim.tasks import BUILTIN, load_builtin

CLASSES = ("person", "fire", "valuable", "object", "clue", "container")
#: scene-part labels that are labelled for the detector (everything else of the scene is not)
PART_CLASSES = {"cart": "container"}
FOG_VISIBILITY_M = 3000.0      # ESAR weathers whose visibility is below this count as fog
HAZARD_TASKS = ("hazard/fire", "hazard/flood", "hazard/wind")
DOZE_LEVELS = ("doze/level1", "doze/level2", "doze/level3")


@dataclass(frozen=True)
class ClassSet:
    """A detector's classes: which benchmarks are rendered, and which scene-part labels are
    labelled (part label -> class); other instances get :func:`class_of`."""

    name: str
    classes: tuple[str, ...]
    benchmarks: tuple[str, ...]          # benchmark packages (id prefixes) it renders
    parts: dict
    #: ground-robot episodes spread evenly over each split (its scenes are listed one after the
    #: other) rather than its first ones (which can all lie in one scene)
    spread: bool = True

    def renders(self, benchmark: str) -> bool:
        """Whether the set renders ``benchmark`` (an id: its package is the part before ``/``)."""
        return benchmark.split("/")[0] in self.benchmarks

    @property
    def aims_at_parts(self) -> bool:
        """Shots are also aimed at the labelled parts (furniture), not only at things."""
        return any(c not in CLASSES for c in self.parts.values())


CLASS_SETS = {
    # the shipped six-class detector was trained on each split's first episodes; kept (not
    # spread) so that its dataset rebuilds as it was (docs/perception.md)
    "all": ClassSet("all", CLASSES, tuple(BUILTIN), dict(PART_CLASSES), spread=False),
}


def register_class_set(cs: ClassSet) -> ClassSet:
    """Add a benchmark's class set (its package does, when imported); returns it."""
    CLASS_SETS[cs.name] = cs
    return cs


def class_set(name) -> ClassSet:
    """A :data:`CLASS_SETS` entry by name (a ClassSet is returned as it is; the shipped benchmarks'
    packages are loaded for their sets); ValueError for others."""
    if isinstance(name, ClassSet):
        return name
    if name not in CLASS_SETS:
        load_builtin()
    if name not in CLASS_SETS:
        raise ValueError(f"unknown class set {name!r}: use one of {sorted(CLASS_SETS)}")
    return CLASS_SETS[name]


@dataclass(frozen=True)
class Plan:
    """How many episodes and shots per benchmark and split (``--scale`` multiplies episodes)."""

    hazard_episodes: int = 16       # per HAZARD task (train); held-out gets a quarter
    doze_episodes: int = 8          # per DOZE level (train)
    esar_tasks: int = 24            # ESAR tasks (train events); held-out gets a quarter
    ground_shots: int = 30          # shots per HAZARD / DOZE episode
    esar_shots: int = 8             # UAV poses per ESAR task (x 4 cameras)
    min_pixels: int = 6             # objects smaller than this are not labelled


def class_of(benchmark: str, label: str, classes="all") -> str | None:
    """The class (:data:`CLASSES`, or the class set ``classes``' own) of an instance labelled
    ``label`` in ``benchmark``; None for scene parts, terrain, trees, water and anything else
    the detector should not report."""
    cs = class_set(classes)
    if cs.name != "all":
        if not cs.renders(benchmark):
            return None
        if label in cs.parts:
            return cs.parts[label]
        base = class_of(benchmark, label)
        return base if base in cs.classes else None
    if label in ("person", "victim"):
        return "person"
    if label.startswith("clue:"):
        return "clue"
    if benchmark.startswith("hazard/"):
        if label == "fire":
            return "fire"
        if label in PART_CLASSES:
            return PART_CLASSES[label]
        from hazard_sim.tasks.hazard.catalog import category
        try:
            cat = category(benchmark.split("/")[1], label)
        except (KeyError, ValueError):
            return None
        return "valuable" if cat.value >= 5 else "object"
    if benchmark.startswith("doze/"):
        return "object"
    return None


def instance_boxes(seg: np.ndarray, labels: dict, benchmark: str, min_pixels: int,
                   polygons: bool = False, classes="all") -> list[dict]:
    """Boxes of every classed instance in a segmentation image: ``{id, label, cls, box:
    [x0, y0, x1, y1] (half-open pixels), pixels, polygon?}``, by instance id."""
    cs = class_set(classes)
    out = []
    ids, counts = np.unique(seg[seg > 0], return_counts=True)
    for iid, n in zip(ids.tolist(), counts.tolist()):
        lab = labels.get(iid)
        if iid < EFFECT_ID_BASE and lab not in cs.parts:
            continue                    # a scene part (floor, wall, furniture, terrain, ...)
        cls = class_of(benchmark, lab, cs) if lab is not None else None
        if cls is None or n < min_pixels:
            continue
        ys, xs = np.nonzero(seg == iid)
        o = {"id": int(iid), "label": lab, "cls": cls, "pixels": int(n),
             "box": [int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1]}
        if polygons:
            o["polygon"] = _polygon(seg == iid)
        out.append(o)
    return out


def _polygon(mask: np.ndarray) -> list[float]:
    """The largest outer contour of ``mask`` as x, y pixel coordinates (flattened)."""
    import cv2
    cs, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not cs:
        return []
    c = max(cs, key=cv2.contourArea).reshape(-1, 2)
    return [float(v) for v in c.reshape(-1)]


def yolo_lines(objs: list[dict], shape: tuple[int, int], classes=CLASSES) -> list[str]:
    """ultralytics label lines (``class cx cy w h`` normalised, polygon appended if any)."""
    h, w = shape
    lines = []
    for o in objs:
        x0, y0, x1, y1 = o["box"]
        vals = [list(classes).index(o["cls"])]
        if o.get("polygon") and len(o["polygon"]) >= 6:
            pts = np.asarray(o["polygon"], float).reshape(-1, 2) / (w, h)
            vals += [round(float(v), 6) for v in np.clip(pts, 0, 1).reshape(-1)]
        else:
            vals += [round((x0 + x1) / 2 / w, 6), round((y0 + y1) / 2 / h, 6),
                     round((x1 - x0) / w, 6), round((y1 - y0) / h, 6)]
        lines.append(" ".join(str(v) for v in vals))
    return lines


def conditions(env, seg: np.ndarray, labels: dict, o: dict) -> dict:
    """Conditions of one object: ``under_water`` (HAZARD flood: the object's centre below the
    water surface), ``behind_flames`` (HAZARD fire: flame pixels inside its box), ``night``
    (ESAR: the task's light below 0.3) and ``fog`` (ESAR: a weather of visibility under 3 km:
    haze, mist, fog, rain, snow, dust)."""
    x0, y0, x1, y1 = o["box"]
    c = {"under_water": False, "behind_flames": False, "night": False, "fog": False}
    b = env.benchmark
    if b == "hazard/flood":
        ent = getattr(env.world, "by_id", {}).get(o["id"])
        surf = getattr(env.world.processes[0], "surface", None) if env.world.processes else None
        if ent is not None and surf is not None:
            pos = np.asarray(ent.position, float)
            c["under_water"] = bool(pos[2] < float(np.asarray(surf.height_at(pos[None, :2])).reshape(-1)[0]))
    elif b == "hazard/fire":
        fire = [k for k, v in labels.items() if v == "fire"]
        c["behind_flames"] = o["cls"] != "fire" and bool(np.isin(seg[y0:y1, x0:x1], fire).any())
    elif b.startswith("esar"):
        c["night"] = float(env.spec_dict.get("light", 1.0)) < 0.3
        from hazard_sim.tasks.esar.weather import WEATHERS
        w = WEATHERS.get(str(env.spec_dict.get("weather", "")))
        c["fog"] = w is not None and w.visibility < FOG_VISIBILITY_M
    return c


def _look(env, xy, target, rng) -> None:
    """Put a ground body at ``xy`` facing ``target`` (yaw jittered by up to 25 deg)."""
    env.agent.xy = np.asarray(xy, float).copy()
    env.agent.yaw = math.atan2(target[1] - xy[1], target[0] - xy[0]) + rng.uniform(-0.45, 0.45)


def targets(env, classes="all") -> list[np.ndarray]:
    """World positions (3,) of the things worth a picture: classed objects in the scene, a house's
    items, people (a people process), and with a class set that labels parts, the house's pieces
    of those kinds."""
    cs = class_set(classes)
    house = getattr(env.world, "house", None)
    if house is not None:
        out = [np.asarray(it.position, float) for it in house.items
               if class_of(env.benchmark, house.labels.get(it.id, ""), cs) is not None]
        if cs.aims_at_parts:
            out += [np.asarray(f.box.center, float) for f in house.furniture if f.category in cs.parts]
    else:
        out = [np.asarray(o.position, float) for o in env.world.in_scene() if class_of(env.benchmark, o.name, cs)]
    for p in env.world.processes:
        pos = getattr(p, "positions", None)
        if callable(pos):
            out += [np.array([x, y, 0.9]) for x, y in np.asarray(pos(), float).reshape(-1, 2)[:, :2]]
    return out


def ground_frames(env, rng, shots: int, classes="all"):
    """Views of a HAZARD / DOZE episode: yields ``(tag, obs)`` with the world advanced between
    shots; poses are free cells 0.6-4 m from a random object in the scene (or, for a class set
    that labels furniture, a random piece)."""
    for k in range(shots):
        env.advance(int(rng.integers(10, 80)))
        objs = targets(env, classes)
        if not objs:
            return
        tgt = objs[int(rng.integers(len(objs)))]
        for _ in range(40):
            d, a = rng.uniform(0.6, 4.0), rng.uniform(-math.pi, math.pi)
            xy = tgt[:2] + d * np.array([math.cos(a), math.sin(a)])
            if env.is_free(xy):
                _look(env, xy, tgt, rng)
                yield f"s{k:03d}", env.observe(update_map=False)
                break


def place_above(env, target, rng) -> bool:
    """Put a flying body 4-45 m above and 0-40 m beside ``target``, facing it (yaw jittered by
    up to 0.3 rad); False when 20 draws found no free place in the scene."""
    for _ in range(20):
        d, a = rng.uniform(0.0, 40.0), rng.uniform(-math.pi, math.pi)
        p = np.array([target[0] + d * math.cos(a), target[1] + d * math.sin(a), target[2] + rng.uniform(4.0, 45.0)])
        if env.world.scene.contains(p[:2]) and env.is_free(p):
            env.agent.xy, env.agent.z = p[:2].copy(), float(p[2])
            env.agent.yaw = math.atan2(target[1] - p[1], target[0] - p[0]) + rng.uniform(-0.3, 0.3)
            return True
    return False


def esar_frames(env, rng, shots: int, classes="all"):
    """Views of an ESAR task: the UAV 4-45 m above and 0-40 m beside a victim or clue, facing
    it; yields ``(tag, camera obs)`` for each of its four cameras."""
    items = targets(env, classes)
    if not items:
        return
    for k in range(shots):
        tgt = items[int(rng.integers(len(items)))]
        if not place_above(env, tgt, rng):
            continue
        obs = env.observe(update_map=False)
        for cam, co in obs["cameras"].items():
            yield f"s{k:03d}_{cam}", {"rgb": co["rgb"], "seg": co["seg_visible"], "hazard": None}


def _rendered(cs: ClassSet, tasks) -> tuple:
    """Those of ``tasks`` (benchmark ids) whose package the class set renders."""
    return tuple(t for t in tasks if cs.renders(t))


def episode_list(plan: Plan, split: str, scale: float = 1.0, classes="all") -> list[tuple[str, str, int]]:
    """``(benchmark, env split, episode)`` triples for a dataset split (``train`` | ``val``), of
    the benchmarks the class set renders."""
    from hazard_sim.core.spec import get_spec
    cs = class_set(classes)
    frac = 1.0 if split == "train" else 0.25
    out = []
    env_split = "train" if split == "train" else "test"
    for b in _rendered(cs, HAZARD_TASKS):
        n = max(1, round(plan.hazard_episodes * frac * scale))
        out += [(b, env_split, i) for i in range(min(n, get_spec(b).dataset.count(env_split)))]
    for b in _rendered(cs, DOZE_LEVELS):
        n = max(1, round(plan.doze_episodes * frac * scale))
        total = get_spec(b).dataset.count(env_split)
        idx = (np.unique(np.linspace(0, total - 1, min(n, total)).round().astype(int)).tolist() if cs.spread
               else range(min(n, total)))
        out += [(b, env_split, int(i)) for i in idx]
    if not _rendered(cs, ("esar",)):
        return out
    from hazard_sim.tasks.esar.scenario import event_tasks
    tasks = event_tasks(held=split != "train")
    n = max(1, round(plan.esar_tasks * frac * scale))
    order = np.random.default_rng(7).permutation(len(tasks))      # fixed order: a larger n adds tasks
    out += [("esar", "test", tasks[k]) for k in sorted(order[:n])]
    return out


def _episode_done(out: Path, split: str, stem: str) -> bool:
    return (out / "done" / split / f"{stem}.json").exists()


def render_episode(out: Path, split: str, benchmark: str, env_split: str, episode: int, plan: Plan,
                   imgsz: int, seed: int, polygons: bool, classes="all") -> int:
    """Render one episode's frames into ``out`` (skipped when its done-marker exists); returns
    the frames written."""
    cs = class_set(classes)
    from PIL import Image

    from hazard_sim.render.camera import CameraSpec
    from hazard_sim.runner import make_env
    stem = f"{benchmark.replace('/', '-')}_{env_split}_{episode:04d}"
    if _episode_done(out, split, stem):
        return 0
    rng = np.random.default_rng([seed, sum(map(ord, benchmark)), episode])
    env = make_env(benchmark, env_split, episode, seed=seed, camera=CameraSpec(width=imgsz, height=imgsz)).unwrapped
    try:
        env.reset()
        labels = env._labels
        frames = (esar_frames(env, rng, plan.esar_shots, cs) if benchmark.startswith("esar")
                  else ground_frames(env, rng, plan.ground_shots, cs))
        records, written = [], 0
        for tag, obs in frames:
            labels = env.world.labels()
            objs = instance_boxes(obs["seg"], labels, benchmark, plan.min_pixels, polygons, cs)
            name = f"{stem}_{tag}"
            Image.fromarray(obs["rgb"]).save(out / "images" / split / f"{name}.png")
            lines = yolo_lines(objs, obs["seg"].shape, cs.classes)
            (out / "labels" / split / f"{name}.txt").write_text("".join(s + "\n" for s in lines))
            for o in objs:
                o.pop("polygon", None)
                records.append({"image": f"images/{split}/{name}.png", "split": split, "benchmark": benchmark,
                                "episode": episode, **o,
                                **conditions(env, obs["seg"], labels, o)})
            written += 1
        # one unbuffered append (a single write): parallel renderers never interleave their lines
        with open(out / f"objects_{split}.jsonl", "ab", buffering=0) as f:
            f.write("".join(json.dumps(r) + "\n" for r in records).encode())
        (out / "done" / split / f"{stem}.json").write_text(json.dumps({"frames": written, "objects": len(records)}))
        return written
    finally:
        env.close()


def write_data_yaml(out: Path, classes="all") -> Path:
    """``data.yaml`` (ultralytics) and ``classes.txt`` for the dataset at ``out``. A dataset
    folder holds one class set: ValueError when ``out`` already has another's."""
    import yaml
    cs = class_set(classes)
    p = out / "data.yaml"
    if p.exists():
        had = list((yaml.safe_load(p.read_text()) or {}).get("names", {}).values())
        if had and had != list(cs.classes):
            raise ValueError(f"{out} holds a dataset of other classes ({len(had)}: {', '.join(had[:4])}, ...); "
                             f"give --classes {cs.name} another --out")
    (out / "classes.txt").write_text("".join(c + "\n" for c in cs.classes))
    p.write_text(yaml.safe_dump({"path": str(out.resolve()), "train": "images/train", "val": "images/val",
                                 "names": dict(enumerate(cs.classes))}, sort_keys=False))
    return p


def _render_job(job) -> int:
    return render_episode(*job)


def _rendered_jobs(jobs, workers: int):
    """``(job, frames written)`` as each job finishes: in this process, or on ``workers`` spawned
    ones (the renderer's OpenGL context is never forked)."""
    if workers <= 1:
        for j in jobs:
            yield j, _render_job(j)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        futs = {pool.submit(_render_job, j): j for j in jobs}
        for f in as_completed(futs):
            yield futs[f], f.result()


def build_dataset(out, plan: Plan = Plan(), *, imgsz: int = 320, seed: int = 0, scale: float = 1.0,
                  polygons: bool = False, splits=("train", "val"), classes="all", workers: int = 1,
                  log=print) -> dict:
    """Render the whole dataset (resumable: finished episodes are skipped) of the class set
    ``classes`` (:data:`CLASS_SETS`), on ``workers`` processes (the frames do not depend on
    it); returns counts."""
    cs = class_set(classes)
    out = Path(out)
    for s in splits:
        for sub in ("images", "labels", "done"):
            (out / sub / s).mkdir(parents=True, exist_ok=True)
    write_data_yaml(out, cs)
    counts = {}
    for s in splits:
        eps = episode_list(plan, s, scale, cs)
        t0, n = time.perf_counter(), 0
        jobs = [(out, s, b, es, i, plan, imgsz, seed, polygons, cs) for b, es, i in eps]
        for k, (job, written) in enumerate(_rendered_jobs(jobs, workers)):
            n += written
            log(f"[dataset] {s} {k + 1}/{len(eps)} {job[2]} {job[3]} {job[4]}: {n} new frames, "
                f"{time.perf_counter() - t0:.0f} s")
        counts[s] = len(list((out / "images" / s).glob("*.png")))
    log(f"[dataset] {out}: {counts}")
    return counts


def add_dataset_args(p) -> None:
    p.add_argument("--out", default="runs/perception/dataset", help="dataset folder")
    p.add_argument("--imgsz", type=IMAGE_SIZE, default=320, help="square frame size in pixels")
    p.add_argument("--scale", type=float_in(0.0, 1000.0, open_low=True), default=1.0,
                   help="multiply the number of episodes")
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--polygons", action="store_true", help="write instance polygons instead of boxes")
    p.add_argument("--splits", default="train,val", help="comma-separated: train (train splits), val (held-out)")
    p.add_argument("--workers", type=int_in(1, 256), default=1,
                   help="render processes (the frames do not depend on it)")
    p.add_argument("--classes", default="all",
                   help="class set: all (six classes over every benchmark, the default) or a benchmark's own "
                        "(docs/perception.md)")
    p.add_argument("--benchmarks", default=None, metavar="NAMES",
                   help="comma-separated: only these of the class set's benchmark packages (id prefixes) "
                        "(the same classes; for a larger held-out set of one benchmark)")


def parse_splits(text: str) -> tuple[str, ...] | None:
    """``--splits`` (comma-separated train / val); None (after saying why on stderr) for others."""
    splits = tuple(s for s in str(text).split(",") if s)
    bad = [s for s in splits if s not in ("train", "val")]
    if bad:
        print(f"error: unknown dataset split(s) {bad}: use train and/or val", file=sys.stderr)
        return None
    return splits


def only_benchmarks(classes, names: str | None) -> ClassSet:
    """The class set ``classes`` rendering only the benchmark packages ``names`` (comma-separated)
    of its own; ValueError naming the ones it does not render."""
    cs = class_set(classes)
    if not names:
        return cs
    want = tuple(dict.fromkeys(n.strip() for n in str(names).split(",") if n.strip()))
    bad = [n for n in want if n not in cs.benchmarks]
    if bad or not want:
        raise ValueError(f"class set {cs.name!r} renders {', '.join(cs.benchmarks)}, not {', '.join(bad) or '(none)'}")
    return replace(cs, benchmarks=want)


def run_dataset(args) -> int:
    splits = parse_splits(args.splits)
    if splits is None:
        return 2
    try:
        cs = only_benchmarks(getattr(args, "classes", "all"), getattr(args, "benchmarks", None))
        build_dataset(args.out, imgsz=args.imgsz, seed=args.seed, scale=args.scale, polygons=args.polygons,
                      splits=splits, classes=cs, workers=getattr(args, "workers", 1))
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0
