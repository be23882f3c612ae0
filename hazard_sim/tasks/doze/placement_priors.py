"""Where things are in a home: the generator's room and furniture priors for every object kind.

Each kind has a distribution over room types and the furniture it is usually on, in, under or
next to (kitchen: mugs, kettles and fruit on counters and the dining table; bedroom: pillows
and teddy bears on the bed, alarm clocks on side tables; office: laptops and keyboards on
desks; bathroom: towels and rubber ducks by the bathtub and vanity; hall: umbrellas and
sneakers by the shoe rack), as AI2-THOR / ProcTHOR houses place objects by room and receptacle.
:func:`choose_slot` draws a place from them, with a share :data:`NOISE` of exceptions placed
anywhere, as real homes have a mug on the bedroom shelf.

This table is the *generator's*: agents never read it.  What an agent knows about where
things are comes from its language model (:mod:`.goal_language`'s MiniLM embeddings).
"""
from __future__ import annotations

import numpy as np

from hazard_sim.tasks.doze.library import KINDS

#: share of objects placed anywhere (ignoring the priors)
NOISE = 0.12
#: weight of a preferred piece of furniture over any other place in the chosen room
FURNITURE_BOOST = 6.0
#: weight of a place on the floor (under or next to furniture) for a thing that stands on tables and shelves
OFF_SURFACE = 0.1

KITCHEN_TOPS = ("counter", "dining table", "stove", "shelf")
LIVING_TOPS = ("coffee table", "tv stand", "side table", "bookshelf", "sofa")


def _p(rooms: dict, furniture: tuple = ()) -> tuple[dict, tuple]:
    return rooms, furniture


# room distributions shared by families of kinds
_KITCHEN = {"kitchen": 0.8, "living room": 0.1, "office": 0.05, "bedroom": 0.05}
_FOOD = {"kitchen": 0.85, "living room": 0.1, "playroom": 0.05}
_LIVING = {"living room": 0.65, "bedroom": 0.15, "office": 0.1, "hall": 0.1}
_DECOR = {"living room": 0.55, "bedroom": 0.2, "office": 0.15, "playroom": 0.1}
_OFFICE = {"office": 0.7, "bedroom": 0.15, "living room": 0.15}
_BEDROOM = {"bedroom": 0.75, "living room": 0.1, "bathroom": 0.05, "hall": 0.1}
_BATH = {"bathroom": 0.8, "bedroom": 0.1, "kitchen": 0.1}
_TOYS = {"playroom": 0.7, "bedroom": 0.2, "living room": 0.1}
_SPORT = {"playroom": 0.4, "hall": 0.3, "bedroom": 0.3}
_MUSIC = {"living room": 0.45, "playroom": 0.25, "bedroom": 0.2, "office": 0.1}
_TOOLS = {"hall": 0.5, "kitchen": 0.3, "office": 0.2}
_PLANTS = {"living room": 0.6, "office": 0.15, "kitchen": 0.15, "hall": 0.1}

