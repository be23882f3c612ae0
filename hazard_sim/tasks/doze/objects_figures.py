"""DOZE's figures, toys, statues and novelty objects, one builder ``(color) -> Shape`` each."""
from __future__ import annotations

import numpy as np

from hazard_sim.tasks.doze import shapes as sh
from hazard_sim.tasks.doze.builders import dark, figure, plain


def stego_plates(s, c, leg_h):
    for k in range(6):
        x = -0.08 + 0.035 * k
        s.add(sh.cone(0.022, 0.05 - 0.004 * abs(k - 2.5), (180, 80, 40), center=(x, 0, leg_h + 0.09)))


def lion_mane(s, c, leg_h):
    s.add(sh.sphere((0.12, 0, leg_h + 0.11), 0.065, dark(c, 0.8), rings=6, seg=12))
    s.add(sh.box((0, 0, -0.015 + 0.0), (0.32, 0.16, 0.03), (110, 110, 105)))


def unicorn_horn(s, c, leg_h):
    s.add(sh.rod((0.16, 0, leg_h + 0.14), (0.2, 0, leg_h + 0.2), 0.006, (230, 200, 80)))


def elephant_trunk(s, c, leg_h):
    s.add(sh.rod((0.16, 0, leg_h + 0.1), (0.2, 0, leg_h + 0.02), 0.012, c))
    s.add(sh.ellipsoid((0.13, 0.05, leg_h + 0.12), (0.01, 0.04, 0.04), c, 4, 8))
    s.add(sh.ellipsoid((0.13, -0.05, leg_h + 0.12), (0.01, 0.04, 0.04), c, 4, 8))


def snowman(c):
    s = sh.Shape().add(sh.sphere((0, 0, 0.12), 0.12, c), sh.sphere((0, 0, 0.31), 0.085, c),
                       sh.sphere((0, 0, 0.44), 0.06, c))
    s.add(sh.cone(0.012, 0.07, (240, 120, 20), center=(0.0, 0, 0.44)).moved(sh.rot_y(np.pi / 2), (0.05, 0, 0.44)))
    s.add(sh.cylinder(0.045, 0.07, (20, 20, 20), center=(0, 0, 0.49)), sh.cylinder(0.07, 0.01, (20, 20, 20),
                                                                                  center=(0, 0, 0.49)))
    return s


def kitten_on_skateboard(c):
    s = sh.Shape().add(sh.box((0, 0, 0.05), (0.3, 0.09, 0.015), (60, 60, 70)))
    for sx in (-0.1, 0.1):
        for sy in (-0.035, 0.035):
            s.add(sh.sphere((sx, sy, 0.02), 0.02, (240, 240, 240), 4, 8))
    s.add(sh.ellipsoid((0, 0, 0.12), (0.09, 0.05, 0.055), c), sh.sphere((0.09, 0, 0.19), 0.045, c))
    s.add(sh.cone(0.015, 0.03, c, center=(0.09, 0.025, 0.225)), sh.cone(0.015, 0.03, c, center=(0.09, -0.025, 0.225)))
    s.add(sh.rod((-0.08, 0, 0.13), (-0.12, 0, 0.22), 0.008, c))
    return s


def genie_lamp(c):
    s = sh.Shape().add(sh.ellipsoid((0, 0, 0.05), (0.09, 0.05, 0.04), c))
    s.add(sh.rod((0.07, 0, 0.05), (0.17, 0, 0.09), 0.01, c), sh.cylinder(0.03, 0.02, c, center=(0, 0, 0.085)))
    s.add(sh.sphere((0, 0, 0.11), 0.012, c, 4, 6))
    s.add(sh.torus(0.03, 0.006, c, center=(-0.1, 0, 0.06), rot=sh.rot_x(np.pi / 2), arc=np.pi, seg=8, tube=5)
          .moved(sh.rot_y(np.pi / 2), (0, 0, 0)))
    s.add(sh.cylinder(0.03, 0.01, c))
    return s


def rocket(c):
    s = sh.Shape().add(sh.cylinder(0.04, 0.25, c, center=(0, 0, 0.04)), sh.cone(0.04, 0.1, (200, 30, 30), (0, 0, 0.29)))
    for k in range(3):
        a = 2 * np.pi * k / 3
        s.add(sh.box((0.05 * np.cos(a), 0.05 * np.sin(a), 0.07), (0.03, 0.006, 0.08), (200, 30, 30), yaw=a))
    return s


