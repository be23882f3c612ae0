# A failed process fails the launch: include it from a YAML launch file
#   - include: {file: "$(dirname)/exit_status.launch.py"}
#
# ROS 2 launch's exit status is 0 however its processes end: `on_exit: shutdown` (the only
# on_exit action YAML has) stops the launch but carries no exit code. This file registers an
# OnProcessExit handler that raises when a process exits non-zero (or is killed) while the launch
# is not shutting down; LaunchService then stops every process and `ros2 launch` exits with 1.
# Exits during the shutdown (nodes stopped by SIGINT / SIGTERM / SIGKILL) do not count.
#
# hazard_launch (pip-only machines) does not run Python launch files; it implements this file's
# whole meaning itself, recognised by the HAZARD_LAUNCH_POLICY line below
# (hazard_ros/launch_file.py, FAIL_ON_ERROR_POLICY).
from launch import LaunchDescription
from launch.actions import RegisterEventHandler
from launch.event_handlers import OnProcessExit

HAZARD_LAUNCH_POLICY = "fail_on_process_error"


class ProcessFailed(RuntimeError):
    """A launched process ended with an error while the launch was running."""


def _on_exit(event, context):
    if event.returncode == 0 or context.is_shutdown:
        return None
    how = (f"exit code {event.returncode}" if event.returncode > 0
           else f"signal {-event.returncode}")
    raise ProcessFailed(f"process {event.action.name!r} (pid {event.pid}) failed ({how}); "
                        "stopping the launch")


def generate_launch_description():
    return LaunchDescription([RegisterEventHandler(OnProcessExit(on_exit=_on_exit))])
