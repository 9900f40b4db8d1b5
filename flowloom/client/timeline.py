"""Chrome-trace JSON from `RunMetadata.step_stats`, as `tensorflow.python.client.timeline`.

Example:
  run_metadata = tf.RunMetadata()
  sess.run(train_op, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
           run_metadata=run_metadata)
  trace = timeline.Timeline(run_metadata.step_stats).generate_chrome_trace_format()
  open('timeline.json', 'w').write(trace)     # load in chrome://tracing or Perfetto

  analysis = timeline.Timeline(run_metadata.step_stats).analyze_step_stats()
  analysis.allocator_maximums["cpu"].num_bytes  # the most bytes live at once on "cpu"
"""

import collections
import json
import re

_LABEL_RE = re.compile(r"^(?P<name>.*?) = (?P<op>[^(]*)\((?P<inputs>.*)\)$")


class AllocationMaximum(collections.namedtuple(
        "AllocationMaximum", ("timestamp", "num_bytes", "tensors"))):
    """The peak of one allocator in a step: when it was reached (microseconds, as the step
    stats' times), the bytes then live, and the names of the tensors holding them."""


class StepStatsAnalysis(collections.namedtuple(
        "StepStatsAnalysis", ("chrome_trace", "allocator_maximums"))):
    """What `Timeline.analyze_step_stats` finds: the trace (a `ChromeTrace`) and a dict of
    allocator name -> AllocationMaximum."""


class ChromeTrace:
    """Chrome-trace events; `format_to_string()` gives the JSON."""

    def __init__(self, events):
        self.events = events

    def format_to_string(self, pretty=False):
        """The trace as JSON (`{"traceEvents": [...]}`), indented when `pretty`."""
        if pretty:
            return json.dumps({"traceEvents": self.events}, indent=4, separators=(",", ": "))
        return json.dumps({"traceEvents": self.events}, indent=None, separators=(",", ":"))


