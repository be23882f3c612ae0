"""``mcap_recorder``: record every topic of a run as a rosbag2 bag (directory + MCAP).

rosbag2 is not on PyPI, so this small recorder writes what ``ros2 bag record -s mcap``
writes: a directory ``OUTPUT/`` holding ``OUTPUT_0.mcap`` and ``metadata.yaml`` (rosbag2
bag format version 9: storage ``mcap``, per-topic type, serialization format, offered QoS
profiles, type hash and message count, per-file start / duration / count, written when the
recording ends, atomically), so ``ros2 bag info/play OUTPUT``, rosbags' ``AnyReader`` and
the ``mcap`` tools open it. The MCAP file holds what rosbag2's MCAP storage plugin writes:
profile ``ros2``; one schema per type named ``pkg/msg/Type`` with
encoding ``ros2msg`` and the full message definition (the type's ``.msg`` text,
then each dependency after a ``====...`` line and ``MSG: pkg/Type``, depth first,
as rosbag2 concatenates them); channels with message encoding ``cdr`` and the
metadata ``offered_qos_profiles`` (YAML of the publishers' QoS) and
``topic_type_hash``; messages are the exact serialized CDR bytes received
(subscriptions with ``raw=True``: the bytes ``rclpy.serialization.serialize_message``
gives). A ``rosbag2`` metadata record with an empty ``serialized_metadata`` tells
rosbag2 to read the QoS profiles in their integer form (bag version 8).

Topics are discovered every ``discovery_period`` seconds; each subscription asks
for the QoS the publishers offer (reliable / transient local only when every
publisher offers it, as rosbag2 does), so latched topics are recorded too.

Stopping: SIGINT and SIGTERM only set a flag (``hazard_ros.ros_node_main``); the recorder then
stops taking messages, finishes the MCAP file (last chunk, indexes, summary) and writes
``metadata.yaml``, so a recording stopped at any moment is complete and consistent (a
signal can no longer interrupt a write half-way). Killed with SIGKILL, the MCAP file has
no summary and there is no ``metadata.yaml`` (``ros2 bag reindex`` restores it).

Run: ``mcap_recorder --ros-args -p output:=runs/ep0 [-p topics:="['/odom']"]
[-p exclude:='.*image_raw'] [-p compression:=zstd|lz4|none] [-p chunk_size:=BYTES]``.
On a full disk the recorder stops, cuts the file back to its last whole record (losing at most
the chunk being written) and ends it with MCAP's DataEnd and Footer, so readers read the rest.
Read back: ``rosbags.highlevel.AnyReader([Path('runs/ep0')])``, or ``mcap.reader.make_reader``
on ``runs/ep0/ep0_0.mcap`` + ``rclpy.serialization.deserialize_message``.
"""
from __future__ import annotations

import importlib
import os
import re
import sys
import tempfile
import threading
from functools import partial
from pathlib import Path

import yaml
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, LivelinessPolicy, QoSProfile, ReliabilityPolicy

from hazard_ros.ros_node_main import run_node

BAG_VERSION = 9

SEPARATOR = "=" * 80 + "\n"
PRIMITIVES = {"bool", "byte", "char", "float32", "float64", "int8", "uint8", "int16", "uint16",
              "int32", "uint32", "int64", "uint64", "string", "wstring"}
# a field's type at the start of a line: "pkg/Type[] name", "Type name", "uint8 CONST=1"
_FIELD_TYPE = re.compile(r"(?:^|\n)\s*([a-zA-Z0-9_/]+)(?:\[[^\]]*\])?\s+")


# ============================================================================ definitions
def _share_dirs() -> list[Path]:
    prefixes = [p for p in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p]
    prefixes.append(sys.prefix)
    return [Path(p) / "share" for p in prefixes]


def _split_type(type_name: str) -> tuple[str, str, str]:
    """('pkg', 'msg', 'Type') of 'pkg/msg/Type' or 'pkg/Type'."""
    parts = type_name.split("/")
    if len(parts) == 2:
        return parts[0], "msg", parts[1]
    if len(parts) == 3:
        return parts[0], parts[1], parts[2]
    raise ValueError(f"not a ROS type name: {type_name!r}")


def _msg_text(type_name: str) -> str | None:
    pkg, ns, name = _split_type(type_name)
    for share in _share_dirs():
        f = share / pkg / ns / f"{name}.msg"
        if f.is_file():
            return f.read_text()
    return None


