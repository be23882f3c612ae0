"""DOZE's kitchen, food, containers and household objects, one builder ``(color) -> Shape`` each."""
from __future__ import annotations

import numpy as np

from hazard_sim.tasks.doze import shapes as sh
from hazard_sim.tasks.doze.builders import cup_profile, dark, plain, plant, vessel


def umbrella(c):
    s = sh.Shape().add(sh.rod((0, 0, 0), (0, 0, 0.85), 0.01, (40, 40, 40)))
    s.add(sh.lathe([(0.45, 0.7), (0.3, 0.8), (0.01, 0.86)], sh.stripes(c, (240, 240, 240), 0.5, axis=0), 16))
    s.add(sh.torus(0.04, 0.008, (40, 40, 40), center=(0.04, 0, 0.02), rot=sh.rot_x(np.pi / 2), arc=np.pi, seg=6,
                   tube=5))
    return s


def pillow(c, w=0.5, d=0.35, h=0.14):
    return sh.Shape().add(sh.ellipsoid((0, 0, h / 2), (w / 2, d / 2, h / 2), c, 6, 16))


def towel(c):
    return sh.Shape().add(sh.box((0, 0, 0.03), (0.35, 0.25, 0.06), c), sh.box((0, 0, 0.061), (0.35, 0.04, 0.002),
                                                                              dark(plain(c), 0.7)))


def clock(c):
    s = sh.Shape().add(sh.cylinder(0.12, 0.04, c).moved(sh.rot_x(np.pi / 2), (0, 0.02, 0.13)))
    s.add(sh.cylinder(0.105, 0.004, (245, 245, 240)).moved(sh.rot_x(np.pi / 2), (0, -0.022, 0.13)))
    s.add(sh.box((0, -0.027, 0.16), (0.006, 0.003, 0.06), (20, 20, 20)),
          sh.box((0.03, -0.027, 0.13), (0.06, 0.003, 0.006),
                 (20, 20, 20)))
    s.add(sh.box((0, 0, 0.005), (0.1, 0.05, 0.01), c))
    return s


def alarm_clock(c):
    s = sh.Shape().add(sh.cylinder(0.06, 0.04, c).moved(sh.rot_x(np.pi / 2), (0, 0.02, 0.08)))
    s.add(sh.cylinder(0.05, 0.003, (245, 245, 240)).moved(sh.rot_x(np.pi / 2), (0, -0.021, 0.08)))
    for x in (-0.04, 0.04):
        s.add(sh.sphere((x, 0, 0.14), 0.022, (200, 200, 60), 4, 8), sh.rod((x, 0, 0.03), (x * 1.3, 0, 0.0), 0.005, c))
    return s


def fan(c):
    s = sh.Shape().add(sh.cylinder(0.1, 0.03, c), sh.rod((0, 0, 0.03), (0, 0, 0.45), 0.015, c))
    s.add(sh.cylinder(0.05, 0.06, c).moved(sh.rot_y(np.pi / 2), (-0.03, 0, 0.5)))
    for k in range(3):
        a = 2 * np.pi * k / 3
        s.add(sh.box((0.04, 0.08 * np.cos(a), 0.5 + 0.08 * np.sin(a)), (0.01, 0.06, 0.14), (220, 220, 230)))
    s.add(sh.torus(0.18, 0.004, (90, 90, 90), center=(0.045, 0, 0.5), rot=sh.rot_y(np.pi / 2), seg=20, tube=4))
    return s


def bird_cage(c):
    s = sh.Shape().add(sh.cylinder(0.15, 0.02, c))
    for k in range(12):
        a = 2 * np.pi * k / 12
        s.add(sh.rod((0.14 * np.cos(a), 0.14 * np.sin(a), 0.02), (0.14 * np.cos(a), 0.14 * np.sin(a), 0.32),
                     0.003, c, seg=4))
    s.add(sh.lathe([(0.15, 0.32), (0.1, 0.38), (0.01, 0.4)], c, 14), sh.torus(0.03, 0.004, c, center=(0, 0, 0.43),
                                                                              rot=sh.rot_x(np.pi / 2)))
    s.add(sh.ellipsoid((0, 0, 0.15), (0.04, 0.025, 0.03), (240, 200, 40), 4, 8))
    return s


