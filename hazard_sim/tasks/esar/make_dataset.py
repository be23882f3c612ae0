"""``python -m hazard_sim.tasks.esar.make_dataset generate [--out DIR]`` (or ``validate FILE...``):
the command line of :mod:`hazard_sim.tasks.esar.scenario`."""
import sys

from hazard_sim.tasks.esar.scenario import main

if __name__ == "__main__":
    sys.exit(main())
