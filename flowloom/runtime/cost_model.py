"""GraphOptions.build_cost_model: runs that report `RunMetadata.cost_graph`.

With `build_cost_model = N` (and `build_cost_model_after = K`), TF measures every N-th run
of a signature (the same feeds, fetches and targets) after its first K: those runs collect
their step stats, as a traced run does, and report a CostGraphDef with one node per node that
ran: its device, its inputs (the nodes and ports they come from), its outputs (bytes, shape,
dtype) and its compute time in microseconds. The other runs report neither.

Example:
    config = tf.ConfigProto(graph_options=tf.GraphOptions(build_cost_model=100))
    # with tf.Session(config=config): the 100th, 200th, ... run of each signature fills
    # run_metadata.cost_graph (and run_metadata.step_stats).

Not modelled: TF's _SOURCE/_SINK nodes, control inputs, output aliasing (every output is
reported as its own buffer, alias_input_port -1) and persistent memory.
"""

import re
import threading

_LABEL_INPUTS = re.compile(r"^.*? = [^(]*\((?P<inputs>.*)\)$")


class Schedule:
    """Which runs of each plan measure the cost model."""

    def __init__(self, every, after):
        self._every = every
        self._after = after
        self._steps = {}  # plan -> runs so far
        self._lock = threading.Lock()

    def due(self, plan):
        """Counts a run of `plan`; whether it is one that reports the cost graph."""
        with self._lock:
            step = self._steps.get(plan, 0)
            self._steps[plan] = step + 1
        measured = step - self._after
        return measured >= 0 and (measured + 1) % self._every == 0


def schedule(config):
    """The Schedule of a session's ConfigProto, or None when it builds no cost model."""
    options = getattr(config, "graph_options", None)
    every = int(getattr(options, "build_cost_model", 0) or 0)
    if every <= 0:
        return None
    return Schedule(every, max(0, int(options.build_cost_model_after or 0)))


def fill_cost_graph(cost_graph, step_stats):
    """Adds a CostGraphDef node per node of `step_stats` (a StepStats proto) to
    `cost_graph`; a node's inputs are those its timeline label names."""
    ids = {}
    for dev in step_stats.dev_stats:
        for ns in dev.node_stats:
            ids.setdefault(ns.node_name, len(ids))
    for dev in step_stats.dev_stats:
        for ns in dev.node_stats:
            node = cost_graph.node.add(name=ns.node_name, device=dev.device,
                                       id=ids[ns.node_name])
            m = _LABEL_INPUTS.match(ns.timeline_label)
            for name in (m.group("inputs").split(", ") if m else []):
                producer, _, port = name.partition(":")
                if producer in ids:
                    node.input_info.add(preceding_node=ids[producer],
                                        preceding_port=int(port or 0))
            for out in ns.output:
                desc = out.tensor_description
                node.output_info.add(size=desc.allocation_description.requested_bytes,
                                     alias_input_port=-1, shape=desc.shape, dtype=desc.dtype)
            node.compute_cost = node.compute_time = max(ns.all_end_rel_micros, 0)
