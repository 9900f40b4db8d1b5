"""`tf.graph_util`: GraphDef rewrites for deployment (freezing, pruning)."""

import copy
import re

from flowloom.framework import dtypes, tensor_proto
from flowloom.framework.importer import import_graph_def  # noqa: F401 - tf.graph_util's too
from flowloom.proto import graph_pb2, node_def_pb2

_VARIABLE_OPS = ("Variable", "VariableV2")


def _node_name(text):
    """'^x' / 'x:1' / 'x' -> 'x'."""
    return text[1:] if text.startswith("^") else text.split(":")[0]


def _check_graph_def(graph_def):
    if not isinstance(graph_def, graph_pb2.GraphDef):
        raise TypeError("graph_def must be a graph_pb2.GraphDef proto.")


def extract_sub_graph(graph_def, dest_nodes):
    """The part of `graph_def` that `dest_nodes` depend on (data and control inputs, and the
    nodes their `loc:@` colocation attrs name, as TF follows them).

    Args:
      graph_def: a GraphDef.
      dest_nodes: a list of node names to keep with everything they need.

    Returns:
      A GraphDef with those nodes, in their original order (library and versions kept).

    Raises:
      TypeError: if the arguments have the wrong types.
      AssertionError: if a destination node is not in the graph (as TF).
    """
    _check_graph_def(graph_def)
    if isinstance(dest_nodes, (str, bytes)):
        raise TypeError("dest_nodes must be a list.")
    by_name = {node.name: node for node in graph_def.node}
    for name in dest_nodes:
        assert name in by_name, f"{name} is not in graph"
    keep = set()
    stack = list(dest_nodes)
    while stack:
        name = stack.pop()
        if name in keep:
            continue
        keep.add(name)
        node = by_name.get(name)
        if node is None:
            raise ValueError(f"Node '{name}' is an input of a kept node but not in the graph")
        stack.extend(_node_name(i) for i in node.input)
        if "_class" in node.attr:
            stack.extend(c.decode()[5:] for c in node.attr["_class"].list.s
                         if c.startswith(b"loc:@"))
    out = graph_pb2.GraphDef()
    out.node.extend(copy.deepcopy(n) for n in graph_def.node if n.name in keep)
    out.library.CopyFrom(graph_def.library)
    out.versions.CopyFrom(graph_def.versions)
    return out


# Ops that may stand between a resource variable's handle and the ReadVariableOp (TF's list).
_HANDLE_FORWARDING_OPS = ("Switch", "Enter", "Exit", "Identity", "Merge", "NextIteration")


def _const_node(name, dtype_attr, value):
    node = node_def_pb2.NodeDef(name=name, op="Const")
    node.attr["dtype"].CopyFrom(dtype_attr)
    node.attr["value"].tensor.CopyFrom(
        tensor_proto.from_numpy(value, dtype=dtypes.as_dtype(dtype_attr.type)))
    return node


def _resource_forwarders(graph, by_name):
    """{op between a ReadVariableOp/ResourceGather and its VarHandleOp: the variable's dtype}.

    Raises:
      ValueError: a read whose handle does not come from a VarHandleOp.
    """
    types = {}
    for node in graph.node:
        if node.op not in ("ReadVariableOp", "ResourceGather"):
            continue
        pending = [_node_name(node.input[0])]
        while pending and by_name[pending[0]].op in _HANDLE_FORWARDING_OPS:
            name = pending.pop()
            if name not in types:
                types[name] = node.attr["dtype"]
                pending.append(_node_name(by_name[name].input[0]))
            if by_name[name].op == "Merge":
                other = _node_name(by_name[name].input[1])
                if other not in types:
                    types[other] = node.attr["dtype"]
                    pending.append(_node_name(by_name[other].input[0]))
        for name in pending:
            if by_name[name].op != "VarHandleOp":
                raise ValueError("Cannot find the variable that is an input to the "
                                 "ReadVariableOp.")
    return types


