"""Function inlining on a GraphDef (the pass Grappler's function optimizer makes): a pure
pass, GraphDef in, GraphDef out.

Every call of a function of the graph's library — a node whose op is the function's name,
or a PartitionedCall / StatefulPartitionedCall naming it in attr `f` — is replaced by the
function's body, with TF 1.15's node names and edges:

  Func/CALL/input/_N           one Identity per argument, reading the call's input
  Func/CALL/input_control_node/_N   a NoOp holding the call's control inputs (only when it
                               has some); the argument Identities and the body's source nodes
                               wait for it
  CALL/NODE                    the body's nodes (attr placeholders filled from the call's
                               attrs, the call's device where a node names none)
  Func/CALL/output/_N          one Identity per result; readers of CALL:k read it
  Func/CALL/output_control_node/_N  a NoOp after every result (and every stateful body node
                               that yields nothing, which a call runs too): what `^CALL`
                               waited for (only when something waits for the call, or the
                               call is kept)

A kept call (one of `keep`, e.g. a fetched node) stays fetchable by its name: it becomes an
IdentityN of the results. `N` counts across the whole graph, as TF's. Bodies that call
functions are inlined in turn; a function that calls itself, a call marked `_noinline`, and
functions with list arguments are left as calls (they still run). Functions no node reaches
any more are dropped from the library.
"""

import copy

from flowloom.graph_function import function_def as fdef_lib
from flowloom.proto import graph_pb2, node_def_pb2

_INDIRECT_CALLS = ("PartitionedCall", "StatefulPartitionedCall")
_MAX_DEPTH = 64


def inline_functions(graph_def, keep=()):
    """`graph_def` with its function calls inlined (TF's function optimizer).

    Args:
      graph_def: a GraphDef (not changed).
      keep: node names that must stay fetchable (a kept call becomes an IdentityN).

    Returns:
      (GraphDef, number of calls inlined).
    """
    functions = {f.signature.name: f for f in graph_def.library.function}
    inliner = _Inliner(functions, set(keep))
    nodes = [copy.deepcopy(n) for n in graph_def.node]
    # Each pass inlines the calls present when it starts (the calls inside the bodies it
    # brought in are the next pass's), which numbers the nodes as TF does.
    for _ in range(_MAX_DEPTH):
        nodes, inlined = inliner.inline(nodes)
        if not inlined:
            break
    out = graph_pb2.GraphDef()
    out.node.extend(nodes)
    out.versions.CopyFrom(graph_def.versions)
    out.library.CopyFrom(graph_def.library)
    if inliner.count:
        _drop_unused_functions(out)
    return out, inliner.count


def _callee(node, functions):
    if node.op in functions:
        return functions[node.op]
    if node.op in _INDIRECT_CALLS and node.attr["f"].func.name in functions:
        return functions[node.attr["f"].func.name]
    return None


def _no_inline(node, fdef):
    for attrs in (node.attr, fdef.attr):
        if "_noinline" in attrs and attrs["_noinline"].b:
            return True
    return False


def _arg_type(arg, node):
    if arg.number_attr or arg.type_list_attr:
        return None
    if arg.type_attr:
        return node.attr[arg.type_attr].type if arg.type_attr in node.attr else None
    return arg.type


