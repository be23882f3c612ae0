"""DOZE's sports gear, clothes, tools, instruments and electronics, one builder ``(color) -> Shape`` each."""
from __future__ import annotations

import numpy as np

from hazard_sim.tasks.doze import shapes as sh
from hazard_sim.tasks.doze.builders import dark, plain, screen_device


def guitar(c):
    s = sh.Shape().add(sh.ellipsoid((0, 0, 0.2), (0.19, 0.06, 0.2), c),
                       sh.ellipsoid((0, 0, 0.45), (0.14, 0.055, 0.14), c))
    s.add(sh.cylinder(0.04, 0.005, (30, 20, 10), center=(0, -0.06, 0.4)).moved(sh.rot_x(0), (0, 0, 0)))
    s.add(sh.box((0, 0, 0.78), (0.05, 0.03, 0.5), (90, 55, 25)), sh.box((0, 0, 1.06), (0.08, 0.03, 0.1), (60, 40, 20)))
    return s


def tennis_racket(c):
    s = sh.Shape().add(sh.torus(0.13, 0.01, c, center=(0, 0, 0.45), rot=sh.rot_x(np.pi / 2)).moved(None))
    s.parts[-1] = s.parts[-1].moved(np.diag([1.0, 1.0, 1.0]))
    s.add(sh.box((0, 0, 0.45), (0.22, 0.004, 0.22), (230, 230, 230)))
    s.add(sh.rod((0, 0, 0), (0, 0, 0.32), 0.016, (30, 30, 30)))
    return s


def bat(c):
    return sh.Shape().add(sh.lathe([(1e-4, 0), (0.022, 0), (0.016, 0.03), (0.014, 0.25), (0.03, 0.6), (0.034, 0.8),
                                    (1e-4, 0.82)], c, 12).moved(sh.rot_y(np.pi / 2), (-0.4, 0, 0.035)))


def dumbbell(c):
    s = sh.Shape().add(sh.rod((-0.12, 0, 0.05), (0.12, 0, 0.05), 0.014, (120, 120, 120)))
    for x in (-0.11, 0.08):
        s.add(sh.rod((x, 0, 0.05), (x + 0.03, 0, 0.05), 0.05, c, seg=12))
    return s


def kettlebell(c):
    s = sh.Shape().add(sh.sphere((0, 0, 0.1), 0.1, c))
    s.add(sh.torus(0.06, 0.015, c, center=(0, 0, 0.2), rot=sh.rot_x(np.pi / 2), arc=np.pi, seg=10, tube=6))
    return s


def skateboard(c):
    s = sh.Shape().add(sh.box((0, 0, 0.06), (0.8, 0.2, 0.015), c))
    for x in (-0.28, 0.28):
        for y in (-0.07, 0.07):
            s.add(sh.rod((x, y - 0.015, 0.025), (x, y + 0.015, 0.025), 0.025, (240, 240, 230), seg=8))
    return s


def helmet(c):
    return sh.Shape().add(sh.lathe([(0.13, 0), (0.13, 0.04)] + [(0.13 * np.cos(a), 0.04 + 0.12 * np.sin(a))
                                                                for a in np.linspace(0.2, np.pi / 2, 6)], c, 16))


def frisbee(c):
    return sh.Shape().add(sh.lathe([(1e-4, 0.0), (0.1, 0.0), (0.125, 0.02), (0.11, 0.03), (1e-4, 0.028)], c, 20))


def hat(c, brim=0.15, crown=0.1, h=0.12):
    return sh.Shape().add(sh.lathe([(1e-4, 0), (brim, 0), (brim, 0.01), (crown, 0.01), (crown * 0.95, h), (1e-4, h)],
                                   c, 18))


def cap(c):
    s = sh.Shape().add(sh.lathe([(0.095 * np.cos(a), 0.09 * np.sin(a)) for a in np.linspace(0, np.pi / 2, 6)], c, 16))
    s.add(sh.box((0.12, 0, 0.005), (0.1, 0.16, 0.008), c))
    return s


def shoe(c):
    s = sh.Shape().add(sh.box((0, 0, 0.015), (0.28, 0.1, 0.03), (240, 240, 240)))
    s.add(sh.ellipsoid((-0.02, 0, 0.05), (0.13, 0.048, 0.05), c, 6, 12),
          sh.box((-0.08, 0, 0.09), (0.08, 0.08, 0.05), c))
    return s


