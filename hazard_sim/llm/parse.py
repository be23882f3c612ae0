"""Reading one lettered option out of a language model's answer.

In order (the first that matches wins):

1. a letter that names an option, as an answer: the whole answer (``"B"``, ``"(B)"``,
   ``"B."``), or after "answer is", "option", "choose", ... (``"So the answer is option
   C"``), or an answer that starts with ``"C)"`` / ``"C."`` / ``"C:"``;
2. the text of an option quoted in the answer (case-insensitive), the longest match;
3. an object id of exactly one option, written as in the options (``"(12345)"``);
4. the last capital letter standing alone that names an option (``"... so: B"``);
5. fuzzy: the option whose text is most similar to the answer (difflib ratio at least
   ``fuzzy_cutoff``).

Returns the option's index, or None when nothing fits (the caller falls back).
"""
from __future__ import annotations

import difflib
import re

LETTERS = "ABCDEFGHIJ"

_CUE = re.compile(r"(?:answer(?:\s+is)?|option|choice|choose|select|pick)\s*[:\-]?\s*\(?\s*([A-J])\b\s*\)?",
                  re.IGNORECASE)
_LEAD = re.compile(r"^\s*[\*\"']*\(?([A-J])\s*[\)\.:\]]", re.MULTILINE)
_ALONE = re.compile(r"^\s*[\*\"'\(]*([A-J])[\*\"'\)\.]*\s*$", re.IGNORECASE)


def parse_choice(answer: str, options: list[str], fuzzy_cutoff: float = 0.6) -> int | None:
    if not options or not isinstance(answer, str):
        return None
    n = min(len(options), len(LETTERS))
    text = answer.strip()
    valid = LETTERS[:n]

    m = _ALONE.match(text)
    if m and m.group(1).upper() in valid:        # the whole answer is one letter (any case)
        return valid.index(m.group(1).upper())
    # the last cue wins: chain-of-thought text may discuss several options before answering
    # (capital letters only: "the answer is a ..." is an article, not option A)
    cued = [c.group(1) for c in _CUE.finditer(text) if c.group(1) in valid]
    if cued:
        return valid.index(cued[-1])
    m = _LEAD.search(text)
    if m and m.group(1) in valid:
        return valid.index(m.group(1))

    low = text.lower()
    quoted = [(len(o), k) for k, o in enumerate(options[:n]) if o.lower() in low]
    if quoted:
        return max(quoted)[1]
    ids = {k: re.findall(r"\((\d+)\)", o) for k, o in enumerate(options[:n])}
    hits = {k for k, found in ids.items() for i in found if re.search(rf"\b{i}\b", text)}
    if len(hits) == 1:
        return hits.pop()
    alone = [c for c in re.findall(r"\b([A-J])\b", text) if c in valid]
    if alone:
        return valid.index(alone[-1])
    scores = [difflib.SequenceMatcher(None, low, o.lower()).ratio() for o in options[:n]]
    best = max(range(n), key=scores.__getitem__)
    return best if scores[best] >= fuzzy_cutoff else None
