"""A graph's function library at run time: each function of the library, called as an op of
the function's name, runs its body (a graph built from its FunctionDef) in a session of its
own that shares the calling session's resources (variables, queues) and devices.

`graph._functions` maps a function name to its `FunctionBody`; `graph._function_library` is
the FunctionDefLibrary that `as_graph_def()` writes. Both are filled by `add_function`
(a Defun added to a graph, or a GraphDef's library imported).
"""

import threading

from flowloom.framework import dtypes, errors, importer
from flowloom.framework import op_def as op_registry
from flowloom.framework.graph import Graph
from flowloom.graph_function import function_def as fdef_lib
from flowloom.proto import attr_value_pb2, function_pb2


def library(graph):
    lib = getattr(graph, "_function_library", None)
    if lib is None:
        lib = graph._function_library = function_pb2.FunctionDefLibrary()
    return lib


def functions(graph):
    found = getattr(graph, "_functions", None)
    if found is None:
        found = graph._functions = {}
    return found


def signatures(graph):
    """{function name: OpDef proto} of every function `graph` knows (its own and those of
    the graphs around it, for a function's body)."""
    out = {}
    while graph is not None:
        for name, body in functions(graph).items():
            out.setdefault(name, body.fdef.signature)
        graph = graph._outer_graph
    return out


def lookup(graph, name):
    """The FunctionBody called `name` in `graph` or a graph around it, or None."""
    while graph is not None:
        body = functions(graph).get(name)
        if body is not None:
            return body
        graph = graph._outer_graph
    return None


def add_function(graph, fdef, python_grad_func=None, grad_func_name=None):
    """Adds FunctionDef `fdef` to `graph`'s library (once); returns its FunctionBody.

    Raises:
      ValueError: a different function of the same name is already there.
    """
    name = fdef.signature.name
    found = functions(graph).get(name)
    if found is not None:
        if found.fdef.SerializeToString(deterministic=True) != \
                fdef.SerializeToString(deterministic=True):
            raise ValueError(f"Cannot add function '{name}' because a different function "
                             "with the same name already exists.")
        return found
    body = FunctionBody(graph, fdef, python_grad_func)
    functions(graph)[name] = body
    lib = library(graph)
    if not any(f.signature.name == name for f in lib.function):
        lib.function.add().CopyFrom(fdef)
    if grad_func_name and not any(g.function_name == name for g in lib.gradient):
        lib.gradient.add(function_name=name, gradient_func=grad_func_name)
    return body


def add_library(graph, lib):
    """Adds every function of a FunctionDefLibrary (a GraphDef's `library`) to `graph`."""
    grads = {g.function_name: g.gradient_func for g in lib.gradient}
    for f in lib.function:
        add_function(graph, f, grad_func_name=grads.get(f.signature.name))


def gradient_function_name(graph, name):
    while graph is not None:
        lib = getattr(graph, "_function_library", None)
        if lib is not None:
            for g in lib.gradient:
                if g.function_name == name:
                    return g.gradient_func
        graph = graph._outer_graph
    return None


class FunctionBody:
    """One function of a graph's library: its FunctionDef, the OpDef of the ops that call it,
    and (built on first run) its body graph."""

    def __init__(self, graph, fdef, python_grad_func=None):
        self.graph = graph
        self.fdef = fdef
        self.name = fdef.signature.name
        self.input_dtypes = fdef_lib.signature_dtypes(fdef.signature.input_arg)
        self.output_dtypes = fdef_lib.signature_dtypes(fdef.signature.output_arg)
        self.python_grad_func = python_grad_func
        self._lock = threading.Lock()
        self._body = None
        self._grad_body = None
        self.opdef = _call_opdef(self)

    def body(self):
        """(graph, input tensors, output tensors, stateful ops) of the function's body."""
        with self._lock:
            if self._body is None:
                self._body = _build_body(self.graph, self.fdef)
            return self._body

    def gradient_body(self):
        """The body of this function's gradient: (x..., dy...) -> dx..., by backpropagation
        through the body (TF's SymbolicGradient)."""
        with self._lock:
            if self._grad_body is None:
                self._grad_body = _build_gradient_body(self.graph, self.fdef)
            return self._grad_body

    def call(self, ctx, args, gradient=False):
        graph, inputs, outputs, targets = self.gradient_body() if gradient else self.body()
        key = ("function", self.name, gradient)
        session = ctx.state.get(key)
        if session is None:
            session = ctx.state[key] = _child_session(ctx, graph)
        return session._run_flat(tuple(inputs), list(args), list(outputs), list(targets))