def sailboat(c):
    s = sh.Shape().add(sh.ellipsoid((0, 0, 0.04), (0.16, 0.05, 0.04), c))
    s.add(sh.rod((0, 0, 0.06), (0, 0, 0.33), 0.004, (120, 80, 40)))
    s.add(sh.box((0.05, 0, 0.19), (0.09, 0.003, 0.22), (245, 245, 245)))
    return s


def airplane(c):
    s = sh.Shape().add(sh.ellipsoid((0, 0, 0.06), (0.16, 0.025, 0.025), c), sh.box((0, 0, 0.06), (0.05, 0.3, 0.005), c))
    s.add(sh.box((-0.14, 0, 0.09), (0.03, 0.003, 0.05), c), sh.box((-0.14, 0, 0.065), (0.03, 0.1, 0.004), c))
    s.add(sh.cylinder(0.006, 0.035, (40, 40, 40)))
    return s


def lighthouse(c):
    s = sh.Shape().add(sh.cylinder(0.06, 0.3, sh.stripes(c, (245, 245, 245), 0.06), r_top=0.04))
    s.add(sh.cylinder(0.045, 0.05, (250, 240, 150), center=(0, 0, 0.3)),
          sh.cone(0.05, 0.05, (40, 40, 40), (0, 0, 0.35)))
    return s


def windmill(c):
    s = sh.Shape().add(sh.cylinder(0.06, 0.25, c, r_top=0.04), sh.cone(0.05, 0.06, (120, 60, 40), (0, 0, 0.25)))
    for k in range(4):
        a = np.pi / 4 + k * np.pi / 2
        s.add(sh.box((0.065, 0.07 * np.cos(a), 0.24 + 0.07 * np.sin(a)), (0.005, 0.03, 0.14), (240, 240, 230))
              .moved(None, (0, 0, 0)))
    return s


def eiffel(c):
    s = sh.Shape()
    for sx in (-1, 1):
        for sy in (-1, 1):
            s.add(sh.rod((sx * 0.07, sy * 0.07, 0), (sx * 0.01, sy * 0.01, 0.35), 0.006, c, seg=5))
    s.add(sh.box((0, 0, 0.08), (0.12, 0.12, 0.01), c), sh.box((0, 0, 0.18), (0.06, 0.06, 0.01), c))
    s.add(sh.rod((0, 0, 0.35), (0, 0, 0.42), 0.004, c))
    return s


def pyramid(c):
    return sh.Shape().add(sh.lathe([(1e-4, 0), (0.14, 0), (1e-4, 0.17)], c, 4))


def teddy(c):
    s = sh.Shape().add(sh.ellipsoid((0, 0, 0.12), (0.08, 0.07, 0.11), c), sh.sphere((0, 0, 0.27), 0.07, c))
    s.add(sh.sphere((0, 0.055, 0.33), 0.025, c, 4, 8), sh.sphere((0, -0.055, 0.33), 0.025, c, 4, 8))
    s.add(sh.sphere((0.06, 0, 0.26), 0.025, dark(plain(c), 1.2) if not callable(c) else (220, 200, 170), 4, 8))
    for y in (-0.06, 0.06):
        s.add(sh.sphere((0.04, y * 1.4, 0.14), 0.035, c, 4, 8), sh.sphere((0.05, y, 0.03), 0.035, c, 4, 8))
    return s


def rubber_duck(c):
    s = sh.Shape().add(sh.ellipsoid((0, 0, 0.04), (0.06, 0.045, 0.04), c), sh.sphere((0.035, 0, 0.095), 0.03, c))
    s.add(sh.ellipsoid((0.07, 0, 0.09), (0.02, 0.012, 0.006), (240, 120, 20), 4, 8))
    return s


def toy_car(c):
    s = sh.Shape().add(sh.box((0, 0, 0.04), (0.2, 0.09, 0.04), c), sh.box((-0.01, 0, 0.075), (0.1, 0.08, 0.035), c))
    s.add(sh.box((0.04, 0, 0.075), (0.004, 0.07, 0.028), (150, 200, 230)))
    for x in (-0.065, 0.065):
        s.add(sh.rod((x, -0.05, 0.02), (x, 0.05, 0.02), 0.02, (20, 20, 20), seg=8))
    return s


