"""DOZE's appearance vocabulary: the colours, materials, patterns and brands that
appearance goals name, and how each attribute is drawn.
"""
from __future__ import annotations

from hazard_sim.tasks.doze.shapes import checks, dots, grain, stripes

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
