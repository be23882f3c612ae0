"""Perception in the embedded loop: what every agent sees goes through a perception backend.

:class:`EmbeddedPerception` rewrites an observation (and ``info``) before the agent reads it:
the instance-id images agents use (``seg`` of HAZARD and DOZE, every ESAR camera's ``seg`` and
``seg_visible``, the frames in ``info["observations"]``) and the id -> label map
(``info["labels"]``) become the backend's instances painted into an id image. The agents'
logic is unchanged; metrics are still judged by the simulator on its ground truth.

* ``groundtruth``: the simulator's segmentation with the minimum-size rule applied (labelled
  instances with fewer than ``min_pixels`` pixels are cleared to 0; for ESAR counted on
  ``seg_visible``, the pixels whose contrast under the light and fog lets a detector see
  them). With ``min_pixels <= 1`` the observation is passed through untouched.
* ``onnx`` / ``yolo`` / ``yolo_world``: the backend runs on each camera's RGB; box-only
  detections get a mask from the box and depth (:func:`~.instances.mask_from_depth`);
  instances below ``min_pixels`` are dropped; labels are mapped through the task's
  ``detect_classes`` prompts (YOLO-World's "person" -> ESAR's "victim"). Identity: a
  detection is *grounded* to the simulator instance whose visible pixels overlap its mask
  best, when their intersection over union is at least ``GROUND_IOU`` (0.5, the usual
  detection-matching threshold), so that an action on it (``walk_to``, ``pick_up``) names
  the thing the robot points at, and an object keeps its id from frame to frame; any other
  detection (a false positive, or one on the background) gets a stable id of its own
  (``PHANTOM_BASE`` + a hash of label and 1 m world cell), which the simulator refuses in
  actions and the metrics never count (ESAR: a report there is a false report).
  The label, the mask and whether the thing is seen at all are the detector's.

Minimum sizes (:func:`default_min_pixels`; ``min_pixels`` overrides): the ground truth sees an
instance from its spec's ``min_pixels``, the shipped detector's half-ceiling point
(:mod:`.min_size`: where its recall reaches half its recall on large objects); a detector's
own instances are kept from the spec's ``detector_min_pixels`` (3; ESAR 16, the recognition
rule for reporting a person), since a detector's recall already falls with size.
docs/perception.md, "Minimum size", has the numbers.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import numpy as np

from hazard_sim.perception.backends import canonical_name, make_backend
from hazard_sim.perception.errors import DetectorInputError
from hazard_sim.perception.instances import keep_seen, locate, mask_from_depth, rasterize
from hazard_sim.perception.namer import scene_namer_problem
from hazard_sim.perception.vocabulary import class_set_problem, prompt_map, task_in_vocabulary, vocabulary_of

PHANTOM_BASE = 1 << 30
GROUND_IOU = 0.5


def default_min_pixels(benchmark: str, backend: str = "groundtruth") -> int:
    """The benchmark's own minimum instance size for ``backend``: its spec's ``min_pixels`` for
    the ground truth (the shipped detector's half-ceiling point), ``detector_min_pixels`` for a detector
    (whose own recall already falls with size)."""
    from hazard_sim.core.spec import get_spec
    spec = get_spec(benchmark)
    gt = canonical_name(backend) == "groundtruth"
    return int(spec.min_pixels if gt else spec.detector_min_pixels)


def classes_from_task(task: dict) -> list[str]:
    """The task's ``detect_classes`` labels when it gives them (an object-navigation task
    names its goal's class there: "a yellow watering can" -> "watering can"); else its target
    categories, plus ``cart`` when it names containers.  Raises ValueError for a task with a
    goal but neither (an object-navigation task must name its goal's class)."""
    given = task.get("detect_classes")
    if given:
        return [str(c) for c in given]              # a list, or a dict's keys (labels)
    out = [t["category"] for t in task.get("targets", []) if t.get("category")]
    if task.get("containers"):
        out.append("cart")
    if "goal" in task and not out:           # (a rescue task has a goal sentence and its targets)
        goal = task["goal"]
        if not isinstance(goal, str) or not goal.strip():
            raise ValueError(f"the task's goal must be a non-empty string, got {goal!r}")
        raise ValueError(f"the task names a goal ({goal!r}) but not its detect_classes")
    return list(dict.fromkeys(out))


def clear_small(seg: np.ndarray, labels: dict, min_pixels: int, negate: bool = False) -> np.ndarray:
    """The ground-truth track's minimum-size rule on an instance-id image: labelled instances
    with fewer than ``min_pixels`` pixels cleared to 0 (the instances the groundtruth backend
    would return, painted back; done on the id image directly), or with ``negate`` marked with
    their negated id. The same image object is returned when nothing is cleared. The ROS
    perception node publishes it with ``negate`` as its instance image with the ``groundtruth``
    backend (a negative id: something too small to be recognised; read as 0 it is exactly what
    the embedded agents get)."""
    seg = np.asarray(seg)
    if seg.size == 0 or min_pixels <= 1:
        return seg
    top, low = int(seg.max()), int(seg.min())
    if low >= 0 and top < (1 << 20):          # the usual ids: a histogram and a look-up table (fast)
        counts = np.bincount(seg.ravel(), minlength=top + 1)
        ids = np.nonzero((counts > 0) & (counts < min_pixels))[0]
        small = [i for i in ids.tolist() if i > 0 and (i in labels or str(i) in labels)]
        if not small:
            return seg
        drop = np.zeros(top + 1, bool)
        drop[small] = True
        return np.where(drop[seg], -seg if negate else 0, seg).astype(seg.dtype, copy=False)
    u, c = np.unique(seg, return_counts=True)
    small = [int(i) for i in u[c < min_pixels].tolist() if i > 0 and (i in labels or str(i) in labels)]
    if not small:
        return seg
    return np.where(np.isin(seg, small), -seg if negate else 0, seg).astype(seg.dtype, copy=False)


@dataclass(frozen=True)
class PerceptionSettings:
    """What the agents see through. ``min_pixels`` None: the benchmark's default."""

    backend: str = "groundtruth"
    weights: str | None = None
    min_pixels: int | None = None
    confidence: float = 0.25
    imgsz: int | None = None
    text_embeddings: str | None = None
    namer: str | None = None
    options: dict = field(default_factory=dict)

    def key(self, benchmark: str) -> dict:
        """The settings as stored in results and compared on resume (the weights by name
        and size, so a retrained file is not mistaken for the old one)."""
        name = canonical_name(self.backend)
        out = {"backend": name, "min_pixels": self.effective_min_pixels(benchmark)}
        if name != "groundtruth":
            from pathlib import Path
            w = Path(str(self.weights)) if self.weights else None
            out.update({"weights": w.name if w else None,
                        "weights_bytes": w.stat().st_size if w and w.is_file() else None,
                        "confidence": self.confidence, "imgsz": self.imgsz,
                        "text_embeddings": self.text_embeddings})
            if self.namer:
                from hazard_sim.perception.namer import DEFAULT_GOAL_MIN_SCORE, namer_path, read_namer_json
                n = namer_path(self.namer)
                goal = read_namer_json(n).get("goal_min_score", DEFAULT_GOAL_MIN_SCORE) if n.is_file() else None
                out.update({"namer": n.name, "namer_bytes": n.stat().st_size if n.is_file() else None,
                            "namer_goal_min_score": goal})
        return out

    def file_tag(self, benchmark: str | None = None) -> str:
        """What a results file of these settings carries before ``.jsonl``, beside the ground
        truth's (``<stem>.onnx.jsonl``; with an instance namer ``<stem>.onnx_namer.jsonl``). A
        weights file other than the shipped ``detector.*`` adds its stem (``other.onnx``:
        ``<stem>.onnx_other_namer.jsonl``), so two detectors' runs never share a file. A
        ``min_pixels`` other than ``benchmark``'s default (any given one without a benchmark)
        adds ``.px<N>`` (``<stem>.px3.jsonl``: the ground truth seen from 3 pixels)."""
        from pathlib import Path
        name = canonical_name(self.backend)
        px = ""
        if self.min_pixels is not None and (benchmark is None or
                                            int(self.min_pixels) != default_min_pixels(benchmark, name)):
            px = f".px{int(self.min_pixels)}"
        if name == "groundtruth":
            return px
        stem = Path(str(self.weights)).stem if self.weights else ""
        det = f"_{stem}" if stem and stem != "detector" else ""
        return (f".{name}{det}_namer" if self.namer else f".{name}{det}") + px

    def effective_min_pixels(self, benchmark: str) -> int:
        if self.min_pixels is not None:
            return int(self.min_pixels)
        return default_min_pixels(benchmark, self.backend)


class EmbeddedPerception:
    """Rewrites observations for the agent (see the module docstring)."""

    def __init__(self, settings: PerceptionSettings, benchmark: str, task: dict | None = None):
        self.settings = settings
        self.benchmark = benchmark
        self.name = canonical_name(settings.backend)
        self.min_pixels = settings.effective_min_pixels(benchmark)
        self.prompt_to_label: dict[str, str] = {}
        self.backend = None
        self.stats = {"frames": 0, "instances": 0, "grounded": 0, "phantoms": 0}
        self._namer_checked = False          # a namer is checked against the first frame's scene
        if self.name == "groundtruth":
            given = [what for what, v in (("detector weights (--detector-weights / weights:=)", settings.weights),
                                          ("a namer (--namer / namer:=)", settings.namer),
                                          ("text embeddings (--text-embeddings)", settings.text_embeddings)) if v]
            if given:
                raise DetectorInputError(f"{' and '.join(given)} given with the groundtruth backend, which uses none "
                                         f"of them: choose a detector backend (onnx, yolo, yolo_world) or leave "
                                         f"them out")
        else:
            kw = dict(settings.options)
            if settings.imgsz:
                kw["imgsz"] = settings.imgsz
            if self.name == "yolo_world" and settings.text_embeddings:
                kw["text_embeddings"] = settings.text_embeddings
            self.backend = make_backend(self.name, weights=settings.weights, confidence=settings.confidence,
                                        namer=settings.namer, **kw)
        self.vocabulary = vocabulary_of(self.backend)
        problem = class_set_problem(self.vocabulary, benchmark)
        if problem:
            raise DetectorInputError(problem)
        if self.backend is not None and task is not None:
            self.set_task(task)

    def set_task(self, task: dict) -> None:
        """Open-vocabulary backends get the task's classes (its prompts where it has them);
        closed-vocabulary ones keep every class and have their labels mapped."""
        if self.backend is None:
            return
        if hasattr(self.backend, "prompt"):        # a namer: the task's kinds are named more readily
            self.backend.prompt(classes_from_task(task))
        dc = task.get("detect_classes")
        prompts = dc if isinstance(dc, dict) else {}
        self.prompt_to_label = prompt_map(list(prompts), prompts, self.vocabulary)[1]
        if self.name == "yolo_world":
            labels = classes_from_task(task)
            self.backend.set_classes([str(prompts.get(c, c)) for c in labels])

    # ------------------------------------------------------------------ observations
    def __call__(self, obs: dict, info: dict) -> tuple[dict, dict]:
        if self.name == "groundtruth" and self.min_pixels <= 1:
            return obs, info                         # the oracle, untouched
        labels_out: dict[int, str] = {} if self.backend is not None else info.get("labels", {})
        gt_labels = info.get("labels", {})
        if not self._namer_checked and gt_labels:
            self._namer_checked = True
            problem = scene_namer_problem(self.backend, gt_labels, self.benchmark)
            if problem:
                raise DetectorInputError(problem)
        seen = {}           # the step's last frame is both ``obs`` and the last of its observations: once

        def frame(o):
            if id(o) not in seen:
                seen[id(o)] = self._frame(o, gt_labels, labels_out)
            return seen[id(o)]

        new_obs = frame(obs)
        if info.get("observations"):
            info = dict(info)
            info["observations"] = [frame(o) for o in info["observations"]]
        obs = new_obs
        if self.backend is not None:
            info = dict(info)
            info["labels"] = labels_out
            if info.get("task") is not None and self.vocabulary is not None:
                # the agent's task in the detector's words (the perception node does the same)
                task = info["task"] if "benchmark" in info["task"] else dict(info["task"], benchmark=self.benchmark)
                info["task"] = task_in_vocabulary(task, self.vocabulary)[0]
        return obs, info

    def _frame(self, obs: dict, gt_labels: dict, labels_out: dict) -> dict:
        obs = dict(obs)
        if "cameras" in obs:
            cams = {}
            for name, cam in obs["cameras"].items():
                cam = dict(cam)
                seen = self._view(cam.get("rgb"), cam["depth"], cam["K"], cam["pose"],
                                  cam.get("seg_visible", cam["seg"]), gt_labels, labels_out)
                cam["seg_visible"] = seen
                cam["seg"] = seen
                cams[name] = cam
            obs["cameras"] = cams
            if "seg" in obs and "front_center" in cams:
                obs["seg"] = cams["front_center"]["seg"]
        elif "seg" in obs:
            obs["seg"] = self._view(obs.get("rgb"), obs["depth"], obs["camera_K"], obs["camera_pose"], obs["seg"],
                                    gt_labels, labels_out)
        return obs

    def _view(self, rgb, depth, K, pose, gt_seg, gt_labels, labels_out) -> np.ndarray:
        self.stats["frames"] += 1
        gt_seg = np.asarray(gt_seg)
        if self.backend is None:
            return self._groundtruth(gt_seg, gt_labels)
        insts = self.backend.detect(rgb, {"depth": depth, "K": K})
        fx = float(np.asarray(K)[0, 0])
        for inst in insts:
            inst.label = self.prompt_to_label.get(inst.label, inst.label)
            if inst.mask is None:
                m = mask_from_depth(inst, depth, fx)
                if m is not None:
                    inst.mask, inst.mask_from = m, "depth"
        insts = keep_seen(insts, self.min_pixels, gt_seg.shape)
        ids = [self._ground(inst, gt_seg, depth, K, pose) for inst in insts]
        for inst, i in zip(insts, ids):
            labels_out[i] = inst.label
        self.stats["instances"] += len(insts)
        return rasterize(insts, gt_seg.shape, ids)

    def _groundtruth(self, seg: np.ndarray, labels: dict) -> np.ndarray:
        return clear_small(seg, labels, self.min_pixels)

    def _ground(self, inst, gt_seg, depth, K, pose) -> int:
        m = inst.full_mask(gt_seg.shape)
        n_mask = int(m.sum())
        under = gt_seg[m]
        under = under[under > 0]
        if under.size:
            cand, covered = np.unique(under, return_counts=True)
            visible = np.array([np.count_nonzero(gt_seg == c) for c in cand])
            iou = covered / (n_mask + visible - covered)
            k = int(np.argmax(iou))
            if iou[k] >= GROUND_IOU:
                self.stats["grounded"] += 1
                return int(cand[k])
        self.stats["phantoms"] += 1
        locate(inst, depth, K, pose)
        cell = "none" if inst.position is None else ",".join(str(int(np.floor(v))) for v in inst.position)
        return PHANTOM_BASE + zlib.crc32(f"{inst.label}|{cell}".encode()) % PHANTOM_BASE