def toy_train(c):
    s = sh.Shape().add(sh.box((0, 0, 0.05), (0.22, 0.08, 0.05), c), sh.rod((0.02, 0, 0.07), (0.12, 0, 0.07), 0.035, c))
    s.add(sh.box((-0.07, 0, 0.1), (0.08, 0.08, 0.07), dark(plain(c))), sh.cylinder(0.012, 0.05, (20, 20, 20),
                                                                                   center=(0.09, 0, 0.1)))
    for x in (-0.07, 0.0, 0.07):
        s.add(sh.rod((x, -0.05, 0.025), (x, 0.05, 0.025), 0.022, (200, 30, 30), seg=8))
    return s


def toy_robot(c):
    s = sh.Shape().add(sh.box((0, 0, 0.14), (0.1, 0.07, 0.12), c), sh.box((0, 0, 0.245), (0.08, 0.07, 0.07), c))
    s.add(sh.sphere((0.036, 0.018, 0.255), 0.008, (250, 40, 40), 3, 6), sh.sphere((0.036, -0.018, 0.255), 0.008,
                                                                                  (250, 40, 40), 3, 6))
    s.add(sh.rod((0, 0, 0.28), (0, 0, 0.31), 0.003, (90, 90, 90)), sh.box((0, 0.03, 0.04), (0.04, 0.03, 0.08), c))
    s.add(sh.box((0, -0.03, 0.04), (0.04, 0.03, 0.08), c), sh.box((0, 0.065, 0.14), (0.03, 0.025, 0.1), c))
    s.add(sh.box((0, -0.065, 0.14), (0.03, 0.025, 0.1), c))
    return s


def chess_piece(crown="king"):
    def b(c):
        prof = [(1e-4, 0), (0.04, 0), (0.04, 0.015), (0.028, 0.025), (0.015, 0.09), (0.03, 0.1), (0.018, 0.11)]
        s = sh.Shape().add(sh.lathe(prof + [(1e-4, 0.11)], c, 14))
        if crown == "king":
            s.add(sh.box((0, 0, 0.13), (0.008, 0.008, 0.04), c), sh.box((0, 0, 0.135), (0.03, 0.008, 0.008), c))
        elif crown == "queen":
            s.add(sh.sphere((0, 0, 0.125), 0.02, c, 5, 10))
        else:   # knight: a horse head
            s.add(sh.box((0.01, 0, 0.14), (0.05, 0.025, 0.06), c, yaw=0).moved(sh.rot_y(-0.4), (0, 0, 0)))
        return s
    return b


def treasure_chest(c):
    s = sh.Shape().add(sh.box((0, 0, 0.1), (0.4, 0.25, 0.2), sh.grain(c)))
    s.add(sh.lathe([(0.125 * np.cos(a), 0.2 + 0.08 * np.sin(a)) for a in np.linspace(0, np.pi / 2, 5)], c, 20,
                   scale=(1.6, 1.0)))
    for x in (-0.15, 0.15):
        s.add(sh.box((x, 0, 0.15), (0.03, 0.26, 0.3), (212, 175, 55)))
    return s


def crystal_ball(c):
    return sh.Shape().add(sh.cylinder(0.07, 0.04, (60, 40, 30), r_top=0.05), sh.sphere((0, 0, 0.12), 0.08, c, 10, 18))


def skull(c):
    s = sh.Shape().add(sh.sphere((0, 0, 0.09), 0.08, c), sh.box((0.045, 0, 0.03), (0.06, 0.08, 0.05), c))
    for y in (-0.028, 0.028):
        s.add(sh.sphere((0.07, y, 0.09), 0.02, (20, 20, 20), 4, 8))
    return s


def hourglass(c):
    s = sh.Shape().add(sh.cylinder(0.07, 0.015, (120, 80, 40)),
                       sh.cylinder(0.07, 0.015, (120, 80, 40), center=(0, 0, 0.2)))
    s.add(sh.lathe([(0.05, 0.015), (0.008, 0.11), (0.05, 0.2)], (200, 230, 235), 14))
    s.add(sh.cone(0.035, 0.04, (230, 200, 120), center=(0, 0, 0.015)))
    return s


