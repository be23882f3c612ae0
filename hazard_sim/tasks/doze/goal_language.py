"""DOZE's goal language: what a goal text asks for (:class:`Goal`, :func:`goal_class`),
whiteboard notes that hint where a goal is (:func:`parse_hint`) and MiniLM sentence
embeddings of both (:func:`embed`).
"""
from __future__ import annotations

import re

import numpy as np

from hazard_sim.tasks.doze.vocabulary import COLORS, MATERIALS, PATTERNS

RELATIONS = ("next to", "under", "on", "in")


# ------------------------------------------------------------------ goal text
class Goal:
    """What the goal text asks for: ``noun`` (the words naming the thing, matched against the
    labels seen), ``attribute`` (colour / material / pattern / brand words), ``relation``
    (on / under / next to / in, furniture) and ``owner`` (a hint goal: "Tony's baseball bat")."""

    def __init__(self, text: str):
        self.text = text
        t = text.strip()
        self.owner = None
        m = re.match(r"^([A-Z][a-z]+)'s\s+(.+)$", t)
        if m:
            self.owner, t = m.group(1), m.group(2)
        self.brand = None
        words = t.split()
        if words and words[0].lower() in ("a", "an", "the"):
            words = words[1:]
        caps = [w for w in words if w.isupper() and len(w) > 1]
        if caps:
            self.brand = caps[0]
            words = [w for w in words if w != caps[0]]
        t = " ".join(words)
        self.relation = None
        for rel in RELATIONS:
            key = f" {rel} the "
            if key in t:
                t, furn = t.split(key, 1)
                self.relation = (rel, furn.strip().rstrip("."))
                break
        self.phrase = t.strip().lower()
        self.category = None         # set once a seen label matches the phrase
        self.attribute = None

    def match_label(self, label: str) -> bool:
        """Whether ``label`` names the goal's thing: the phrase ends with it (the rest is the attribute)."""
        lab = label.lower()
        if self.phrase == lab or self.phrase.endswith(" " + lab):
            if self.category is None or len(lab) > len(self.category):
                self.category = lab
                rest = self.phrase[: len(self.phrase) - len(lab)].strip()
                self.attribute = rest or None
            return lab == self.category
        return False