def _dependencies(text: str, package: str) -> list[str]:
    deps = set()
    for t in _FIELD_TYPE.findall(text):
        if t in PRIMITIVES:
            continue
        deps.add(t if "/" in t else f"{package}/{t}")
    return sorted(deps)


def message_definition(type_name: str) -> str:
    """The ``ros2msg`` schema text of a type, as rosbag2 concatenates it.

    Raises ``LookupError`` when a ``.msg`` file (of the type or a dependency) is missing.
    """
    seen: set[str] = set()

    def text_of(t: str, depth: int) -> str:
        if depth > 50:
            raise LookupError(f"definition of {type_name} nests too deep")
        text = _msg_text(t)
        if text is None:
            raise LookupError(f"no .msg definition for {t} (looked in {', '.join(map(str, _share_dirs()))})")
        out = text
        for dep in _dependencies(text, _split_type(t)[0]):
            if dep not in seen:
                seen.add(dep)
                out += "\n" + SEPARATOR + f"MSG: {dep}\n" + text_of(dep, depth + 1)
        return out
    return text_of(type_name, 0)


def message_class(type_name: str):
    """The Python class of 'pkg/msg/Type' (also action / service parts like
    'pkg/action/Nav_FeedbackMessage')."""
    pkg, ns, name = _split_type(type_name)
    module = importlib.import_module(f"{pkg}.{ns}")
    if hasattr(module, name):
        return getattr(module, name)
    base, _, part = name.rpartition("_")
    owner = getattr(module, base, None)
    if owner is not None:
        for holder in (owner, getattr(owner, "Impl", None)):
            if holder is not None and hasattr(holder, part):
                return getattr(holder, part)
    raise LookupError(f"no Python class for {type_name}")


def _duration_yaml(d, indent: str) -> str:
    ns = int(getattr(d, "nanoseconds", 0))
    return f"\n{indent}  sec: {ns // 1_000_000_000}\n{indent}  nsec: {ns % 1_000_000_000}"


def qos_profiles_yaml(profiles) -> str:
    """rosbag2's ``offered_qos_profiles`` YAML (integer policies, bag version 8)."""
    if not profiles:
        return ""
    out = []
    for q in profiles:
        out.append(
            f"- history: {int(q.history)}\n  depth: {int(q.depth)}\n  reliability: {int(q.reliability)}\n"
            f"  durability: {int(q.durability)}\n  deadline:{_duration_yaml(q.deadline, '  ')}\n"
            f"  lifespan:{_duration_yaml(q.lifespan, '  ')}\n  liveliness: {int(q.liveliness)}\n"
            f"  liveliness_lease_duration:{_duration_yaml(q.liveliness_lease_duration, '  ')}\n"
            f"  avoid_ros_namespace_conventions: {str(bool(q.avoid_ros_namespace_conventions)).lower()}")
    return "\n".join(out) + "\n"


_POLICY_NAMES = {
    "history": {HistoryPolicy.SYSTEM_DEFAULT: "system_default", HistoryPolicy.KEEP_LAST: "keep_last",
                HistoryPolicy.KEEP_ALL: "keep_all"},
    "reliability": {ReliabilityPolicy.SYSTEM_DEFAULT: "system_default", ReliabilityPolicy.RELIABLE: "reliable",
                    ReliabilityPolicy.BEST_EFFORT: "best_effort", ReliabilityPolicy.BEST_AVAILABLE: "best_available"},
    "durability": {DurabilityPolicy.SYSTEM_DEFAULT: "system_default", DurabilityPolicy.TRANSIENT_LOCAL:
                   "transient_local", DurabilityPolicy.VOLATILE: "volatile",
                   DurabilityPolicy.BEST_AVAILABLE: "best_available"},
    "liveliness": {LivelinessPolicy.SYSTEM_DEFAULT: "system_default", LivelinessPolicy.AUTOMATIC: "automatic",
                   LivelinessPolicy.MANUAL_BY_TOPIC: "manual_by_topic",
                   LivelinessPolicy.BEST_AVAILABLE: "best_available"},
}


