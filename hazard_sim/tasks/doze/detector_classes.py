"""DOZE's detector class set (``hazard perception dataset --classes doze``).

``person``, ``object``, ``whiteboard`` (the hint boards) and the furniture kinds the houses label
their parts with (:data:`DOZE_FURNITURE`; a test checks the list against every house). A spatial
goal ("a towel on the bed") or a hint ("under the bed") is checked against the furniture the agent
has seen (``search.py``, ``_relation_ok``), so on perception it needs furniture classes. Furniture
is labelled part by part (a table's top and each leg, a shelf's boards, a bed's mattress), as the
ground-truth segmentation gives it to the agents, whose relation checks read the parts' extents;
shots are also aimed at furniture pieces, and episodes are spread over every house of a split.
"""
from __future__ import annotations

from hazard_sim.perception.dataset_render import ClassSet, register_class_set

#: the labels DOZE's houses give furniture parts
DOZE_FURNITURE = ("armchair", "bathtub", "bed", "bookshelf", "chair", "coffee table", "counter", "desk",
                  "dresser", "fridge", "shelf", "shoe rack", "side table", "sofa", "stove", "toilet",
                  "toy chest", "tv", "tv stand", "vanity", "wardrobe")

CLASS_SET = register_class_set(ClassSet("doze", ("person", "object", "whiteboard") + DOZE_FURNITURE, ("doze",),
                                        {k: k for k in ("whiteboard",) + DOZE_FURNITURE}))
