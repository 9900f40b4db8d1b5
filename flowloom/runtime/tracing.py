"""What a traced run reports: `RunMetadata.step_stats` and `partition_graphs`.

`step_stats` has one DeviceStepStats per device with a NodeExecStats per executed node
(start, duration, outputs with dtype, shape and bytes), as TF's FULL_TRACE does.
`partition_graphs` has one GraphDef per device: the ops placed there (inputs rewritten to
the Recv nodes) plus TF-style `_Send`/`_Recv` nodes (and, for a control edge, the dummy
`ctrl` Const before the Send and the Identity after the Recv).
"""

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework.tensor_shape import TensorShape

FULL_TRACE = 3


def run_traced(session, plan, feed_vals, options, run_metadata):
    """Runs `plan` for a run with RunOptions (trace_level, output_partition_graphs) or one
    that the session's cost model measures (runtime/cost_model.py); fills `run_metadata`."""
    from flowloom.runtime import cost_model, executor, parallel

    cost = session._cost_model is not None and session._cost_model.due(plan)
    trace = wants_trace(options) or cost
    graphs = wants_partition_graphs(options)
    if not trace and not graphs and plan.steps is not None:
        return executor.run_plan(plan, feed_vals)
    stats = {} if trace else None
    if plan.external is not None:
        # The dataflow executor (control flow) records the nodes it runs.
        raw, pplan = plan.external.run(feed_vals, stats), None
    else:
        with session._lock:
            pplan = plan.get_partitioned()
        raw, _ = parallel.run_partitioned(pplan, feed_vals, session._inter_op, stats)
    if run_metadata is not None:
        if trace:
            fill_step_stats(run_metadata.step_stats, stats, pplan)
        if cost:
            cost_model.fill_cost_graph(run_metadata.cost_graph, run_metadata.step_stats)
        if graphs and pplan is not None:
            run_metadata.partition_graphs.extend(partition_graph_defs(pplan))
    return raw


def wants_trace(options):
    return options is not None and getattr(options, "trace_level", 0) > 0


def wants_partition_graphs(options):
    return options is not None and getattr(options, "output_partition_graphs", False)


def _dtype_of(value):
    try:
        return dtypes.as_dtype(value.dtype)
    except (TypeError, AttributeError, KeyError):
        return None


def fill_step_stats(step_stats, stats, pplan=None):
    """Adds the nodes recorded in `stats` ({device: [NodeRecord]}) to a StepStats proto."""
    recv_of = pplan.recv_of if pplan is not None else {}
    for device, records in stats.items():
        dev = step_stats.dev_stats.add(device=device)
        for r in records:
            ns = dev.node_stats.add()
            ns.node_name = r.name
            start_us = r.start_ns // 1000
            dur_ns = max(r.end_ns - r.start_ns, 0)
            ns.all_start_micros = start_us
            ns.all_start_nanos = r.start_ns
            ns.scheduled_micros = start_us
            ns.scheduled_nanos = r.start_ns
            ns.op_start_rel_micros = 0
            ns.op_end_rel_micros = dur_ns // 1000
            ns.all_end_rel_micros = dur_ns // 1000
            ns.op_end_rel_nanos = dur_ns
            ns.all_end_rel_nanos = dur_ns
            ns.thread_id = r.thread_id
            ns.timeline_label = timeline_label(r, recv_of)
            for slot, value in enumerate(r.outputs):
                _add_output(ns, slot, value)
            dev.thread_names[r.thread_id] = f"flowloom-{r.thread_id}"


def timeline_label(record, recv_of=None):
    """TF's label: `name = Type(input, input)` with the partition's input names (a Recv's
    name for a received tensor); a Send/Recv names the edge it carries."""
    step = record.step
    if step is None:
        return f"{record.name} = {record.type}()"
    if step.kind == "op":
        recv_of = recv_of or {}
        names = []
        for t in step.op._inputs:
            recv = recv_of.get((t, step.device))
            names.append(recv.name if recv is not None else t._as_node_def_input())
        args = ", ".join(names)
    else:
        args = step.tensor_name
    return f"{record.name} = {record.type}({args})"


def _add_output(ns, slot, value):
    from flowloom.runtime.executor import Ref

    if type(value) is Ref:
        value = value.value
    dtype = _dtype_of(value) if value is not None else None
    if dtype is None or not hasattr(value, "shape"):
        return  # a resource (a TensorArray's or a stack's) has no tensor description
    out = ns.output.add(slot=slot)
    desc = out.tensor_description
    desc.dtype = dtype.as_datatype_enum
    desc.shape.CopyFrom(TensorShape(value.shape).as_proto())
    nbytes = int(getattr(value, "nbytes", 0)) if value.dtype != object else 0
    desc.allocation_description.requested_bytes = nbytes
    desc.allocation_description.allocated_bytes = nbytes
    desc.allocation_description.allocator_name = "cpu" if isinstance(value, np.ndarray) \
        else "gpu"