def _duration_dict(d) -> dict:
    ns = int(getattr(d, "nanoseconds", 0))
    return {"sec": ns // 1_000_000_000, "nsec": ns % 1_000_000_000}


def qos_profiles_v9(profiles) -> list[dict]:
    """``offered_qos_profiles`` of a bag version 9 ``metadata.yaml`` (policy names as text)."""
    out = []
    for q in profiles or []:
        out.append({
            "history": _POLICY_NAMES["history"].get(q.history, "unknown"), "depth": int(q.depth),
            "reliability": _POLICY_NAMES["reliability"].get(q.reliability, "unknown"),
            "durability": _POLICY_NAMES["durability"].get(q.durability, "unknown"),
            "deadline": _duration_dict(q.deadline), "lifespan": _duration_dict(q.lifespan),
            "liveliness": _POLICY_NAMES["liveliness"].get(q.liveliness, "unknown"),
            "liveliness_lease_duration": _duration_dict(q.liveliness_lease_duration),
            "avoid_ros_namespace_conventions": bool(q.avoid_ros_namespace_conventions)})
    return out


def bag_paths(output: str) -> tuple[Path, Path]:
    """(bag directory, MCAP file) of an ``output`` parameter, as ``ros2 bag record -o`` names
    them: ``DIR/`` and ``DIR/DIR_0.mcap`` (a trailing ``.mcap`` is dropped from DIR)."""
    d = Path(output).expanduser()
    if d.suffix == ".mcap":
        d = d.with_suffix("")
    return d, d / f"{d.name}_0.mcap"


class WholeRecords:
    """The bag's file for the MCAP writer: unbuffered (a write that fails leaves nothing of itself
    in a Python buffer to be retried at close), its offset the writer's record boundaries."""

    def __init__(self, path: Path):
        self.f = open(path, "wb", buffering=0)

    def write(self, data) -> int:
        data = memoryview(bytes(data))
        done = 0
        while done < len(data):
            done += self.f.write(data[done:])
        return len(data)

    def tell(self) -> int:
        return self.f.tell()

    def flush(self) -> None:
        pass                              # nothing is buffered

    def fileno(self) -> int:
        return self.f.fileno()

    def close(self) -> None:
        self.f.close()


def output_problem(output: str) -> str | None:
    """Why a bag cannot be written at ``output`` (None: it can): an existing bag, or a place where
    the directory cannot be made (its nearest existing parent is not a writable directory)."""
    bag_dir, _ = bag_paths(output)
    if bag_dir.exists() and (not bag_dir.is_dir() or any(bag_dir.iterdir())):
        return (f"output {str(bag_dir)!r} already exists (rosbag2 does not overwrite a bag); "
                "remove it or choose another name")
    parent = bag_dir if bag_dir.exists() else bag_dir.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        return f"cannot create the bag {str(bag_dir)!r}: {str(parent)!r} is not a directory"
    try:                 # a real attempt: access() says yes to root in /proc and on read-only mounts
        os.rmdir(tempfile.mkdtemp(prefix=".bag_write_check_", dir=parent))
    except OSError as exc:
        return f"cannot create the bag {str(bag_dir)!r} in {str(parent)!r}: {exc.strerror or exc}"
    return None


def request_qos(profiles) -> QoSProfile:
    """rosbag2's adaptation: reliable / transient local only if every publisher offers it."""
    qos = QoSProfile(depth=100, history=HistoryPolicy.KEEP_LAST)
    everyone = bool(profiles)
    qos.reliability = (ReliabilityPolicy.RELIABLE if everyone and all(
        p.reliability == ReliabilityPolicy.RELIABLE for p in profiles) else ReliabilityPolicy.BEST_EFFORT)
    qos.durability = (DurabilityPolicy.TRANSIENT_LOCAL if everyone and all(
        p.durability == DurabilityPolicy.TRANSIENT_LOCAL for p in profiles) else DurabilityPolicy.VOLATILE)
    return qos


def _hidden(topic: str) -> bool:
    return any(part.startswith("_") for part in topic.split("/"))


# ============================================================================ node
class Recorder(Node):
    """See the module docstring. Call :meth:`close` (``main`` does) to finish the file."""

    def __init__(self, node_name: str = "mcap_recorder", **kwargs):
        super().__init__(node_name, **kwargs)

        def param(name, default, doc):
            return self.declare_parameter(name, default, ParameterDescriptor(description=doc)).value
        output = str(param("output", "", "bag directory to create (rosbag2 layout: metadata.yaml + MCAP)"))
        topics = list(param("topics", [""], "topics to record (empty: all)"))
        exclude = str(param("exclude", "", "regular expression of topics not to record"))
        period = float(param("discovery_period", 1.0, "seconds between topic discoveries"))
        compression = str(param("compression", "zstd", "chunk compression: zstd | lz4 | none"))
        chunk_size = param("chunk_size", 1024 * 1024, "bytes of messages per MCAP chunk (a full disk loses at most "
                                                      "the chunk being written)")
        self.include_hidden = bool(param("include_hidden", False, "also record hidden topics (/_action/...)"))
        if not output:
            raise ValueError("parameter 'output' is empty: give the MCAP file to write (-p output:=run.mcap)")
        from mcap.well_known import Profile
        from mcap.writer import CompressionType, Writer
        kinds = {"zstd": CompressionType.ZSTD, "lz4": CompressionType.LZ4, "none": CompressionType.NONE}
        if compression not in kinds:
            raise ValueError(f"parameter 'compression' must be one of {sorted(kinds)}, got {compression!r}")
        if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or not 1024 <= chunk_size <= 2 ** 30:
            raise ValueError(f"parameter 'chunk_size' must be a number of bytes from 1024 to 2**30, got {chunk_size!r}")
        try:
            self.exclude = re.compile(exclude) if exclude else None
        except re.error as exc:
            raise ValueError(f"parameter 'exclude' is not a regular expression: {exc}") from None
        self.only = {t if t.startswith("/") else "/" + t for t in topics if t}
        problem = output_problem(output)
        if problem:
            raise ValueError(problem)
        self.bag_dir, self.path = bag_paths(output)
        try:
            self.bag_dir.mkdir(parents=True, exist_ok=True)
            self._file = WholeRecords(self.path)
        except OSError as exc:
            raise ValueError(f"cannot create the bag {str(self.bag_dir)!r}: {exc.strerror or exc}") from None
        self._lock = threading.Lock()
        self.topic_info: dict[str, dict] = {}
        self.first_ns: int | None = None
        self.last_ns: int | None = None
        self.writer = Writer(self._file, compression=kinds[compression], chunk_size=chunk_size)
        self.writer.start(profile=Profile.ROS2, library="hazard_stack mcap_recorder")
        self.writer.add_metadata("rosbag2", {"serialized_metadata": "",
                                             "ROS_DISTRO": os.environ.get("ROS_DISTRO", "kilted")})
        self.schemas: dict[str, int] = {}
        self.channels: dict[str, int] = {}
        self.counts: dict[str, int] = {}
        self.skipped: set[str] = set()
        self.closed = False
        self.discover()
        self.create_timer(period, self.discover)
        self.get_logger().info(f"recording to {self.path}")

    def _wanted(self, topic: str) -> bool:
        if self.only and topic not in self.only:
            return False
        if not self.include_hidden and _hidden(topic):
            return False
        if topic.endswith("/_service_event"):
            return False
        return not (self.exclude and self.exclude.fullmatch(topic))

    def discover(self) -> None:
        """Subscribe to every new topic that has a publisher."""
        if self.closed:
            return
        for topic, types in self.get_topic_names_and_types():
            if topic in self.channels or topic in self.skipped or not self._wanted(topic):
                continue
            pubs = self.get_publishers_info_by_topic(topic)
            if not pubs:
                continue                     # only subscribers so far: wait for a publisher
            type_name = types[0]
            try:
                cls = message_class(type_name)
                if type_name not in self.schemas:
                    self.schemas[type_name] = self.writer.register_schema(
                        type_name, "ros2msg", message_definition(type_name).encode())
            except (ImportError, LookupError, ValueError) as exc:
                self.get_logger().warning(f"not recording {topic}: {exc}")
                self.skipped.add(topic)
                continue
            profiles = [p.qos_profile for p in pubs]
            type_hash = str(getattr(pubs[0], "topic_type_hash", "") or "")
            meta = {"offered_qos_profiles": qos_profiles_yaml(profiles)}
            if type_hash.startswith("RIHS"):
                meta["topic_type_hash"] = type_hash
            with self._lock:
                if self.closed:
                    return
                channel = self.writer.register_channel(topic, "cdr", self.schemas[type_name], meta)
            self.topic_info[topic] = {"name": topic, "type": type_name, "serialization_format": "cdr",
                                      "offered_qos_profiles": qos_profiles_v9(profiles),
                                      "type_description_hash": type_hash if type_hash.startswith("RIHS") else ""}
            self.channels[topic] = channel
            self.counts[topic] = 0
            self.create_subscription(cls, topic, partial(self._on_message, topic, channel),
                                     request_qos(profiles), raw=True)
            self.get_logger().debug(f"recording {topic} ({type_name})")

    def _on_message(self, topic: str, channel: int, data: bytes, info) -> None:
        """Write one message: log time = receive time (node clock), publish time = send time."""
        now = self.get_clock().now().nanoseconds
        sent = int(info.get("source_timestamp") or 0) or now
        with self._lock:
            if self.closed:
                return
            safe = self._file.tell()          # a record boundary: the writer is between calls
            try:
                self.writer.add_message(channel, log_time=now, data=bytes(data), publish_time=sent,
                                        sequence=self.counts[topic])
            except OSError as exc:
                self._write_failed(exc, safe)
                return
            self.counts[topic] += 1
            self.first_ns = now if self.first_ns is None else min(self.first_ns, now)
            self.last_ns = now if self.last_ns is None else max(self.last_ns, now)

    def metadata(self) -> dict:
        """The bag's ``metadata.yaml`` content (rosbag2 version 9)."""
        start = self.first_ns or 0
        duration = (self.last_ns - self.first_ns) if self.first_ns is not None else 0
        total = sum(self.counts.values())
        rel = self.path.name
        return {"rosbag2_bagfile_information": {
            "version": BAG_VERSION, "storage_identifier": "mcap",
            "duration": {"nanoseconds": duration}, "starting_time": {"nanoseconds_since_epoch": start},
            "message_count": total,
            "topics_with_message_count": [{"topic_metadata": self.topic_info[t], "message_count": self.counts[t]}
                                          for t in self.topic_info],
            "compression_format": "", "compression_mode": "",
            "relative_file_paths": [rel],
            "files": [{"path": rel, "starting_time": {"nanoseconds_since_epoch": start},
                       "duration": {"nanoseconds": duration}, "message_count": total}],
            "custom_data": {}, "ros_distro": os.environ.get("ROS_DISTRO", "kilted")}}

    def on_shutdown(self) -> None:
        self.close()

    def _write_metadata(self) -> None:
        tmp = self.bag_dir / "metadata.yaml.tmp"
        tmp.write_text(yaml.safe_dump(self.metadata(), sort_keys=False))
        os.replace(tmp, self.bag_dir / "metadata.yaml")

    def _write_failed(self, exc: OSError, safe: int) -> None:
        """A write to the bag failed (a full disk): stop recording; cut the file back to ``safe``
        (the end of its last whole record: what the failed call began is lost, at most one chunk)
        and end it there with MCAP's DataEnd and Footer (no summary: readers then read it in
        order), or leave it ending on that record if even those do not fit. Say so once. Called
        with the lock held."""
        import errno

        from mcap.data_stream import RecordBuilder
        from mcap.records import DataEnd, Footer
        from mcap.writer import MCAP0_MAGIC
        code = errno.errorcode.get(exc.errno, str(exc.errno))
        self.closed = True
        fd = self._file.fileno()
        os.ftruncate(fd, safe)
        self._file.f.seek(safe)
        end = RecordBuilder()
        DataEnd(0).write(end)
        Footer(0, 0, 0).write(end)
        try:
            self._file.write(end.end() + MCAP0_MAGIC)
            os.fsync(fd)
            ended = "ended there"
        except OSError:
            os.ftruncate(fd, safe)
            ended = "without its footer (no room even for that)"
        self._file.close()
        self.get_logger().error(f"cannot write the bag {self.path}: {exc.strerror} ({code}); recording stopped, "
                                f"the file keeps its whole records, {ended}")
        try:
            self._write_metadata()
        except OSError:
            pass

    def close(self) -> None:
        """Finish the MCAP file (last chunk, indexes, summary), then write ``metadata.yaml``
        (atomically); further messages are ignored."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            safe = self._file.tell()
            try:
                self.writer.finish()
                os.fsync(self._file.fileno())
            except OSError as exc:
                self._write_failed(exc, safe)
                return
            self._file.close()
        self._write_metadata()
        text = f"recorded {sum(self.counts.values())} messages on {len(self.counts)} topics to {self.bag_dir}"
        if self.context.ok():
            self.get_logger().info(text)
        else:                                   # after Ctrl-C the context is gone: no /rosout
            print(f"[mcap_recorder] {text}", file=sys.stderr)


def main(args=None) -> int:
    return run_node(Recorder, "mcap_recorder", args)


if __name__ == "__main__":
    sys.exit(main())
