"""`function.Defun`: TF1's graph functions.

A Python function decorated with `@Defun(dtypes...)` is traced once into a graph of its own
(tensors of the graphs around it that it uses are captured: they become extra arguments),
turned into a FunctionDef with TF's field names, and added to the function library of each
graph it is called in. A call is an op whose type is the function's name; its gradient is
the function's `python_grad_func`, else a SymbolicGradient op (which runs `grad_func` where
one is given, else backpropagates through the body).
"""

import hashlib
import inspect

from flowloom.data.functions import _function_graph_class
from flowloom.framework import dtypes
from flowloom.framework.graph import get_default_graph
from flowloom.framework.ops import Operation, Tensor, convert_to_tensor
from flowloom.graph_function import function_def as fdef_lib
from flowloom.graph_function import runtime
from flowloom.proto import attr_value_pb2


class Defun:
    """Decorator that defines a graph function (`tf.contrib.framework.function.Defun`).

    Args:
      *input_types: the dtype of each argument. Without them the function is overloaded:
        it is defined anew for each list of argument dtypes it is called with.
      func_name: the name of the function in the graph (default: the Python name and a hash
        of the body).
      grad_func: a `_DefinedFunction` computing (inputs..., dys...) -> dxs (TF's GradientDef).
      python_grad_func: a Python function (op, *grads) -> grads, called by `tf.gradients`.
      out_names: one name per output.
      shape_func: a function of the call op returning the static shapes of its outputs.
      noinline: (bool) recorded on the call op as `_noinline`.

    Example:
      @Defun(tf.float32, tf.float32)
      def MyFunc(x, y):
        return x + y, x - y

      a, b = MyFunc(tf.constant(1.0), tf.constant(2.0))
    """

    def __init__(self, *input_types, **kwargs):
        self._input_types = input_types
        self._func_name = kwargs.pop("func_name", None)
        self._grad_func = kwargs.pop("grad_func", None)
        self._python_grad_func = kwargs.pop("python_grad_func", None)
        self._out_names = kwargs.pop("out_names", None)
        self._extra_kwargs = kwargs

    def __call__(self, func):
        if not callable(func):
            raise ValueError(f"function {func} must be callable")
        spec = inspect.getfullargspec(func)
        if spec.varkw or spec.defaults or spec.kwonlyargs:
            raise ValueError(
                "function with argument defaults or keywords arguments are not supported. "
                f"{func} has defaults {spec.defaults} and keywords {spec.varkw}.")
        argnames = list(spec.args)
        if inspect.ismethod(func):
            argnames = argnames[1:]
        min_args = len(argnames)
        max_args = 1000000 if spec.varargs else min_args
        kwargs = dict(func_name=self._func_name, grad_func=self._grad_func,
                      python_grad_func=self._python_grad_func, out_names=self._out_names,
                      **self._extra_kwargs)
        if self._input_types:
            if not min_args <= len(self._input_types) <= max_args:
                raise ValueError("The function has fewer arguments than the number of "
                                 "specified input types.")
            return _DefinedFunction(func, argnames, self._input_types, **kwargs)
        if max_args == 0:
            return _DefinedFunction(func, [], [], **kwargs)
        return _OverloadedFunction(func, argnames, **kwargs)


_KWARG_ATTRS = {"noinline": "_noinline", "compiled": "_XlaCompile",
                "separate_compiled_gradients": "_XlaSeparateCompiledGradients"}


def _kwargs_as_attrs(func_name, kwargs):
    attrs = {}
    for key in list(kwargs):
        if key in _KWARG_ATTRS:
            attrs[_KWARG_ATTRS[key]] = bool(kwargs.pop(key))
        elif key.startswith("experimental_"):
            attrs[key] = kwargs.pop(key)
    if attrs.get("_XlaCompile"):
        attrs["_XlaScope"] = f"function_{func_name}"
    if kwargs:
        raise ValueError(f"Unknown keyword arguments: {sorted(kwargs)}")
    return attrs


