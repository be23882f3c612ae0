"""What the L3MVN agents know about homes: which room a piece of furniture means and which rooms
things are usually kept in, as a language model answers "what is in a kitchen?" (common sense,
written as words; no scene, dataset or generator table is read: the table the houses are
generated from is the generator's and agents never import it).

:func:`goal_rooms` gives P(room | goal) from the goal's words (a word the table does not hold is
matched to its nearest table word by MiniLM embeddings, so "Stegosaurus model" finds "model");
:func:`context_rooms` gives P(room | labels seen near a frontier) from the furniture and things
seen there.  A frontier's score is their product summed over rooms (the probability that it leads
into a room where the goal is usually kept).
"""
from __future__ import annotations

import functools

import numpy as np

HOME_ROOMS = ("living room", "kitchen", "bedroom", "bathroom", "office", "playroom", "hall")
#: a piece of furniture that tells the room (shelves, tables, chairs and side tables do not)
FURNITURE_ROOM = {"bed": "bedroom", "wardrobe": "bedroom", "dresser": "bedroom", "counter": "kitchen",
                  "stove": "kitchen", "fridge": "kitchen", "dining table": "kitchen", "bathtub": "bathroom",
                  "toilet": "bathroom", "vanity": "bathroom", "desk": "office", "toy chest": "playroom",
                  "sofa": "living room", "tv stand": "living room", "tv": "living room", "coffee table": "living room",
                  "armchair": "living room", "shoe rack": "hall"}
#: things usually kept in each room (one word each, matched against the words of a label)
ROOM_THINGS = {
    "kitchen": "mug cup teacup bowl glass jar pot pan kettle teapot shaker mill cookie cereal pizza microwave toaster "
               "bottle soda thermos apple orange lemon pear tomato watermelon pineapple banana grapes egg donut bread "
               "carrot cupcake burger cake trash",
    "bathroom": "towel duck tissue bucket",
    "bedroom": "pillow teddy alarm jewelry handbag hat cap shoebox candle slipper",
    "office": "laptop tablet phone keyboard book notebook globe scissors headphones camera trophy hourglass",
    "living room": "remote console speaker radio frame clock lamp candlestick vase plant cactus flowers cushion "
                   "figurine statue bust model",
    "playroom": "toy ball basketball volleyball baseball football frisbee skateboard robot train car piggy chess "
                "rocking drum",
    "hall": "umbrella sneaker backpack helmet broom bat racket stick",
}
KNOWN = 0.8          # probability on the rooms the table names; the rest spread over all rooms
MATCH_SIMILARITY = 0.5   # a word not in the table borrows the rooms of a table word at least this similar


def _rooms_of_word(word: str) -> list[str]:
    return [r for r, things in ROOM_THINGS.items() if word in things.split()]


@functools.lru_cache(maxsize=1)
def _table_words() -> tuple[list[str], np.ndarray]:
    from hazard_sim.tasks.doze.goal_language import embed
    words = sorted({w for things in ROOM_THINGS.values() for w in things.split()})
    return words, embed(words)


def _rooms_of_label(label: str, embed_ok: bool = True) -> list[str]:
    """Rooms for a label: the table's rooms of its words (the last word first: "tennis ball" -> ball),
    else, with ``embed_ok``, those of the table word nearest to the label by MiniLM."""
    words = label.lower().replace("-", " ").split()
    for w in reversed(words):
        rooms = _rooms_of_word(w) or (_rooms_of_word(w[:-1]) if w.endswith("s") else [])
        if rooms:
            return rooms
    if not embed_ok or not words:
        return []
    from hazard_sim.tasks.doze.goal_language import embed
    table, vecs = _table_words()
    sims = vecs @ embed([label.lower()])[0]
    k = int(np.argmax(sims))
    return _rooms_of_word(table[k]) if sims[k] >= MATCH_SIMILARITY else []


def _spread(rooms: list[str]) -> np.ndarray:
    p = np.full(len(HOME_ROOMS), (1.0 - KNOWN if rooms else 1.0) / len(HOME_ROOMS))
    for r in rooms:
        p[HOME_ROOMS.index(r)] += KNOWN / len(rooms)
    return p


@functools.lru_cache(maxsize=256)
def goal_rooms(goal_words: str) -> np.ndarray:
    """P(room | goal) over :data:`HOME_ROOMS` (uniform when nothing is known)."""
    return _spread(_rooms_of_label(goal_words))


def context_rooms(labels: list[str]) -> np.ndarray:
    """P(room | labels seen near a frontier): each piece of furniture that tells a room counts 2, each
    thing counts 1 for the rooms it is kept in, plus 0.5 for every room; uniform with no label."""
    votes = np.full(len(HOME_ROOMS), 0.5)
    for lab in labels:
        lab = lab.lower()
        if lab in FURNITURE_ROOM:
            votes[HOME_ROOMS.index(FURNITURE_ROOM[lab])] += 2.0
            continue
        rooms = _rooms_of_label(lab, embed_ok=False)
        for r in rooms:
            votes[HOME_ROOMS.index(r)] += 1.0 / len(rooms)
    return votes / votes.sum()
