"""Benchmark specs: a benchmark id names how the env is composed.

A :class:`BenchmarkSpec` composes registered pieces: a dataset of episodes, a
world builder (scene + entities + physics), world processes, an embodiment, the
sensors, a task, measures, and the limits (simulated frames, and actions per
episode as Gymnasium's ``TimeLimit``).  Benchmarks register themselves in
:data:`BENCHMARKS` (ids such as ``<name>/<variant>``; ``hazard benchmarks`` lists them) and with
Gymnasium (``gymnasium.make("hazard_stack/<name>-<variant>-v1")``).  The env holds no
``if benchmark == ...``: everything specific is in the pieces.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from hazard_sim.core.registry import Registry

GYM_NAMESPACE = "hazard_stack"


#: the dataset splits of a benchmark unless its Dataset names others
DEFAULT_SPLITS = ("train", "test")


from hazard_sim.validation import DatasetError  # noqa: E402,F401  (one DatasetError for every benchmark's files)


@dataclass(frozen=True)
class Dataset:
    """Where a benchmark's episodes come from: ``load(split, index, root) -> dict``,
    ``validate(episode, where, spec) -> dict``, ``count(split, root) -> int`` and, optionally,
    ``fingerprint(split, root) -> str`` (changes whenever the split's episodes do; sweeps
    record it so that results of other episode files are never reused). ``sweep`` gives,
    per split, how many episodes (the first ones) a sweep runs by default, e.g. a
    leaderboard's count; a split not named there sweeps them all."""
    load: Callable[..., dict]
    validate: Callable[..., dict]
    count: Callable[..., int]
    splits: tuple[str, ...] = DEFAULT_SPLITS
    fingerprint: Callable[..., str] | None = None
    sweep: dict = field(default_factory=dict)

    def sweep_count(self, split: str, root=None) -> int:
        """Episodes of a default sweep of ``split`` (never more than the split has)."""
        n = self.count(split, root)
        return min(int(self.sweep.get(split, n)), n)


@dataclass(frozen=True)
class BenchmarkSpec:
    id: str                                   # "<name>/<variant>" (or "<name>")
    description: str
    dataset: Dataset
    build_world: Callable[[dict, Any], Any]   # (episode, rng) -> World (scene, entities, physics)
    processes: tuple[Callable, ...]           # each (world, episode, rng) -> WorldProcess
    embodiment: Callable[[dict, Any], Any]    # (episode, body_spec) -> Embodiment
    body_spec: Any                            # the embodiment's default spec
    task: Callable[[], Any]                   # () -> Task
    measures: tuple[Callable[[], Any], ...]   # each () -> Measure
    max_frames: int                           # simulated frames per episode
    max_steps: int | None = None              # actions per episode (Gymnasium TimeLimit)
    sensors: tuple[str, ...] = ("rgbd",)      # names in hazard_sim.core.sensors.SENSORS
    map_resolution: float = 0.1               # m per cell of the body's walking map
    physics: bool = False                     # objects are MuJoCo bodies
    agents: str = ""                          # the agent registry's group for this benchmark
    aggregate: Callable[[list], dict] | None = None   # per-episode metrics -> one table row
    table: Callable[[str, list], str] | None = None   # (id, rows) -> the paper's table as text
    progress: Callable[[dict], str] | None = None     # one episode's metrics -> a short line
    camera_clip: tuple[float, float] | None = None    # (near, far) m for the cameras (None: the CameraSpec's)
    recorder: Callable[..., Any] | None = None        # (env, out_dir) -> --save-viz recorder (None: none)
    json_omit: tuple[str, ...] = ()                   # metrics left out of `hazard run --json` (e.g. wall time)
    min_pixels: int = 3                               # ground truth: an instance counts as seen from this many pixels
    detector_min_pixels: int = 3                      # a detector's instances: the smallest kept (docs/perception.md)
    namer_crops: Callable[..., Any] | None = None     # (split, **kw) -> a CropSet of its objects (instance namer)
    ros: Any = None                                   # its ROS side: a core.ros_pieces.RosPieces (None: none)
    options: dict = field(default_factory=dict)

    @property
    def gym_id(self) -> str:
        return gym_id(self.id)


BENCHMARKS: Registry[BenchmarkSpec] = Registry("benchmark")
ALIASES: dict[str, str] = {}          # older short names of benchmarks -> their ids


def gym_id(benchmark_id: str, version: int = 1) -> str:
    return f"{GYM_NAMESPACE}/{benchmark_id.replace('/', '-')}-v{version}"


def register_benchmark(spec: BenchmarkSpec, aliases: tuple[str, ...] = ()) -> BenchmarkSpec:
    """Add a benchmark to the registry and to Gymnasium; ``aliases`` are other names for it."""
    BENCHMARKS.register(spec.id, spec, replace=True)
    for a in aliases:
        ALIASES[a] = spec.id
    import gymnasium
    gymnasium.register(id=spec.gym_id, entry_point="hazard_sim.core.env:EmbodiedEnv",
                       kwargs={"benchmark": spec.id}, max_episode_steps=spec.max_steps,
                       disable_env_checker=True)
    return spec


def unregister_benchmark(benchmark_id: str) -> BenchmarkSpec:
    """Undo :func:`register_benchmark`: the spec, its aliases and its Gymnasium id go."""
    spec = BENCHMARKS.unregister(benchmark_id)
    for a in [a for a, b in ALIASES.items() if b == benchmark_id]:
        del ALIASES[a]
    import gymnasium
    gymnasium.registry.pop(spec.gym_id, None)
    return spec


def _load_builtin() -> None:
    # the benchmarks shipped with the package register on import
    from hazard_sim.tasks import load_builtin
    load_builtin()


def resolve(name: str) -> str:
    """The benchmark id for ``name`` (an id or one of its aliases). Of the shipped benchmarks only
    the package that registers ``name`` is imported (the one the id's ``<package>/`` names first)."""
    if not isinstance(name, str):
        _load_builtin()
        raise KeyError(f"unknown benchmark {name!r}; known: {', '.join(BENCHMARKS.names())}")
    if name not in BENCHMARKS and name not in ALIASES:
        from hazard_sim.tasks import load_for
        load_for(name)
    name = ALIASES.get(name, name)
    BENCHMARKS.get(name)
    return name


def get_spec(name) -> BenchmarkSpec:
    if isinstance(name, BenchmarkSpec):
        return name
    return BENCHMARKS.get(resolve(name))


def benchmark_ids() -> list[str]:
    _load_builtin()
    return BENCHMARKS.names()