class _DefinedFunction:
    """A graph function: its definition (a FunctionDef) and how it is called.

    Attributes:
      name: the function's name in the graph library.
      definition: its FunctionDef.
      grad_func_name: the name of its gradient function, or None.
      python_grad_func: its Python gradient function, or None.
      declared_input_types: the dtypes of its declared arguments.
      captured_inputs: the outer tensors its body uses (passed as extra arguments).
      stateful_ops: (name, type) of the stateful ops of its body.
    """

    def __init__(self, func, argnames, input_types, func_name=None, grad_func=None,
                 python_grad_func=None, out_names=None, shape_func=None,
                 capture_by_value=False, whitelisted_stateful_ops=None,
                 capture_resource_var_by_value=True, **kwargs):
        if capture_by_value:
            raise NotImplementedError("Defun(capture_by_value=True) is not implemented in "
                                      "flowloom")
        self._func = func
        self._input_types = tuple(dtypes.as_dtype(t) for t in input_types)
        self._func_name = func_name
        self._grad_func = grad_func
        self._python_grad_func = python_grad_func
        self._out_names = out_names
        self._shape_func = shape_func
        self._extra_kwargs = kwargs
        self._arg_names = [argnames[i] if i < len(argnames) else f"arg{i}"
                           for i in range(len(input_types))]
        self._definition = None
        self._extra_inputs = []
        self._stateful_ops = []
        self._sub_functions = {}

    @property
    def name(self):
        self._create_definition_if_needed()
        return self._func_name

    @property
    def definition(self):
        self._create_definition_if_needed()
        return self._definition

    @property
    def _signature(self):
        return self.definition.signature

    def set_grad_func(self, grad_func):
        if self._grad_func:
            raise ValueError(f"Gradient function already set for {self._func_name}")
        self._grad_func = grad_func

    @property
    def grad_func_name(self):
        return self._grad_func.name if self._grad_func else None

    @property
    def python_grad_func(self):
        return self._python_grad_func

    @property
    def declared_input_types(self):
        return self._input_types

    @property
    def captured_inputs(self):
        self._create_definition_if_needed()
        return list(self._extra_inputs)

    @property
    def stateful_ops(self):
        self._create_definition_if_needed()
        return list(self._stateful_ops)

    def _create_definition_if_needed(self):
        if self._definition is not None:
            return
        outer = get_default_graph()
        graph = _trace(self._func, self._arg_names, self._input_types, outer)
        self._extra_inputs = list(graph.captured)
        self._sub_functions = dict(runtime.functions(graph))
        base = self._func_name or getattr(self._func, "__name__", "function")
        if not self._func_name and self._grad_func:
            base += f"_{self._grad_func.name}"
        attrs = _kwargs_as_attrs(base, dict(self._extra_kwargs))
        fdef = fdef_lib.graph_to_function_def(
            graph, graph.defun_inputs + list(graph.placeholders), graph.defun_outputs,
            out_names=self._out_names, library_signatures=runtime.signatures(graph))
        for k, v in attrs.items():
            from flowloom.framework.graph_def import attr_value_from_python

            fdef.attr[k].CopyFrom(attr_value_from_python(v))
        if not self._func_name:
            self._func_name = f"{base}_{_hash(fdef)}"
        fdef.signature.name = self._func_name
        if self._func.__doc__:
            fdef.signature.description = self._func.__doc__
        self._definition = fdef
        self._stateful_ops = [(op.name, op.type) for op in graph.get_operations()
                              if op._opdef.stateful and op.type != "Placeholder"]

    def add_to_graph(self, g):
        """Adds this function (and those it calls, and its gradient function) to `g`."""
        self._create_definition_if_needed()
        if self._grad_func is not None and self._python_grad_func is not None:
            raise ValueError(f"Gradient defined twice for function {self._func_name}")
        for f in self._sub_functions.values():
            runtime.add_function(g, f.fdef, f.python_grad_func,
                                 runtime.gradient_function_name(f.graph, f.name))
        if self._grad_func is not None:
            self._grad_func.add_to_graph(g)
        runtime.add_function(g, self._definition, self._python_grad_func,
                             self.grad_func_name)

    def __call__(self, *args, **kwargs):
        g = get_default_graph()
        self.add_to_graph(g)
        name = kwargs.pop("name", None)
        attrs = _kwargs_as_attrs(self._func_name, kwargs)
        sig = self._signature
        if len(args) != len(self._input_types):
            raise ValueError(f"Expected number of arguments: {len(sig.input_arg)}, received: "
                             f"{len(args) + len(self._extra_inputs)}")
        inputs = [convert_to_tensor(a, dtype=t) for a, t in zip(args, self._input_types)]
        inputs += self._extra_inputs
        body = runtime.lookup(g, self._func_name)
        out_dtypes = list(body.output_dtypes)
        op = g._create_op_internal(body.opdef, inputs, out_dtypes, attrs,
                                   g.unique_name(name or self._func_name))
        if self._shape_func is not None:
            shapes = self._shape_func(op)
            if len(shapes) != len(op.outputs):
                raise ValueError(f"shape_func produced {len(shapes)} shapes for "
                                 f"{len(op.outputs)} outputs")
            for t, shape in zip(op.outputs, shapes):
                t.set_shape(shape)
        if not op.outputs:
            return op
        return op.outputs[0] if len(op.outputs) == 1 else tuple(op.outputs)


