"""DOZE's baseline agents (group ``doze``): they see RGB-D, the ground-truth segmentation
(category names only), the camera pose and the goal text, nothing else.

All share :class:`~.search.SearchAgent`: an occupancy map from depth (floor = explored, points
between 5 cm and the robot's height = obstacles), a memory of the instances seen (their
3-D points' extent, colours), goal recognition from observations, A* (scikit-image's
minimum-cost-path engine) to a global goal, and a local controller over MoveAhead /
RotateLeft / RotateRight / Done.  They differ in the global goal:

* ``random``: random points in unexplored space (as the paper's Random agent);
* ``frontier``: the nearest frontier;
* ``l3mvn``: frontiers (connected components, the 4 largest at least 0.5 m away) scored by
  what a language model knows of homes (:mod:`.home_knowledge`: a bed means a bedroom, mugs
  are kept in kitchens; words outside its table matched by MiniLM embeddings): the probability
  that a frontier leads into a room where the goal is usually kept, from the labels seen near
  it, less 0.02 per metre of the way; a new global goal every 25 steps.  The agent reads no
  scene's placement table;
* ``c_l3mvn``: l3mvn that marks people it has seen as forbidden zones (0.7 m around
  where they were in the last steps) and the areas they walked as high-cost regions,
  and waits (turns) when a moving person is close ahead, for a bounded time; a person who
  stands still is an obstacle (with a safety margin) to plan around, not waited for;
* ``h_l3mvn``: c_l3mvn that reads whiteboards with RapidOCR (an OCR engine installed
  from a package), turns a note that names the goal ("Tony, your baseball bat is
  under the bed.") into an intermediate goal (the named furniture: go there and look
  around) and a spatial attribute of the goal.

Attributes are decided from what the robot observes: colours and materials from the
object's pixels (shading-invariant fit to named colours), patterns from two-tone pixels,
spatial relations (on / under / next to / in) from the 3-D extents of the object and the
furniture around it.  Brand names cannot be read at this resolution by agents without
OCR: they accept the category (documented in docs/doze.md).

The pieces live next door: the goal language and sentence embeddings in
:mod:`.goal_language`, attributes from pixels in :mod:`.appearance`, the shared search in
:mod:`.search`, whiteboard reading in :mod:`.ocr`; this module holds the variants.
"""
from __future__ import annotations

import math

import numpy as np

from hazard_sim.agents import register_agent
from hazard_sim.tasks.doze.goal_language import HINT_RE, parse_hint
from hazard_sim.tasks.doze.home_knowledge import FURNITURE_ROOM, HOME_ROOMS, context_rooms, goal_rooms
from hazard_sim.tasks.doze.house_layout import ROOM_FURNITURE
from hazard_sim.tasks.doze.ocr import board_only, ocr_text
from hazard_sim.tasks.doze.search import CELL, SearchAgent


class RandomAgent(SearchAgent):
    """Random points in unexplored space."""
    name = "random"

    def choose_global_goal(self, cost, dist):
        unknown = ~(self.free | self.obst) & np.isfinite(dist)
        cells = np.argwhere(unknown)
        if not len(cells):
            cells = np.argwhere(np.isfinite(dist))
        return self.grid.to_world(cells[int(self.rng.integers(len(cells)))])


class FrontierAgent(SearchAgent):
    """The nearest frontier."""
    name = "frontier"

    def choose_global_goal(self, cost, dist):
        goals = self._frontier_goals(dist)
        if not goals:
            return RandomAgent.choose_global_goal(self, cost, dist)
        return self.grid.to_world(min(goals, key=lambda g: g[0])[1])


