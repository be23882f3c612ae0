"""DOZE's whiteboards: about four a house on free stretches of room wall, the first ones
carrying hint notes ("Tony, your helmet is under the bed."), the rest everyday notes, drawn
as text on a framed board.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hazard_sim.render.mesh import quad_mesh, text_texture
from hazard_sim.scenes.base import WALL_THICKNESS

NAMES = ("Tony", "Mia", "Sam", "Lena", "Omar", "Kate", "Ivan", "Zoe", "Ravi", "Nora")


@dataclass
class Board:
    id: int
    lines: tuple[str, ...]
    corners: np.ndarray           # (4, 3) top-left, top-right, bottom-right, bottom-left seen from the front
    normal: np.ndarray            # (2,) into the room
    room: str
    hint: dict | None = None      # {"owner", "kind", "relation", "furniture", "item"} for hint boards

    @property
    def center(self) -> np.ndarray:
        return self.corners.mean(0)


def frame_mesh(b: Board):
    """The board's grey frame: a flat quad slightly larger than the board, just behind it."""
    c = b.corners.copy()
    mid = c.mean(0)
    back = np.r_[b.normal * -0.01, 0.0]
    big = mid + (c - mid) * np.array([1.05, 1.05, 1.08]) + back
    return quad_mesh(big, b.id, color=(140, 140, 145))


def board_texture(lines) -> np.ndarray:
    # letters as large as people write on whiteboards: 8 cm capitals (72 px of a 720 px / 1.2 m board)
    return text_texture(list(lines), width=720, height=480, font_size=72, margin=28, line_spacing=1.3)


HINT_TEMPLATES = ("{owner}, your {kind} is {rel} the {furn}.",)
NOTES = (("Team meeting", "on Friday at 3 pm."), ("Buy milk, eggs", "and fresh bread."),
         ("Water the plants", "every Monday."), ("Call the plumber", "about the sink."),
         ("Dinner at 7 pm.", "Pasta tonight!"), ("Recycling goes out", "on Tuesday."))


def _wrap(text: str, width: int = 19) -> tuple[str, ...]:
    words, lines, cur = text.split(), [], ""
    for w_ in words:
        if cur and len(cur) + 1 + len(w_) > width:
            lines.append(cur)
            cur = w_
        else:
            cur = f"{cur} {w_}".strip()
    lines.append(cur)
    return tuple(lines)


def place_boards(rng, rooms, walls, w, h, hint_items, next_id, solid, grid) -> list[Board]:
    """About four whiteboards a house on free stretches of room walls, facing into the rooms; the first
    ones carry the hints."""
    boards = []
    texts = []
    for pair in hint_items:
        target = pair[0]
        owner = str(rng.choice(NAMES))
        rel, furn = target.relation[0], target.relation[1]
        texts.append((_wrap(HINT_TEMPLATES[0].format(owner=owner, kind=target.kind, rel=rel, furn=furn)),
                      {"owner": owner, "kind": target.kind, "relation": rel, "furniture": furn, "item": target.id,
                       "others": [p.id for p in pair[1:]]}))
    for k in rng.permutation(len(NOTES))[:max(0, 4 - len(texts))]:
        texts.append((NOTES[int(k)], None))
    bw, bh, zc = 1.2, 0.8, 1.05
    for lines, hint in texts:
        for _ in range(400):
            t, (x0, y0, x1, y1) = rooms[int(rng.integers(len(rooms)))]
            side = int(rng.integers(4))
            off = WALL_THICKNESS / 2 + 0.01
            if side in (0, 2):
                if x1 - x0 < bw + 0.4:
                    continue
                cx = float(rng.uniform(x0 + bw / 2 + 0.2, x1 - bw / 2 - 0.2))
                cy = y0 + off if side == 0 else y1 - off
                normal = np.array([0.0, 1.0 if side == 0 else -1.0])
                along = np.array([-normal[1], normal[0]])
            else:
                if y1 - y0 < bw + 0.4:
                    continue
                cy = float(rng.uniform(y0 + bw / 2 + 0.2, y1 - bw / 2 - 0.2))
                cx = x0 + off if side == 3 else x1 - off
                normal = np.array([1.0 if side == 3 else -1.0, 0.0])
                along = np.array([-normal[1], normal[0]])
            # the wall behind must be solid along the board, and the floor in front clear of furniture
            behind = [np.array([cx, cy]) - normal * 0.06 + along * s for s in np.linspace(-bw / 2, bw / 2, 7)]
            front = [np.array([cx, cy]) + normal * d + along * s for d in (0.3, 0.6, 0.9)
                     for s in np.linspace(-bw / 2, bw / 2, 5)]
            if not all(solid[grid.to_cell(p)] for p in behind) or any(solid[grid.to_cell(p)] for p in front):
                continue
            if any(np.linalg.norm(b.center[:2] - [cx, cy]) < 2.0 for b in boards):
                continue
            # seen from the front (looking along -normal), the viewer's right is -normal turned by -90 degrees
            right = np.array([-normal[1], normal[0]])
            c = np.array([cx, cy])
            tl = np.r_[c - right * bw / 2, zc + bh / 2]
            tr = np.r_[c + right * bw / 2, zc + bh / 2]
            br = np.r_[c + right * bw / 2, zc - bh / 2]
            bl = np.r_[c - right * bw / 2, zc - bh / 2]
            iid = next_id[0]
            next_id[0] += 1
            boards.append(Board(iid, tuple(lines), np.array([tl, tr, br, bl]), normal, t, hint))
            break
    return boards
