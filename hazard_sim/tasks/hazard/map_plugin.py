"""HAZARD's pieces of the ROS mapping node (plain data; ``perception_node.map_plugins``
reads it when the ``task`` names a HAZARD benchmark, so nothing here imports ROS).

The fields of HAZARD's processes (their ``channel``: the fire's temperature, the flood's
water level; the wind has none) become map layers, published as nav_msgs/OccupancyGrid
with values packed into 0..100 (value = offset + scale * cell, -1 unknown); their scales go
out as JSON on ``LAYERS_INFO_TOPIC``. The images they are made from are the field topics of
HAZARD's ROS pieces (``ros.py``: ``thermal/image_raw``, ``water_level/image_raw``).
"""
from __future__ import annotations

FIELD_LAYERS = (
    # 0..1000 C (burning objects are about 600 C)
    {"name": "temperature", "unit": "C", "offset": 0.0, "scale": 10.0, "map_topic": "hazard/temperature"},
    # 0..2 m (the flood tops out at 1.5 m)
    {"name": "water_level", "unit": "m", "offset": 0.0, "scale": 0.02, "map_topic": "hazard/water_level"},
)
LAYERS_INFO_TOPIC = "hazard/layers_info"
#: the task JSON's hazard name goes into objects/memory
MEMORY_TASK_KEYS = ("hazard",)
#: the wind scenes' shopping carts (scene parts ``cart``, ``cart_1``, ...) are containers
CONTAINER_PREFIXES = ("cart", "container")     # the simulator's label; the detector's class