def _hash(fdef):
    """8 hex digits unique to the signature and body (TF's scheme)."""
    h = hashlib.sha1()

    def num(n):
        h.update(b"%x" % n)

    def text(s):
        s = s if isinstance(s, bytes) else s.encode()
        num(len(s))
        h.update(s)
    for a in fdef.signature.input_arg:
        text(a.SerializeToString())
    for a in fdef.signature.output_arg:
        text(a.SerializeToString())
    for n in sorted(fdef.node_def, key=lambda n: n.name):
        text(n.name)
        text(n.op)
        num(len(n.input))
        for s in n.input:
            text(s)
        num(len(n.attr))
        for k in sorted(n.attr):
            text(k)
            text(n.attr[k].SerializeToString(deterministic=True))
    return h.hexdigest()[:8]


def _trace(func, arg_names, input_types, outer):
    """Traces `func` into a function graph: one Placeholder per argument."""
    from flowloom.ops.array.array_ops import placeholder
    from flowloom.variable_scope import variable_scope

    graph = _function_graph_class()(outer)
    graph._building_function = True
    with graph.as_default():
        graph.defun_inputs = [placeholder(t, name=n) for n, t in zip(arg_names, input_types)]
        with variable_scope("", custom_getter=_outer_getter(outer)):
            outputs = func(*graph.defun_inputs)
        if outputs is None:
            outputs = []
        else:
            if not isinstance(outputs, (list, tuple)):
                outputs = (outputs,)
            if any(o is None for o in outputs):
                raise ValueError(f"Function {getattr(func, '__name__', func)} can not return "
                                 "None.")
        flat = []
        for o in outputs:
            if isinstance(o, Operation):
                raise TypeError(f"Function {getattr(func, '__name__', func)} returned an "
                                "Operation; return Tensors")
            t = convert_to_tensor(o)
            if t.graph is not graph:
                t = graph._capture(t)
            flat.append(t)
        graph.defun_outputs = flat
    return graph


def _outer_getter(outer):
    """A custom getter that creates a function's variables in the graph around it."""
    def getter(getter_fn, name, *args, **kwargs):
        with outer.as_default():
            var = getter_fn(name, *args, **kwargs)
        if hasattr(var, "_handle_name") or type(var).__name__ == "ResourceVariable":
            return var.value()
        return var
    return getter