def convert_variables_to_constants(sess, input_graph_def, output_node_names,
                                   variable_names_whitelist=None,
                                   variable_names_blacklist=None):
    """Freezes a graph: variables (ref and resource) become Consts holding their values.

    As TF: a resource variable's reads become Identity ops (ResourceGather a GatherV2), and
    the ops between a read and its handle carry the variable's dtype.

    Args:
      sess: a Session whose variables are initialized.
      input_graph_def: the GraphDef to freeze.
      output_node_names: names of the nodes the frozen graph computes.
      variable_names_whitelist: freeze only these variables (default: all).
      variable_names_blacklist: never freeze these.

    Returns:
      A GraphDef holding the nodes `output_node_names` need, with variables as Consts.

    Example:
      frozen = tf.graph_util.convert_variables_to_constants(
          sess, sess.graph.as_graph_def(), ["output"])
    """
    graph = extract_sub_graph(input_graph_def, output_node_names)
    by_name = {node.name: node for node in graph.node}
    names, fetches = [], []
    for node in graph.node:
        if node.op in _VARIABLE_OPS + ("VarHandleOp",):
            if variable_names_whitelist is not None and node.name not in \
                    variable_names_whitelist:
                continue
            if variable_names_blacklist is not None and node.name in variable_names_blacklist:
                continue
            names.append(node.name)
            fetches.append(node.name + ("/Read/ReadVariableOp:0" if node.op == "VarHandleOp"
                                        else ":0"))
    forwarders = _resource_forwarders(graph, by_name)
    values = dict(zip(names, sess.run(fetches))) if names else {}
    out = graph_pb2.GraphDef()
    for node in graph.node:
        if node.name in values:
            const = _const_node(node.name, node.attr["dtype"], values[node.name])
            if node.device:
                const.device = node.device
            out.node.append(const)
        elif node.name in forwarders:
            new = out.node.add(name=node.name, op=node.op, input=node.input)
            for key, value in node.attr.items():
                if key != "_output_shapes":
                    new.attr[key].CopyFrom(value)
            new.attr["T"].CopyFrom(forwarders[node.name])
        elif node.op == "ReadVariableOp":
            new = out.node.add(name=node.name, op="Identity", input=[node.input[0]])
            new.attr["T"].CopyFrom(node.attr["dtype"])
            if "_class" in node.attr:
                new.attr["_class"].CopyFrom(node.attr["_class"])
        elif node.op == "ResourceGather":
            if node.attr["batch_dims"].i != 0:
                raise ValueError("batch_dims != 0 is not supported by freeze_graph.")
            axis = _const_node(node.name + "/axis", node.attr["Tindices"], 0)
            out.node.append(axis)
            new = out.node.add(name=node.name, op="GatherV2",
                               input=[node.input[0], node.input[1], axis.name])
            new.attr["Tparams"].CopyFrom(node.attr["dtype"])
            new.attr["Tindices"].CopyFrom(node.attr["Tindices"])
            new.attr["Taxis"].CopyFrom(node.attr["Tindices"])
            if "_class" in node.attr:
                new.attr["_class"].CopyFrom(node.attr["_class"])
        else:
            out.node.add().CopyFrom(node)
    out.library.CopyFrom(graph.library)
    return out


def remove_training_nodes(input_graph, protected_nodes=None):
    """Prunes nodes only training needs, as TF does: every CheckNumerics goes (and so do the
    edges from it); Identity nodes that neither have control inputs nor are one are spliced
    out, their consumers reading their input instead. `protected_nodes` stay.

    Returns:
      The pruned GraphDef (its nodes only, as TF's).
    """
    _check_graph_def(input_graph)
    protected = set(protected_nodes or ())
    removed = {n.name for n in input_graph.node
               if n.op == "CheckNumerics" and n.name not in protected}
    kept = []
    for node in input_graph.node:
        if node.name in removed:
            continue
        new = node_def_pb2.NodeDef()
        new.CopyFrom(node)
        new.input[:] = [i for i in node.input if i.lstrip("^") not in removed]
        kept.append(new)
    control_inputs = {i[1:] for n in kept for i in n.input if i.startswith("^")}
    with_control = {n.name for n in kept if any(i.startswith("^") for i in n.input)}
    splice = {n.name: n.input[0] for n in kept
              if n.op == "Identity" and n.name not in protected and n.name not in with_control
              and n.name not in control_inputs}
    out = graph_pb2.GraphDef()
    for node in kept:
        if node.name in splice:
            continue
        new = out.node.add()
        new.CopyFrom(node)
        inputs = []
        for text in node.input:
            name = text.lstrip("^")
            while name in splice:
                text = splice[name]
                name = text.lstrip("^")
            inputs.append(text)
        new.input[:] = inputs
    return out


def must_run_on_cpu(node, pin_variables_on_cpu=False):
    """True for ops TF keeps on the CPU: int32/string Consts, string ops, variables when
    `pin_variables_on_cpu`."""
    from flowloom.framework.ops import Operation

    if isinstance(node, Operation):
        node_def = node.node_def
    else:
        node_def = node
    if pin_variables_on_cpu and node_def.op in _VARIABLE_OPS:
        return True
    if node_def.op == "Const":
        dtype = node_def.attr["dtype"].type
        return dtype in (dtypes.string.as_datatype_enum, dtypes.int32.as_datatype_enum)
    if node_def.op in ("DynamicStitch", "ParallelDynamicStitch"):
        return node_def.attr["T"].type == dtypes.int32.as_datatype_enum
    return node_def.op in ("Cast",) and node_def.attr["SrcT"].type == \
        dtypes.string.as_datatype_enum or bool(re.match(r"^String", node_def.op))


def tensor_shape_from_node_def_name(graph, input_name):
    """The static shape of tensor `input_name` ("x" means "x:0") in `graph`."""
    if ":" not in input_name:
        input_name += ":0"
    return graph.get_tensor_by_name(input_name).get_shape()
