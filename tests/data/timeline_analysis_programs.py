"""Timeline.analyze_step_stats on hand-made StepStats (a pure function of the proto), run on
TF 1.15 (record_timeline_analysis.py) and flowloom (tests/runtime/test_timeline_analysis.py).

`program(step_stats_pb2, timeline)` gives, per case, each allocator's maximum as
[timestamp, num_bytes, sorted tensor names] and the trace's event phases that matter.
"""

import json

from google.protobuf import text_format


def _node(name, op, start, dur, inputs=(), outputs=()):
    outs = "".join(
        f"output {{ slot: {i} tensor_description {{ allocation_description {{ "
        f"requested_bytes: {nbytes} allocator_name: '{alloc}' }} }} }} "
        for i, (alloc, nbytes) in enumerate(outputs))
    label = f"{name} = {op}({', '.join(inputs)})"
    return (f"node_stats {{ node_name: '{name}' all_start_micros: {start} "
            f"all_end_rel_micros: {dur} timeline_label: '{label}' {outs}}}")


CASES = {
    # a -> b -> c on one device: a is released when b (its last reader) ends.
    "chain": [("/job:localhost/replica:0/task:0/device:CPU:0", [
        _node("a", "Const", 100, 10, (), [("cpu", 400)]),
        _node("b", "Mul", 120, 10, ("a",), [("cpu", 400)]),
        _node("c", "Add", 140, 10, ("b",), [("cpu", 400)])])],
    # Two outputs, a reader of the second; overlapping ops; two allocators.
    "outputs_and_allocators": [("/job:localhost/replica:0/task:0/device:CPU:0", [
        _node("s", "Split", 10, 5, (), [("cpu", 8), ("cpu", 8)]),
        _node("x", "Neg", 12, 20, ("s:1",), [("cpu", 8)]),
        _node("h", "Cast", 13, 2, ("s",), [("cuda_host_bfc", 16)]),
        _node("y", "Add", 40, 1, ("x", "h"), [("cpu", 8)])])],
    # Across devices: the reader names a received tensor `a/_1`, counted as `a`'s read.
    "two_devices": [
        ("/job:localhost/replica:0/task:0/device:CPU:0", [
            _node("a", "Const", 1, 1, (), [("cpu", 100)]),
            _node("b", "Const", 1, 1, (), [("cpu", 50)])]),
        ("/job:localhost/replica:0/task:0/device:CPU:1", [
            _node("c", "Add", 30, 4, ("a/_1", "b"), [("cpu", 100)])])],
    "ties_release_first": [("/job:localhost/replica:0/task:0/device:CPU:0", [
        _node("p", "Const", 0, 5, (), [("cpu", 10)]),
        _node("q", "Const", 5, 5, (), [("cpu", 10)])])],
    "no_outputs": [("/job:localhost/replica:0/task:0/device:CPU:0", [
        _node("n", "NoOp", 0, 5)])],
}


def program(step_stats_pb2, timeline):
    r = {}
    for key, devices in CASES.items():
        stats = step_stats_pb2.StepStats()
        text_format.Parse(" ".join(f"dev_stats {{ device: '{d}' {' '.join(n)} }}"
                                   for d, n in devices), stats)
        analysis = timeline.Timeline(stats).analyze_step_stats()
        trace = json.loads(analysis.chrome_trace.format_to_string())
        # Counter times from the first op's start (TF's trace has absolute times).
        start = min(e["ts"] for e in trace["traceEvents"] if e["ph"] == "X")
        counters = sorted((e["name"], e["ts"] - start, list(e["args"].values())[-1])
                          for e in trace["traceEvents"] if e["ph"] == "C")
        r[key] = {"maximums": {a: [m.timestamp, m.num_bytes, sorted(m.tensors)]
                               for a, m in analysis.allocator_maximums.items()},
                  "memory_counters": [list(c) for c in counters],
                  "pretty_is_json": sorted(json.loads(
                      analysis.chrome_trace.format_to_string(pretty=True)))}
        without = timeline.Timeline(stats).analyze_step_stats(show_memory=False)
        r[key]["maximums_without_memory"] = len(without.allocator_maximums)
    return r
