"""Decision nodes of the shipped benchmarks, one module each, named after the benchmark
(``planner_node/plugins/<name>.py``): what its ``RosPieces.decision_class`` names and the generic
``decision_node`` script (:mod:`planner_node.decision_main`) makes. Nothing generic imports them."""
