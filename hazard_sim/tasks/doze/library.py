"""DOZE's object library: parametric mesh builders, one per object kind.

Each :class:`Kind` has a category name (what ground-truth segmentation labels it),
a builder ``(color) -> Shape`` drawing a recognisable mesh (a basketball is a
sphere with seams, a mug has a handle, a lamp a shade), a place (``surface``:
stands on tables and shelves; ``floor``: stands on the floor) and whether it is
an open-vocabulary kind (an unusual thing such as a stone lion statue).

:data:`KINDS` holds them all (``len(KINDS) >= 150``); :data:`COLORS` names the
colours appearance goals use, :data:`MATERIALS` and :data:`PATTERNS` the other
appearance attributes.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from hazard_sim.render.mesh import text_texture
from hazard_sim.tasks.doze.shapes import (
    Label,
    Shape,
    box,
    checks,
    cone,
    cylinder,
    dots,
    ellipsoid,
    grain,
    lathe,
    rod,
    rot_x,
    rot_y,
    seams,
    sphere,
    stripes,
    torus,
)

#: colour names used in appearance goals, with the RGB drawn (agents name colours from pixels)
COLORS: dict[str, tuple[int, int, int]] = {
    "red": (200, 30, 30), "green": (40, 160, 50), "blue": (40, 70, 200), "yellow": (235, 205, 40),
    "orange": (240, 130, 30), "purple": (130, 50, 160), "pink": (240, 130, 180), "white": (240, 240, 240),
    "black": (25, 25, 25), "brown": (120, 75, 40), "grey": (128, 128, 128),
}
#: materials as the colour signatures they are drawn with
MATERIALS: dict[str, tuple[int, int, int]] = {
    "wooden": (150, 100, 55), "metal": (170, 175, 185), "golden": (212, 175, 55), "glass": (175, 220, 225),
    "ceramic": (235, 230, 215), "plastic": (60, 170, 200),
}
#: printed patterns: two colours alternating
PATTERNS = ("striped", "dotted", "checkered")
BRANDS = ("ZUMO", "KALO", "NIXA", "VORTA", "PIKO", "LUMA")

DEFAULT = (150, 150, 150)


@dataclass(frozen=True)
class Kind:
    name: str
    build: Callable[[tuple], Shape]
    color: tuple = DEFAULT
    place: str = "surface"          # surface | floor
    open_vocab: bool = False

    @property
    def category(self) -> str:
        return self.name

    def shape(self, color=None) -> Shape:
        return self.build(self.color if color is None else color)


def _dark(c, f=0.55):
    return tuple(int(x * f) for x in c) if not callable(c) else (40, 40, 40)


def _mix(c):
    """A plain colour for parts next to a patterned surface."""
    return c if not callable(c) else (200, 200, 200)


# ------------------------------------------------------------------ builders
def ball(r, kind=None, line=(20, 20, 20)):
    def b(c):
        col = seams(c, line, kind=kind) if kind else c
        return Shape().add(sphere((0, 0, r), r, col, rings=10, seg=18))
    return b


def ellipsoid_obj(rx, ry, rz, line=None):
    def b(c):
        col = stripes(c, line, 0.25 * rz, axis=0) if line else c
        return Shape().add(ellipsoid((0, 0, rz), (rx, ry, rz), col, rings=8, seg=16))
    return b


def vessel(profile, handle=None, spout=None, lid=False, seg=16):
    """A lathe container: ``handle`` (height, size) adds a torus arc, ``spout`` a slanted rod."""
    prof = np.asarray(profile, float)

    def b(c):
        s = Shape().add(lathe(prof, c, seg))
        rmax = prof[:, 0].max()
        if handle:
            hz, hs = handle
            s.add(torus(hs, 0.18 * hs, _dark(c, 0.9), center=(rmax, 0, hz), rot=rot_x(np.pi / 2),
                        arc=np.pi, seg=10, tube=6).moved(rot_y(0), (0, 0, 0)))
        if spout:
            z0, length = spout
            s.add(rod((-rmax * 0.9, 0, z0), (-rmax - length, 0, z0 + length * 0.8), 0.012 + 0.05 * rmax,
                      _dark(c, 0.9)))
        if lid:
            top = prof[-1, 1]
            s.add(sphere((0, 0, top + 0.01), 0.15 * rmax + 0.005, _dark(c, 0.7), rings=4, seg=8))
        return s
    return b


def cup_profile(r, h, r_bottom=None, wall=0.006):
    rb = r if r_bottom is None else r_bottom
    return [(1e-4, 0), (rb, 0), (r, h), (r - wall, h), (rb - wall, wall * 2), (1e-4, wall * 2)]


def mug(r=0.045, h=0.1):
    return vessel(cup_profile(r, h), handle=(h * 0.5, h * 0.32))


def lamp(base_r, pole_h, shade_r, shade_h, floor=False):
    def b(c):
        s = Shape()
        s.add(cylinder(base_r, 0.03, (60, 60, 60)))
        s.add(rod((0, 0, 0.03), (0, 0, pole_h), 0.012 if not floor else 0.018, (90, 90, 90)))
        s.add(lathe([(shade_r, pole_h - shade_h * 0.3), (shade_r * 0.6, pole_h + shade_h * 0.7)], c, 18))
        s.add(sphere((0, 0, pole_h), 0.03, (255, 245, 200), rings=4, seg=8))
        return s
    return b


def book(w, d, h, title=None):
    def b(c):
        s = Shape().add(box((0, 0, h / 2), (w, d, h), c))
        s.add(box((0.004, 0, h / 2), (w - 0.006, d + 0.002, h * 0.92), (240, 235, 220)))
        if title:
            s.labels.append(Label(np.array([[-w / 2 + 0.005, -d / 2 - 0.002, h * 0.8], [w / 2 - 0.005, -d / 2 - 0.002,
                                             h * 0.8], [w / 2 - 0.005, -d / 2 - 0.002, h * 0.2],
                                            [-w / 2 + 0.005, -d / 2 - 0.002, h * 0.2]]),
                                  text_texture([title], width=256, font_size=48)))
        return s
    return b


def branded_box(w, d, h, brand):
    def b(c):
        s = Shape().add(box((0, 0, h / 2), (w, d, h), c))
        tex = text_texture([brand], width=256, font_size=64, fg=(255, 255, 255), bg=_dark(_mix(c), 0.5))
        s.labels.append(Label(np.array([[-w * 0.45, -d / 2 - 0.003, h * 0.75], [w * 0.45, -d / 2 - 0.003, h * 0.75],
                                        [w * 0.45, -d / 2 - 0.003, h * 0.45], [-w * 0.45, -d / 2 - 0.003, h * 0.45]]),
                              tex))
        return s
    return b


def boxy(w, d, h, lid=None, feet=False):
    def b(c):
        s = Shape().add(box((0, 0, h / 2), (w, d, h), c))
        if lid:
            s.add(box((0, 0, h + 0.01), (w * 1.04, d * 1.04, 0.02), lid if lid != "dark" else _dark(c)))
        if feet:
            for sx in (-1, 1):
                for sy in (-1, 1):
                    s.add(cylinder(0.01, 0.02, (40, 40, 40), center=(sx * w * 0.4, sy * d * 0.4, -0.02)))
        return s
    return b


def screen_device(w, d, h, open_lid=True):
    """Laptop: a base and an opened screen; tablet / phone: a thin slab with a dark screen."""
    def b(c):
        s = Shape().add(box((0, 0, 0.01), (w, d, 0.02), c))
        if open_lid:
            s.add(box((0, d / 2, h / 2 + 0.01), (w, 0.015, h), c).moved(None, (0, 0, 0)))
            s.add(box((0, d / 2 - 0.009, h / 2 + 0.01), (w * 0.9, 0.003, h * 0.85), (20, 30, 50)))
        else:
            s.add(box((0, 0, 0.021), (w * 0.9, d * 0.9, 0.002), (20, 30, 50)))
        return s
    return b


def plant(pot_r, pot_h, leaf_h, leaves=6, kind="leafy"):
    def b(c):
        s = Shape().add(lathe([(1e-4, 0), (pot_r * 0.75, 0), (pot_r, pot_h), (pot_r * 0.9, pot_h),
                               (1e-4, pot_h * 0.9)], c, 14))
        green = (50, 140, 60)
        if kind == "cactus":
            s.add(cylinder(pot_r * 0.45, leaf_h, green, center=(0, 0, pot_h * 0.9), r_top=pot_r * 0.3))
            s.add(rod((0, 0, pot_h + leaf_h * 0.4), (pot_r * 0.7, 0, pot_h + leaf_h * 0.6), pot_r * 0.15, green))
            s.add(rod((pot_r * 0.7, 0, pot_h + leaf_h * 0.6), (pot_r * 0.7, 0, pot_h + leaf_h * 0.85),
                      pot_r * 0.15, green))
        elif kind == "flowers":
            for k in range(leaves):
                a = 2 * np.pi * k / leaves
                tip = (pot_r * 0.5 * np.cos(a), pot_r * 0.5 * np.sin(a), pot_h + leaf_h)
                s.add(rod((0, 0, pot_h), tip, 0.004, green))
                s.add(sphere(tip, 0.025, ((230, 60, 90), (250, 220, 60), (240, 240, 240))[k % 3], rings=4, seg=8))
        else:
            for k in range(leaves):
                a = 2 * np.pi * k / leaves
                s.add(ellipsoid((pot_r * 0.6 * np.cos(a), pot_r * 0.6 * np.sin(a), pot_h + leaf_h * 0.5),
                                (pot_r * 0.35, pot_r * 0.35, leaf_h * 0.5), green, rings=5, seg=8))
        return s
    return b


def figure(body, head, legs=4, tail=0.0, extra=None):
    """Animal figurines: an ellipsoid body (rx, ry, rz) on legs, a head, an optional tail."""
    rx, ry, rz = body

    def b(c):
        leg_h = rz * 1.2
        s = Shape().add(ellipsoid((0, 0, leg_h + rz * 0.8), (rx, ry, rz), c, rings=8, seg=14))
        s.add(sphere((rx * 1.05, 0, leg_h + rz * 1.5), head, c, rings=6, seg=12))
        s.add(sphere((rx * 1.05 + head * 0.8, head * 0.35, leg_h + rz * 1.6), head * 0.18, (20, 20, 20), 3, 6))
        s.add(sphere((rx * 1.05 + head * 0.8, -head * 0.35, leg_h + rz * 1.6), head * 0.18, (20, 20, 20), 3, 6))
        if legs:
            for sx in (-0.6, 0.6):
                for sy in (-0.5, 0.5):
                    s.add(rod((sx * rx, sy * ry, leg_h + rz * 0.3), (sx * rx, sy * ry, 0), rz * 0.25, c, seg=6))
        if tail:
            s.add(rod((-rx * 0.95, 0, leg_h + rz), (-rx - tail, 0, leg_h + rz * 0.4), rz * 0.15, c, seg=6))
        if extra:
            extra(s, c, leg_h)
        return s
    return b


def _stego_plates(s, c, leg_h):
    for k in range(6):
        x = -0.08 + 0.035 * k
        s.add(cone(0.022, 0.05 - 0.004 * abs(k - 2.5), (180, 80, 40), center=(x, 0, leg_h + 0.09)))


def _lion_mane(s, c, leg_h):
    s.add(sphere((0.12, 0, leg_h + 0.11), 0.065, _dark(c, 0.8), rings=6, seg=12))
    s.add(box((0, 0, -0.015 + 0.0), (0.32, 0.16, 0.03), (110, 110, 105)))


def _unicorn_horn(s, c, leg_h):
    s.add(rod((0.16, 0, leg_h + 0.14), (0.2, 0, leg_h + 0.2), 0.006, (230, 200, 80)))


def _elephant_trunk(s, c, leg_h):
    s.add(rod((0.16, 0, leg_h + 0.1), (0.2, 0, leg_h + 0.02), 0.012, c))
    s.add(ellipsoid((0.13, 0.05, leg_h + 0.12), (0.01, 0.04, 0.04), c, 4, 8))
    s.add(ellipsoid((0.13, -0.05, leg_h + 0.12), (0.01, 0.04, 0.04), c, 4, 8))


def snowman(c):
    s = Shape().add(sphere((0, 0, 0.12), 0.12, c), sphere((0, 0, 0.31), 0.085, c), sphere((0, 0, 0.44), 0.06, c))
    s.add(cone(0.012, 0.07, (240, 120, 20), center=(0.0, 0, 0.44)).moved(rot_y(np.pi / 2), (0.05, 0, 0.44)))
    s.add(cylinder(0.045, 0.07, (20, 20, 20), center=(0, 0, 0.49)), cylinder(0.07, 0.01, (20, 20, 20),
                                                                            center=(0, 0, 0.49)))
    return s


def kitten_on_skateboard(c):
    s = Shape().add(box((0, 0, 0.05), (0.3, 0.09, 0.015), (60, 60, 70)))
    for sx in (-0.1, 0.1):
        for sy in (-0.035, 0.035):
            s.add(sphere((sx, sy, 0.02), 0.02, (240, 240, 240), 4, 8))
    s.add(ellipsoid((0, 0, 0.12), (0.09, 0.05, 0.055), c), sphere((0.09, 0, 0.19), 0.045, c))
    s.add(cone(0.015, 0.03, c, center=(0.09, 0.025, 0.225)), cone(0.015, 0.03, c, center=(0.09, -0.025, 0.225)))
    s.add(rod((-0.08, 0, 0.13), (-0.12, 0, 0.22), 0.008, c))
    return s


def genie_lamp(c):
    s = Shape().add(ellipsoid((0, 0, 0.05), (0.09, 0.05, 0.04), c))
    s.add(rod((0.07, 0, 0.05), (0.17, 0, 0.09), 0.01, c), cylinder(0.03, 0.02, c, center=(0, 0, 0.085)))
    s.add(sphere((0, 0, 0.11), 0.012, c, 4, 6))
    s.add(torus(0.03, 0.006, c, center=(-0.1, 0, 0.06), rot=rot_x(np.pi / 2), arc=np.pi, seg=8, tube=5)
          .moved(rot_y(np.pi / 2), (0, 0, 0)))
    s.add(cylinder(0.03, 0.01, c))
    return s


def rocket(c):
    s = Shape().add(cylinder(0.04, 0.25, c, center=(0, 0, 0.04)), cone(0.04, 0.1, (200, 30, 30), (0, 0, 0.29)))
    for k in range(3):
        a = 2 * np.pi * k / 3
        s.add(box((0.05 * np.cos(a), 0.05 * np.sin(a), 0.07), (0.03, 0.006, 0.08), (200, 30, 30), yaw=a))
    return s


def sailboat(c):
    s = Shape().add(ellipsoid((0, 0, 0.04), (0.16, 0.05, 0.04), c))
    s.add(rod((0, 0, 0.06), (0, 0, 0.33), 0.004, (120, 80, 40)))
    s.add(box((0.05, 0, 0.19), (0.09, 0.003, 0.22), (245, 245, 245)))
    return s


def airplane(c):
    s = Shape().add(ellipsoid((0, 0, 0.06), (0.16, 0.025, 0.025), c), box((0, 0, 0.06), (0.05, 0.3, 0.005), c))
    s.add(box((-0.14, 0, 0.09), (0.03, 0.003, 0.05), c), box((-0.14, 0, 0.065), (0.03, 0.1, 0.004), c))
    s.add(cylinder(0.006, 0.035, (40, 40, 40)))
    return s


def lighthouse(c):
    s = Shape().add(cylinder(0.06, 0.3, stripes(c, (245, 245, 245), 0.06), r_top=0.04))
    s.add(cylinder(0.045, 0.05, (250, 240, 150), center=(0, 0, 0.3)), cone(0.05, 0.05, (40, 40, 40), (0, 0, 0.35)))
    return s


def windmill(c):
    s = Shape().add(cylinder(0.06, 0.25, c, r_top=0.04), cone(0.05, 0.06, (120, 60, 40), (0, 0, 0.25)))
    for k in range(4):
        a = np.pi / 4 + k * np.pi / 2
        s.add(box((0.065, 0.07 * np.cos(a), 0.24 + 0.07 * np.sin(a)), (0.005, 0.03, 0.14), (240, 240, 230))
              .moved(None, (0, 0, 0)))
    return s


def eiffel(c):
    s = Shape()
    for sx in (-1, 1):
        for sy in (-1, 1):
            s.add(rod((sx * 0.07, sy * 0.07, 0), (sx * 0.01, sy * 0.01, 0.35), 0.006, c, seg=5))
    s.add(box((0, 0, 0.08), (0.12, 0.12, 0.01), c), box((0, 0, 0.18), (0.06, 0.06, 0.01), c))
    s.add(rod((0, 0, 0.35), (0, 0, 0.42), 0.004, c))
    return s


def pyramid(c):
    return Shape().add(lathe([(1e-4, 0), (0.14, 0), (1e-4, 0.17)], c, 4))


def umbrella(c):
    s = Shape().add(rod((0, 0, 0), (0, 0, 0.85), 0.01, (40, 40, 40)))
    s.add(lathe([(0.45, 0.7), (0.3, 0.8), (0.01, 0.86)], stripes(c, (240, 240, 240), 0.5, axis=0), 16))
    s.add(torus(0.04, 0.008, (40, 40, 40), center=(0.04, 0, 0.02), rot=rot_x(np.pi / 2), arc=np.pi, seg=6, tube=5))
    return s


def guitar(c):
    s = Shape().add(ellipsoid((0, 0, 0.2), (0.19, 0.06, 0.2), c), ellipsoid((0, 0, 0.45), (0.14, 0.055, 0.14), c))
    s.add(cylinder(0.04, 0.005, (30, 20, 10), center=(0, -0.06, 0.4)).moved(rot_x(0), (0, 0, 0)))
    s.add(box((0, 0, 0.78), (0.05, 0.03, 0.5), (90, 55, 25)), box((0, 0, 1.06), (0.08, 0.03, 0.1), (60, 40, 20)))
    return s


def tennis_racket(c):
    s = Shape().add(torus(0.13, 0.01, c, center=(0, 0, 0.45), rot=rot_x(np.pi / 2)).moved(None))
    s.parts[-1] = s.parts[-1].moved(np.diag([1.0, 1.0, 1.0]))
    s.add(box((0, 0, 0.45), (0.22, 0.004, 0.22), (230, 230, 230)))
    s.add(rod((0, 0, 0), (0, 0, 0.32), 0.016, (30, 30, 30)))
    return s


def bat(c):
    return Shape().add(lathe([(1e-4, 0), (0.022, 0), (0.016, 0.03), (0.014, 0.25), (0.03, 0.6), (0.034, 0.8),
                              (1e-4, 0.82)], c, 12).moved(rot_y(np.pi / 2), (-0.4, 0, 0.035)))


def dumbbell(c):
    s = Shape().add(rod((-0.12, 0, 0.05), (0.12, 0, 0.05), 0.014, (120, 120, 120)))
    for x in (-0.11, 0.08):
        s.add(rod((x, 0, 0.05), (x + 0.03, 0, 0.05), 0.05, c, seg=12))
    return s


def kettlebell(c):
    s = Shape().add(sphere((0, 0, 0.1), 0.1, c))
    s.add(torus(0.06, 0.015, c, center=(0, 0, 0.2), rot=rot_x(np.pi / 2), arc=np.pi, seg=10, tube=6))
    return s


def skateboard(c):
    s = Shape().add(box((0, 0, 0.06), (0.8, 0.2, 0.015), c))
    for x in (-0.28, 0.28):
        for y in (-0.07, 0.07):
            s.add(rod((x, y - 0.015, 0.025), (x, y + 0.015, 0.025), 0.025, (240, 240, 230), seg=8))
    return s


def helmet(c):
    return Shape().add(lathe([(0.13, 0), (0.13, 0.04)] + [(0.13 * np.cos(a), 0.04 + 0.12 * np.sin(a))
                                                           for a in np.linspace(0.2, np.pi / 2, 6)], c, 16))


def frisbee(c):
    return Shape().add(lathe([(1e-4, 0.0), (0.1, 0.0), (0.125, 0.02), (0.11, 0.03), (1e-4, 0.028)], c, 20))


def hat(c, brim=0.15, crown=0.1, h=0.12):
    return Shape().add(lathe([(1e-4, 0), (brim, 0), (brim, 0.01), (crown, 0.01), (crown * 0.95, h), (1e-4, h)],
                             c, 18))


def cap(c):
    s = Shape().add(lathe([(0.095 * np.cos(a), 0.09 * np.sin(a)) for a in np.linspace(0, np.pi / 2, 6)], c, 16))
    s.add(box((0.12, 0, 0.005), (0.1, 0.16, 0.008), c))
    return s


def shoe(c):
    s = Shape().add(box((0, 0, 0.015), (0.28, 0.1, 0.03), (240, 240, 240)))
    s.add(ellipsoid((-0.02, 0, 0.05), (0.13, 0.048, 0.05), c, 6, 12), box((-0.08, 0, 0.09), (0.08, 0.08, 0.05), c))
    return s


def backpack(c):
    s = Shape().add(box((0, 0, 0.22), (0.3, 0.15, 0.44), c), ellipsoid((0, 0, 0.44), (0.15, 0.075, 0.05), c, 4, 10))
    s.add(box((0, -0.09, 0.15), (0.24, 0.04, 0.18), _dark(c, 0.8)))
    s.add(torus(0.05, 0.01, _dark(c), center=(0, 0, 0.48), rot=rot_x(np.pi / 2), arc=np.pi, seg=6, tube=5))
    return s


def handbag(c):
    s = Shape().add(lathe([(1e-4, 0), (0.1, 0), (0.08, 0.18), (1e-4, 0.18)], c, 4, scale=(1.6, 0.5)))
    s.add(torus(0.08, 0.008, _dark(c), center=(0, 0, 0.18), rot=rot_x(np.pi / 2), arc=np.pi, seg=8, tube=5))
    return s


def pillow(c, w=0.5, d=0.35, h=0.14):
    return Shape().add(ellipsoid((0, 0, h / 2), (w / 2, d / 2, h / 2), c, 6, 16))


def towel(c):
    return Shape().add(box((0, 0, 0.03), (0.35, 0.25, 0.06), c), box((0, 0, 0.061), (0.35, 0.04, 0.002),
                                                                      _dark(_mix(c), 0.7)))


def teddy(c):
    s = Shape().add(ellipsoid((0, 0, 0.12), (0.08, 0.07, 0.11), c), sphere((0, 0, 0.27), 0.07, c))
    s.add(sphere((0, 0.055, 0.33), 0.025, c, 4, 8), sphere((0, -0.055, 0.33), 0.025, c, 4, 8))
    s.add(sphere((0.06, 0, 0.26), 0.025, _dark(_mix(c), 1.2) if not callable(c) else (220, 200, 170), 4, 8))
    for y in (-0.06, 0.06):
        s.add(sphere((0.04, y * 1.4, 0.14), 0.035, c, 4, 8), sphere((0.05, y, 0.03), 0.035, c, 4, 8))
    return s


def rubber_duck(c):
    s = Shape().add(ellipsoid((0, 0, 0.04), (0.06, 0.045, 0.04), c), sphere((0.035, 0, 0.095), 0.03, c))
    s.add(ellipsoid((0.07, 0, 0.09), (0.02, 0.012, 0.006), (240, 120, 20), 4, 8))
    return s


def toy_car(c):
    s = Shape().add(box((0, 0, 0.04), (0.2, 0.09, 0.04), c), box((-0.01, 0, 0.075), (0.1, 0.08, 0.035), c))
    s.add(box((0.04, 0, 0.075), (0.004, 0.07, 0.028), (150, 200, 230)))
    for x in (-0.065, 0.065):
        s.add(rod((x, -0.05, 0.02), (x, 0.05, 0.02), 0.02, (20, 20, 20), seg=8))
    return s


def toy_train(c):
    s = Shape().add(box((0, 0, 0.05), (0.22, 0.08, 0.05), c), rod((0.02, 0, 0.07), (0.12, 0, 0.07), 0.035, c))
    s.add(box((-0.07, 0, 0.1), (0.08, 0.08, 0.07), _dark(_mix(c))), cylinder(0.012, 0.05, (20, 20, 20),
                                                                           center=(0.09, 0, 0.1)))
    for x in (-0.07, 0.0, 0.07):
        s.add(rod((x, -0.05, 0.025), (x, 0.05, 0.025), 0.022, (200, 30, 30), seg=8))
    return s


def toy_robot(c):
    s = Shape().add(box((0, 0, 0.14), (0.1, 0.07, 0.12), c), box((0, 0, 0.245), (0.08, 0.07, 0.07), c))
    s.add(sphere((0.036, 0.018, 0.255), 0.008, (250, 40, 40), 3, 6), sphere((0.036, -0.018, 0.255), 0.008,
                                                                            (250, 40, 40), 3, 6))
    s.add(rod((0, 0, 0.28), (0, 0, 0.31), 0.003, (90, 90, 90)), box((0, 0.03, 0.04), (0.04, 0.03, 0.08), c))
    s.add(box((0, -0.03, 0.04), (0.04, 0.03, 0.08), c), box((0, 0.065, 0.14), (0.03, 0.025, 0.1), c))
    s.add(box((0, -0.065, 0.14), (0.03, 0.025, 0.1), c))
    return s


def chess_piece(crown="king"):
    def b(c):
        prof = [(1e-4, 0), (0.04, 0), (0.04, 0.015), (0.028, 0.025), (0.015, 0.09), (0.03, 0.1), (0.018, 0.11)]
        s = Shape().add(lathe(prof + [(1e-4, 0.11)], c, 14))
        if crown == "king":
            s.add(box((0, 0, 0.13), (0.008, 0.008, 0.04), c), box((0, 0, 0.135), (0.03, 0.008, 0.008), c))
        elif crown == "queen":
            s.add(sphere((0, 0, 0.125), 0.02, c, 5, 10))
        else:   # knight: a horse head
            s.add(box((0.01, 0, 0.14), (0.05, 0.025, 0.06), c, yaw=0).moved(rot_y(-0.4), (0, 0, 0)))
        return s
    return b


def clock(c):
    s = Shape().add(cylinder(0.12, 0.04, c).moved(rot_x(np.pi / 2), (0, 0.02, 0.13)))
    s.add(cylinder(0.105, 0.004, (245, 245, 240)).moved(rot_x(np.pi / 2), (0, -0.022, 0.13)))
    s.add(box((0, -0.027, 0.16), (0.006, 0.003, 0.06), (20, 20, 20)), box((0.03, -0.027, 0.13), (0.06, 0.003, 0.006),
                                                                         (20, 20, 20)))
    s.add(box((0, 0, 0.005), (0.1, 0.05, 0.01), c))
    return s


def alarm_clock(c):
    s = Shape().add(cylinder(0.06, 0.04, c).moved(rot_x(np.pi / 2), (0, 0.02, 0.08)))
    s.add(cylinder(0.05, 0.003, (245, 245, 240)).moved(rot_x(np.pi / 2), (0, -0.021, 0.08)))
    for x in (-0.04, 0.04):
        s.add(sphere((x, 0, 0.14), 0.022, (200, 200, 60), 4, 8), rod((x, 0, 0.03), (x * 1.3, 0, 0.0), 0.005, c))
    return s


def globe(c):
    s = Shape().add(cylinder(0.07, 0.02, (90, 60, 30)), rod((0, 0, 0.02), (0, 0, 0.12), 0.008, (90, 60, 30)))
    s.add(sphere((0, 0, 0.25), 0.13, lambda v: np.where((np.sin(6 * v[:, 0] / 0.13) + np.cos(5 * v[:, 1] / 0.13)
                                                          > 0.6)[:, None], (60, 150, 60), c)))
    s.add(torus(0.14, 0.005, (180, 150, 60), center=(0, 0, 0.25), rot=rot_x(np.pi / 2), arc=np.pi))
    return s


def speaker(c):
    s = Shape().add(box((0, 0, 0.15), (0.18, 0.16, 0.3), c))
    for z, r in ((0.08, 0.06), (0.22, 0.03)):
        s.add(cylinder(r, 0.01, (40, 40, 40)).moved(rot_x(np.pi / 2), (0, -0.08, z)))
    return s


def camera_obj(c):
    s = Shape().add(box((0, 0, 0.045), (0.13, 0.07, 0.09), c))
    s.add(cylinder(0.03, 0.05, (30, 30, 30)).moved(rot_x(np.pi / 2), (0, -0.035, 0.045)))
    s.add(box((-0.04, 0, 0.095), (0.03, 0.03, 0.015), c))
    return s


def headphones(c):
    s = Shape().add(torus(0.09, 0.012, c, center=(0, 0, 0.09), rot=rot_x(np.pi / 2), arc=np.pi, seg=12, tube=6))
    for x in (-0.09, 0.09):
        s.add(cylinder(0.045, 0.03, _dark(_mix(c), 0.6)).moved(rot_y(np.pi / 2), (x - 0.015 * np.sign(x), 0, 0.05)))
    return s


def fan(c):
    s = Shape().add(cylinder(0.1, 0.03, c), rod((0, 0, 0.03), (0, 0, 0.45), 0.015, c))
    s.add(cylinder(0.05, 0.06, c).moved(rot_y(np.pi / 2), (-0.03, 0, 0.5)))
    for k in range(3):
        a = 2 * np.pi * k / 3
        s.add(box((0.04, 0.08 * np.cos(a), 0.5 + 0.08 * np.sin(a)), (0.01, 0.06, 0.14), (220, 220, 230)))
    s.add(torus(0.18, 0.004, (90, 90, 90), center=(0.045, 0, 0.5), rot=rot_y(np.pi / 2), seg=20, tube=4))
    return s


def bird_cage(c):
    s = Shape().add(cylinder(0.15, 0.02, c))
    for k in range(12):
        a = 2 * np.pi * k / 12
        s.add(rod((0.14 * np.cos(a), 0.14 * np.sin(a), 0.02), (0.14 * np.cos(a), 0.14 * np.sin(a), 0.32),
                  0.003, c, seg=4))
    s.add(lathe([(0.15, 0.32), (0.1, 0.38), (0.01, 0.4)], c, 14), torus(0.03, 0.004, c, center=(0, 0, 0.43),
                                                                     rot=rot_x(np.pi / 2)))
    s.add(ellipsoid((0, 0, 0.15), (0.04, 0.025, 0.03), (240, 200, 40), 4, 8))
    return s


def fish_bowl(c):
    s = Shape().add(lathe([(1e-4, 0), (0.08, 0.0)] + [(0.15 * np.sin(a), 0.15 - 0.15 * np.cos(a))
                                                      for a in np.linspace(0.6, 2.5, 7)], (180, 220, 235), 16))
    s.add(ellipsoid((0, 0, 0.12), (0.04, 0.012, 0.022), c, 4, 8), cone(0.02, 0.02, c).moved(rot_y(-np.pi / 2),
                                                                                           (-0.035, 0, 0.12)))
    return s


def treasure_chest(c):
    s = Shape().add(box((0, 0, 0.1), (0.4, 0.25, 0.2), grain(c)))
    s.add(lathe([(0.125 * np.cos(a), 0.2 + 0.08 * np.sin(a)) for a in np.linspace(0, np.pi / 2, 5)], c, 20,
                scale=(1.6, 1.0)))
    for x in (-0.15, 0.15):
        s.add(box((x, 0, 0.15), (0.03, 0.26, 0.3), (212, 175, 55)))
    return s


def crystal_ball(c):
    return Shape().add(cylinder(0.07, 0.04, (60, 40, 30), r_top=0.05), sphere((0, 0, 0.12), 0.08, c, 10, 18))


def skull(c):
    s = Shape().add(sphere((0, 0, 0.09), 0.08, c), box((0.045, 0, 0.03), (0.06, 0.08, 0.05), c))
    for y in (-0.028, 0.028):
        s.add(sphere((0.07, y, 0.09), 0.02, (20, 20, 20), 4, 8))
    return s


def hourglass(c):
    s = Shape().add(cylinder(0.07, 0.015, (120, 80, 40)), cylinder(0.07, 0.015, (120, 80, 40), center=(0, 0, 0.2)))
    s.add(lathe([(0.05, 0.015), (0.008, 0.11), (0.05, 0.2)], (200, 230, 235), 14))
    s.add(cone(0.035, 0.04, (230, 200, 120), center=(0, 0, 0.015)))
    return s


def trophy(c):
    s = Shape().add(box((0, 0, 0.03), (0.1, 0.1, 0.06), (40, 30, 20)))
    s.add(lathe([(0.02, 0.06), (0.012, 0.12), (0.04, 0.15), (0.07, 0.24), (0.065, 0.245), (1e-4, 0.16)], c, 16))
    for x in (-0.075, 0.075):
        s.add(torus(0.03, 0.006, c, center=(x, 0, 0.2), rot=rot_x(np.pi / 2), arc=np.pi, seg=8, tube=5)
              .moved(rot_y(0)))
    return s


def bust(c):
    s = Shape().add(box((0, 0, 0.05), (0.14, 0.14, 0.1), c), ellipsoid((0, 0, 0.17), (0.07, 0.12, 0.06), c))
    s.add(cylinder(0.03, 0.05, c, center=(0, 0, 0.22)), ellipsoid((0, 0, 0.31), (0.065, 0.055, 0.08), c))
    return s


def dragon(c):
    def wings(s, c, leg_h):
        for y in (-1, 1):
            s.add(box((0, y * 0.12, leg_h + 0.15), (0.12, 0.16, 0.006), _dark(c, 0.8)).moved(rot_x(y * 0.4)))
        s.add(cone(0.01, 0.04, (240, 230, 200), center=(0.16, 0.02, leg_h + 0.15)))
    return figure((0.13, 0.06, 0.06), 0.05, tail=0.15, extra=wings)(c)


def mushroom(c):
    s = Shape().add(cylinder(0.03, 0.12, (240, 235, 220), r_top=0.025))
    s.add(lathe([(0.11, 0.12), (0.09, 0.17), (0.01, 0.2)], dots(c, (250, 250, 250), 0.05), 18))
    return s


def hot_air_balloon(c):
    s = Shape().add(box((0, 0, 0.03), (0.06, 0.06, 0.06), (140, 90, 40)))
    for sx in (-1, 1):
        for sy in (-1, 1):
            s.add(rod((sx * 0.03, sy * 0.03, 0.06), (sx * 0.05, sy * 0.05, 0.14), 0.002, (60, 60, 60), seg=4))
    s.add(ellipsoid((0, 0, 0.25), (0.12, 0.12, 0.14), stripes(c, (250, 230, 60), 0.04, axis=0), 10, 16))
    return s


def penguin(c):
    s = Shape().add(ellipsoid((0, 0, 0.12), (0.08, 0.07, 0.12), c), sphere((0, 0, 0.26), 0.055, c))
    s.add(ellipsoid((0.045, 0, 0.11), (0.04, 0.05, 0.09), (245, 245, 245)))
    s.add(cone(0.012, 0.04, (240, 160, 30)).moved(rot_y(np.pi / 2), (0.05, 0, 0.26)))
    return s


def owl(c):
    s = Shape().add(ellipsoid((0, 0, 0.1), (0.07, 0.065, 0.1), c), sphere((0, 0, 0.21), 0.06, c))
    for y in (-0.025, 0.025):
        s.add(sphere((0.05, y, 0.22), 0.018, (250, 220, 60), 4, 8), cone(0.012, 0.03, c, center=(0, y * 1.5, 0.25)))
    return s


def banana(c):
    pts = [(0.1 * np.sin(t), 0, 0.02 + 0.05 * (1 - np.cos(t))) for t in np.linspace(-1.0, 1.0, 6)]
    s = Shape()
    for a, b in zip(pts[:-1], pts[1:]):
        s.add(rod(a, b, 0.018, c, seg=6))
    return s


def grapes(c):
    s = Shape()
    k = 0
    for z, n in ((0.12, 4), (0.09, 4), (0.06, 3), (0.03, 2), (0.01, 1)):
        for i in range(n):
            a = 2 * np.pi * i / n + 0.3 * k
            s.add(sphere((0.02 * np.cos(a) * (n > 1), 0.02 * np.sin(a) * (n > 1), z + 0.01), 0.014, c, 4, 8))
        k += 1
    s.add(rod((0, 0, 0.14), (0.01, 0, 0.17), 0.003, (90, 60, 20)))
    return s


def stacked(layers):
    """Food made of stacked discs (a burger, a cake): [(radius, height, colour), ...]."""
    def b(c):
        s, z = Shape(), 0.0
        for r, h, col in layers:
            s.add(cylinder(r, h, c if col is None else col, center=(0, 0, z), seg=18))
            z += h
        return s
    return b


def fruit(r, squash=1.0, stem=True, pattern=None):
    def b(c):
        col = stripes(c, _dark(c, 0.6), r / 3, axis=0) if pattern == "striped" else c
        s = Shape().add(ellipsoid((0, 0, r * squash), (r, r, r * squash), col, 8, 14))
        if stem:
            s.add(rod((0, 0, 2 * r * squash - 0.005), (0.005, 0, 2 * r * squash + 0.015), 0.003, (90, 60, 20)))
        return s
    return b


def pineapple(c):
    s = Shape().add(ellipsoid((0, 0, 0.11), (0.07, 0.07, 0.11), checks(c, _dark(c, 0.7), 0.025)))
    for k in range(6):
        a = 2 * np.pi * k / 6
        s.add(rod((0, 0, 0.21), (0.04 * np.cos(a), 0.04 * np.sin(a), 0.3), 0.01, (40, 130, 50), seg=4))
    return s


def donut(c):
    return Shape().add(torus(0.05, 0.025, lambda v: np.where((v[:, 2] > 0.005)[:, None], (230, 120, 170), c),
                             center=(0, 0, 0.025)))


def pizza(c):
    s = Shape().add(cylinder(0.16, 0.015, (230, 180, 100)), cylinder(0.145, 0.004, c, center=(0, 0, 0.015)))
    for k in range(7):
        a = 2 * np.pi * k / 7
        s.add(cylinder(0.02, 0.005, (180, 40, 40), center=(0.08 * np.cos(a), 0.08 * np.sin(a), 0.018)))
    return s


def carrot(c):
    return Shape().add(cone(0.025, 0.18, c).moved(rot_y(np.pi / 2), (-0.09, 0, 0.025)),
                       rod((-0.09, 0, 0.025), (-0.14, 0, 0.05), 0.008, (40, 140, 50), seg=5))


def bread(c):
    return Shape().add(ellipsoid((0, 0, 0.04), (0.15, 0.07, 0.06), c, 6, 14))


def cupcake(c):
    s = Shape().add(cylinder(0.03, 0.04, stripes((240, 240, 240), (200, 200, 200), 0.01, axis=0), r_top=0.04))
    s.add(sphere((0, 0, 0.05), 0.038, c, 5, 12), sphere((0, 0, 0.095), 0.01, (200, 20, 30), 3, 6))
    return s


def hammer(c):
    return Shape().add(rod((-0.15, 0, 0.02), (0.12, 0, 0.02), 0.014, c), box((0.13, 0, 0.03), (0.03, 0.12, 0.03),
                                                                               (80, 80, 90)))


def scissors(c):
    s = Shape().add(box((0.06, 0.01, 0.005), (0.12, 0.012, 0.004), (190, 190, 200), yaw=0.1))
    s.add(box((0.06, -0.01, 0.005), (0.12, 0.012, 0.004), (190, 190, 200), yaw=-0.1))
    for y in (-0.025, 0.025):
        s.add(torus(0.02, 0.006, c, center=(-0.03, y, 0.006)))
    return s


def broom(c):
    s = Shape().add(rod((0, 0, 0.12), (0, 0, 1.2), 0.012, (140, 100, 60)))
    s.add(lathe([(1e-4, 0), (0.12, 0), (0.03, 0.14), (1e-4, 0.14)], c, 4, scale=(1.0, 0.3)))
    return s


def hockey_stick(c):
    return Shape().add(rod((0, 0, 0.02), (0.9, 0, 0.08), 0.015, c), box((-0.1, 0.01, 0.04), (0.22, 0.03, 0.08), c))


def violin(c):
    s = Shape().add(ellipsoid((0, 0, 0.04), (0.12, 0.1, 0.04), c), ellipsoid((0.13, 0, 0.04), (0.09, 0.08, 0.04), c))
    s.add(box((0.33, 0, 0.06), (0.2, 0.025, 0.02), (40, 30, 20)), box((0.45, 0, 0.06), (0.05, 0.03, 0.03),
                                                                       (60, 40, 20)))
    return s


def drum(c):
    s = Shape().add(cylinder(0.17, 0.2, stripes(c, (240, 240, 240), 0.04, axis=0)))
    s.add(cylinder(0.165, 0.005, (245, 245, 235), center=(0, 0, 0.2)))
    s.add(rod((0.05, 0, 0.23), (0.25, 0.05, 0.27), 0.007, (200, 170, 120)))
    return s


def trumpet(c):
    s = Shape().add(rod((-0.15, 0, 0.05), (0.12, 0, 0.05), 0.008, c))
    s.add(lathe([(0.008, 0), (0.02, 0.06), (0.06, 0.1)], c, 14).moved(rot_y(np.pi / 2), (0.1, 0, 0.05)))
    s.add(box((-0.02, 0, 0.07), (0.06, 0.02, 0.03), c))
    return s


def keyboard(c):
    s = Shape().add(box((0, 0, 0.01), (0.44, 0.14, 0.02), c))
    s.add(box((0, 0, 0.021), (0.4, 0.11, 0.004), checks((230, 230, 230), (140, 140, 140), 0.02)))
    return s


def remote(c):
    s = Shape().add(box((0, 0, 0.012), (0.18, 0.05, 0.024), c))
    for k in range(4):
        s.add(cylinder(0.006, 0.004, (200, 40, 40) if k == 0 else (220, 220, 220), center=(0.06 - 0.035 * k, 0, 0.024)))
    return s


def picture_frame(c):
    s = Shape().add(box((0, 0, 0.12), (0.2, 0.02, 0.24), c))
    s.add(box((0, -0.011, 0.12), (0.16, 0.003, 0.2), lambda v: np.where((v[:, 2] > 0.0)[:, None], (120, 180, 230),
                                                                         (60, 140, 60))))
    return s


def radio(c):
    s = Shape().add(box((0, 0, 0.08), (0.28, 0.1, 0.16), c))
    s.add(cylinder(0.05, 0.005, dots((40, 40, 40), (90, 90, 90), 0.012)).moved(rot_x(np.pi / 2), (-0.06, -0.05, 0.08)))
    s.add(rod((0.1, 0, 0.16), (0.14, 0, 0.35), 0.003, (180, 180, 180)))
    return s


def game_console(c):
    s = Shape().add(box((0, 0, 0.03), (0.28, 0.2, 0.06), c))
    s.add(box((0.2, 0, 0.02), (0.12, 0.06, 0.03), _dark(_mix(c))), rod((0.14, 0, 0.02), (0.03, 0, 0.03), 0.002,
                                                                      (30, 30, 30)))
    return s


def microwave(c):
    s = Shape().add(box((0, 0, 0.15), (0.5, 0.36, 0.3), c))
    s.add(box((-0.05, -0.181, 0.15), (0.32, 0.004, 0.22), (30, 30, 35)), box((0.19, -0.181, 0.15), (0.06, 0.004, 0.2),
                                                                             (200, 200, 200)))
    return s


def toaster(c):
    s = Shape().add(box((0, 0, 0.1), (0.26, 0.15, 0.2), c))
    for y in (-0.03, 0.03):
        s.add(box((0, y, 0.2), (0.18, 0.02, 0.003), (20, 20, 20)))
    s.add(box((0.135, 0, 0.14), (0.01, 0.02, 0.03), (30, 30, 30)))
    return s


def candlestick(c):
    s = Shape().add(lathe([(1e-4, 0), (0.05, 0), (0.015, 0.03), (0.012, 0.15), (0.03, 0.16), (1e-4, 0.16)], c, 14))
    s.add(cylinder(0.01, 0.12, (245, 240, 225), center=(0, 0, 0.16)), cone(0.006, 0.02, (255, 170, 40),
                                                                          center=(0, 0, 0.285)))
    return s


def candle(c):
    return Shape().add(cylinder(0.035, 0.12, c), rod((0, 0, 0.12), (0, 0, 0.135), 0.002, (20, 20, 20)))


def wine_glass(c):
    return Shape().add(lathe([(1e-4, 0), (0.035, 0), (0.005, 0.008), (0.004, 0.09), (0.035, 0.13), (0.04, 0.18),
                              (0.036, 0.18), (1e-4, 0.12)], c, 16))


def teacup(c):
    s = vessel(cup_profile(0.045, 0.055, 0.03), handle=(0.03, 0.02))(c)
    s.add(cylinder(0.075, 0.006, c if not callable(c) else (240, 240, 240), center=(0, 0, -0.006)))
    return s


def cooking_pot(c):
    s = Shape().add(lathe(cup_profile(0.12, 0.14), c, 18), cylinder(0.125, 0.01, c, center=(0, 0, 0.14)))
    s.add(sphere((0, 0, 0.16), 0.015, (30, 30, 30), 3, 6))
    for x in (-0.14, 0.14):
        s.add(box((x, 0, 0.11), (0.04, 0.05, 0.015), (30, 30, 30)))
    return s


def frying_pan(c):
    return Shape().add(lathe([(1e-4, 0), (0.1, 0), (0.12, 0.04), (0.115, 0.04), (0.095, 0.006), (1e-4, 0.006)], c, 18),
                       rod((0.12, 0, 0.03), (0.3, 0, 0.05), 0.012, (30, 30, 30)))


def watering_can(c):
    s = Shape().add(lathe(cup_profile(0.08, 0.2, 0.09), c, 16))
    s.add(rod((0.06, 0, 0.04), (0.26, 0, 0.22), 0.012, c), cone(0.03, 0.04, c).moved(rot_y(-0.9), (0.26, 0, 0.22)))
    s.add(torus(0.08, 0.01, c, center=(0, 0, 0.2), rot=rot_x(np.pi / 2), arc=np.pi, seg=10, tube=5))
    return s


def bucket(c):
    s = Shape().add(lathe(cup_profile(0.14, 0.26, 0.11), c, 18))
    s.add(torus(0.14, 0.005, (120, 120, 120), center=(0, 0, 0.26), rot=rot_x(np.pi / 2), arc=np.pi, seg=12, tube=4))
    return s


def trash_can(c):
    s = Shape().add(lathe(cup_profile(0.15, 0.45, 0.13), c, 18))
    s.add(cylinder(0.16, 0.02, _dark(_mix(c), 0.8), center=(0, 0, 0.45)), sphere((0, 0, 0.48), 0.02,
                                                                                (50, 50, 50), 3, 6))
    return s


def thermos(c):
    return Shape().add(cylinder(0.04, 0.25, c), cylinder(0.042, 0.06, _dark(_mix(c), 0.5), center=(0, 0, 0.25)))


def bottle(r, h, neck=0.3):
    def b(c):
        return Shape().add(lathe([(1e-4, 0), (r, 0), (r, h * (1 - neck)), (r * 0.35, h * (1 - neck * 0.4)),
                                  (r * 0.35, h), (1e-4, h)], c, 14))
    return b


def can(r, h, brand=None):
    def b(c):
        s = Shape().add(cylinder(r, h, c), cylinder(r * 0.92, 0.004, (200, 200, 205), center=(0, 0, h)))
        if brand:
            s.labels.append(Label(np.array([[-r * 0.8, -r - 0.002, h * 0.75], [r * 0.8, -r - 0.002, h * 0.75],
                                            [r * 0.8, -r - 0.002, h * 0.4], [-r * 0.8, -r - 0.002, h * 0.4]]),
                                  text_texture([brand], width=256, font_size=64, fg=(255, 255, 255),
                                               bg=_dark(_mix(c), 0.5))))
        return s
    return b


def piggy_bank(c):
    def snout(s, c, leg_h):
        s.add(cylinder(0.02, 0.02, _dark(c, 0.85)).moved(rot_y(np.pi / 2), (0.16, 0, leg_h + 0.1)))
    return figure((0.11, 0.08, 0.07), 0.001, extra=snout)(c)


def gift_box(c):
    s = Shape().add(box((0, 0, 0.1), (0.2, 0.2, 0.2), c), box((0, 0, 0.1), (0.205, 0.03, 0.205), (240, 200, 40)))
    s.add(box((0, 0, 0.1), (0.03, 0.205, 0.205), (240, 200, 40)), torus(0.03, 0.008, (240, 200, 40),
                                                                       center=(0, 0, 0.21), rot=rot_x(np.pi / 2)))
    return s


def tissue_box(c):
    return Shape().add(box((0, 0, 0.05), (0.24, 0.12, 0.1), c), ellipsoid((0, 0, 0.105), (0.05, 0.03, 0.03),
                                                                          (250, 250, 250), 4, 8))


def toolbox(c):
    s = Shape().add(box((0, 0, 0.08), (0.4, 0.2, 0.16), c), box((0, 0, 0.165), (0.41, 0.21, 0.01), _dark(c, 0.8)))
    s.add(torus(0.06, 0.01, (30, 30, 30), center=(0, 0, 0.17), rot=rot_x(np.pi / 2), arc=np.pi, seg=8, tube=5))
    return s


def laptop(c):
    return screen_device(0.33, 0.23, 0.21)(c)


def basket(c):
    s = Shape().add(lathe(cup_profile(0.15, 0.16, 0.12), checks(c, _dark(c, 0.7), 0.02) if not callable(c) else c, 16))
    s.add(torus(0.15, 0.008, c if not callable(c) else (150, 100, 50), center=(0, 0, 0.16), rot=rot_x(np.pi / 2),
                arc=np.pi, seg=12, tube=4))
    return s


def vase(profile_kind="classic"):
    profiles = {
        "classic": [(1e-4, 0), (0.05, 0), (0.08, 0.08), (0.06, 0.18), (0.035, 0.24), (0.05, 0.28), (0.045, 0.28),
                    (1e-4, 0.03)],
        "tall": [(1e-4, 0), (0.045, 0), (0.05, 0.3), (0.04, 0.4), (0.036, 0.4), (1e-4, 0.03)],
        "round": [(1e-4, 0), (0.05, 0), (0.1, 0.08), (0.09, 0.16), (0.04, 0.2), (0.045, 0.22), (0.04, 0.22),
                  (1e-4, 0.03)],
    }
    return vessel(profiles[profile_kind], seg=18)


def jar(c):
    s = Shape().add(lathe([(1e-4, 0), (0.06, 0), (0.065, 0.12), (0.05, 0.15), (1e-4, 0.15)], c, 16))
    s.add(cylinder(0.052, 0.025, (200, 170, 60), center=(0, 0, 0.15)))
    return s


def bowl(c):
    return Shape().add(lathe([(1e-4, 0), (0.04, 0), (0.09, 0.06), (0.085, 0.062), (0.035, 0.008), (1e-4, 0.008)],
                             c, 18))


def kettle(c):
    return vessel([(1e-4, 0), (0.09, 0), (0.095, 0.1), (0.06, 0.17), (1e-4, 0.18)], handle=(0.16, 0.05),
                  spout=(0.06, 0.08), lid=True)(c)


def teapot(c):
    return vessel([(1e-4, 0), (0.06, 0), (0.09, 0.05), (0.08, 0.1), (0.04, 0.13), (1e-4, 0.135)], handle=(0.07, 0.04),
                  spout=(0.04, 0.07), lid=True)(c)


def salt_shaker(c):
    return Shape().add(cylinder(0.022, 0.08, c), lathe([(0.022, 0.08), (0.015, 0.1), (1e-4, 0.105)],
                                                       (190, 190, 200), 10))


def pepper_mill(c):
    return Shape().add(lathe([(1e-4, 0), (0.03, 0), (0.022, 0.06), (0.028, 0.14), (0.02, 0.2), (0.01, 0.22),
                              (1e-4, 0.23)], c, 14))


def lantern(c):
    s = Shape().add(cylinder(0.07, 0.02, c), cylinder(0.06, 0.16, (255, 230, 150), center=(0, 0, 0.02)))
    s.add(cone(0.075, 0.06, c, center=(0, 0, 0.18)), torus(0.025, 0.005, c, center=(0, 0, 0.26), rot=rot_x(np.pi / 2)))
    return s


def bell(c):
    s = Shape().add(lathe([(0.09, 0), (0.08, 0.01), (0.05, 0.08), (0.045, 0.13), (1e-4, 0.14)], c, 16))
    s.add(torus(0.02, 0.006, c, center=(0, 0, 0.15), rot=rot_x(np.pi / 2)))
    return s


def statue_on_plinth(inner):
    def b(c):
        s = Shape().add(box((0, 0, 0.1), (0.3, 0.3, 0.2), (150, 150, 145)))
        s.add(*[p.moved(None, (0, 0, 0.2)) for p in inner(c).parts])
        return s
    return b


def dinosaur_trex(c):
    s = Shape().add(ellipsoid((0, 0, 0.2), (0.12, 0.06, 0.08), c).moved(rot_y(-0.4), (0, 0, 0.08)))
    s.add(ellipsoid((0.12, 0, 0.4), (0.07, 0.04, 0.045), c), rod((-0.1, 0, 0.25), (-0.3, 0, 0.12), 0.03, c))
    for y in (-0.04, 0.04):
        s.add(rod((0, y, 0.2), (0.02, y, 0.0), 0.025, c), rod((0.1, y, 0.3), (0.14, y, 0.27), 0.008, c))
    return s


def horse(c):
    def neck(s, c, leg_h):
        s.add(rod((0.12, 0, leg_h + 0.08), (0.17, 0, leg_h + 0.18), 0.03, c))
    return figure((0.16, 0.06, 0.07), 0.04, tail=0.08, extra=neck)(c)


def cat_statue(c):
    s = Shape().add(ellipsoid((0, 0, 0.1), (0.07, 0.06, 0.1), c), sphere((0.02, 0, 0.23), 0.05, c))
    s.add(cone(0.018, 0.04, c, center=(0.02, 0.03, 0.26)), cone(0.018, 0.04, c, center=(0.02, -0.03, 0.26)))
    s.add(torus(0.06, 0.01, c, center=(-0.03, 0, 0.01), arc=np.pi))
    return s


def robot_vacuum(c):
    s = Shape().add(cylinder(0.17, 0.08, c), cylinder(0.05, 0.01, (30, 30, 30), center=(0.05, 0, 0.08)))
    return s


def potted_tree(c):
    s = Shape().add(lathe(cup_profile(0.16, 0.3, 0.12), c, 16), rod((0, 0, 0.3), (0, 0, 0.9), 0.03, (100, 70, 40)))
    s.add(sphere((0, 0, 1.05), 0.25, (40, 120, 50), 6, 12), sphere((0.12, 0.05, 0.9), 0.15, (50, 140, 55), 5, 10))
    return s


def easel(c):
    s = Shape()
    for a, b in (((-0.3, 0.1, 0), (0, 0, 1.5)), ((0.3, 0.1, 0), (0, 0, 1.5)), ((0, -0.4, 0), (0, 0, 1.4))):
        s.add(rod(a, b, 0.015, c, seg=5))
    s.add(box((0, 0.05, 0.9), (0.6, 0.02, 0.5), (240, 240, 230)), box((0, 0.07, 0.6), (0.65, 0.06, 0.02), c))
    return s


def guitar_amp(c):
    s = Shape().add(box((0, 0, 0.22), (0.45, 0.25, 0.44), c))
    s.add(box((0, -0.126, 0.18), (0.38, 0.004, 0.3), checks((60, 60, 60), (90, 90, 90), 0.02)))
    return s


def rocking_horse(c):
    s = horse(c)
    s.add(torus(0.6, 0.015, (120, 80, 40), center=(0, 0.05, 0.6), rot=rot_x(np.pi / 2), arc=np.pi, seg=12, tube=5)
          .moved(rot_z_(np.pi), (0, 0.1, 0.6)) if False else box((0, 0.045, 0.0), (0.4, 0.02, 0.02), (120, 80, 40)))
    s.add(box((0, -0.045, 0.0), (0.4, 0.02, 0.02), (120, 80, 40)))
    return s


def rot_z_(a):
    from hazard_sim.tasks.doze.shapes import rot_z
    return rot_z(a)


def totem(c):
    s = Shape()
    for k, col in enumerate((c, (200, 60, 40), (60, 120, 180))):
        s.add(cylinder(0.08, 0.15, col, center=(0, 0, 0.15 * k)))
        s.add(sphere((0.07, 0.03, 0.15 * k + 0.09), 0.015, (250, 250, 250), 3, 6))
        s.add(sphere((0.07, -0.03, 0.15 * k + 0.09), 0.015, (250, 250, 250), 3, 6))
    s.add(box((0, 0, 0.42), (0.05, 0.35, 0.04), c))
    return s


def anchor(c):
    s = Shape().add(rod((0, 0, 0.03), (0, 0, 0.3), 0.012, c), torus(0.02, 0.006, c, center=(0, 0, 0.32),
                                                                   rot=rot_x(np.pi / 2)))
    s.add(torus(0.1, 0.012, c, center=(0, 0, 0.12), rot=rot_x(np.pi / 2), arc=np.pi, seg=10, tube=5)
          .moved(rot_x(np.pi), (0, 0, 0.24)))
    s.add(box((0, 0, 0.26), (0.12, 0.015, 0.015), c))
    return s


def moai(c):
    s = Shape().add(box((0, 0, 0.18), (0.14, 0.12, 0.36), c), box((0.065, 0, 0.2), (0.04, 0.03, 0.1), c))
    s.add(box((0.02, 0, 0.34), (0.17, 0.13, 0.04), c))
    return s


def astronaut(c):
    s = Shape().add(box((0, 0, 0.18), (0.1, 0.12, 0.14), c), sphere((0, 0, 0.3), 0.06, c))
    s.add(sphere((0.03, 0, 0.305), 0.045, (30, 40, 60), 5, 10), box((-0.07, 0, 0.2), (0.04, 0.1, 0.12), c))
    for y in (-0.035, 0.035):
        s.add(rod((0, y, 0.11), (0, y, 0.0), 0.025, c), rod((0, 2.2 * y, 0.24), (0.04, 2.6 * y, 0.12), 0.018, c))
    return s


def octopus(c):
    s = Shape().add(ellipsoid((0, 0, 0.14), (0.07, 0.07, 0.08), c))
    for k in range(8):
        a = 2 * np.pi * k / 8
        s.add(rod((0.04 * np.cos(a), 0.04 * np.sin(a), 0.08), (0.14 * np.cos(a), 0.14 * np.sin(a), 0.01), 0.012, c,
                  seg=5))
    return s


def cactus_big(c):
    return plant(0.13, 0.18, 0.6, kind="cactus")(c)


# ------------------------------------------------------------------ the catalogue
_K: list[Kind] = []


def _k(name, build, color=DEFAULT, place="surface", ov=False):
    _K.append(Kind(name, build, tuple(color), place, ov))


W = COLORS
# balls
_k("basketball", ball(0.12, "basketball"), (230, 110, 30), "floor")
_k("soccer ball", ball(0.11, "soccer"), (245, 245, 245), "floor")
_k("tennis ball", ball(0.033, "tennis", (250, 250, 250)), (205, 230, 60))
_k("volleyball", ball(0.105, "volleyball", (60, 90, 200)), (245, 240, 225), "floor")
_k("baseball", ball(0.037, "tennis", (210, 30, 30)), (245, 245, 240))
_k("beach ball", ball(0.2, "volleyball", (250, 220, 40)), (220, 40, 40), "floor")
_k("bowling ball", ball(0.11), (30, 30, 90), "floor")
_k("golf ball", ball(0.021), (250, 250, 250))
_k("rugby ball", ellipsoid_obj(0.15, 0.09, 0.09, (240, 240, 240)), (140, 80, 40), "floor")
_k("billiard ball", ball(0.028, "tennis", (250, 250, 250)), (20, 20, 20))
_k("globe", globe, (60, 110, 200))
# tableware and containers
_k("mug", mug(), W["white"])
_k("coffee cup", vessel(cup_profile(0.04, 0.11, 0.03)), (240, 240, 240))
_k("teacup", teacup, (240, 240, 250))
_k("bowl", bowl, (230, 230, 220))
_k("vase", vase("classic"), (60, 90, 180))
_k("tall vase", vase("tall"), (40, 120, 120))
_k("round vase", vase("round"), (200, 80, 60))
_k("bottle", bottle(0.035, 0.28), (40, 140, 60))
_k("wine bottle", bottle(0.038, 0.32, 0.4), (60, 20, 40))
_k("water bottle", bottle(0.033, 0.22, 0.2), (140, 200, 240))
_k("wine glass", wine_glass, (190, 225, 235))
_k("jar", jar, (200, 230, 230))
_k("cooking pot", cooking_pot, (170, 175, 185))
_k("frying pan", frying_pan, (40, 40, 45))
_k("kettle", kettle, (180, 185, 190))
_k("teapot", teapot, (240, 240, 235))
_k("watering can", watering_can, (60, 160, 70), "floor")
_k("bucket", bucket, (60, 100, 200), "floor")
_k("trash can", trash_can, (130, 130, 130), "floor")
_k("thermos", thermos, (200, 40, 40))
_k("soda can", can(0.033, 0.12, "FIZZ"), (200, 30, 30))
_k("paint can", can(0.09, 0.19, "PAINT"), (200, 200, 205), "floor")
_k("salt shaker", salt_shaker, (245, 245, 245))
_k("pepper mill", pepper_mill, (90, 60, 40))
_k("basket", basket, (190, 150, 90), "floor")
_k("cookie jar", vessel([(1e-4, 0), (0.08, 0), (0.09, 0.15), (0.06, 0.2), (1e-4, 0.2)], lid=True), (210, 170, 120))
_k("flower pot", vessel(cup_profile(0.1, 0.16, 0.07)), (190, 90, 50), "floor")
_k("candle", candle, (245, 240, 225))
_k("candlestick", candlestick, (212, 175, 55))
_k("hourglass", hourglass, (120, 80, 40))
_k("trophy", trophy, (212, 175, 55))
_k("bell", bell, (212, 175, 55))
_k("lantern", lantern, (40, 40, 40))
# lamps
_k("table lamp", lamp(0.08, 0.35, 0.15, 0.18), (240, 225, 190))
_k("floor lamp", lamp(0.15, 1.5, 0.22, 0.3, floor=True), (245, 235, 210), "floor")
_k("desk lamp", lamp(0.07, 0.3, 0.08, 0.1), (40, 40, 40))
_k("genie lamp", genie_lamp, (212, 175, 55), ov=True)
_k("mushroom lamp", mushroom, (220, 40, 40), ov=True)
# books, boxes, electronics
_k("book", book(0.16, 0.04, 0.23, "NOVEL"), (160, 40, 40))
_k("notebook", book(0.15, 0.015, 0.21), (40, 90, 160))
_k("cereal box", branded_box(0.2, 0.07, 0.3, "OATY"), (230, 180, 40))
_k("shoebox", boxy(0.33, 0.2, 0.12, lid="dark"), (200, 120, 60))
_k("tissue box", tissue_box, (120, 180, 220))
_k("pizza box", boxy(0.35, 0.35, 0.05), (210, 180, 130))
_k("gift box", gift_box, (200, 40, 60))
_k("toolbox", toolbox, (200, 40, 40), "floor")
_k("jewelry box", boxy(0.16, 0.1, 0.07, lid=(212, 175, 55), feet=True), (120, 30, 50))
_k("laptop", laptop, (170, 170, 175))
_k("tablet", screen_device(0.24, 0.17, 0.0, open_lid=False), (40, 40, 45))
_k("cell phone", screen_device(0.075, 0.15, 0.0, open_lid=False), (30, 30, 30))
_k("tv remote", remote, (30, 30, 30))
_k("keyboard", keyboard, (50, 50, 55))
_k("picture frame", picture_frame, (120, 80, 40))
_k("wall clock", clock, (40, 40, 40))
_k("alarm clock", alarm_clock, (200, 40, 40))
_k("radio", radio, (140, 90, 50))
_k("speaker", speaker, (30, 30, 30), "floor")
_k("game console", game_console, (245, 245, 245))
_k("camera", camera_obj, (30, 30, 30))
_k("headphones", headphones, (30, 30, 30))
_k("microwave", microwave, (220, 220, 225))
_k("toaster", toaster, (190, 195, 200))
_k("electric fan", fan, (240, 240, 240), "floor")
_k("robot vacuum", robot_vacuum, (40, 40, 45), "floor")
_k("guitar amplifier", guitar_amp, (30, 30, 30), "floor")
# toys and figures
_k("teddy bear", teddy, (160, 110, 60))
_k("rubber duck", rubber_duck, (250, 220, 40))
_k("toy car", toy_car, (200, 30, 30))
_k("toy train", toy_train, (40, 80, 200))
_k("toy robot", toy_robot, (170, 175, 185))
_k("chess king", chess_piece("king"), (30, 30, 30))
_k("chess queen", chess_piece("queen"), (240, 240, 230))
_k("chess knight", chess_piece("knight"), (30, 30, 30))
_k("snowman", snowman, (250, 250, 250), ov=True)
_k("kitten on a skateboard", kitten_on_skateboard, (230, 150, 60), ov=True)
_k("Stegosaurus model", figure((0.12, 0.05, 0.05), 0.03, tail=0.12, extra=_stego_plates), (90, 140, 70), ov=True)
_k("stone lion statue", statue_on_plinth(figure((0.13, 0.06, 0.06), 0.05, tail=0.1, extra=_lion_mane)),
   (150, 140, 120), "floor", ov=True)
_k("T-rex model", dinosaur_trex, (60, 120, 60), ov=True)
_k("elephant figurine", figure((0.1, 0.07, 0.07), 0.05, tail=0.03, extra=_elephant_trunk), (150, 150, 160), ov=True)
_k("horse figurine", horse, (120, 70, 40))
_k("unicorn figurine", figure((0.11, 0.045, 0.05), 0.035, tail=0.06, extra=_unicorn_horn), (245, 245, 250), ov=True)
_k("dragon figurine", dragon, (160, 40, 40), ov=True)
_k("cat statue", cat_statue, (40, 40, 40))
_k("penguin figurine", penguin, (30, 30, 35), ov=True)
_k("owl figurine", owl, (140, 100, 60), ov=True)
_k("piggy bank", piggy_bank, (240, 150, 170))
_k("rocket model", rocket, (240, 240, 240), ov=True)
_k("airplane model", airplane, (200, 205, 215), ov=True)
_k("sailboat model", sailboat, (120, 70, 40), ov=True)
_k("lighthouse model", lighthouse, (200, 30, 30), ov=True)
_k("windmill model", windmill, (230, 220, 200), ov=True)
_k("Eiffel tower model", eiffel, (110, 100, 90), ov=True)
_k("pyramid model", pyramid, (220, 190, 120), ov=True)
_k("hot air balloon model", hot_air_balloon, (220, 40, 40), ov=True)
_k("bird cage", bird_cage, (212, 175, 55), ov=True)
_k("fish bowl", fish_bowl, (240, 130, 30), ov=True)
_k("treasure chest", treasure_chest, (130, 80, 40), "floor", ov=True)
_k("crystal ball", crystal_ball, (200, 170, 240), ov=True)
_k("skull model", skull, (235, 230, 210), ov=True)
_k("bust statue", bust, (235, 235, 230), ov=True)
_k("moai statue", moai, (120, 115, 110), "floor", ov=True)
_k("astronaut figure", astronaut, (245, 245, 245), ov=True)
_k("octopus plush", octopus, (220, 90, 140), ov=True)
_k("totem pole", totem, (140, 90, 50), "floor", ov=True)
_k("ship anchor", anchor, (60, 60, 65), ov=True)
_k("rocking horse", rocking_horse, (200, 60, 40), "floor", ov=True)
# food
_k("apple", fruit(0.04), (200, 30, 30))
_k("orange", fruit(0.042, stem=False), (240, 140, 30))
_k("lemon", fruit(0.035, 1.3, stem=False), (245, 225, 60))
_k("pear", vessel([(1e-4, 0), (0.04, 0.01), (0.045, 0.04), (0.025, 0.09), (0.012, 0.11), (1e-4, 0.115)]),
   (180, 200, 60))
_k("tomato", fruit(0.035, 0.8), (220, 40, 30))
_k("watermelon", fruit(0.14, 0.85, stem=False, pattern="striped"), (40, 140, 50), "floor")
_k("pineapple", pineapple, (200, 150, 50))
_k("banana", banana, (245, 220, 60))
_k("grapes", grapes, (110, 40, 120))
_k("egg", ellipsoid_obj(0.022, 0.022, 0.03), (240, 230, 210))
_k("donut", donut, (210, 160, 100))
_k("pizza", pizza, (220, 170, 60))
_k("bread loaf", bread, (200, 150, 80))
_k("carrot", carrot, (240, 120, 20))
_k("cupcake", cupcake, (250, 200, 220))
_k("burger", stacked([(0.06, 0.02, (210, 150, 70)), (0.065, 0.018, (110, 60, 30)), (0.066, 0.006, (60, 170, 60)),
                      (0.062, 0.012, (230, 60, 40)), (0.06, 0.03, (210, 150, 70))]), (210, 150, 70))
_k("birthday cake", stacked([(0.13, 0.08, None), (0.09, 0.06, None), (0.005, 0.05, (250, 250, 200))]),
   (250, 220, 230))
# sports, tools, music
_k("baseball bat", bat, (170, 120, 70), "floor")
_k("tennis racket", tennis_racket, (40, 80, 180), "floor")
_k("dumbbell", dumbbell, (40, 40, 40), "floor")
_k("kettlebell", kettlebell, (30, 30, 30), "floor")
_k("skateboard", skateboard, (200, 50, 40), "floor")
_k("helmet", helmet, (220, 40, 40))
_k("frisbee", frisbee, (240, 120, 30))
_k("hockey stick", hockey_stick, (40, 40, 40), "floor")
_k("hammer", hammer, (140, 90, 50))
_k("scissors", scissors, (200, 40, 40))
_k("broom", broom, (220, 190, 90), "floor")
_k("umbrella", umbrella, (40, 60, 160), "floor")
_k("guitar", guitar, (190, 110, 50), "floor")
_k("violin", violin, (150, 70, 30))
_k("drum", drum, (200, 30, 30), "floor")
_k("trumpet", trumpet, (212, 175, 55))
_k("easel", easel, (150, 100, 55), "floor", ov=True)
# soft things and clothes
_k("pillow", pillow, (230, 230, 240))
_k("cushion", lambda c: pillow(c, 0.4, 0.4, 0.12), (200, 60, 60))
_k("towel", towel, (80, 160, 200))
_k("backpack", backpack, (40, 90, 160), "floor")
_k("handbag", handbag, (150, 40, 50))
_k("sun hat", hat, (230, 210, 150))
_k("top hat", lambda c: hat(c, 0.14, 0.09, 0.2), (25, 25, 25), ov=True)
_k("baseball cap", cap, (30, 60, 160))
_k("sneaker", shoe, (200, 40, 40), "floor")
# plants
_k("potted plant", plant(0.09, 0.15, 0.25), (190, 90, 50))
_k("cactus", plant(0.06, 0.08, 0.2, kind="cactus"), (200, 110, 60))
_k("flowers in a pot", plant(0.07, 0.12, 0.2, leaves=7, kind="flowers"), (240, 240, 240))
_k("potted tree", potted_tree, (180, 90, 50), "floor")
_k("giant cactus", cactus_big, (200, 120, 70), "floor", ov=True)

KINDS: dict[str, Kind] = {k.name: k for k in _K}
assert len(KINDS) == len(_K), "kind names must be unique"
OPEN_VOCAB = [k for k in _K if k.open_vocab]


def kind(name: str) -> Kind:
    try:
        return KINDS[name]
    except KeyError:
        raise KeyError(f"unknown DOZE object kind {name!r} ({len(KINDS)} known)") from None


def attribute_color(attr: str):
    """The colour (or colour function) an appearance attribute is drawn with."""
    if attr in COLORS:
        return COLORS[attr]
    if attr in MATERIALS:
        c = MATERIALS[attr]
        return grain(c) if attr == "wooden" else c
    base, second = (240, 240, 240), (200, 40, 40)
    if attr == "striped":
        return stripes(base, second, 0.025)
    if attr == "dotted":
        return dots(base, second, 0.03)
    if attr == "checkered":
        return checks(base, (30, 30, 30), 0.03)
    raise KeyError(f"unknown appearance attribute {attr!r}")
