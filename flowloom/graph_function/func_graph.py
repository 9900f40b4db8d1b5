"""TF's `tensorflow.python.framework.func_graph`: `FuncGraph`, the graph a Python function is
traced into (its arguments as Placeholders, outer tensors it uses captured as Placeholders
too), and `func_graph_from_py_func`, which traces one.

Not supported (NotImplementedError naming it): autograph; TF's automatic control
dependencies between stateful ops (`add_control_dependencies`) are not added.
"""

from flowloom.data.functions import _function_graph_class
from flowloom.framework import nest
from flowloom.framework.graph import get_default_graph
from flowloom.framework.ops import Operation, Tensor, convert_to_tensor

_CapturingGraph = _function_graph_class()


class FuncGraph(_CapturingGraph):
    """A graph a function is traced into.

    Attributes:
      name: the function's name.
      inputs: the Placeholders of its arguments, then of the outer tensors it captured.
      outputs: the flat list of tensors it returns.
      structured_outputs: what the Python function returned, tensors converted.
    """

    def __init__(self, name, collections=None, capture_by_value=None):
        del collections, capture_by_value
        super().__init__(get_default_graph())
        self.name = name
        self._building_function = True
        self.inputs, self.outputs, self.structured_outputs = [], [], None

    @property
    def internal_captures(self):
        return list(self.placeholders)

    @property
    def external_captures(self):
        return list(self.captured)

    @property
    def captures(self):
        return list(zip(self.captured, self.placeholders))


def func_graph_from_py_func(name, python_func, args, kwargs, signature=None, func_graph=None,
                            autograph=False, autograph_options=None,
                            add_control_dependencies=True, arg_names=None,
                            op_return_value=None, collections=None, capture_by_value=None,
                            override_flat_arg_shapes=None):
    """Returns the `FuncGraph` of `python_func` traced with `args` and `kwargs`.

    Args:
      name: the function's name.
      python_func: the Python function to trace.
      args, kwargs: its arguments; each Tensor (or anything with a dtype and a shape, such
        as a TensorSpec) among them becomes a Placeholder of that dtype and shape, other
        values are passed as they are. `signature` (a nested sequence of such specs), when
        given, replaces them.
      func_graph: a FuncGraph to trace into (a new one when None).
      arg_names: names of the argument Placeholders.
      op_return_value: what an Operation the function returns is replaced with.
      override_flat_arg_shapes: a shape per flat argument (None for non-tensors).

    Returns:
      A `FuncGraph`.

    Raises:
      TypeError: if the function returns something that is neither None, a Tensor nor
        convertible to one (or an Operation without `op_return_value`).
      NotImplementedError: for `autograph=True`.
    """
    del autograph_options, add_control_dependencies
    if autograph:
        raise NotImplementedError("func_graph_from_py_func(autograph=True): flowloom has no "
                                  "autograph")
    from flowloom.ops.array.array_ops import placeholder

    if signature is not None:
        args, kwargs = signature, {}
    if func_graph is None:
        func_graph = FuncGraph(name, collections=collections, capture_by_value=capture_by_value)
    flat = nest.flatten((list(args), dict(kwargs or {})))
    shapes = override_flat_arg_shapes or [None] * len(flat)
    with func_graph.as_default():
        placeholders, traced = [], []
        for i, value in enumerate(flat):
            if isinstance(value, Tensor) or (hasattr(value, "dtype") and hasattr(value, "shape")
                                             and not hasattr(value, "__array__")):
                arg_name = arg_names[i] if arg_names and i < len(arg_names) else None
                p = placeholder(value.dtype, shapes[i] if shapes[i] is not None
                                else value.shape, name=arg_name)
                placeholders.append(p)
                traced.append(p)
            else:
                traced.append(value)
        call_args, call_kwargs = nest.pack_sequence_as((list(args), dict(kwargs or {})), traced)
        result = python_func(*call_args, **call_kwargs)

        def convert(x):
            if x is None:
                return None
            if isinstance(x, Operation):
                if op_return_value is None:
                    raise TypeError(f"To be compatible with tf.function, Python functions must "
                                    f"return zero or more Tensors; in compilation of {name}, "
                                    f"found return value of type {type(x).__name__}, which is "
                                    "not a Tensor.")
                return op_return_value
            try:
                return convert_to_tensor(x)
            except (TypeError, ValueError):
                raise TypeError(f"To be compatible with tf.function, Python functions must "
                                f"return zero or more Tensors; in compilation of {name}, found "
                                f"return value of type {type(x).__name__}, which is not a "
                                "Tensor.") from None
        func_graph.structured_outputs = nest.map_structure(convert, result)
        func_graph.outputs = [t for t in nest.flatten(func_graph.structured_outputs)
                              if t is not None]
    func_graph.inputs = placeholders + func_graph.internal_captures
    return func_graph