def _child_session(ctx, graph):
    from flowloom.runtime.session import Session

    parent = ctx.session
    session = Session(graph=graph, config=parent._config)
    session._resources = parent._resources_for(ctx.op)
    return session


def _new_body_graph(outer):
    g = Graph()
    g._function_library = function_pb2.FunctionDefLibrary()
    g._function_library.CopyFrom(library(outer))
    g._functions = dict(functions(outer))
    return g


def _build_body(outer, fdef):
    g = _new_body_graph(outer)
    gd, input_names, output_names = fdef_lib.function_def_to_graph_def(fdef, signatures(outer))
    with g.as_default():
        importer.import_graph_def(gd, name="")
    inputs = [g.get_tensor_by_name(n) for n in input_names]
    outputs = [g.get_tensor_by_name(n) for n in output_names]
    arg_ops = {t.op for t in inputs}
    targets = [op for op in g.get_operations()
               if op._opdef.stateful and op not in arg_ops and not op.outputs]
    return g, inputs, outputs, targets


def _build_gradient_body(outer, fdef):
    from flowloom.framework import gradients_impl
    from flowloom.ops.array import array_ops

    g, inputs, outputs, _ = _build_body(outer, fdef)
    with g.as_default():
        dys = [array_ops.placeholder(t.dtype.base_dtype, name=f"dy{i}")
               for i, t in enumerate(outputs)]
        grads = gradients_impl.gradients(outputs, inputs, grad_ys=dys) if outputs \
            else [None] * len(inputs)
        grads = [array_ops.zeros_like(x) if d is None else d for x, d in zip(inputs, grads)]
        grads = [array_ops.convert_to_tensor(d) if not hasattr(d, "op") else d for d in grads]
    return g, inputs + dys, grads, []


# -- the op that calls a function ---------------------------------------------------------
def _call_opdef(body):
    opdef = op_registry.OpDef(
        body.name, [f"arg{i}: {dt.name}" for i, dt in enumerate(body.input_dtypes)],
        [f"out{i}: {dt.name}" for i, dt in enumerate(body.output_dtypes)],
        {}, stateful=True, forwards_ref=False, allowed_types=None)

    single = len(body.output_dtypes) == 1

    def kernel(xp, *args, ctx):
        out = body.call(ctx, args)
        return out[0] if single else out
    opdef.kernel(kernel)
    opdef.gradient(lambda op, *grads: call_gradient(op, body, grads))
    return opdef


def call_gradient(op, body, grads):
    """The gradients of a call of `body` at `op`: the function's Python gradient function if
    it has one, else a SymbolicGradient op (which uses the library's gradient function for
    it where there is one)."""
    if body.python_grad_func is not None:
        return body.python_grad_func(op, *grads)
    from flowloom.graph_function import functional_call_ops

    return functional_call_ops.symbolic_gradient(
        list(op.inputs) + list(grads), [t.dtype.base_dtype for t in op.inputs],
        attr_value_pb2.NameAttrList(name=body.name))


def run_function(ctx, name, args, gradient=False):
    """Runs library function `name` of the calling op's graph on `args` (arrays)."""
    body = lookup(ctx.op._graph, name)
    if body is None:
        raise errors.NotFoundError(None, None, f"Function {name} is not defined.")
    if gradient:
        grad_name = gradient_function_name(ctx.op._graph, name)
        if grad_name is not None:
            return run_function(ctx, grad_name, args)
    return body.call(ctx, args, gradient=gradient)


def dtype_list(values):
    return [dtypes.as_dtype(v).base_dtype for v in values]