#: furniture names a note can mention (the library's furniture categories, as a detector's class list):
#: a note's furniture word is read against these and the labels seen, so "shelf" is not taken for a
#: "bookshelf" because no shelf has been seen yet
FURNITURE_NAMES = tuple(sorted({c for cats in ROOM_FURNITURE.values() for c in cats} | set(FURNITURE_ROOM)))
#: places a whiteboard is read from: (m off the wall, m along it off its middle), the robot facing
#: the middle.  RapidOCR on the robot's view of a board (`bench_doze.py ocr --angles`, 39 boards)
#: reads 38-39 from 1 m at 0 and 20 degrees off its front, 39 from 1.2 m and 26 from 1.4 m straight
#: on, 17 from 1.2 m and 2 from 1.4 m at 20 degrees, none from 1 m at 35 degrees or from 2 m (8 cm
#: capitals are 10 px tall at 1 m).  Closer than 1 m a 1.2 m board is seen whole only straight on.
READ_PLACES = ((1.0, 0.0), (1.0, -0.3), (1.0, 0.3), (1.2, 0.0), (0.8, 0.0), (1.4, 0.0))
READ_BEST = 1.0              # m from the board's middle the best place is
#: m of way a reading place is worth per metre it is further from the board's middle than
#: :data:`READ_BEST` (or nearer)
READ_PLACE_COST = 2.0
READ_FAR = 1.6               # m from a board's middle beyond which it is not read at all
MOVED = 0.25                 # m a board's estimated middle may move before its reading place is chosen again
#: degrees off a board's front it is read from at most (see :data:`READ_PLACES`)
READ_SLANT = 25.0
#: (m, degrees): a board read from this near its middle and this little off its front, where OCR
#: reads 38 of 39 boards, holds what was read (no note for the goal if none was read)
READ_CLOSE = (READ_BEST + 0.15, 20.0)
AT_SPOT = 0.35               # m from a reading place the robot is taken to be there
FACE_VIEWS = 3               # views facing a board from its reading place without a try before it is left
FOCUS_STEPS = 60             # steps spent going to / facing a board before it is given a rest
#: m from a piece's footprint a thing under it is looked for from, and how many such places
UNDER_RING = (1.3, 2.0)
UNDER_VIEWS = 3

#: how close a name read on a note must be to the goal's owner (difflib ratio): OCR misreads half a
#: short name ("Bevi" for "Ravi"); the thing's kind must match as well
OWNER_MATCH = 0.5

DISTANCE_COST = 0.02         # probability per metre: 0.1 more probability is worth a 5 m detour


def plain_note(text: str) -> bool:
    """A note read cleanly that names nobody's thing ("Water the plants every Monday."): three words
    or more, letters and commas only, ending in a full stop, and no word like "your" in it (a hint
    misread, "Kate, yoat skateboard ...", stays unread, to be read again)."""
    t = " ".join(text.split())
    words = t.rstrip(".").replace(",", " ").split()
    return (t.endswith(".") and len(words) >= 3 and all(w.isalpha() for w in words)
            and not any(w[0].lower() in "yv" and 3 <= len(w) <= 5 for w in words))   # (HINT_RE's "your"s too)