def trophy(c):
    s = sh.Shape().add(sh.box((0, 0, 0.03), (0.1, 0.1, 0.06), (40, 30, 20)))
    s.add(sh.lathe([(0.02, 0.06), (0.012, 0.12), (0.04, 0.15), (0.07, 0.24), (0.065, 0.245), (1e-4, 0.16)], c, 16))
    for x in (-0.075, 0.075):
        s.add(sh.torus(0.03, 0.006, c, center=(x, 0, 0.2), rot=sh.rot_x(np.pi / 2), arc=np.pi, seg=8, tube=5)
              .moved(sh.rot_y(0)))
    return s


def bust(c):
    s = sh.Shape().add(sh.box((0, 0, 0.05), (0.14, 0.14, 0.1), c), sh.ellipsoid((0, 0, 0.17), (0.07, 0.12, 0.06), c))
    s.add(sh.cylinder(0.03, 0.05, c, center=(0, 0, 0.22)), sh.ellipsoid((0, 0, 0.31), (0.065, 0.055, 0.08), c))
    return s


def dragon(c):
    def wings(s, c, leg_h):
        for y in (-1, 1):
            s.add(sh.box((0, y * 0.12, leg_h + 0.15), (0.12, 0.16, 0.006), dark(c, 0.8)).moved(sh.rot_x(y * 0.4)))
        s.add(sh.cone(0.01, 0.04, (240, 230, 200), center=(0.16, 0.02, leg_h + 0.15)))
    return figure((0.13, 0.06, 0.06), 0.05, tail=0.15, extra=wings)(c)


def mushroom(c):
    s = sh.Shape().add(sh.cylinder(0.03, 0.12, (240, 235, 220), r_top=0.025))
    s.add(sh.lathe([(0.11, 0.12), (0.09, 0.17), (0.01, 0.2)], sh.dots(c, (250, 250, 250), 0.05), 18))
    return s


def hot_air_balloon(c):
    s = sh.Shape().add(sh.box((0, 0, 0.03), (0.06, 0.06, 0.06), (140, 90, 40)))
    for sx in (-1, 1):
        for sy in (-1, 1):
            s.add(sh.rod((sx * 0.03, sy * 0.03, 0.06), (sx * 0.05, sy * 0.05, 0.14), 0.002, (60, 60, 60), seg=4))
    s.add(sh.ellipsoid((0, 0, 0.25), (0.12, 0.12, 0.14), sh.stripes(c, (250, 230, 60), 0.04, axis=0), 10, 16))
    return s


def penguin(c):
    s = sh.Shape().add(sh.ellipsoid((0, 0, 0.12), (0.08, 0.07, 0.12), c), sh.sphere((0, 0, 0.26), 0.055, c))
    s.add(sh.ellipsoid((0.045, 0, 0.11), (0.04, 0.05, 0.09), (245, 245, 245)))
    s.add(sh.cone(0.012, 0.04, (240, 160, 30)).moved(sh.rot_y(np.pi / 2), (0.05, 0, 0.26)))
    return s


def owl(c):
    s = sh.Shape().add(sh.ellipsoid((0, 0, 0.1), (0.07, 0.065, 0.1), c), sh.sphere((0, 0, 0.21), 0.06, c))
    for y in (-0.025, 0.025):
        s.add(sh.sphere((0.05, y, 0.22), 0.018, (250, 220, 60), 4, 8),
              sh.cone(0.012, 0.03, c, center=(0, y * 1.5, 0.25)))
    return s


def piggy_bank(c):
    def snout(s, c, leg_h):
        s.add(sh.cylinder(0.02, 0.02, dark(c, 0.85)).moved(sh.rot_y(np.pi / 2), (0.16, 0, leg_h + 0.1)))
    return figure((0.11, 0.08, 0.07), 0.001, extra=snout)(c)


