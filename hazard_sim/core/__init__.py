"""The benchmark-neutral core: registries, benchmark specs, the composed env, bodies,
world processes, sensors, tasks, measures and typed action outcomes."""
