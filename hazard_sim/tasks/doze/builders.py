"""DOZE's parametric mesh builders: families of objects (balls, lathe vessels, lamps,
books, boxes, plants, four-legged figures, fruit, bottles, vases) that the object
library instantiates with different sizes and colours.
"""
from __future__ import annotations

import numpy as np

from hazard_sim.render.mesh import text_texture
from hazard_sim.tasks.doze.shapes import (
    Label,
    Shape,
    box,
    cylinder,
    ellipsoid,
    lathe,
    rod,
    rot_x,
    rot_y,
    seams,
    sphere,
    stripes,
    torus,
)


def dark(c, f=0.55):
    return tuple(int(x * f) for x in c) if not callable(c) else (40, 40, 40)


def plain(c):
    """A plain colour for parts next to a patterned surface."""
    return c if not callable(c) else (200, 200, 200)


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
            s.add(torus(hs, 0.18 * hs, dark(c, 0.9), center=(rmax, 0, hz), rot=rot_x(np.pi / 2),
                        arc=np.pi, seg=10, tube=6).moved(rot_y(0), (0, 0, 0)))
        if spout:
            z0, length = spout
            s.add(rod((-rmax * 0.9, 0, z0), (-rmax - length, 0, z0 + length * 0.8), 0.012 + 0.05 * rmax,
                      dark(c, 0.9)))
        if lid:
            top = prof[-1, 1]
            s.add(sphere((0, 0, top + 0.01), 0.15 * rmax + 0.005, dark(c, 0.7), rings=4, seg=8))
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
        tex = text_texture([brand], width=256, font_size=64, fg=(255, 255, 255), bg=dark(plain(c), 0.5))
        s.labels.append(Label(np.array([[-w * 0.45, -d / 2 - 0.003, h * 0.75], [w * 0.45, -d / 2 - 0.003, h * 0.75],
                                        [w * 0.45, -d / 2 - 0.003, h * 0.45], [-w * 0.45, -d / 2 - 0.003, h * 0.45]]),
                              tex))
        return s
    return b


def boxy(w, d, h, lid=None, feet=False):
    def b(c):
        s = Shape().add(box((0, 0, h / 2), (w, d, h), c))
        if lid:
            s.add(box((0, 0, h + 0.01), (w * 1.04, d * 1.04, 0.02), lid if lid != "dark" else dark(c)))
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
        col = stripes(c, dark(c, 0.6), r / 3, axis=0) if pattern == "striped" else c
        s = Shape().add(ellipsoid((0, 0, r * squash), (r, r, r * squash), col, 8, 14))
        if stem:
            s.add(rod((0, 0, 2 * r * squash - 0.005), (0.005, 0, 2 * r * squash + 0.015), 0.003, (90, 60, 20)))
        return s
    return b


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
                                               bg=dark(plain(c), 0.5))))
        return s
    return b


def vase(profile_kind="classic"):
    profiles = {
        "classic": [(1e-4, 0), (0.05, 0), (0.08, 0.08), (0.06, 0.18), (0.035, 0.24), (0.05, 0.28), (0.045, 0.28),
                    (1e-4, 0.03)],
        "tall": [(1e-4, 0), (0.045, 0), (0.05, 0.3), (0.04, 0.4), (0.036, 0.4), (1e-4, 0.03)],
        "round": [(1e-4, 0), (0.05, 0), (0.1, 0.08), (0.09, 0.16), (0.04, 0.2), (0.045, 0.22), (0.04, 0.22),
                  (1e-4, 0.03)],
    }
    return vessel(profiles[profile_kind], seg=18)


def statue_on_plinth(inner):
    def b(c):
        s = Shape().add(box((0, 0, 0.1), (0.3, 0.3, 0.2), (150, 150, 145)))
        s.add(*[p.moved(None, (0, 0, 0.2)) for p in inner(c).parts])
        return s
    return b
