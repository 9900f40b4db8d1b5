"""flowloom explains the graph: why ops ran or not, where, and what was copied.

    import flowloom as tf
    opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE, output_partition_graphs=True)
    md = tf.RunMetadata()
    sess.run(y, options=opts, run_metadata=md)
    print(tf.explain(md))

`FLOWLOOM_EXPLAIN=1 python3 prog.py` prints the same report for the first run of every
distinct Session.run signature (`FLOWLOOM_EXPLAIN=all`: every run). `flowloom explain
graph.pb --fetch y` explains a GraphDef without running it; `flowloom lint prog.py` reports
the mistakes the seed documents are about. See flowloom/explain/lint.py.
"""

import re

from flowloom.explain.report import RunExplanation, Transfer, explain_ops, explain_plan

__all__ = ["RunExplanation", "Transfer", "explain", "explain_ops", "explain_plan"]


def explain(run_metadata, graph=None):
    """Explains a traced run from its `RunMetadata`.

    Args:
      run_metadata: the `RunMetadata` of a `Session.run` made with
        `RunOptions(trace_level=FULL_TRACE)` and/or `output_partition_graphs=True`.
      graph: the Graph that ran (default: the default graph).

    Returns:
      A `RunExplanation`; `print()` it for the report, `.to_dict()` for tools.

    Raises:
      ValueError: the RunMetadata records no run (neither partition graphs nor step stats).
    """
    from flowloom.framework.graph import get_default_graph

    graph = graph if graph is not None else get_default_graph()
    names = set()
    fetches = []
    feeds = []
    device_of = {}
    recvs = []
    op_seconds = {}
    for pg in run_metadata.partition_graphs:
        recv_tensor = {}
        for nd in pg.node:
            if nd.op == "_Recv":
                recv_tensor[nd.name] = nd
            elif nd.op == "_Retval" and nd.input:
                fetches.append(nd.input[0])
            elif nd.op == "_Arg":
                feeds.append(nd.name)
            elif not nd.op.startswith("_"):
                names.add(nd.name)
                device_of[nd.name] = nd.device
        readers_of = {}
        for nd in pg.node:
            for inp in nd.input:
                readers_of.setdefault(inp.lstrip("^").split(":")[0], []).append(nd.name)
        for name, nd in recv_tensor.items():
            readers = []
            for r in readers_of.get(name, []):
                # A control edge arrives through an Identity of the dummy value.
                readers.extend(readers_of.get(r, []) if r.endswith("/ctrl_identity") else [r])
            recvs.append((nd, readers))
    for dev in run_metadata.step_stats.dev_stats:
        for ns in dev.node_stats:
            if ns.node_name.startswith("_") or ns.node_name in ("_SOURCE", "_SINK"):
                continue
            names.add(ns.node_name)
            device_of.setdefault(ns.node_name, dev.device)
            op_seconds[ns.node_name] = ns.op_end_rel_micros / 1e6
    if not names:
        raise ValueError("The RunMetadata records no run: pass RunOptions(trace_level="
                         "RunOptions.FULL_TRACE, output_partition_graphs=True) to Session.run.")
    ran = [op for op in graph.get_operations() if op.name in names]
    fetch_tensors = []
    for name in fetches:
        try:
            fetch_tensors.append(graph.get_tensor_by_name(name if ":" in name else name + ":0"))
        except (KeyError, ValueError):
            pass  # a fetch that came through a _Recv: its producer is found as a root below
    # Ops that ran but that nothing else in the run consumed were targets (or fetches that
    # reached the client through a _Recv).
    consumed = {t._op for op in ran for t in op._inputs} | \
        {c for op in ran for c in op._control_inputs}
    fetched_ops = {t._op for t in fetch_tensors}
    targets = [op for op in ran if op not in consumed and op not in fetched_ops]
    placement = {op: device_of.get(op.name, op.device) for op in ran}
    ex = explain_ops(graph, ran, fetch_tensors, (), targets, placement=placement)
    for nd, readers in recvs:
        tensor = re.sub(r"^edge_\d+_", "", nd.attr["tensor_name"].s.decode())
        ex.transfers.append(Transfer(tensor, nd.attr["send_device"].s.decode(),
                                     nd.attr["recv_device"].s.decode(),
                                     sorted({r for r in readers if r in names}),
                                     control="/ctrl/_dummy" in tensor))
    ex.op_seconds = op_seconds
    return ex