def partition_graph_defs(pplan):
    """One GraphDef per partition of `pplan`, with its Send/Recv nodes."""
    from flowloom.framework import graph_def as gd_lib
    from flowloom.proto import graph_pb2
    from flowloom.runtime.rewrite_remap import stands_for

    recv_name = {}
    # Fed tensors are `_Arg` nodes on their device, fetches `_Retval` nodes on the client,
    # named as TF names them (`_arg_x_0_0`, `_retval_y_0_0`).
    arg_name = {}
    arg_nodes = {}
    for i, (t, dev) in enumerate(zip(pplan.feed_tensors, pplan.feed_devices)):
        name = "_arg_%s_%d" % (t.name.replace(":", "_"), i)
        arg_name[t] = name
        arg_nodes.setdefault(dev, []).append(_arg_node(name, t, i, dev, gd_lib))
    for (tensor_or_ctrl, device), recv in pplan.recv_of.items():
        if isinstance(tensor_or_ctrl, tuple):
            # The control Recv's Identity (the node that consumers depend on).
            recv_name[(tensor_or_ctrl, device)] = recv.name + "/ctrl_identity"
        else:
            recv_name[(tensor_or_ctrl, device)] = recv.name
    def local_name(t, dev):
        return recv_name.get((t, dev)) or arg_name.get(t) or t._as_node_def_input()

    ran = {g for part in pplan.partitions for step in part.steps if step.kind == "op"
           for g in [step.op] + stands_for(step.op)}
    graphs = []
    for part in pplan.partitions:
        dev = part.device
        g = graph_pb2.GraphDef()
        g.node.extend(arg_nodes.get(dev, []))
        for step in part.steps:
            if step.kind == "op":
                op = step.op
                inputs = [local_name(t, dev) for t in op._inputs]
                for c in op._control_inputs:
                    r = recv_name.get((("^", c), dev))
                    if r is None and c not in ran:
                        continue  # a rewrite removed it from the plan
                    inputs.append("^" + (r if r is not None else c._name))
                g.node.append(gd_lib.node_def_from_op(op, device=dev.name, inputs=inputs))
            elif step.kind == "send":
                g.node.extend(_send_nodes(step, gd_lib, arg_name))
            else:
                g.node.extend(_recv_nodes(step, gd_lib))
        if dev is pplan.client:
            seen = set()
            for i, t in enumerate(pplan.fetch_tensors):
                if t in seen:
                    continue  # TF makes one _Retval per distinct fetched tensor
                seen.add(t)
                g.node.append(_retval_node(t, len(seen) - 1, local_name(t, dev), dev, gd_lib))
        g.versions.CopyFrom(gd_lib.versions_def())
        graphs.append(g)
    return graphs


def _comm_attrs(step, gd_lib, nd, dtype):
    nd.attr["T"].CopyFrom(gd_lib.attr_value(dtype))
    nd.attr["tensor_name"].CopyFrom(gd_lib.attr_value(step.tensor_name))
    nd.attr["send_device"].CopyFrom(gd_lib.attr_value(step.src.name))
    nd.attr["send_device_incarnation"].CopyFrom(
        gd_lib.attr_value(step.src.attributes.incarnation))
    nd.attr["recv_device"].CopyFrom(gd_lib.attr_value(step.dst.name))
    nd.attr["client_terminated"].CopyFrom(gd_lib.attr_value(False))


def _arg_node(name, tensor, index, dev, gd_lib):
    from flowloom.proto import node_def_pb2

    nd = node_def_pb2.NodeDef(name=name, op="_Arg", device=dev.name)
    nd.attr["T"].CopyFrom(gd_lib.attr_value(tensor._dtype.base_dtype))
    nd.attr["index"].CopyFrom(gd_lib.attr_value(index))
    return nd


def _retval_node(tensor, index, input_name, dev, gd_lib):
    from flowloom.proto import node_def_pb2

    name = "_retval_%s_%d" % (tensor.name.replace(":", "_"), index)
    nd = node_def_pb2.NodeDef(name=name, op="_Retval", device=dev.name, input=[input_name])
    nd.attr["T"].CopyFrom(gd_lib.attr_value(tensor._dtype.base_dtype))
    nd.attr["index"].CopyFrom(gd_lib.attr_value(index))
    return nd


def _send_nodes(step, gd_lib, arg_name=None):
    from flowloom.proto import node_def_pb2

    nodes = []
    if step.tensor is not None:
        src_input = (arg_name or {}).get(step.tensor) or step.tensor._as_node_def_input()
        dtype = step.tensor._dtype.base_dtype
    else:
        # TF's dummy: a Const that runs after the control input, sent in its place.
        ctrl = node_def_pb2.NodeDef(name=step.name.rsplit("/_", 1)[0] + "/ctrl/_dummy",
                                    op="Const", device=step.src.name,
                                    input=["^" + step.control_op._name])
        ctrl.attr["dtype"].CopyFrom(gd_lib.attr_value(dtypes.float32))
        ctrl.attr["value"].CopyFrom(gd_lib.attr_value(np.zeros((), np.float32)))
        nodes.append(ctrl)
        src_input = ctrl.name
        dtype = dtypes.float32
    nd = node_def_pb2.NodeDef(name=step.name, op="_Send", device=step.src.name,
                              input=[src_input])
    _comm_attrs(step, gd_lib, nd, dtype)
    nodes.append(nd)
    return nodes


def _recv_nodes(step, gd_lib):
    from flowloom.proto import node_def_pb2

    dtype = step.tensor._dtype.base_dtype if step.tensor is not None else dtypes.float32
    nd = node_def_pb2.NodeDef(name=step.name, op="_Recv", device=step.dst.name)
    _comm_attrs(step, gd_lib, nd, dtype)
    nd.attr["tensor_type"].CopyFrom(gd_lib.attr_value(dtype))
    del nd.attr["T"]
    nodes = [nd]
    if step.tensor is None:
        ident = node_def_pb2.NodeDef(name=step.name + "/ctrl_identity", op="Identity",
                                     device=step.dst.name, input=[step.name])
        ident.attr["T"].CopyFrom(gd_lib.attr_value(dtype))
        nodes.append(ident)
    return nodes