class Timeline:
    """A timeline of one run: a process per device, a lane per thread, an event per op.

    Args:
      step_stats: a StepStats proto (`run_metadata.step_stats`).
      graph: accepted for TF's signature; op types come from the timeline labels.
    """

    def __init__(self, step_stats, graph=None):
        self._step_stats = step_stats
        self._graph = graph

    def generate_chrome_trace_format(self, show_dataflow=True, show_memory=False):
        """Returns the trace as a JSON string (`{"traceEvents": [...]}`).

        Args:
          show_dataflow: add flow arrows from each _Send to its _Recv.
          show_memory: add a counter series per allocator of the bytes its tensors hold.
        """
        analysis = self.analyze_step_stats(show_dataflow, show_memory)
        return analysis.chrome_trace.format_to_string()

    def _events(self, show_dataflow):
        events = []
        sends = {}
        recvs = []
        start0 = self._start0()
        for pid, dev in enumerate(self._step_stats.dev_stats):
            events.append({"name": "process_name", "ph": "M", "pid": pid,
                           "args": {"name": f"{dev.device} Compute"}})
            events.append({"name": "process_sort_index", "ph": "M", "pid": pid,
                           "args": {"sort_index": pid}})
            lanes = {}
            for ns in dev.node_stats:
                tid = lanes.setdefault(ns.thread_id, len(lanes))
                m = _LABEL_RE.match(ns.timeline_label)
                op_type = m.group("op") if m else "unknown"
                inputs = [s for s in (m.group("inputs").split(", ") if m else []) if s]
                args = {"name": ns.node_name, "op": op_type}
                for i, name in enumerate(inputs):
                    args[f"input{i}"] = name
                ts = ns.all_start_micros - start0
                dur = max(ns.all_end_rel_micros, 0)
                events.append({"ph": "X", "cat": "Op", "name": op_type, "pid": pid, "tid": tid,
                               "ts": ts, "dur": dur, "args": args})
                if op_type == "_Send" and inputs:
                    sends[inputs[0]] = (pid, tid, ts)
                elif op_type == "_Recv" and inputs:
                    recvs.append((inputs[0], pid, tid, ts + dur))
        if show_dataflow:
            for flow_id, (edge, pid, tid, ts) in enumerate(recvs):
                if edge in sends:
                    spid, stid, sts = sends[edge]
                    events.append({"ph": "s", "cat": "DataFlow", "name": edge, "id": flow_id,
                                   "pid": spid, "tid": stid, "ts": sts})
                    events.append({"ph": "t", "cat": "DataFlow", "name": edge, "id": flow_id,
                                   "pid": pid, "tid": tid, "ts": ts})
        return events

    def _start0(self):
        # The trace's times count from the step's first op (the maximums' are absolute).
        return min((ns.all_start_micros for d in self._step_stats.dev_stats
                    for ns in d.node_stats), default=0)

    def analyze_step_stats(self, show_dataflow=True, show_memory=True):
        """The trace and, with `show_memory`, each allocator's peak.

        A tensor (an op's output, named `op` or `op:i` as the timeline labels name inputs)
        holds its bytes (`allocation_description.requested_bytes`) from the start of the op
        that makes it to the end of the last op that reads it (a microsecond before, as TF
        counts, or its own op's end); an allocator's peak is the
        most bytes its tensors hold at one time. With `show_memory` the trace also has one
        counter series per allocator (process "Allocators").

        Returns:
          A `StepStatsAnalysis`.
        """
        events = self._events(show_dataflow)
        maximums = {}
        if show_memory:
            pid = len(self._step_stats.dev_stats)
            events.append({"name": "process_name", "ph": "M", "pid": pid,
                           "args": {"name": "Allocators"}})
            start0 = self._start0()
            for allocator, changes in sorted(self._allocations().items()):
                maximums[allocator] = _peak(changes)
                live = 0
                for ts, delta, _ in sorted(changes):
                    live += delta
                    events.append({"ph": "C", "name": allocator, "pid": pid,
                                   "ts": ts - start0, "args": {allocator: live}})
        return StepStatsAnalysis(ChromeTrace(events), maximums)

    def _allocations(self):
        """allocator -> [(time, +bytes or -bytes, tensor name)]: each output tensor's
        allocation at its op's start and release at the end of its last reader (or its
        op's end)."""
        tensors = {}  # name -> [allocator, bytes, start, last use]
        readers = []  # (input name, end time)
        for dev in self._step_stats.dev_stats:
            for ns in dev.node_stats:
                end = ns.all_start_micros + max(ns.all_end_rel_micros, 0)
                for i, out in enumerate(ns.output):
                    alloc = out.tensor_description.allocation_description
                    name = f"{ns.node_name}:{i}" if i else ns.node_name
                    tensors[name] = [alloc.allocator_name, alloc.requested_bytes,
                                     ns.all_start_micros, end]
                m = _LABEL_RE.match(ns.timeline_label)
                for name in (m.group("inputs").split(", ") if m else []):
                    if name:
                        readers.append((name, end))
        for name, end in readers:
            if name not in tensors and name.rfind("/_") > 0:
                name = name[:name.rfind("/_")]  # a Recv TF's partitioner named after its tensor
            if name in tensors:
                # As TF's analysis: a reader releases the tensor a microsecond before it ends.
                tensors[name][3] = max(tensors[name][3], end - 1)
        changes = {}
        for name, (allocator, nbytes, start, last) in tensors.items():
            changes.setdefault(allocator, []).extend([(start, nbytes, name),
                                                      (last, -nbytes, name)])
        return changes


def _peak(changes):
    """The AllocationMaximum of [(time, delta, name)]: at equal times, releases first."""
    best = AllocationMaximum(0, 0, set())
    live, held = 0, set()
    for ts, delta, name in sorted(changes):
        live += delta
        if delta < 0:
            held.discard(name)
        else:
            held.add(name)
        if live > best.num_bytes:
            best = AllocationMaximum(ts, live, set(held))
    return best