def dinosaur_trex(c):
    s = sh.Shape().add(sh.ellipsoid((0, 0, 0.2), (0.12, 0.06, 0.08), c).moved(sh.rot_y(-0.4), (0, 0, 0.08)))
    s.add(sh.ellipsoid((0.12, 0, 0.4), (0.07, 0.04, 0.045), c), sh.rod((-0.1, 0, 0.25), (-0.3, 0, 0.12), 0.03, c))
    for y in (-0.04, 0.04):
        s.add(sh.rod((0, y, 0.2), (0.02, y, 0.0), 0.025, c), sh.rod((0.1, y, 0.3), (0.14, y, 0.27), 0.008, c))
    return s


def horse(c):
    def neck(s, c, leg_h):
        s.add(sh.rod((0.12, 0, leg_h + 0.08), (0.17, 0, leg_h + 0.18), 0.03, c))
    return figure((0.16, 0.06, 0.07), 0.04, tail=0.08, extra=neck)(c)


def cat_statue(c):
    s = sh.Shape().add(sh.ellipsoid((0, 0, 0.1), (0.07, 0.06, 0.1), c), sh.sphere((0.02, 0, 0.23), 0.05, c))
    s.add(sh.cone(0.018, 0.04, c, center=(0.02, 0.03, 0.26)), sh.cone(0.018, 0.04, c, center=(0.02, -0.03, 0.26)))
    s.add(sh.torus(0.06, 0.01, c, center=(-0.03, 0, 0.01), arc=np.pi))
    return s


def rocking_horse(c):
    s = horse(c)
    s.add(sh.box((0, 0.045, 0.0), (0.4, 0.02, 0.02), (120, 80, 40)))
    s.add(sh.box((0, -0.045, 0.0), (0.4, 0.02, 0.02), (120, 80, 40)))
    return s


def totem(c):
    s = sh.Shape()
    for k, col in enumerate((c, (200, 60, 40), (60, 120, 180))):
        s.add(sh.cylinder(0.08, 0.15, col, center=(0, 0, 0.15 * k)))
        s.add(sh.sphere((0.07, 0.03, 0.15 * k + 0.09), 0.015, (250, 250, 250), 3, 6))
        s.add(sh.sphere((0.07, -0.03, 0.15 * k + 0.09), 0.015, (250, 250, 250), 3, 6))
    s.add(sh.box((0, 0, 0.42), (0.05, 0.35, 0.04), c))
    return s


def anchor(c):
    s = sh.Shape().add(sh.rod((0, 0, 0.03), (0, 0, 0.3), 0.012, c), sh.torus(0.02, 0.006, c, center=(0, 0, 0.32),
                                                                            rot=sh.rot_x(np.pi / 2)))
    s.add(sh.torus(0.1, 0.012, c, center=(0, 0, 0.12), rot=sh.rot_x(np.pi / 2), arc=np.pi, seg=10, tube=5)
          .moved(sh.rot_x(np.pi), (0, 0, 0.24)))
    s.add(sh.box((0, 0, 0.26), (0.12, 0.015, 0.015), c))
    return s


def moai(c):
    s = sh.Shape().add(sh.box((0, 0, 0.18), (0.14, 0.12, 0.36), c), sh.box((0.065, 0, 0.2), (0.04, 0.03, 0.1), c))
    s.add(sh.box((0.02, 0, 0.34), (0.17, 0.13, 0.04), c))
    return s


def astronaut(c):
    s = sh.Shape().add(sh.box((0, 0, 0.18), (0.1, 0.12, 0.14), c), sh.sphere((0, 0, 0.3), 0.06, c))
    s.add(sh.sphere((0.03, 0, 0.305), 0.045, (30, 40, 60), 5, 10), sh.box((-0.07, 0, 0.2), (0.04, 0.1, 0.12), c))
    for y in (-0.035, 0.035):
        s.add(sh.rod((0, y, 0.11), (0, y, 0.0), 0.025, c), sh.rod((0, 2.2 * y, 0.24), (0.04, 2.6 * y, 0.12), 0.018, c))
    return s


def octopus(c):
    s = sh.Shape().add(sh.ellipsoid((0, 0, 0.14), (0.07, 0.07, 0.08), c))
    for k in range(8):
        a = 2 * np.pi * k / 8
        s.add(sh.rod((0.04 * np.cos(a), 0.04 * np.sin(a), 0.08), (0.14 * np.cos(a), 0.14 * np.sin(a), 0.01), 0.012, c,
                     seg=5))
    return s