def backpack(c):
    s = sh.Shape().add(sh.box((0, 0, 0.22), (0.3, 0.15, 0.44), c),
                       sh.ellipsoid((0, 0, 0.44), (0.15, 0.075, 0.05), c, 4, 10))
    s.add(sh.box((0, -0.09, 0.15), (0.24, 0.04, 0.18), dark(c, 0.8)))
    s.add(sh.torus(0.05, 0.01, dark(c), center=(0, 0, 0.48), rot=sh.rot_x(np.pi / 2), arc=np.pi, seg=6, tube=5))
    return s


def handbag(c):
    s = sh.Shape().add(sh.lathe([(1e-4, 0), (0.1, 0), (0.08, 0.18), (1e-4, 0.18)], c, 4, scale=(1.6, 0.5)))
    s.add(sh.torus(0.08, 0.008, dark(c), center=(0, 0, 0.18), rot=sh.rot_x(np.pi / 2), arc=np.pi, seg=8, tube=5))
    return s


def globe(c):
    s = sh.Shape().add(sh.cylinder(0.07, 0.02, (90, 60, 30)), sh.rod((0, 0, 0.02), (0, 0, 0.12), 0.008, (90, 60, 30)))
    s.add(sh.sphere((0, 0, 0.25), 0.13, lambda v: np.where((np.sin(6 * v[:, 0] / 0.13) + np.cos(5 * v[:, 1] / 0.13)
                                                          > 0.6)[:, None], (60, 150, 60), c)))
    s.add(sh.torus(0.14, 0.005, (180, 150, 60), center=(0, 0, 0.25), rot=sh.rot_x(np.pi / 2), arc=np.pi))
    return s


def speaker(c):
    s = sh.Shape().add(sh.box((0, 0, 0.15), (0.18, 0.16, 0.3), c))
    for z, r in ((0.08, 0.06), (0.22, 0.03)):
        s.add(sh.cylinder(r, 0.01, (40, 40, 40)).moved(sh.rot_x(np.pi / 2), (0, -0.08, z)))
    return s


def camera_obj(c):
    s = sh.Shape().add(sh.box((0, 0, 0.045), (0.13, 0.07, 0.09), c))
    s.add(sh.cylinder(0.03, 0.05, (30, 30, 30)).moved(sh.rot_x(np.pi / 2), (0, -0.035, 0.045)))
    s.add(sh.box((-0.04, 0, 0.095), (0.03, 0.03, 0.015), c))
    return s


def headphones(c):
    s = sh.Shape().add(sh.torus(0.09, 0.012, c, center=(0, 0, 0.09), rot=sh.rot_x(np.pi / 2), arc=np.pi, seg=12,
                                tube=6))
    for x in (-0.09, 0.09):
        s.add(sh.cylinder(0.045, 0.03, dark(plain(c), 0.6)).moved(sh.rot_y(np.pi / 2),
                                                                  (x - 0.015 * np.sign(x), 0, 0.05)))
    return s


def hammer(c):
    return sh.Shape().add(sh.rod((-0.15, 0, 0.02), (0.12, 0, 0.02), 0.014, c),
                          sh.box((0.13, 0, 0.03), (0.03, 0.12, 0.03), (80, 80, 90)))


def scissors(c):
    s = sh.Shape().add(sh.box((0.06, 0.01, 0.005), (0.12, 0.012, 0.004), (190, 190, 200), yaw=0.1))
    s.add(sh.box((0.06, -0.01, 0.005), (0.12, 0.012, 0.004), (190, 190, 200), yaw=-0.1))
    for y in (-0.025, 0.025):
        s.add(sh.torus(0.02, 0.006, c, center=(-0.03, y, 0.006)))
    return s


def broom(c):
    s = sh.Shape().add(sh.rod((0, 0, 0.12), (0, 0, 1.2), 0.012, (140, 100, 60)))
    s.add(sh.lathe([(1e-4, 0), (0.12, 0), (0.03, 0.14), (1e-4, 0.14)], c, 4, scale=(1.0, 0.3)))
    return s


def hockey_stick(c):
    return sh.Shape().add(sh.rod((0, 0, 0.02), (0.9, 0, 0.08), 0.015, c),
                          sh.box((-0.1, 0.01, 0.04), (0.22, 0.03, 0.08), c))


