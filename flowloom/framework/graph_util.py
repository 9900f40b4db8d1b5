"""`tf.graph_util`: GraphDef rewrites for deployment (freezing, pruning)."""

import copy
import re

from flowloom.framework import dtypes, tensor_proto
from flowloom.framework.importer import import_graph_def  # noqa: F401 - tf.graph_util's too
from flowloom.proto import graph_pb2

_VARIABLE_OPS = ("Variable", "VariableV2")


def _node_name(text):
    """'^x' / 'x:1' / 'x' -> 'x'."""
    return text[1:] if text.startswith("^") else text.split(":")[0]


def _check_graph_def(graph_def):
    if not isinstance(graph_def, graph_pb2.GraphDef):
        raise TypeError("graph_def must be a graph_pb2.GraphDef proto.")


def extract_sub_graph(graph_def, dest_nodes):
    """The part of `graph_def` that `dest_nodes` depend on (data and control inputs).

    Args:
      graph_def: a GraphDef.
      dest_nodes: an iterable of node names to keep with everything they need.

    Returns:
      A GraphDef with those nodes, in their original order.

    Raises:
      TypeError: if the arguments have the wrong types.
      AssertionError: if a destination node is not in the graph (as TF).
    """
    _check_graph_def(graph_def)
    if isinstance(dest_nodes, str):
        raise TypeError("dest_nodes must be an iterable of strings.")
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
    out = graph_pb2.GraphDef()
    out.node.extend(copy.deepcopy(n) for n in graph_def.node if n.name in keep)
    out.library.CopyFrom(graph_def.library)
    out.versions.CopyFrom(graph_def.versions)
    return out


def convert_variables_to_constants(sess, input_graph_def, output_node_names,
                                   variable_names_whitelist=None,
                                   variable_names_blacklist=None):
    """Freezes a graph: variables become Consts holding their values in `sess`.

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
    names = []
    for node in graph.node:
        if node.op in _VARIABLE_OPS:
            if variable_names_whitelist is not None and node.name not in \
                    variable_names_whitelist:
                continue
            if variable_names_blacklist is not None and node.name in variable_names_blacklist:
                continue
            names.append(node.name)
    values = dict(zip(names, sess.run([n + ":0" for n in names]))) if names else {}
    out = graph_pb2.GraphDef()
    for node in graph.node:
        if node.name in values:
            const = out.node.add(name=node.name, op="Const")
            dtype = dtypes.as_dtype(node.attr["dtype"].type)
            const.attr["dtype"].type = dtype.as_datatype_enum
            const.attr["value"].tensor.CopyFrom(
                tensor_proto.from_numpy(values[node.name], dtype=dtype))
            if node.device:
                const.device = node.device
        else:
            out.node.add().CopyFrom(node)
    out.library.CopyFrom(graph.library)
    out.versions.CopyFrom(graph.versions)
    return out


def remove_training_nodes(input_graph, protected_nodes=None):
    """Removes CheckNumerics and Identity nodes that only forward a value (not the
    `protected_nodes`, nor Identities carrying control inputs), rewiring their consumers.

    Returns:
      The pruned GraphDef.
    """
    _check_graph_def(input_graph)
    protected = set(protected_nodes or ())
    removable_types = ("CheckNumerics", "Identity")
    forward = {}  # removed node -> the input that replaces it
    for node in input_graph.node:
        if node.op in removable_types and node.name not in protected:
            data = [i for i in node.input if not i.startswith("^")]
            if len(data) == 1 and len(data) == len(node.input):
                forward[node.name] = data[0]

    def resolve(text):
        control = text.startswith("^")
        name = _node_name(text)
        if name not in forward:
            return text
        seen = set()
        target = text[1:] if control else text
        while _node_name(target) in forward and _node_name(target) not in seen:
            seen.add(_node_name(target))
            target = forward[_node_name(target)]
        return "^" + _node_name(target) if control else target

    out = graph_pb2.GraphDef()
    for node in input_graph.node:
        if node.name in forward:
            continue
        new = out.node.add()
        new.CopyFrom(node)
        new.input[:] = [resolve(i) for i in node.input]
    out.library.CopyFrom(input_graph.library)
    out.versions.CopyFrom(input_graph.versions)
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