class _OverloadedFunction:
    """A Defun without declared input types: defined once per list of argument dtypes."""

    def __init__(self, func, argnames, func_name=None, grad_func=None, python_grad_func=None,
                 out_names=None, **kwargs):
        self._func = func
        self._argnames = argnames
        self._func_name = func_name
        self._grad_func = grad_func
        self._python_grad_func = python_grad_func
        self._out_names = out_names
        self._extra_kwargs = kwargs
        self._overload = {}

    def instantiate(self, input_types):
        key = "".join(dtypes.as_dtype(t).name for t in input_types)
        defined = self._overload.get(key)
        if defined is None:
            name = f"{self._func_name}_{key}" if self._func_name else None
            defined = _DefinedFunction(self._func, self._argnames, input_types, name, None,
                                       self._python_grad_func, out_names=self._out_names,
                                       **self._extra_kwargs)
            _ = defined.name
            if self._grad_func:
                out_types = fdef_lib.signature_dtypes(defined._signature.output_arg)
                defined._grad_func = self._grad_func.instantiate(list(input_types) + out_types)
            self._overload[key] = defined
        return defined

    def __call__(self, *args, **kwargs):
        args = [convert_to_tensor(a) for a in args]
        for a in args:
            if not isinstance(a, Tensor):
                raise ValueError("Expect a Tensor but get ", a)
        return self.instantiate([a.dtype.base_dtype for a in args])(*args, **kwargs)


def _from_definition(fdef, grad_func=None):
    """A `_DefinedFunction` for FunctionDef `fdef` (a library's function)."""
    input_types = fdef_lib.signature_dtypes(fdef.signature.input_arg)
    result = _DefinedFunction(None, [a.name for a in fdef.signature.input_arg], input_types,
                              fdef.signature.name, grad_func, None,
                              [a.name for a in fdef.signature.output_arg])
    result._definition = fdef
    return result


def from_library(lib):
    """The `_DefinedFunction`s of a FunctionDefLibrary, each with its gradient function.

    Raises:
      ValueError: a GradientDef names a missing function, or gradients form a cycle.
    """
    if not lib.function and not lib.gradient:
        return []
    funcs = {f.signature.name: f for f in lib.function}
    for g in lib.gradient:
        for name in (g.function_name, g.gradient_func):
            if name not in funcs:
                raise ValueError(f"FunctionDefLibrary missing '{name}' FunctionDef\n{lib}")
    func_to_grad = {g.function_name: g.gradient_func for g in lib.gradient}
    grad_to_funcs = {}
    for g in lib.gradient:
        grad_to_funcs.setdefault(g.gradient_func, []).append(g.function_name)
    ready = [f for f in lib.function if f.signature.name not in func_to_grad]
    if not ready:
        raise ValueError(f"FunctionDefLibrary contains cyclic gradient functions!\n{lib}")
    done = {}
    while ready:
        f = ready.pop()
        name = f.signature.name
        done[name] = _from_definition(f, done.get(func_to_grad.get(name)))
        ready.extend(funcs[n] for n in grad_to_funcs.get(name, ()))
    return list(done.values())


def _extra(attr):
    g = get_default_graph()
    return list(getattr(g, attr, ())) if g._outer_graph is not None else []


def get_extra_inputs():
    """The outer tensors captured by the function being defined."""
    return _extra("captured")


def get_extra_args():
    """The arguments standing for the captured tensors of the function being defined."""
    return _extra("placeholders")


def get_extra_vars():
    """The variables captured by the function being defined (none are hoisted separately)."""
    return []


def _func_attr(value):
    """The NameAttrList of a function attr value: a `_DefinedFunction` (added to the graph),
    a NameAttrList, or a function name."""
    if isinstance(value, attr_value_pb2.NameAttrList):
        return value
    if isinstance(value, attr_value_pb2.AttrValue):
        return value.func
    if isinstance(value, (str, bytes)):
        return attr_value_pb2.NameAttrList(name=value.decode() if isinstance(value, bytes)
                                           else value)
    if hasattr(value, "add_to_graph"):
        value.add_to_graph(get_default_graph())
        return attr_value_pb2.NameAttrList(name=value.name)
    raise TypeError(f"Don't know how to convert {value!r} to a func attr")