def fish_bowl(c):
    s = sh.Shape().add(sh.lathe([(1e-4, 0), (0.08, 0.0)] + [(0.15 * np.sin(a), 0.15 - 0.15 * np.cos(a))
                                                            for a in np.linspace(0.6, 2.5, 7)], (180, 220, 235), 16))
    s.add(sh.ellipsoid((0, 0, 0.12), (0.04, 0.012, 0.022), c, 4, 8), sh.cone(0.02, 0.02, c).moved(sh.rot_y(-np.pi / 2),
                                                                                                 (-0.035, 0, 0.12)))
    return s


def banana(c):
    pts = [(0.1 * np.sin(t), 0, 0.02 + 0.05 * (1 - np.cos(t))) for t in np.linspace(-1.0, 1.0, 6)]
    s = sh.Shape()
    for a, b in zip(pts[:-1], pts[1:]):
        s.add(sh.rod(a, b, 0.018, c, seg=6))
    return s


def grapes(c):
    s = sh.Shape()
    k = 0
    for z, n in ((0.12, 4), (0.09, 4), (0.06, 3), (0.03, 2), (0.01, 1)):
        for i in range(n):
            a = 2 * np.pi * i / n + 0.3 * k
            s.add(sh.sphere((0.02 * np.cos(a) * (n > 1), 0.02 * np.sin(a) * (n > 1), z + 0.01), 0.014, c, 4, 8))
        k += 1
    s.add(sh.rod((0, 0, 0.14), (0.01, 0, 0.17), 0.003, (90, 60, 20)))
    return s


def pineapple(c):
    s = sh.Shape().add(sh.ellipsoid((0, 0, 0.11), (0.07, 0.07, 0.11), sh.checks(c, dark(c, 0.7), 0.025)))
    for k in range(6):
        a = 2 * np.pi * k / 6
        s.add(sh.rod((0, 0, 0.21), (0.04 * np.cos(a), 0.04 * np.sin(a), 0.3), 0.01, (40, 130, 50), seg=4))
    return s


def donut(c):
    return sh.Shape().add(sh.torus(0.05, 0.025, lambda v: np.where((v[:, 2] > 0.005)[:, None], (230, 120, 170), c),
                                   center=(0, 0, 0.025)))


def pizza(c):
    s = sh.Shape().add(sh.cylinder(0.16, 0.015, (230, 180, 100)), sh.cylinder(0.145, 0.004, c, center=(0, 0, 0.015)))
    for k in range(7):
        a = 2 * np.pi * k / 7
        s.add(sh.cylinder(0.02, 0.005, (180, 40, 40), center=(0.08 * np.cos(a), 0.08 * np.sin(a), 0.018)))
    return s


def carrot(c):
    return sh.Shape().add(sh.cone(0.025, 0.18, c).moved(sh.rot_y(np.pi / 2), (-0.09, 0, 0.025)),
                          sh.rod((-0.09, 0, 0.025), (-0.14, 0, 0.05), 0.008, (40, 140, 50), seg=5))


def bread(c):
    return sh.Shape().add(sh.ellipsoid((0, 0, 0.04), (0.15, 0.07, 0.06), c, 6, 14))


def cupcake(c):
    s = sh.Shape().add(sh.cylinder(0.03, 0.04, sh.stripes((240, 240, 240), (200, 200, 200), 0.01, axis=0), r_top=0.04))
    s.add(sh.sphere((0, 0, 0.05), 0.038, c, 5, 12), sh.sphere((0, 0, 0.095), 0.01, (200, 20, 30), 3, 6))
    return s


def picture_frame(c):
    s = sh.Shape().add(sh.box((0, 0, 0.12), (0.2, 0.02, 0.24), c))
    s.add(sh.box((0, -0.011, 0.12), (0.16, 0.003, 0.2), lambda v: np.where((v[:, 2] > 0.0)[:, None], (120, 180, 230),
                                                                           (60, 140, 60))))
    return s


def candlestick(c):
    s = sh.Shape().add(sh.lathe([(1e-4, 0), (0.05, 0), (0.015, 0.03), (0.012, 0.15), (0.03, 0.16), (1e-4, 0.16)], c,
                                14))
    s.add(sh.cylinder(0.01, 0.12, (245, 240, 225), center=(0, 0, 0.16)), sh.cone(0.006, 0.02, (255, 170, 40),
                                                                                center=(0, 0, 0.285)))
    return s