def violin(c):
    s = sh.Shape().add(sh.ellipsoid((0, 0, 0.04), (0.12, 0.1, 0.04), c),
                       sh.ellipsoid((0.13, 0, 0.04), (0.09, 0.08, 0.04), c))
    s.add(sh.box((0.33, 0, 0.06), (0.2, 0.025, 0.02), (40, 30, 20)), sh.box((0.45, 0, 0.06), (0.05, 0.03, 0.03),
                                                                            (60, 40, 20)))
    return s


def drum(c):
    s = sh.Shape().add(sh.cylinder(0.17, 0.2, sh.stripes(c, (240, 240, 240), 0.04, axis=0)))
    s.add(sh.cylinder(0.165, 0.005, (245, 245, 235), center=(0, 0, 0.2)))
    s.add(sh.rod((0.05, 0, 0.23), (0.25, 0.05, 0.27), 0.007, (200, 170, 120)))
    return s


def trumpet(c):
    s = sh.Shape().add(sh.rod((-0.15, 0, 0.05), (0.12, 0, 0.05), 0.008, c))
    s.add(sh.lathe([(0.008, 0), (0.02, 0.06), (0.06, 0.1)], c, 14).moved(sh.rot_y(np.pi / 2), (0.1, 0, 0.05)))
    s.add(sh.box((-0.02, 0, 0.07), (0.06, 0.02, 0.03), c))
    return s


def keyboard(c):
    s = sh.Shape().add(sh.box((0, 0, 0.01), (0.44, 0.14, 0.02), c))
    s.add(sh.box((0, 0, 0.021), (0.4, 0.11, 0.004), sh.checks((230, 230, 230), (140, 140, 140), 0.02)))
    return s


def remote(c):
    s = sh.Shape().add(sh.box((0, 0, 0.012), (0.18, 0.05, 0.024), c))
    for k in range(4):
        s.add(sh.cylinder(0.006, 0.004, (200, 40, 40) if k == 0 else (220, 220, 220),
                          center=(0.06 - 0.035 * k, 0, 0.024)))
    return s


def radio(c):
    s = sh.Shape().add(sh.box((0, 0, 0.08), (0.28, 0.1, 0.16), c))
    s.add(sh.cylinder(0.05, 0.005, sh.dots((40, 40, 40), (90, 90, 90), 0.012)).moved(sh.rot_x(np.pi / 2),
                                                                                     (-0.06, -0.05, 0.08)))
    s.add(sh.rod((0.1, 0, 0.16), (0.14, 0, 0.35), 0.003, (180, 180, 180)))
    return s


def game_console(c):
    s = sh.Shape().add(sh.box((0, 0, 0.03), (0.28, 0.2, 0.06), c))
    s.add(sh.box((0.2, 0, 0.02), (0.12, 0.06, 0.03), dark(plain(c))), sh.rod((0.14, 0, 0.02), (0.03, 0, 0.03), 0.002,
                                                                            (30, 30, 30)))
    return s


def microwave(c):
    s = sh.Shape().add(sh.box((0, 0, 0.15), (0.5, 0.36, 0.3), c))
    s.add(sh.box((-0.05, -0.181, 0.15), (0.32, 0.004, 0.22), (30, 30, 35)),
          sh.box((0.19, -0.181, 0.15), (0.06, 0.004, 0.2), (200, 200, 200)))
    return s


def toaster(c):
    s = sh.Shape().add(sh.box((0, 0, 0.1), (0.26, 0.15, 0.2), c))
    for y in (-0.03, 0.03):
        s.add(sh.box((0, y, 0.2), (0.18, 0.02, 0.003), (20, 20, 20)))
    s.add(sh.box((0.135, 0, 0.14), (0.01, 0.02, 0.03), (30, 30, 30)))
    return s


def laptop(c):
    return screen_device(0.33, 0.23, 0.21)(c)


def robot_vacuum(c):
    s = sh.Shape().add(sh.cylinder(0.17, 0.08, c), sh.cylinder(0.05, 0.01, (30, 30, 30), center=(0.05, 0, 0.08)))
    return s


def guitar_amp(c):
    s = sh.Shape().add(sh.box((0, 0, 0.22), (0.45, 0.25, 0.44), c))
    s.add(sh.box((0, -0.126, 0.18), (0.38, 0.004, 0.3), sh.checks((60, 60, 60), (90, 90, 90), 0.02)))
    return s
