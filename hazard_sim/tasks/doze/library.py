"""DOZE's object library: the catalogue of object kinds, each with its mesh builder.

Each :class:`Kind` has a category name (what ground-truth segmentation labels it),
a builder ``(color) -> Shape`` drawing a recognisable mesh (a basketball is a
sphere with seams, a mug has a handle, a lamp a shade), a place (``surface``:
stands on tables and shelves; ``floor``: stands on the floor) and whether it is
an open-vocabulary kind (an unusual thing such as a stone lion statue).

:data:`KINDS` holds them all (``len(KINDS) >= 150``). The builders live in
:mod:`.builders` (parametric families) and the ``objects_*`` modules (one builder per
object); the colours, materials and patterns appearance goals name in :mod:`.vocabulary`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from hazard_sim.tasks.doze.builders import (
    ball,
    book,
    bottle,
    boxy,
    branded_box,
    can,
    cup_profile,
    ellipsoid_obj,
    figure,
    fruit,
    lamp,
    mug,
    plant,
    screen_device,
    stacked,
    statue_on_plinth,
    vase,
    vessel,
)
from hazard_sim.tasks.doze.objects_figures import (
    airplane,
    anchor,
    astronaut,
    bust,
    cat_statue,
    chess_piece,
    crystal_ball,
    dinosaur_trex,
    dragon,
    eiffel,
    elephant_trunk,
    genie_lamp,
    horse,
    hot_air_balloon,
    hourglass,
    kitten_on_skateboard,
    lighthouse,
    lion_mane,
    moai,
    mushroom,
    octopus,
    owl,
    penguin,
    piggy_bank,
    pyramid,
    rocket,
    rocking_horse,
    rubber_duck,
    sailboat,
    skull,
    snowman,
    stego_plates,
    teddy,
    totem,
    toy_car,
    toy_robot,
    toy_train,
    treasure_chest,
    trophy,
    unicorn_horn,
    windmill,
)
from hazard_sim.tasks.doze.objects_gear import (
    backpack,
    bat,
    broom,
    camera_obj,
    cap,
    drum,
    dumbbell,
    frisbee,
    game_console,
    globe,
    guitar,
    guitar_amp,
    hammer,
    handbag,
    hat,
    headphones,
    helmet,
    hockey_stick,
    kettlebell,
    keyboard,
    laptop,
    microwave,
    radio,
    remote,
    robot_vacuum,
    scissors,
    shoe,
    skateboard,
    speaker,
    tennis_racket,
    toaster,
    trumpet,
    violin,
)
from hazard_sim.tasks.doze.objects_home import (
    alarm_clock,
    banana,
    basket,
    bell,
    bird_cage,
    bowl,
    bread,
    bucket,
    cactus_big,
    candle,
    candlestick,
    carrot,
    clock,
    cooking_pot,
    cupcake,
    donut,
    easel,
    fan,
    fish_bowl,
    frying_pan,
    gift_box,
    grapes,
    jar,
    kettle,
    lantern,
    pepper_mill,
    picture_frame,
    pillow,
    pineapple,
    pizza,
    potted_tree,
    salt_shaker,
    teacup,
    teapot,
    thermos,
    tissue_box,
    toolbox,
    towel,
    trash_can,
    umbrella,
    watering_can,
    wine_glass,
)
from hazard_sim.tasks.doze.shapes import Shape
from hazard_sim.tasks.doze.vocabulary import COLORS

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
_k("Stegosaurus model", figure((0.12, 0.05, 0.05), 0.03, tail=0.12, extra=stego_plates), (90, 140, 70), ov=True)
_k("stone lion statue", statue_on_plinth(figure((0.13, 0.06, 0.06), 0.05, tail=0.1, extra=lion_mane)),
   (150, 140, 120), "floor", ov=True)
_k("T-rex model", dinosaur_trex, (60, 120, 60), ov=True)
_k("elephant figurine", figure((0.1, 0.07, 0.07), 0.05, tail=0.03, extra=elephant_trunk), (150, 150, 160), ov=True)
_k("horse figurine", horse, (120, 70, 40))
_k("unicorn figurine", figure((0.11, 0.045, 0.05), 0.035, tail=0.06, extra=unicorn_horn), (245, 245, 250), ov=True)
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