class L3MVNAgent(SearchAgent):
    """Frontiers scored by what a language model knows of homes (:mod:`.home_knowledge`): which
    room a frontier leads into, from the labels seen near it, and where the goal is usually kept."""
    name = "l3mvn"
    scores_frontiers = True

    def _goal_words(self) -> str:
        return self.goal.category or self.goal.phrase

    def room_probabilities(self, labels_near: list[list[str]]) -> np.ndarray:
        """P(room | labels seen near a frontier) for each frontier, over :data:`HOME_ROOMS`."""
        return np.array([context_rooms(near) for near in labels_near]).reshape(-1, len(HOME_ROOMS))

    def goal_rooms(self) -> np.ndarray:
        """P(room | goal) over :data:`HOME_ROOMS`; a hint's furniture tells the room when it can."""
        if self.hint and self.hint[1] in FURNITURE_ROOM:
            return context_rooms([self.hint[1]])
        return goal_rooms(self._goal_words())

    def choose_global_goal(self, cost, dist):
        cands = []
        for d, cell, cells in self._frontier_goals(dist, top=4):
            centre = self.grid.to_world(cells[len(cells) // 2])
            near = sorted({i.label for i in self.inst.values() if i.label not in ("whiteboard",)
                           and np.linalg.norm(i.center[:2] - centre) < 2.0})
            cands.append((d, cell, near))
        if not cands:
            return RandomAgent.choose_global_goal(self, cost, dist)
        # the probability that the frontier leads into the room where the goal is usually kept, less
        # a cost per metre of the way there
        scores = self.room_probabilities([c[2] for c in cands]) @ self.goal_rooms()
        utility = scores - DISTANCE_COST * np.array([c[0] for c in cands])
        return self.grid.to_world(cands[int(np.argmax(utility))][1])


class CollisionAwareL3MVN(L3MVNAgent):
    """L3MVN with people's observed motion as forbidden / high-cost regions (C-L3MVN)."""
    name = "c_l3mvn"
    people_aware = True


class HintAwareL3MVN(L3MVNAgent):
    """L3MVN that reads whiteboards (RapidOCR) and follows a note naming the goal (H-L3MVN). The
    paper builds H-L3MVN on L3MVN ("we enhance the L3MVN by utilizing the hint"), not on C-L3MVN:
    it does not keep away from people."""
    name = "h_l3mvn"
    reads_hints = True

    def _read_boards(self, obs):
        seg = obs["seg"]
        for bid, inst in self.inst.items():
            if inst.label != "whiteboard" or inst.last != self.t:
                continue
            mask = seg == bid
            rows, cols = np.nonzero(mask)
            if not len(rows) or cols.min() == 0 or cols.max() == seg.shape[1] - 1:
                continue                                  # not seen whole
            w = cols.max() - cols.min() + 1
            if w < 80 or bid in self.boards_ok or len(self.board_tries.get(bid, ())) >= 6:
                continue
            far, slant = self._board_view(inst)
            if far > READ_FAR or slant > READ_SLANT:
                continue                                  # too far or too much from the side to read
            tries = self.board_tries.setdefault(bid, [])
            if tries and w < 1.2 * tries[-1][1] and self.t - tries[-1][0] < 20:
                continue                              # read again from closer, or a while later
            tries.append((self.t, w))
            text = ocr_text(board_only(obs["rgb"], mask))
            furniture = sorted(set(FURNITURE_NAMES) |
                               {i.label.lower() for i in self.inst.values() if i.label != "whiteboard"})
            note = parse_hint(text, furniture)
            key = "".join(ch for ch in text.lower() if ch.isalnum())
            seen_texts = self.board_texts.setdefault(bid, set())
            again = len(key) >= 12 and key in seen_texts and not HINT_RE.search(text)
            seen_texts.add(key)
            close = far <= READ_CLOSE[0] and slant <= READ_CLOSE[1]
            if note is not None or close or again or plain_note(text):
                self.boards_ok.add(bid)     # read: a hint, another note (read cleanly, or from the best
                #                             place, where OCR reads 38 of 39 boards), or the same words twice
            if note is None:
                continue
            owner, kind, rel, furn = note
            import difflib
            owner_ok = self.goal.owner is None or not owner or \
                difflib.SequenceMatcher(None, owner.lower(), self.goal.owner.lower()).ratio() >= OWNER_MATCH
            if owner_ok and difflib.SequenceMatcher(None, kind, self.goal.phrase).ratio() >= 0.7:
                self.hint = (rel, furn)
                self.target, self.target_id = None, None    # re-decide with the hint
                self.global_goal = None

    def _board_front(self, inst) -> np.ndarray:
        """The unit normal of board ``inst`` (its thin side) pointing to the robot's side of it."""
        axis = int(np.argmin((inst.hi - inst.lo)[:2]))
        n = np.zeros(2)
        n[axis] = 1.0 if self.pose[axis] > inst.center[axis] else -1.0
        return n

    def _board_view(self, inst) -> tuple[float, float]:
        """(m from the robot to the board's middle, degrees off the board's front it is seen from)."""
        d = self.pose[:2] - inst.center[:2]
        n = self._board_front(inst)
        return float(np.linalg.norm(d)), math.degrees(math.atan2(abs(d @ [-n[1], n[0]]), abs(d @ n)))

    def reset(self, obs, info):
        self.board_texts: dict[int, set] = {}     # board -> texts read there (alphanumerics, lower case)
        self.board_visits: dict[int, int] = {}    # board -> focus periods spent on it
        self.board_focus = None
        self.board_faced = 0                      # views facing the focused board from its reading place
        self.hint_looked: list = []               # places a thing under a piece was looked for from
        super().reset(obs, info)

    def _find_goal(self):
        # someone's thing ("Tony's helmet"): the first one seen may be another's; look for a note first
        if self.goal.owner and self.hint is None and self.t < 250:
            return
        super()._find_goal()

    def choose_global_goal(self, cost, dist):
        if self.hint is not None:
            furn = [f for f in self.inst.values() if f.label.lower() == self.hint[1]]
            best = None
            for f in furn:
                cells = self._hint_spots(f)
                d = [dist[c] for c in cells if np.isfinite(dist[c])]
                if d and (best is None or min(d) < best[0]):
                    best = (min(d), f)
            if best is not None:
                if best[0] * CELL < 1.0:
                    self.look_around = 12          # at the furniture: look around once
                    self.hint_reached = True
                    if self.hint[0] == "under" and len(self.hint_looked) < UNDER_VIEWS:
                        self.hint_looked.append(self.pose[:2].copy())
                else:
                    cells = self._hint_spots(best[1])
                    c = min((c for c in cells if np.isfinite(dist[c])), key=lambda c: dist[c])
                    return self.grid.to_world(c)
        if getattr(self, "board_focus", None) is not None:
            board = self.inst.get(self.board_bid)
            if board is not None and np.linalg.norm(board.center[:2] - self.board_focus) > MOVED:
                # the board is seen better now (a first glimpse places it off): read it from a
                # place in front of where it is (the same focus period)
                place = self._reading_place(board, dist, self._blocked())
                if place is not None:
                    _, self.board_spot, self.board_focus = place
            if self.t - self.board_since < FOCUS_STEPS and self.board_bid not in self.boards_ok \
                    and np.isfinite(dist[self.grid.to_cell(self.board_spot)]):
                return self.board_spot                   # keep going to the board being read
            self.board_focus = None
        spot = self._unread_board(dist)
        if spot is not None and self.goal.owner:
            self.board_spot, self.board_focus = spot
            self.board_since, self.board_faced = self.t, 0
            return self.board_spot
        return super().choose_global_goal(cost, dist)

    def _hint_spots(self, f) -> list:
        """Free cells to look for the hinted thing from: within 1 m of the piece ``f`` (on, in, next
        to), or, for a thing under it, 1.3-2.0 m from its footprint and 1 m from the places already
        looked from (at most ``UNDER_VIEWS``): a low thing under a bed frame shows only past the
        frame's edge, from further off (from 0.9 m up, about 1.4 m off for 0.3 m in under a 0.24 m
        frame)."""
        if self.hint[0] != "under":
            return self._cells_near(f.center[:2], 1.0)
        c = self.grid.centres()
        dx = np.maximum(np.maximum(f.lo[0] - c[..., 0], 0.0), c[..., 0] - f.hi[0])
        dy = np.maximum(np.maximum(f.lo[1] - c[..., 1], 0.0), c[..., 1] - f.hi[1])
        d = np.hypot(dx, dy)
        m = (d >= UNDER_RING[0]) & (d <= UNDER_RING[1]) & ~self._blocked()
        for p in self.hint_looked:
            m &= np.linalg.norm(c - p, axis=-1) > 1.0
        return [tuple(x) for x in np.argwhere(m)]

    def _decide(self) -> str:
        # at a board's reading spot: turn to face the board, then read it (next observation)
        focus = getattr(self, "board_focus", None)
        if focus is not None and self.target is None and np.linalg.norm(self.board_spot - self.pose[:2]) < AT_SPOT:
            d = focus - self.pose[:2]
            err = (math.atan2(d[1], d[0]) - self.pose[2] + math.pi) % (2 * math.pi) - math.pi
            if abs(err) > math.radians(15):
                return "RotateLeft" if err > 0 else "RotateRight"
            # facing it: read (or tried) since this focus began, or a few views without a try (seen
            # too much from the side, or not whole): the focus ends
            tried = any(t >= self.board_since for t, _ in self.board_tries.get(self.board_bid, ()))
            self.board_faced += 1
            if tried or self.board_faced > FACE_VIEWS or self.t - self.board_since >= FOCUS_STEPS:
                self.board_focus = None
                self.global_goal = None
            else:
                return "RotateLeft" if err > 0 else "RotateRight"
        return super()._decide()

    def _unread_board(self, dist):
        """The seen whiteboard that can be read soonest and could not be read yet: (a reachable free
        place in front of it, its centre), or None.  The places are :data:`READ_PLACES` (furniture
        often stands right in front of a board); of every board's places the one with the least way
        there plus :data:`READ_PLACE_COST` per metre off :data:`READ_BEST` from the board is taken.  A
        board gets at most two focus periods: one that ends without a read (no reading spot
        reached, or the board never seen whole from it) counts."""
        if self.hint is not None:
            return None
        blocked = self._blocked()
        best = None
        for bid, inst in self.inst.items():
            if inst.label != "whiteboard" or bid in self.boards_ok or len(self.board_tries.get(bid, ())) >= 6:
                continue
            if self.board_visits.get(bid, 0) >= 2:
                continue
            place = self._reading_place(inst, dist, blocked)
            if place is not None and (best is None or place[0] < best[0]):
                best = (*place, bid)
        if best is None:
            return None
        _, spot, c, bid = best
        self.board_bid = bid
        self.board_visits[bid] = self.board_visits.get(bid, 0) + 1
        return spot, c

    def _reading_place(self, inst, dist, blocked):
        """(score, the best reachable free place to read board ``inst`` from, its centre), or None:
        see :meth:`_unread_board`."""
        c = inst.center[:2]
        n = self._board_front(inst)
        along = np.array([-n[1], n[0]])
        best = None
        for r, side in READ_PLACES:
            spot = c + r * n + side * along
            cell = self.grid.to_cell(spot)
            if blocked[cell] or not np.isfinite(dist[cell]) or np.linalg.norm(spot - self.pose[:2]) <= 0.4:
                continue
            score = dist[cell] * CELL + READ_PLACE_COST * abs(math.hypot(r, side) - READ_BEST)
            if best is None or score < best[0]:
                best = (score, spot, c)
        return best


for _cls in (RandomAgent, FrontierAgent, L3MVNAgent, CollisionAwareL3MVN, HintAwareL3MVN):
    register_agent("doze", _cls)