_FAMILIES: list[tuple[tuple[str, ...], tuple[dict, tuple]]] = [
    (("mug", "coffee cup", "teacup", "bowl", "wine glass", "jar", "cooking pot", "frying pan", "kettle", "teapot",
      "salt shaker", "pepper mill", "cookie jar", "cereal box", "pizza box", "microwave", "toaster", "bottle",
      "wine bottle", "soda can", "thermos", "water bottle"), _p(_KITCHEN, KITCHEN_TOPS)),
    (("apple", "orange", "lemon", "pear", "tomato", "watermelon", "pineapple", "banana", "grapes", "egg", "donut",
      "pizza", "bread loaf", "carrot", "cupcake", "burger", "birthday cake"), _p(_FOOD, KITCHEN_TOPS)),
    (("trash can", "bucket", "broom"), _p({"kitchen": 0.5, "bathroom": 0.25, "hall": 0.25},
                                          ("counter", "fridge", "vanity", "toilet", "shoe rack"))),
    (("towel", "rubber duck"), _p(_BATH, ("bathtub", "vanity", "shelf"))),
    (("tissue box",), _p({"bathroom": 0.45, "bedroom": 0.3, "living room": 0.25}, ("vanity", "side table"))),
    (("pillow",), _p({"bedroom": 0.75, "living room": 0.25}, ("bed", "sofa", "armchair"))),
    (("cushion",), _p({"living room": 0.7, "bedroom": 0.15, "playroom": 0.15}, ("sofa", "armchair", "bed"))),
    (("teddy bear", "octopus plush"), _p({"bedroom": 0.5, "playroom": 0.5}, ("bed", "toy chest", "sofa"))),
    (("alarm clock", "jewelry box", "handbag", "sun hat", "top hat", "baseball cap", "shoebox", "candle"),
     _p(_BEDROOM, ("side table", "dresser", "bed", "wardrobe"))),
    (("sneaker", "umbrella", "backpack", "helmet"),
     _p({"hall": 0.55, "bedroom": 0.3, "office": 0.15}, ("shoe rack", "wardrobe", "desk"))),
    (("laptop", "tablet", "cell phone", "keyboard", "desk lamp", "book", "notebook", "globe", "scissors",
      "headphones", "camera", "hourglass", "trophy"), _p(_OFFICE, ("desk", "bookshelf", "shelf"))),
    (("tv remote", "game console", "speaker", "radio", "picture frame", "wall clock", "table lamp", "floor lamp",
      "candlestick", "bell", "lantern", "electric fan", "robot vacuum"), _p(_LIVING, LIVING_TOPS)),
    (("vase", "tall vase", "round vase", "potted plant", "cactus", "flowers in a pot", "potted tree",
      "flower pot", "watering can", "giant cactus"), _p(_PLANTS, ("coffee table", "side table", "tv stand",
                                                                  "dining table", "bookshelf"))),
    (("toy car", "toy train", "toy robot", "piggy bank", "gift box", "rocking horse", "kitten on a skateboard",
      "chess king", "chess queen", "chess knight"), _p(_TOYS, ("toy chest", "table", "shelf", "bed"))),
    (("basketball", "soccer ball", "volleyball", "beach ball", "tennis ball", "baseball", "golf ball",
      "rugby ball", "bowling ball", "billiard ball", "frisbee", "skateboard", "baseball bat", "tennis racket",
      "hockey stick", "dumbbell", "kettlebell"), _p(_SPORT, ("toy chest", "shoe rack", "bed", "shelf"))),
    (("guitar", "violin", "drum", "trumpet", "guitar amplifier", "easel"),
     _p(_MUSIC, ("sofa", "bookshelf", "bed", "table"))),
    (("toolbox", "hammer", "paint can"), _p(_TOOLS, ("shoe rack", "shelf", "counter"))),
]
#: kind -> (room weights, preferred furniture); kinds not listed are decor (figurines, models, statues)
PRIORS: dict[str, tuple[dict, tuple]] = {k: v for kinds, v in _FAMILIES for k in kinds}
DECOR = _p(_DECOR, ("bookshelf", "shelf", "side table", "tv stand", "desk", "dresser"))


def prior(kind: str) -> tuple[dict, tuple]:
    """(room type -> weight, preferred furniture categories) of ``kind``."""
    return PRIORS.get(kind, DECOR)


def choose_slot(rng, kind: str, cands: list, optional: bool = False) -> int | None:
    """Index into ``cands`` (slots with ``room`` and ``relation`` = (rel, furniture, id)) of the place
    for ``kind``: a room drawn from the kind's room weights (among the rooms with a candidate), then a
    place in it, preferred furniture :data:`FURNITURE_BOOST` times as likely, a place on the floor
    :data:`OFF_SURFACE` times as likely for a thing that stands on surfaces; with probability
    :data:`NOISE` (or when no candidate is in a room the kind is found in) any candidate.  An
    ``optional`` object is left out (None) when the drawn room has no free place."""
    rooms_w, furn = prior(kind)
    present = sorted({c.room for c in cands})
    w = np.array([rooms_w.get(r, 0.0) for r in present])
    if rng.random() < NOISE:
        return int(rng.integers(len(cands)))
    if optional:
        # an optional object (a distractor) goes to the room its prior draws or is left out, so a full
        # kitchen does not send the rest of the fruit to the living room
        names = sorted(rooms_w)
        room = names[int(rng.choice(len(names), p=np.array([rooms_w[r] for r in names])))]
        if room not in present:
            return None
    elif w.sum() <= 0:
        return int(rng.integers(len(cands)))
    else:
        room = present[int(rng.choice(len(present), p=w / w.sum()))]
    idx = [k for k, c in enumerate(cands) if c.room == room]
    surface = KINDS[kind].place == "surface" if kind in KINDS else False
    fw = np.array([(FURNITURE_BOOST if cands[k].relation[1] in furn else 1.0) *
                   (OFF_SURFACE if surface and cands[k].relation[0] in ("under", "next to") else 1.0) for k in idx])
    return idx[int(rng.choice(len(idx), p=fw / fw.sum()))]


def co_occurrence(houses) -> dict[str, dict[str, int]]:
    """Counts of object kinds per room type over ``houses`` (for the statistics in the docs)."""
    out: dict[str, dict[str, int]] = {}
    for h in houses:
        for it in h.items:
            out.setdefault(it.kind, {})
            out[it.kind][it.room] = out[it.kind].get(it.room, 0) + 1
    return out