class _Inliner:
    def __init__(self, functions, keep):
        self.functions = functions
        self.keep = keep
        self.signatures = {name: f.signature for name, f in functions.items()}
        self.counter = 0
        self.count = 0
        self.origin = {}  # inlined node name -> the functions whose bodies it came from

    def _new_name(self, prefix):
        name = f"{prefix}/_{self.counter}"
        self.counter += 1
        return name

    def _inlinable(self, node):
        fdef = _callee(node, self.functions)
        if fdef is None or _no_inline(node, fdef) or \
                fdef.signature.name in self.origin.get(node.name, ()):
            return None
        sig = fdef.signature
        if any(_arg_type(a, node) is None for a in list(sig.input_arg) + list(sig.output_arg)):
            return None
        return fdef

    def inline(self, nodes):
        """(`nodes` with every inlinable call replaced by its body, number of calls)."""
        calls = {n.name: f for n in nodes if (f := self._inlinable(n)) is not None}
        if not calls:
            return nodes, 0
        waited_on = {i[1:] for n in nodes for i in n.input if i.startswith("^")}
        out, results = [], {}  # results: {"CALL:k" or "^CALL": what to read instead}
        for node in nodes:
            fdef = calls.get(node.name)
            if fdef is None:
                out.append(node)
                continue
            out.extend(self._expand(node, fdef, node.name in waited_on, results))
            self.count += 1
        for node in out:
            inputs = [results.get(_tensor_key(i), i) for i in node.input]
            del node.input[:]
            node.input.extend(inputs)
        return out, len(calls)

    def _expand(self, call, fdef, waited_on, results):
        sig = fdef.signature
        name, device = call.name, call.device
        kept = name in self.keep
        made = []

        def add(node_name, op, inputs=(), dtype=None):
            node = node_def_pb2.NodeDef(name=node_name, op=op, device=device)
            node.input.extend(inputs)
            if dtype is not None:
                node.attr["T"].type = dtype
            made.append(node)
            return node

        data_inputs = [i for i in call.input if not i.startswith("^")]
        controls = [i for i in call.input if i.startswith("^")]
        start = []
        if controls:
            start = ["^" + add(self._new_name(f"Func/{name}/input_control_node"), "NoOp",
                               controls).name]
        args = {}
        for arg, source in zip(sig.input_arg, data_inputs):
            ident = add(self._new_name(f"Func/{name}/input"), "Identity", [source] + start,
                        _arg_type(arg, call))
            args[arg.name] = ident.name
        body_gd, arg_names, ret_names = fdef_lib.function_def_to_graph_def(
            fdef, self.signatures)
        arg_of = {n.split(":")[0]: args[a.name] for n, a in zip(arg_names, sig.input_arg)}
        chain = self.origin.get(name, ()) + (sig.name,)
        for node in body_gd.node:
            if node.name in arg_of:
                continue
            node = copy.deepcopy(node)
            node.name = f"{name}/{node.name}"
            if not node.device:
                node.device = device
            _fill_placeholders(node, call)
            inputs = [_rename_input(i, name, arg_of) for i in node.input]
            if start and not inputs:
                inputs = list(start)
            del node.input[:]
            node.input.extend(inputs)
            self.origin[node.name] = chain
            made.append(node)
        outputs = []
        for k, ret in enumerate(ret_names):
            ident = add(self._new_name(f"Func/{name}/output"), "Identity",
                        [_rename_input(ret, name, arg_of)], _arg_type(sig.output_arg[k], call))
            outputs.append(ident.name)
            results[f"{name}:{k}"] = ident.name
            if k == 0:
                results[name] = ident.name
        if waited_on or kept:
            effects = [f"^{name}/{n.name}" for n in body_gd.node
                       if n.name not in arg_of and _is_effect(n, self.signatures)]
            done = add(self._new_name(f"Func/{name}/output_control_node"), "NoOp",
                       ["^" + o for o in outputs] + effects)
            results["^" + name] = "^" + done.name
            if kept:
                identity_n = add(name, "IdentityN", outputs + ["^" + done.name])
                identity_n.attr["T"].list.type.extend(
                    _arg_type(a, call) for a in sig.output_arg)
                for k in range(len(outputs)):
                    results.pop(f"{name}:{k}", None)
                results.pop(name, None)
                results.pop("^" + name, None)
        return made


def _tensor_key(text):
    if text.startswith("^"):
        return text
    return text[:-2] if text.endswith(":0") else text


def _rename_input(text, prefix, arg_of):
    control = text.startswith("^")
    base = text[1:] if control else text
    node, _, index = base.partition(":")
    if node in arg_of:
        target = arg_of[node]
    else:
        target = f"{prefix}/{node}"
    if control:
        return "^" + target
    return f"{target}:{index}" if index and index != "0" else target


def _fill_placeholders(node, call):
    for key, value in node.attr.items():
        if value.placeholder:
            if value.placeholder not in call.attr:
                raise ValueError(f"Function call '{call.name}' has no attr "
                                 f"'{value.placeholder}' that its body node "
                                 f"'{node.name}' needs")
            value.CopyFrom(call.attr[value.placeholder])


def _is_effect(node, signatures):
    """A stateful body node without outputs: a call runs it though nothing reads it."""
    from flowloom.framework import op_def as op_registry

    if node.op in signatures:
        return False
    opdef = op_registry.get(node.op)
    return opdef is not None and opdef.stateful and not opdef.output_args


def _referenced_functions(attr_values):
    for value in attr_values:
        if value.HasField("func"):
            yield value.func.name
        elif value.HasField("list"):
            for f in value.list.func:
                yield f.name


def _drop_unused_functions(graph_def):
    lib = graph_def.library
    by_name = {f.signature.name: f for f in lib.function}
    grads = {g.function_name: g.gradient_func for g in lib.gradient}
    used, stack = set(), []
    for node in graph_def.node:
        stack.append(node.op)
        stack.extend(_referenced_functions(node.attr.values()))
    while stack:
        name = stack.pop()
        if name in used or name not in by_name:
            continue
        used.add(name)
        if name in grads:
            stack.append(grads[name])
        for node in by_name[name].node_def:
            stack.append(node.op)
            stack.extend(_referenced_functions(node.attr.values()))
    kept = [f for f in lib.function if f.signature.name in used]
    kept_grads = [g for g in lib.gradient if g.function_name in used]
    del lib.function[:]
    lib.function.extend(kept)
    del lib.gradient[:]
    lib.gradient.extend(kept_grads)