def goal_class(text: str, vocabulary=None) -> str:
    """The detector class a goal text asks for: the thing named, without article, owner,
    brand, attribute or spatial relation ("a yellow watering can" -> "watering can",
    "a pillow on the sofa" -> "pillow", "Tony's helmet" -> "helmet", "a ZUMO cereal box" ->
    "cereal box").  With a ``vocabulary`` (category names; default: every object kind of the
    DOZE library) the longest name the phrase ends with; without one, or when none fits,
    the phrase without its leading colour / material / pattern words.  Raises ValueError for
    an empty text."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"goal text must be a non-empty string, got {text!r}")
    phrase = Goal(text).phrase
    if vocabulary is None:
        from hazard_sim.tasks.doze.library import KINDS
        vocabulary = [k.category for k in KINDS.values()]
    best = None
    for name in vocabulary:
        lab = str(name).lower().strip()
        if lab and (phrase == lab or phrase.endswith(" " + lab)) and (best is None or len(lab) > len(best)):
            best = lab
    if best is not None:
        return best
    words = phrase.split()
    attrs = {w.lower() for w in (*COLORS, *MATERIALS, *PATTERNS)}
    while len(words) > 1 and words[0] in attrs:
        words = words[1:]
    return " ".join(words)


# ------------------------------------------------------------------ text embeddings
def embed(texts: list[str]) -> np.ndarray:
    """Unit all-MiniLM-L6-v2 sentence embeddings (the model from its package, offline; numpy forward
    pass in :mod:`.minilm`)."""
    from hazard_sim.tasks.doze.minilm import model
    return model().encode(list(texts))


class EmbedCache:
    def __init__(self):
        self.cache: dict[str, np.ndarray] = {}

    def __call__(self, texts):
        new = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if new:
            for t, v in zip(new, embed(new)):
                self.cache[t] = v
        return np.array([self.cache[t] for t in texts])


#: "<owner>, your <rest>", "your" as OCR reads it ("yaur", "youf", "y0ur", "vour")
HINT_RE = re.compile(r"(?:(?P<owner>[A-Za-z]+)\W+)?\b[yv]\w{2,3}\b\W*(?P<rest>.+)$", re.I)
GLUED_YOUR_RE = re.compile(r"\b(y[a-z]{1,2}r)(?=[a-z]{3,})", re.I)
#: what OCR makes of "is" and "the" on the robot's crops ("Is", "ls", "1s"; "Ihe", ":he", "he", "tha")
IS_WORDS = ("is", "ls", "1s", "js")


def _close(word: str, options, cutoff: float = 0.6):
    import difflib
    m = difflib.get_close_matches(word.lower(), [o.lower() for o in options], n=1, cutoff=cutoff)
    return m[0] if m else None


def _is_the(word: str) -> bool:
    import difflib
    w = re.sub(r"[^a-z0-9]", "", word.lower())
    return w == "the" or (len(w) >= 2 and difflib.SequenceMatcher(None, w, "the").ratio() >= 0.65)


def parse_hint(text: str, furniture=()):
    """A whiteboard note "Tony, your baseball bat is under the bed." -> (owner, kind, relation, furniture),
    tolerant of OCR slips: "your", "is" and "the" misread or run into the next word ("yourumbrella",
    "skateboardls uncer", "in theshelf", ":he bed"), the relation and the furniture matched to the closest known
    words (a furniture word that names a piece in ``furniture`` itself is kept: "shelf" stays "shelf"
    however close "bookshelf" is).  With ``furniture`` given, a note whose furniture word is close to
    none of them is not read (None)."""
    t = " ".join(text.replace("\n", " ").split())
    t = GLUED_YOUR_RE.sub(r"\1 ", t)                # "yourumbrella": "your" run into the thing's name
    m = HINT_RE.search(t)
    if not m:
        return None
    words = [w for w in (re.sub(r"^\W+|\W+$", "", w) for w in m.group("rest").split()) if w]
    # "is": a word of its own, or glued to the end of the thing's name ("skateboardls")
    k = next((i for i, w in enumerate(words) if i > 0 and w.lower() in IS_WORDS), None)
    if k is None:
        k = next((i for i, w in enumerate(words) if len(w) > 4 and w[-2:].lower() in IS_WORDS), None)
        if k is not None:
            words = words[:k] + [words[k][:-2], "is"] + words[k + 1:]
            k += 1
    if k is None:     # or run into the relation after it ("isunder")
        k = next((i for i, w in enumerate(words) if i > 0 and len(w) > 3 and w[:2].lower() in IS_WORDS
                  and _close(w[2:], RELATIONS, 0.6)), None)
        if k is None:
            return None
        words = words[:k] + ["is", words[k][2:]] + words[k + 1:]
    kind, after = words[:k], words[k + 1:]
    if not kind or not after:
        return None
    if len(after) >= 2 and _close(" ".join(after[:2]), ("next to",), 0.7):
        rel, after = "next to", after[2:]
    else:
        rel, after = _close(after[0], RELATIONS, 0.4), after[1:]
    if rel is None:
        return None
    if after and len(after[0]) > 4 and after[0].lower().startswith("the"):
        after = [after[0][3:]] + after[1:]              # "theshelf", "thebed" (before the test below: "thebed"
        #                                                 is as close to "the" as a misread "the" is)
    elif after and _is_the(after[0]):
        after = after[1:]
    if not after:
        return None
    furn = " ".join(after).lower()
    known = [str(f).lower() for f in furniture]
    if known and furn not in known:
        # the words as read, else without their first (a "the" misread past recognition: "Ltic bed")
        tries = [furn] + ([" ".join(after[1:]).lower()] if len(after) > 1 else [])
        furn = next((m for m in (t if t in known else _close(t, known, 0.6) for t in tries) if m), None)
        if furn is None:
            return None                 # no furniture the robot could look for: read the board again
    return (m.group("owner") or ""), " ".join(kind).lower(), rel, furn
