"""Graph <-> FunctionDef, with TensorFlow's field names and input notation.

A FunctionDef's nodes name their inputs `arg` (a function argument) or
`node:output_arg:index` (the index-th tensor of one output argument of a node), as TF writes
them; a GraphDef names them `node:k` (the k-th output). The conversion needs each node's
output arguments: from the op registry, or from the signature of a function of the library.
"""

import re

from flowloom.framework import dtypes
from flowloom.framework import op_def as op_registry
from flowloom.framework.graph_def import node_def_from_op
from flowloom.proto import function_pb2, graph_pb2, node_def_pb2, op_def_pb2


def _argname_from_tensor_name(name):
    return re.sub(":0$", "", name).replace(":", "_o")


def _arg_def(t, name, used):
    arg = op_def_pb2.OpDef.ArgDef()
    if name is None:
        name = _argname_from_tensor_name(t.name)
        if name in used:
            i = 0
            while f"{name}_U{i}" in used:
                i += 1
            name = f"{name}_U{i}"
    used.add(name)
    arg.name = name
    arg.type = t.dtype.base_dtype.as_datatype_enum
    return arg


def output_arg_counts(op_type, attr_count, library_signatures):
    """[(output arg name, number of tensors)] of a node of type `op_type`.

    `attr_count(name)` gives the value of an int attr, or the length of a list attr."""
    sig = library_signatures.get(op_type)
    if sig is not None:
        return [(a.name, 1) for a in sig.output_arg]
    opdef = op_registry.get(op_type)
    if opdef is None:
        raise ValueError(f"Op type not registered '{op_type}'")
    out = []
    for arg in opdef.output_args:
        if arg.number_attr is not None:
            out.append((arg.name, attr_count(arg.number_attr)))
        elif arg.type_list_attr is not None:
            out.append((arg.name, attr_count(arg.type_list_attr)))
        else:
            out.append((arg.name, 1))
    return out


def graph_to_function_def(graph, inputs, outputs, out_names=None, library_signatures=None):
    """The FunctionDef of `graph`'s ops: `inputs` (Placeholders) become the arguments,
    `outputs` the results (named by `out_names`, else after their tensors).

    Raises:
      InvalidArgumentError: `out_names` has the wrong length.
      ValueError: `out_names` has duplicates.
    """
    from flowloom.framework import errors

    library_signatures = library_signatures or {}
    func = function_pb2.FunctionDef()
    func.signature.name = "_"
    used = set()
    func.signature.input_arg.extend(_arg_def(t, None, used) for t in inputs)
    if out_names is None:
        used = set()
        func.signature.output_arg.extend(_arg_def(t, None, used) for t in outputs)
    elif len(out_names) != len(outputs):
        raise errors.InvalidArgumentError(
            None, None, "output names must be either empty or equal in size to outputs. "
            f"output names size = {len(out_names)} outputs size = {len(outputs)}")
    elif len(set(out_names)) != len(out_names):
        raise ValueError(f"Must not have duplicates in out_names: {', '.join(out_names)}")
    else:
        func.signature.output_arg.extend(
            _arg_def(t, n, set()) for t, n in zip(outputs, out_names))
    names = {}  # tensor name in the graph -> its name in the function body
    arg_ops = set()
    for t, arg in zip(inputs, func.signature.input_arg):
        names[t.name] = arg.name
        arg_ops.add(t.op)
    for op in graph.get_operations():
        if op in arg_ops:
            continue

        def count(attr, op=op):
            v = op._attrs.get(attr)
            return v if isinstance(v, int) else len(v or ())
        k = 0
        for arg_name, n in output_arg_counts(op.type, count, library_signatures):
            for i in range(n):
                names[op.outputs[k].name] = f"{op.name}:{arg_name}:{i}"
                k += 1
    for op in graph.get_operations():
        if op in arg_ops:
            continue
        node = node_def_from_op(op, inputs=[names[t.name] for t in op.inputs] +
                                ["^" + c.name for c in op.control_inputs])
        func.node_def.add().CopyFrom(node)
        if op._opdef.stateful and op.type not in ("Placeholder",):
            func.signature.is_stateful = True
    for t, arg in zip(outputs, func.signature.output_arg):
        func.ret[arg.name] = names[t.name]
    return func


def function_def_to_graph_def(fdef, library_signatures):
    """(GraphDef, input tensor names, output tensor names) of a FunctionDef's body: one
    Placeholder per argument (named after it), the nodes with their inputs as `node:k`.

    Raises:
      ValueError: for an input that names no argument or output of the body.
    """
    gd = graph_pb2.GraphDef()
    nodes = {n.name: n for n in fdef.node_def}
    inputs = []
    for arg in fdef.signature.input_arg:
        if arg.name in nodes:
            raise ValueError(f"Function {fdef.signature.name}: argument {arg.name!r} is also "
                             "the name of a node")
        ph = gd.node.add(name=arg.name, op="Placeholder")
        ph.attr["dtype"].type = arg.type
        inputs.append(arg.name + ":0")
    flat = {}  # "node:arg:i" -> "node:k"
    for node in fdef.node_def:
        def count(attr, node=node):
            v = node.attr[attr]
            return v.i if v.WhichOneof("value") == "i" else len(v.list.type)
        k = 0
        for arg_name, n in output_arg_counts(node.op, count, library_signatures):
            for i in range(n):
                flat[f"{node.name}:{arg_name}:{i}"] = f"{node.name}:{k}"
                k += 1
    args = {a.name for a in fdef.signature.input_arg}

    def rewrite(text):
        if text.startswith("^"):
            return text
        if text in args:
            return text + ":0"
        if text in flat:
            return flat[text]
        raise ValueError(f"Function {fdef.signature.name}: input {text!r} names no argument "
                         "or node output")
    for node in fdef.node_def:
        out = node_def_pb2.NodeDef()
        out.CopyFrom(node)
        del out.input[:]
        out.input.extend(rewrite(x) for x in node.input)
        gd.node.add().CopyFrom(out)
    outputs = [rewrite(fdef.ret[a.name]) for a in fdef.signature.output_arg]
    return gd, inputs, outputs


def signature_dtypes(args):
    return [dtypes.as_dtype(a.type) for a in args]
