"""ament_python package hazard_stack; `pip install -e .` installs it too."""
import os
from glob import glob

from setuptools import find_packages, setup

PACKAGE = "hazard_stack"


def tree(folder: str) -> list:
    """data_files entries installing ``folder`` (recursively) under share/hazard_stack/."""
    out = {}
    for root, _, files in os.walk(folder):
        if files:
            out.setdefault(os.path.join("share", PACKAGE, root), []).extend(
                os.path.join(root, f) for f in sorted(files))
    return sorted(out.items())


setup(
    name=PACKAGE,
    version="0.1.0",
    packages=find_packages(include=["hazard_sim", "hazard_sim.*", "hazard_ros", "hazard_ros.*",
                                    "perception_node", "perception_node.*",
                                    "planner_node", "planner_node.*"]),
    data_files=[
        ("share/ament_index/resource_index/packages", [f"resource/{PACKAGE}"]),
        (f"share/{PACKAGE}", ["package.xml"]),
        (f"share/{PACKAGE}/launch", glob("launch/*.yaml") + glob("launch/*.launch.py")),
        (f"share/{PACKAGE}/rviz", glob("rviz/*.rviz")),
        (f"share/{PACKAGE}/config", glob("config/*.xml")),
        # datasets, shipped models and policies: the code finds them in share/ (hazard_sim.paths)
        *tree("data"),
    ],
    package_data={"hazard_sim": ["py.typed"]},
    install_requires=["setuptools"],
    zip_safe=True,
    maintainer="hazard_stack maintainers",
    maintainer_email="hazard-stack@example.com",
    description="ROS 2 stack for embodied decision making in dangerous, changing environments",
    license="Apache-2.0",
    python_requires=">=3.10",
    entry_points={
        "console_scripts": [
            "hazard = hazard_sim.cli:main",
            "hazard_launch = hazard_ros.launcher:main",
            "sim_node = hazard_ros.entry:sim_node",
            "perception_node = hazard_ros.entry:perception_node",
            "mapping_node = hazard_ros.entry:mapping_node",
            "navigation_node = hazard_ros.entry:navigation_node",
            "decision_node = hazard_ros.entry:decision_node",
            "mcap_recorder = hazard_ros.entry:mcap_recorder",
        ],
    },
)