def candle(c):
    return sh.Shape().add(sh.cylinder(0.035, 0.12, c), sh.rod((0, 0, 0.12), (0, 0, 0.135), 0.002, (20, 20, 20)))


def wine_glass(c):
    return sh.Shape().add(sh.lathe([(1e-4, 0), (0.035, 0), (0.005, 0.008), (0.004, 0.09), (0.035, 0.13), (0.04, 0.18),
                                    (0.036, 0.18), (1e-4, 0.12)], c, 16))


def teacup(c):
    s = vessel(cup_profile(0.045, 0.055, 0.03), handle=(0.03, 0.02))(c)
    s.add(sh.cylinder(0.075, 0.006, c if not callable(c) else (240, 240, 240), center=(0, 0, -0.006)))
    return s


def cooking_pot(c):
    s = sh.Shape().add(sh.lathe(cup_profile(0.12, 0.14), c, 18), sh.cylinder(0.125, 0.01, c, center=(0, 0, 0.14)))
    s.add(sh.sphere((0, 0, 0.16), 0.015, (30, 30, 30), 3, 6))
    for x in (-0.14, 0.14):
        s.add(sh.box((x, 0, 0.11), (0.04, 0.05, 0.015), (30, 30, 30)))
    return s


def frying_pan(c):
    return sh.Shape().add(sh.lathe([(1e-4, 0), (0.1, 0), (0.12, 0.04), (0.115, 0.04), (0.095, 0.006), (1e-4, 0.006)],
                                   c, 18),
                          sh.rod((0.12, 0, 0.03), (0.3, 0, 0.05), 0.012, (30, 30, 30)))


def watering_can(c):
    s = sh.Shape().add(sh.lathe(cup_profile(0.08, 0.2, 0.09), c, 16))
    s.add(sh.rod((0.06, 0, 0.04), (0.26, 0, 0.22), 0.012, c),
          sh.cone(0.03, 0.04, c).moved(sh.rot_y(-0.9), (0.26, 0, 0.22)))
    s.add(sh.torus(0.08, 0.01, c, center=(0, 0, 0.2), rot=sh.rot_x(np.pi / 2), arc=np.pi, seg=10, tube=5))
    return s


def bucket(c):
    s = sh.Shape().add(sh.lathe(cup_profile(0.14, 0.26, 0.11), c, 18))
    s.add(sh.torus(0.14, 0.005, (120, 120, 120), center=(0, 0, 0.26), rot=sh.rot_x(np.pi / 2), arc=np.pi, seg=12,
                   tube=4))
    return s


def trash_can(c):
    s = sh.Shape().add(sh.lathe(cup_profile(0.15, 0.45, 0.13), c, 18))
    s.add(sh.cylinder(0.16, 0.02, dark(plain(c), 0.8), center=(0, 0, 0.45)), sh.sphere((0, 0, 0.48), 0.02,
                                                                                      (50, 50, 50), 3, 6))
    return s


def thermos(c):
    return sh.Shape().add(sh.cylinder(0.04, 0.25, c),
                          sh.cylinder(0.042, 0.06, dark(plain(c), 0.5), center=(0, 0, 0.25)))


def gift_box(c):
    s = sh.Shape().add(sh.box((0, 0, 0.1), (0.2, 0.2, 0.2), c),
                       sh.box((0, 0, 0.1), (0.205, 0.03, 0.205), (240, 200, 40)))
    s.add(sh.box((0, 0, 0.1), (0.03, 0.205, 0.205), (240, 200, 40)), sh.torus(0.03, 0.008, (240, 200, 40),
                                                                             center=(0, 0,
                                                                                     0.21), rot=sh.rot_x(np.pi / 2)))
    return s


def tissue_box(c):
    return sh.Shape().add(sh.box((0, 0, 0.05), (0.24, 0.12, 0.1), c), sh.ellipsoid((0, 0, 0.105), (0.05, 0.03, 0.03),
                                                                                   (250, 250, 250), 4, 8))


