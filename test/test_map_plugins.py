"""perception_node.map_plugins: what a benchmark adds to the mapping node, declared next to
its spec (HAZARD's field layers from hazard_sim/tasks/hazard/map_plugin.py) or registered;
and the generic memory / core without any plug-in."""
from __future__ import annotations

import types

import numpy as np
import pytest

from perception_node.field_layers import LayerScale
from perception_node.map_plugins import (
    MAP_PLUGINS,
    NO_PLUGIN,
    FieldLayerSpec,
    MapPlugin,
    builtin_plugins,
    field_topics_of,
    load_map_plugin,
    plugin_from_module,
    plugin_name,
    register_map_plugin,
    unregister_map_plugin,
)
from perception_node.mapping import MappingCore, ObjectMemory, ObjectObservation


def test_hazard_declares_its_two_field_layers_and_memory_keys():
    p = load_map_plugin(plugin_name("hazard/flood"))
    assert p.name == "hazard" and p.map_kind == ""
    # the image topics are the ones HAZARD's ROS pieces give sim_node (one declaration)
    assert field_topics_of("hazard") == {"temperature": "thermal/image_raw", "water_level": "water_level/image_raw"}
    assert [(f.name, f.image_topic, f.map_topic) for f in p.field_layers] == [
        ("temperature", "thermal/image_raw", "hazard/temperature"),
        ("water_level", "water_level/image_raw", "hazard/water_level")]
    t, w = p.layer("temperature").scale, p.layer("water_level").scale
    assert (t.unit, t.offset, t.scale) == ("C", 0.0, 10.0) and (w.unit, w.scale) == ("m", 0.02)
    # 600 C packs to 60, 1.5 m to 75; beyond the range clips to 100, below to 0
    assert t.pack(np.array([600.0, 2000.0, -5.0, np.nan])).tolist() == [60, 100, 0, -1]
    assert w.pack(np.array([1.5])).tolist() == [75]
    assert p.layers_info_topic == "hazard/layers_info" and p.memory_task_keys == ("hazard",)
    assert p.container_prefixes == ("cart", "container")       # the simulator's label, the detector's class
    assert p in builtin_plugins()


def test_benchmarks_without_a_plugin_and_bad_names():
    assert load_map_plugin("doze") is NO_PLUGIN and load_map_plugin("") is NO_PLUGIN
    assert load_map_plugin("no_such_benchmark") is NO_PLUGIN
    assert plugin_name(None) == "" and plugin_name("esar/mountain") == "esar"
    with pytest.raises(ValueError, match="not a benchmark name"):
        load_map_plugin("../etc")


def test_registered_plugin_wins_and_is_removed_again():
    toy = MapPlugin("toy", (FieldLayerSpec("radiation", LayerScale("Sv", 0.0, 0.5), "rad/image_raw", "toy/rad"),),
                    "toy/layers_info", map_kind="height")
    register_map_plugin("toy", toy)
    try:
        assert load_map_plugin("toy") is toy and toy in builtin_plugins()
    finally:
        unregister_map_plugin("toy")
    assert "toy" not in MAP_PLUGINS and load_map_plugin("toy") is NO_PLUGIN


def test_malformed_declarations_say_what_is_wrong():
    mod = types.ModuleType("x.map_plugin")
    topics = {"t": "t/image_raw"}
    mod.FIELD_LAYERS = ({"name": "t", "unit": "C", "offset": 0.0, "map_topic": "b"},)
    with pytest.raises(ValueError, match=r"x.map_plugin: FIELD_LAYERS\[0\] lacks scale"):
        plugin_from_module("x", mod, topics)
    mod.FIELD_LAYERS = ({"name": "t", "unit": "C", "offset": 0.0, "scale": 1.0, "map_topic": "b"},)
    with pytest.raises(ValueError, match="need a layers_info_topic"):
        plugin_from_module("x", mod, topics)
    mod.LAYERS_INFO_TOPIC = "x/info"
    assert plugin_from_module("x", mod, topics).layer("t").image_topic == "t/image_raw"
    with pytest.raises(ValueError, match=r"field 't' has no image topic \(the spec's ros field_topics: \{\}\)"):
        plugin_from_module("x", mod, {})
    mod.FIELD_LAYERS = mod.FIELD_LAYERS * 2
    with pytest.raises(ValueError, match="named twice"):
        plugin_from_module("x", mod, topics)
    with pytest.raises(ValueError, match="scale > 0"):
        LayerScale("C", 0.0, 0.0)


def test_memory_and_core_without_a_plugin():
    task = {"hazard": "fire", "targets": [], "containers": {"40": "cart_0"}}
    mem = ObjectMemory(task)
    mem.update([ObjectObservation("cart", np.zeros(3), np.ones(3), 1.0, 1),
                ObjectObservation("cart_0", np.ones(3), np.ones(3), 1.0, 40)], 1.0)
    assert not mem.objects[1].is_container and mem.objects[40].is_container    # only the task's own label
    assert "hazard" not in mem.to_dict()
    mem.set_plugin(container_prefixes=("cart",), task_keys=("hazard",))
    assert mem.objects[1].is_container and mem.to_dict()["hazard"] == "fire"

    core = MappingCore((0.0, 0.0, 2.0, 2.0))
    assert core.layers == {} and core.layers_info() == {} and core.reading_layer() is None
    assert core.memory_dict()["reading_unit"] == ""
    scale = LayerScale("Sv", 0.0, 0.5)
    assert core.add_layer("radiation", scale) and not core.add_layer("radiation", LayerScale("x", 0.0, 1.0))
    assert core.layers_info()["radiation"]["unit"] == "Sv"
    with pytest.raises(ValueError, match="unknown field layer 'heat'"):
        core.add_field(0.0, "heat", np.zeros((4, 4), np.float32))
