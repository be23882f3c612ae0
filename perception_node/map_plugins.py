"""What a benchmark adds to the mapping node (ROS-free declarations and their registry).

The generic mapping node maps occupancy and remembers objects for every benchmark. What is
a benchmark's own, it declares in a :class:`MapPlugin`:

* ``field_layers``: a map layer per field its world processes offer (a process's
  ``channel``): the simulator's image topic of the field (the spec's
  :class:`hazard_sim.core.ros_pieces.RosPieces` ``field_topics``, what ``sim_node``
  publishes), the layer's topic and how its values are packed into an OccupancyGrid
  (:class:`perception_node.field_layers.LayerScale`); ``layers_info_topic``: where the
  layers' scales are published (JSON);
* ``memory_task_keys``: task JSON keys copied into ``objects/memory``;
  ``container_prefixes``: labels starting with these are containers;
* ``map_kind``: the map the node builds (:data:`perception_node.mapping_node.MAP_KINDS`);
  '' leaves it to the body (a body that flies gets the 2.5-D height map).

A plug-in is registered (:func:`register_map_plugin`, e.g. by a test's benchmark), or it is
the module ``map_plugin`` of the benchmark's folder, ``hazard_sim/tasks/<name>/map_plugin.py``:
plain data (``FIELD_LAYERS``: dicts with ``name`` (the channel), ``unit``, ``offset``,
``scale``, ``map_topic``; ``LAYERS_INFO_TOPIC``, ``MEMORY_TASK_KEYS``,
``CONTAINER_PREFIXES``, ``MAP_KIND``), so that the core imports nothing of ROS; the image
topics come from the ``field_topics`` of the specs that package registers.
A benchmark with neither has none (:data:`NO_PLUGIN`). The node picks the plug-in of the
``task`` JSON's ``benchmark`` (``<name>/<variant>``), or the one its ``map_plugin``
parameter names.
"""
from __future__ import annotations

import importlib
import re
from dataclasses import dataclass

from hazard_sim.core.registry import Registry
from perception_node.field_layers import LayerScale

__all__ = ["FieldLayerSpec", "MapPlugin", "NO_PLUGIN", "MAP_PLUGINS", "PLUGIN_MODULE", "register_map_plugin",
           "unregister_map_plugin", "plugin_name", "load_map_plugin", "plugin_from_module", "field_topics_of",
           "builtin_plugins"]


@dataclass(frozen=True)
class FieldLayerSpec:
    """One field layer: ``name`` is the field's channel (the ``task`` JSON's ``channel``)."""

    name: str
    scale: LayerScale
    image_topic: str          # the simulator's image of the field (sensor_msgs/Image 32FC1)
    map_topic: str            # the layer (nav_msgs/OccupancyGrid, values packed into 0..100)


@dataclass(frozen=True)
class MapPlugin:
    """See the module docstring."""

    name: str = ""
    field_layers: tuple[FieldLayerSpec, ...] = ()
    layers_info_topic: str = ""
    memory_task_keys: tuple[str, ...] = ()
    container_prefixes: tuple[str, ...] = ()
    map_kind: str = ""

    def __post_init__(self):
        names = [f.name for f in self.field_layers]
        if len(set(names)) != len(names):
            raise ValueError(f"mapping plug-in {self.name!r}: field layers named twice: {names}")
        if self.field_layers and not self.layers_info_topic:
            raise ValueError(f"mapping plug-in {self.name!r}: field layers need a layers_info_topic")

    def layer(self, name: str) -> FieldLayerSpec:
        return next(f for f in self.field_layers if f.name == name)


NO_PLUGIN = MapPlugin()
MAP_PLUGINS: Registry[MapPlugin] = Registry("mapping plug-in")
#: where a benchmark's plug-in module is looked for
PLUGIN_MODULE = "hazard_sim.tasks.{name}.map_plugin"


def register_map_plugin(name: str, plugin: MapPlugin) -> MapPlugin:
    return MAP_PLUGINS.register(name, plugin, replace=True)


def unregister_map_plugin(name: str) -> MapPlugin:
    return MAP_PLUGINS.unregister(name)


def plugin_name(benchmark: str | None) -> str:
    """The plug-in name of a benchmark id: the part before the first ``/``."""
    return str(benchmark or "").split("/")[0].strip()


def plugin_from_module(name: str, module, field_topics: dict[str, str]) -> MapPlugin:
    """A :class:`MapPlugin` from a plug-in module's plain data (see the module docstring);
    ``field_topics``: channel -> image topic."""
    where = f"mapping plug-in {module.__name__}"
    layers = []
    for i, d in enumerate(getattr(module, "FIELD_LAYERS", ())):
        missing = {"name", "unit", "offset", "scale", "map_topic"} - set(d)
        if missing:
            raise ValueError(f"{where}: FIELD_LAYERS[{i}] lacks {', '.join(sorted(missing))}")
        if d["name"] not in field_topics:
            raise ValueError(f"{where}: field {d['name']!r} has no image topic (the spec's ros field_topics: "
                             f"{dict(field_topics)})")
        layers.append(FieldLayerSpec(str(d["name"]), LayerScale(str(d["unit"]), float(d["offset"]), float(d["scale"])),
                                     field_topics[d["name"]], str(d["map_topic"])))
    return MapPlugin(name, tuple(layers), str(getattr(module, "LAYERS_INFO_TOPIC", "")),
                     tuple(map(str, getattr(module, "MEMORY_TASK_KEYS", ()))),
                     tuple(map(str, getattr(module, "CONTAINER_PREFIXES", ()))),
                     str(getattr(module, "MAP_KIND", "")))


def load_map_plugin(name: str) -> MapPlugin:
    """The plug-in called ``name``: registered, else the benchmark folder's module, else
    :data:`NO_PLUGIN` ('' too)."""
    if not name:
        return NO_PLUGIN
    if name in MAP_PLUGINS:
        return MAP_PLUGINS.get(name)
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        raise ValueError(f"mapping plug-in name {name!r} is not a benchmark name")
    path = PLUGIN_MODULE.format(name=name)
    try:
        module = importlib.import_module(path)
    except ModuleNotFoundError as exc:
        # no such benchmark folder, or no plug-in module in it
        if exc.name is not None and (path == exc.name or path.startswith(exc.name + ".")):
            return NO_PLUGIN
        raise
    return plugin_from_module(name, module, field_topics_of(name))


def field_topics_of(name: str) -> dict[str, str]:
    """channel -> image topic of every registered benchmark ``name/...`` (or ``name``), from
    their specs' RosPieces."""
    from hazard_sim.core.ros_pieces import ros_pieces
    from hazard_sim.core.spec import BENCHMARKS
    topics: dict[str, str] = {}
    for bid, spec in BENCHMARKS.items():
        if plugin_name(bid) == name:
            topics.update(ros_pieces(spec).field_topics)
    return topics


def builtin_plugins() -> list[MapPlugin]:
    """The plug-ins of the shipped benchmarks and the registered ones (for topic lists)."""
    from hazard_sim.tasks import BUILTIN
    names = sorted(set(BUILTIN) | set(MAP_PLUGINS.names()))
    return [p for p in (load_map_plugin(n) for n in names) if p is not NO_PLUGIN]
