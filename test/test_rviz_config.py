"""rviz/hazard.rviz: valid RViz2 YAML whose every topic is published by some node, with
display classes that match the topic types and QoS that connect to the publishers.

Publishers come from each node module's ``PUBLISHED_TOPICS`` constant (a dict or a list
of (topic, type) pairs). Node modules that cannot be imported yet (or without rclpy)
fall back to the topics named in the "publishes" sentences of docs/ros_contract.md.
"""
from __future__ import annotations

import importlib
import importlib.util
import re
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
RVIZ = REPO / "rviz" / "hazard.rviz"
CONTRACT = REPO / "docs" / "ros_contract.md"
NODE_MODULES = ["hazard_ros.sim_node", "perception_node.perception_node", "perception_node.mapping_node",
                "planner_node.navigation_node", "planner_node.plugins.hazard"]

# display class -> the message type it shows
DISPLAY_TYPES = {
    "rviz_default_plugins/Image": "sensor_msgs/msg/Image",
    "rviz_default_plugins/PointCloud2": "sensor_msgs/msg/PointCloud2",
    "rviz_default_plugins/Map": "nav_msgs/msg/OccupancyGrid",
    "rviz_default_plugins/MarkerArray": "visualization_msgs/msg/MarkerArray",
    "rviz_default_plugins/Path": "nav_msgs/msg/Path",
    "rviz_default_plugins/Odometry": "nav_msgs/msg/Odometry",
}
OTHER_CLASSES = {"rviz_default_plugins/Grid", "rviz_default_plugins/TF", "rviz_common/Group"}
# topics that must be shown (the brief of the RViz view)
REQUIRED = {"camera/color/image_raw", "camera/depth/image_raw", "thermal/image_raw", "water_level/image_raw",
            "lidar/points", "map", "hazard/temperature", "hazard/water_level", "objects", "plan", "odom"}


def _norm(topic: str) -> str:
    return topic.strip("/")


def _displays(items):
    for d in items:
        yield d
        yield from _displays(d.get("Displays", []))


def published_topics() -> tuple[dict[str, str | None], list[str]]:
    """topic -> type (None where only the contract names it), and the modules used."""
    topics: dict[str, str | None] = {}
    used = []
    for name in NODE_MODULES:
        try:
            mod = importlib.import_module(name)
            pubs = mod.PUBLISHED_TOPICS
        except Exception:
            continue
        used.append(name)
        for topic, type_name in (pubs.items() if isinstance(pubs, dict) else pubs):
            topics[_norm(topic)] = type_name
    # contract fallback: backticked names in the "publishes ..." paragraphs
    text = CONTRACT.read_text()
    for para in re.split(r"\n\s*\n", text):
        if re.search(r"\b[Pp]ublishes\b", para):
            for tok in re.findall(r"`([A-Za-z_][A-Za-z0-9_/]*)`", para):
                topics.setdefault(_norm(tok), None)
    for row in re.findall(r"^\| `([^`]+)`(?:, `([^`]+)`)? \| ([a-z0-9_]+/[A-Za-z0-9]+) ", text, re.M):
        for tok in row[:2]:
            if tok:
                pkg, name = row[2].split("/")
                topics.setdefault(_norm(tok), f"{pkg}/msg/{name}")
    return topics, used


def load_rviz() -> dict:
    return yaml.safe_load(RVIZ.read_text())


def test_rviz_is_valid_yaml_with_known_classes():
    cfg = load_rviz()
    vm = cfg["Visualization Manager"]
    assert vm["Global Options"]["Fixed Frame"] == "map"
    for d in _displays(vm["Displays"]):
        assert d["Class"] in set(DISPLAY_TYPES) | OTHER_CLASSES, d["Class"]
        assert d["Class"].split("/")[0] in ("rviz_default_plugins", "rviz_common")
    assert {p["Class"] for p in cfg["Panels"]} >= {"rviz_common/Displays", "rviz_common/Views"}


def test_every_rviz_topic_is_published():
    topics, used = published_topics()
    if importlib.util.find_spec("rclpy") is not None:          # with ROS, every node's own list counts
        assert used == NODE_MODULES, f"node modules that did not import: {sorted(set(NODE_MODULES) - set(used))}"
    shown = {}
    for d in _displays(load_rviz()["Visualization Manager"]["Displays"]):
        if "Topic" in d:
            shown[_norm(d["Topic"]["Value"])] = d
    assert REQUIRED <= set(shown), f"not shown: {REQUIRED - set(shown)}"
    for topic, d in shown.items():
        assert topic in topics, f"RViz shows {topic!r}, which no node publishes"
        want = topics[topic]
        if want is not None:
            assert DISPLAY_TYPES[d["Class"]] == want, f"{topic}: {d['Class']} cannot show {want}"


def test_rviz_qos_matches_publishers():
    for d in _displays(load_rviz()["Visualization Manager"]["Displays"]):
        if "Topic" not in d:
            continue
        qos = d["Topic"]
        if d["Class"] == "rviz_default_plugins/Map":
            # maps are latched (transient local): a late RViz still gets them
            assert qos["Durability Policy"] == "Transient Local" and qos["Reliability Policy"] == "Reliable"
        if d["Class"] in ("rviz_default_plugins/Image", "rviz_default_plugins/PointCloud2",
                          "rviz_default_plugins/Odometry"):
            # best effort connects to sensor-data (free-run) and reliable (lock-step) publishers alike
            assert qos["Reliability Policy"] == "Best Effort" and qos["Durability Policy"] == "Volatile"
        if d["Class"] in ("rviz_default_plugins/Path", "rviz_default_plugins/MarkerArray"):
            assert qos["Durability Policy"] == "Volatile"      # compatible with latched and plain publishers
