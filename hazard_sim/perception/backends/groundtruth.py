"""The ``groundtruth`` backend: boxes and masks of the instances in the simulator's
segmentation image (the papers' "non-perceptional", ground-truth track), through the same interface as the
learned detectors."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from hazard_sim.perception.backends.base import Backend
from hazard_sim.perception.errors import DetectorInputError
from hazard_sim.perception.instances import Instance

#: smallest instance (pixels) the node's groundtruth detector reports by default
DEFAULT_MIN_PIXELS = 3


class GroundTruthBackend(Backend):
    """Boxes and masks of the instances in a segmentation image.

    ``extra`` holds ``seg`` (H, W) integer instance ids (0 = nothing) and optionally
    ``labels`` (id -> label; else the map given to the constructor). Instances without
    a label, smaller than ``min_pixels``, or (when a class list is set) of another class
    are left out. Score is 1.0. Sorted by instance id. Vectorised with
    ``scipy.ndimage.find_objects`` (scipy is imported on the first call, not at load).
    """

    name = "groundtruth"
    needs_rgb = False
    needs_segmentation = True
    _DIRECT_MAX_ID = 1 << 20          # above this, ids are compacted before find_objects

    def __init__(self, labels: dict[int, str] | None = None, classes: Sequence[str] | None = None,
                 confidence: float = 0.0, min_pixels: int = DEFAULT_MIN_PIXELS):
        super().__init__(classes, confidence)
        self.labels = dict(labels or {})
        self.min_pixels = int(min_pixels)

    def describe(self) -> dict:
        return {"backend": self.name, "min_pixels": self.min_pixels}

    def detect(self, rgb, extra=None) -> list[Instance]:
        from scipy import ndimage

        extra = extra or {}
        seg = extra.get("seg")
        if seg is None:
            raise DetectorInputError("the groundtruth detector needs extra['seg'], an instance "
                                     "segmentation image (camera/segmentation/image_raw)")
        seg = np.asarray(seg)
        if seg.ndim != 2 or not np.issubdtype(seg.dtype, np.integer):
            raise DetectorInputError(f"segmentation must be a 2-D integer image, got "
                                     f"{seg.dtype} {seg.shape}")
        labels = extra.get("labels")
        labels = self.labels if labels is None else labels
        classes = None if self._classes is None else set(self._classes)
        wanted = np.array(sorted(int(i) for i, lab in labels.items()
                                 if int(i) > 0 and lab and (classes is None or lab in classes)),
                          np.int64)
        if wanted.size == 0 or seg.size == 0:
            return []
        top = int(seg.max())
        if top <= 0:
            return []
        if top <= self._DIRECT_MAX_ID and int(seg.min()) >= 0:
            keep = np.zeros(top + 1, bool)
            keep[wanted[wanted <= top]] = True
            work = np.where(keep[seg], seg, 0)
            ids_of = None
        else:                                   # huge or negative ids: compact them first
            uniq, inv = np.unique(seg, return_inverse=True)
            sel = np.isin(uniq, wanted)
            compact = np.where(sel, np.cumsum(sel), 0)
            work = compact[inv.reshape(seg.shape)]
            ids_of = uniq[sel]
        counts = np.bincount(work.ravel())
        slices = ndimage.find_objects(work)
        out: list[Instance] = []
        for k, slc in enumerate(slices, start=1):
            if slc is None or counts[k] < self.min_pixels:
                continue
            iid = int(k if ids_of is None else ids_of[k - 1])
            ys, xs = slc
            w, h = xs.stop - xs.start, ys.stop - ys.start
            out.append(Instance(
                label=str(labels.get(iid, labels.get(str(iid)))), score=1.0,
                cx=(xs.start + xs.stop - 1) / 2.0, cy=(ys.start + ys.stop - 1) / 2.0,
                w=float(w), h=float(h), instance_id=iid, mask=work[slc] == k, mask_from="segmentation"))
        return out
