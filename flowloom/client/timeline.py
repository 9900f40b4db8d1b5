"""Chrome-trace JSON from `RunMetadata.step_stats`, as `tensorflow.python.client.timeline`.

Example:
  run_metadata = tf.RunMetadata()
  sess.run(train_op, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
           run_metadata=run_metadata)
  trace = timeline.Timeline(run_metadata.step_stats).generate_chrome_trace_format()
  open('timeline.json', 'w').write(trace)     # load in chrome://tracing or Perfetto
"""

import json
import re

_LABEL_RE = re.compile(r"^(?P<name>.*?) = (?P<op>[^(]*)\((?P<inputs>.*)\)$")


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
          show_memory: add a counter event with the bytes each op outputs.
        """
        events = []
        sends = {}
        recvs = []
        start0 = min((ns.all_start_micros for d in self._step_stats.dev_stats
                      for ns in d.node_stats), default=0)
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
                if show_memory:
                    nbytes = sum(o.tensor_description.allocation_description.requested_bytes
                                 for o in ns.output)
                    events.append({"ph": "C", "name": "output bytes", "pid": pid, "ts": ts,
                                   "args": {dev.device: nbytes}})
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
        return json.dumps({"traceEvents": events}, indent=None, separators=(",", ":"))