def toolbox(c):
    s = sh.Shape().add(sh.box((0, 0, 0.08), (0.4, 0.2, 0.16), c),
                       sh.box((0, 0, 0.165), (0.41, 0.21, 0.01), dark(c, 0.8)))
    s.add(sh.torus(0.06, 0.01, (30, 30, 30), center=(0, 0, 0.17), rot=sh.rot_x(np.pi / 2), arc=np.pi, seg=8, tube=5))
    return s


def basket(c):
    s = sh.Shape().add(sh.lathe(cup_profile(0.15, 0.16, 0.12),
                                sh.checks(c, dark(c, 0.7), 0.02) if not callable(c) else c, 16))
    s.add(sh.torus(0.15, 0.008, c if not callable(c) else (150, 100, 50), center=(0, 0, 0.16), rot=sh.rot_x(np.pi / 2),
                   arc=np.pi, seg=12, tube=4))
    return s


def jar(c):
    s = sh.Shape().add(sh.lathe([(1e-4, 0), (0.06, 0), (0.065, 0.12), (0.05, 0.15), (1e-4, 0.15)], c, 16))
    s.add(sh.cylinder(0.052, 0.025, (200, 170, 60), center=(0, 0, 0.15)))
    return s


def bowl(c):
    return sh.Shape().add(sh.lathe([(1e-4, 0), (0.04, 0), (0.09, 0.06), (0.085, 0.062), (0.035, 0.008), (1e-4, 0.008)],
                                   c, 18))


def kettle(c):
    return vessel([(1e-4, 0), (0.09, 0), (0.095, 0.1), (0.06, 0.17), (1e-4, 0.18)], handle=(0.16, 0.05),
                  spout=(0.06, 0.08), lid=True)(c)


def teapot(c):
    return vessel([(1e-4, 0), (0.06, 0), (0.09, 0.05), (0.08, 0.1), (0.04, 0.13), (1e-4, 0.135)], handle=(0.07, 0.04),
                  spout=(0.04, 0.07), lid=True)(c)


def salt_shaker(c):
    return sh.Shape().add(sh.cylinder(0.022, 0.08, c), sh.lathe([(0.022, 0.08), (0.015, 0.1), (1e-4, 0.105)],
                                                                (190, 190, 200), 10))


def pepper_mill(c):
    return sh.Shape().add(sh.lathe([(1e-4, 0), (0.03, 0), (0.022, 0.06), (0.028, 0.14), (0.02, 0.2), (0.01, 0.22),
                                    (1e-4, 0.23)], c, 14))


def lantern(c):
    s = sh.Shape().add(sh.cylinder(0.07, 0.02, c), sh.cylinder(0.06, 0.16, (255, 230, 150), center=(0, 0, 0.02)))
    s.add(sh.cone(0.075, 0.06, c, center=(0, 0, 0.18)),
          sh.torus(0.025, 0.005, c, center=(0, 0, 0.26), rot=sh.rot_x(np.pi / 2)))
    return s


def bell(c):
    s = sh.Shape().add(sh.lathe([(0.09, 0), (0.08, 0.01), (0.05, 0.08), (0.045, 0.13), (1e-4, 0.14)], c, 16))
    s.add(sh.torus(0.02, 0.006, c, center=(0, 0, 0.15), rot=sh.rot_x(np.pi / 2)))
    return s


def potted_tree(c):
    s = sh.Shape().add(sh.lathe(cup_profile(0.16, 0.3, 0.12), c, 16),
                       sh.rod((0, 0, 0.3), (0, 0, 0.9), 0.03, (100, 70, 40)))
    s.add(sh.sphere((0, 0, 1.05), 0.25, (40, 120, 50), 6, 12), sh.sphere((0.12, 0.05, 0.9), 0.15, (50, 140, 55), 5, 10))
    return s


def easel(c):
    s = sh.Shape()
    for a, b in (((-0.3, 0.1, 0), (0, 0, 1.5)), ((0.3, 0.1, 0), (0, 0, 1.5)), ((0, -0.4, 0), (0, 0, 1.4))):
        s.add(sh.rod(a, b, 0.015, c, seg=5))
    s.add(sh.box((0, 0.05, 0.9), (0.6, 0.02, 0.5), (240, 240, 230)), sh.box((0, 0.07, 0.6), (0.65, 0.06, 0.02), c))
    return s


def cactus_big(c):
    return plant(0.13, 0.18, 0.6, kind="cactus")(c)
