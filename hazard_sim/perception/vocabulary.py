"""A task in the words its perception knows (ROS-free).

A closed-vocabulary detector (the shipped ONNX model: six coarse classes such as
``valuable`` and ``object``) names coarse classes, while a task names its targets by category
(``laptop``, ``purse``, ...) or its goal by kind (``watering can``). An agent
that matches the task's names against the detector's labels finds nothing. :func:`task_in_vocabulary`
rewrites the task's *target categories* into the detector's classes, by a declared map:

1. the task's own ``detector_classes`` (label -> class), when it gives one;
2. else the class the detector was trained to give that label
   (:func:`hazard_sim.perception.dataset_render.class_of`: the dataset's definition, e.g.
   rescue targets of value 5 -> ``valuable``, of value 1 -> ``object``).

Targets that land on one class are merged (the classes group targets of one value, so the
value is kept; with mixed values the higher is kept and the rewrite says so). A label with
no class in the vocabulary stays as it is (the agent will not see it: reported in
``unmapped``). Nothing else of the task changes: an object-navigation goal names a kind the
detector has no class for (every such kind is ``object``), and a goal rewritten to ``object`` would
make any object the goal, a faked label; it stays unrecognised, and is reported.
"""
from __future__ import annotations

import copy

CLOSED_VOCABULARY_BACKENDS = ("onnx", "yolo")


def vocabulary_of(backend) -> list[str] | None:
    """Every class a closed-vocabulary detector (``onnx``, ``yolo``) knows, sorted; None for an
    open-vocabulary one (``yolo_world``: it is given the task's own words) or ground truth."""
    if backend is None or getattr(backend, "needs_segmentation", False) \
            or getattr(backend, "name", "") not in CLOSED_VOCABULARY_BACKENDS:
        return None
    return class_names(backend)


def class_names(backend) -> list[str]:
    """Every class name a detector backend gives, sorted (its ``names``, or ultralytics')."""
    names = getattr(backend, "names", None)
    if names is None:
        names = backend._names()
    return sorted(set(names.values()))


def class_for(task: dict, label: str) -> str | None:
    """The detector class of a task label: the task's ``detector_classes`` entry, else the
    dataset's class for the task's benchmark."""
    declared = task.get("detector_classes")
    if isinstance(declared, dict) and label in declared:
        return str(declared[label])
    bench = task.get("benchmark") or ""
    from hazard_sim.perception.dataset_render import class_of
    return class_of(str(bench), str(label)) if bench else None


def prompt_map(labels, prompts: dict, known=()) -> tuple[list[str], dict[str, str]]:
    """(the names to ask a detector for, prompt -> label) for a task's ``labels`` and its
    ``prompts`` (label -> text, a task's ``detect_classes``): a label the detector gives as it is
    (in ``known``: a closed vocabulary, such as a namer's kinds) is asked for as it is and keeps
    no prompt; any other is asked for by its prompt (none: the label), and detections of that
    prompt are the label's."""
    known = set(known or ())
    asked = [c if c in known else str(prompts.get(c, c)) for c in labels]
    return asked, {str(prompts.get(c, c)): str(c) for c in labels if c not in known}


def labels_in_vocabulary(labels, known, task: dict) -> list[str]:
    """A closed-vocabulary detector's words for a task's labels (its class list): a label
    the detector knows stays, another becomes its class (:func:`class_for`) when the
    detector knows that, else stays as it is (and the detector reports it unknown)."""
    out = []
    for c in labels:
        mapped = c if c in known else class_for(task, c)
        out.append(mapped if mapped in known else c)
    return list(dict.fromkeys(out))


def task_in_vocabulary(task: dict, vocabulary) -> tuple[dict, dict]:
    """(the task with its target categories in ``vocabulary``, a report ``{"mapped": {label:
    class}, "unmapped": [labels], "merged": {class: [labels]}}``). ``vocabulary`` None: every
    class (the task is returned unchanged)."""
    report = {"mapped": {}, "unmapped": [], "merged": {}}
    if vocabulary is None or not task.get("targets"):
        return task, report
    vocab = set(vocabulary)
    out = copy.deepcopy(task)
    merged: dict[str, dict] = {}
    for t in out["targets"]:
        label = str(t.get("category", ""))
        cls = label if label in vocab else class_for(task, label)
        if cls is None or cls not in vocab:
            report["unmapped"].append(label)
            cls = label
        elif cls != label:
            report["mapped"][label] = cls
        if cls in merged:
            keep = merged[cls]
            keep["value"] = max(keep.get("value", 0), t.get("value", 0))
            report["merged"].setdefault(cls, [keep["category_of"]]).append(label)
        else:
            merged[cls] = dict(t, category=cls, category_of=label)
    for t in merged.values():
        t.pop("category_of")
    out["targets"] = list(merged.values())
    return out, report


__all__ = ["class_for", "class_names", "labels_in_vocabulary", "prompt_map", "task_in_vocabulary", "vocabulary_of"]


def class_set_problem(names, benchmark: str) -> str | None:
    """Why a closed-vocabulary detector with class ``names`` cannot serve ``benchmark`` (None: it
    can, or nothing is known against it): its classes are exactly a registered class set's (the set
    it was trained on, ``hazard perception dataset --classes``) and that set does not cover the
    benchmark (one benchmark's detector under another: it would drive the agents with the other's
    labels). A detector whose classes match no registered set (a user's own) is not judged."""
    if not names or not benchmark:
        return None
    from hazard_sim.perception.dataset_render import CLASS_SETS, class_set
    from hazard_sim.tasks import load_builtin
    load_builtin()
    try:
        class_set("all")
    except ValueError:
        return None
    wanted = set(names)
    sets = [cs for cs in CLASS_SETS.values() if set(cs.classes) == wanted]
    if not sets or any(cs.renders(str(benchmark)) for cs in sets):
        return None
    serving = sorted(cs.name for cs in CLASS_SETS.values() if cs.renders(str(benchmark)))
    return (f"the detector's classes are class set {', '.join(repr(cs.name) for cs in sets)} (trained for "
            f"{', '.join(b for cs in sets for b in cs.benchmarks)}), not one for {benchmark}: use a detector of "
            f"class set {', '.join(map(repr, serving)) or '(none registered)'}")
