"""Operation and Tensor: the nodes and edges of a graph."""

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework import lazy_registry
from flowloom.framework import tensor_shape
from flowloom.framework.user_stack import site_frame, user_site

_UNKNOWN_SHAPE = tensor_shape.unknown_shape()


class Operation:
    """A node in the graph: an instance of an op type with inputs, attrs and a device."""

    __slots__ = ("_graph", "_name", "_type", "_opdef", "_inputs", "_control_inputs", "_outputs",
                 "_attrs", "_device", "_site", "_id", "_control_outputs",
                 "_control_flow_context", "_original_op", "__weakref__")

    def __init__(self, node_def, g, *args, **kwargs):
        """TF's `Operation(node_def, g, inputs, ...)` (op_construction); graphs use _init."""
        from flowloom.framework.op_construction import _operation_init

        _operation_init(self, node_def, g, *args, **kwargs)

    def _init(self, graph, name, opdef, inputs, output_dtypes, attrs, control_inputs, device):
        self._graph = graph
        self._original_op = graph._default_original_op
        self._name = name
        self._type = opdef.type
        self._opdef = opdef
        self._inputs = inputs
        self._control_inputs = control_inputs
        self._attrs = attrs
        self._device = device
        self._site = user_site()  # the user's line, resolved when asked for
        self._control_outputs = []
        self._control_flow_context = None
        if len(output_dtypes) == 1:
            self._outputs = [Tensor(self, 0, output_dtypes[0])]
        else:
            self._outputs = [Tensor(self, i, dt) for i, dt in enumerate(output_dtypes)]

    # -- the public TF1 API -------------------------------------------------
    @property
    def name(self):
        return self._name

    @property
    def type(self):
        return self._type

    @property
    def graph(self):
        return self._graph

    @property
    def inputs(self):
        return tuple(self._inputs)

    @property
    def outputs(self):
        return list(self._outputs)

    @property
    def control_inputs(self):
        return list(self._control_inputs)

    @property
    def device(self):
        return self._device

    @property
    def op_def(self):
        from flowloom.framework.meta_graph import op_def_proto

        return op_def_proto(self._opdef)

    @property
    def _traceback(self):
        """(file, line, function) of the user's line that created the op, or None."""
        site = self._site
        if site is not None and type(site[0]) is not str:
            site = self._site = site_frame(site)
        return site

    @_traceback.setter
    def _traceback(self, frame):
        self._site = frame

    @property
    def traceback(self):
        return [self._traceback] if self._traceback else []

    def values(self):
        return tuple(self._outputs)

    @property
    def node_def(self):
        from flowloom.framework.graph_def import node_def_from_op

        return node_def_from_op(self)

    def get_attr(self, name):
        if name not in self._attrs:
            raise ValueError(f"Operation '{self._name}' has no attr named '{name}'.")
        return self._attrs[name]

    @property
    def attrs(self):
        return dict(self._attrs)

    def _set_attr(self, name, value):
        if hasattr(value, "WhichOneof"):  # TF's form: an AttrValue proto
            from flowloom.framework.graph_def import attr_value_to_python

            value = attr_value_to_python(value)
        self._attrs[name] = value
        self._graph._version += 1

    def _set_device(self, device):
        self._device = device.to_string() if hasattr(device, "to_string") else device
        self._graph._version += 1

    def _add_control_input(self, op):
        if op not in self._control_inputs:
            self._control_inputs.append(op)
            op._control_outputs.append(self)
            self._graph._version += 1

    def _update_input(self, index, tensor):
        """Replaces input `index` by `tensor` (control flow rewires inputs after creation)."""
        from flowloom.framework.op_construction import check_update_input

        check_update_input(self, index, tensor)
        old = self._inputs[index]
        self._inputs[index] = tensor
        old._consumers.remove(self)
        tensor._consumers.append(self)
        self._graph._version += 1

    def _remove_all_control_inputs(self):
        for c in self._control_inputs:
            c._control_outputs.remove(self)
        self._control_inputs = []
        self._graph._version += 1

    def _get_control_flow_context(self):
        return self._control_flow_context

    def _set_control_flow_context(self, ctx):
        self._control_flow_context = ctx

    def _add_control_inputs(self, ops):
        for op in ops:
            self._add_control_input(op)

    def colocation_groups(self):
        cls = self._attrs.get("_class")
        if cls:
            return [c.encode() if isinstance(c, str) else c for c in cls]
        return [("loc:@" + self._name).encode()]

    def run(self, feed_dict=None, session=None):
        """Runs this operation in `session` (or the default session)."""
        from flowloom.runtime.session import _session_for

        _session_for(session, self._graph).run(self, feed_dict)

    def user_location(self):
        """`File "x.py", line 3, in f` for the user's line that created this op."""
        if not self._traceback:
            return "<unknown>"
        return 'File "%s", line %d, in %s' % self._traceback

    def __repr__(self):
        return f"<tf.Operation '{self._name}' type={self._type}>"

    def __str__(self):
        from flowloom.framework.graph_def import node_def_from_op

        return str(node_def_from_op(self))


class Tensor:
    """One output of an Operation: a symbolic handle to a value computed at run time."""

    __slots__ = ("_op", "_value_index", "_dtype", "_shape", "_consumers", "__weakref__",
                 "aliases")  # aliases: set by tf.contrib.layers output collections

    # Lets numpy defer to our operators (`np.float32(2) * t`).
    __array_priority__ = 100

    def __init__(self, op, value_index, dtype):
        self._op = op
        self._value_index = value_index
        self._dtype = dtype
        self._shape = _UNKNOWN_SHAPE
        self._consumers = []

    @property
    def op(self):
        return self._op

    @property
    def value_index(self):
        return self._value_index

    @property
    def dtype(self):
        return self._dtype

    @property
    def graph(self):
        return self._op._graph

    @property
    def name(self):
        return "%s:%d" % (self._op._name, self._value_index)

    @property
    def device(self):
        return self._op._device

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    def set_shape(self, shape):
        """Merges `shape` into this tensor's static shape (ValueError if incompatible)."""
        self._shape = self._shape.merge_with(tensor_shape.as_shape(shape))

    def consumers(self):
        return list(self._consumers)

    def eval(self, feed_dict=None, session=None):
        """Evaluates this tensor in `session` (or the default session)."""
        from flowloom.runtime.session import _session_for

        return _session_for(session, self.graph).run(self, feed_dict)

    def _as_node_def_input(self):
        return self._op._name if self._value_index == 0 else self.name

    def __repr__(self):
        return "<tf.Tensor '%s' shape=%s dtype=%s>" % (self.name, self._shape, self._dtype.name)

    def __str__(self):
        return 'Tensor("%s", shape=%s, dtype=%s)' % (self.name, self._shape, self._dtype.name)

    def experimental_ref(self):
        """A hashable reference to this tensor (object identity); `.deref()` returns it."""
        from flowloom.framework.object_identity import Reference

        return Reference(self)

    def __hash__(self):
        return id(self)

    def __bool__(self):
        from flowloom.framework.errors import OperatorNotAllowedInGraphError

        raise OperatorNotAllowedInGraphError(
            "using a `tf.Tensor` as a Python `bool` is not allowed in Graph execution. Use "
            "`if t is not None:` instead of `if t:` to test if a tensor is defined, and use "
            "TensorFlow ops such as tf.cond to execute subgraphs conditioned on the value of a "
            "tensor.")

    __nonzero__ = __bool__

    def __iter__(self):
        from flowloom.framework.errors import OperatorNotAllowedInGraphError

        raise OperatorNotAllowedInGraphError(
            f"iterating over `tf.Tensor` ({self.name}) is not allowed in Graph execution; "
            "use tf.unstack(t) to split it into a list of tensors.")

    def __len__(self):
        raise TypeError(
            f"len is not well defined for symbolic Tensors. ({self.name}) Please call "
            "`x.shape` rather than `len(x)` for shape information.")

    def __array__(self, dtype=None):
        raise NotImplementedError(
            f"Cannot convert a symbolic Tensor ({self.name}) to a numpy array.")

    # Tensors compare by identity, as in TF1 graph mode.
    __eq__ = object.__eq__
    __ne__ = object.__ne__

    @classmethod
    def _override_operator(cls, operator, func):
        lazy_registry.note("tensor_operator", operator)
        setattr(cls, operator, func)


lazy_registry.install_operator_stubs(Tensor)  # operators come with their op family


# ---------------------------------------------------------------------------
# Conversion of Python values, numpy arrays and Tensor-likes to Tensors.

_conversion_functions = []  # (type, fn)


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    """Registers `conversion_func(value, dtype=None, name=None, as_ref=False)` for a type."""
    lazy_registry.note_types("tensor_conversion", base_type)
    _conversion_functions.append((priority, base_type, conversion_func))
    _conversion_functions.sort(key=lambda e: e[0])


def convert_to_tensor(value, dtype=None, name=None, preferred_dtype=None, as_ref=False,
                      dtype_hint=None):
    """Converts `value` (Tensor, Variable, numpy array, Python value) to a Tensor."""
    if isinstance(value, Tensor):
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype)
            if not dtype.is_compatible_with(value._dtype):
                raise ValueError(
                    f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                    f"{value._dtype.name}: {value!s}")
        return value
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    for _, base_type, fn in _conversion_functions:
        if isinstance(value, base_type):
            ret = fn(value, dtype=dtype, name=name, as_ref=as_ref)
            if ret is not NotImplemented:
                return ret
    if lazy_registry.load_type("tensor_conversion", type(value)):  # its module registers one
        return convert_to_tensor(value, dtype, name, preferred_dtype, as_ref, dtype_hint)
    preferred_dtype = preferred_dtype or dtype_hint
    if dtype is None and preferred_dtype is not None:
        from flowloom.ops.array import array_ops

        try:
            return array_ops.constant(value, dtype=preferred_dtype, name=name or "Const")
        except (TypeError, ValueError):
            pass
    from flowloom.ops.array import array_ops

    return array_ops.constant(value, dtype=dtype, name=name or "Const")


def convert_n_to_tensor(values, dtype=None, name=None, preferred_dtype=None):
    return [convert_to_tensor(v, dtype=dtype, preferred_dtype=preferred_dtype) for v in values]


def convert_to_tensor_or_indexed_slices(value, dtype=None, name=None):
    if hasattr(value, "indices") and hasattr(value, "values") and hasattr(value, "dense_shape"):
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)


def tensor_value_to_numpy(value, dtype):
    """Converts a Python/numpy value to an array of `dtype` (a DType), TF's way."""
    npt = dtype.as_numpy_dtype
    if dtype.base_dtype is dtypes.string:
        arr = np.asarray(value, dtype=object)
        flat = arr.reshape(-1)
        for i, v in enumerate(flat):
            if isinstance(v, str):
                flat[i] = v.encode("utf-8")
            elif not isinstance(v, bytes):
                raise TypeError(f"Expected string, got {v!r} of type '{type(v).__name__}' instead.")
        return arr
    if isinstance(value, np.ndarray) and value.dtype == npt:
        return value
    arr = _dimensions_to_ints(np.asarray(value))
    if arr.size == 0 and arr.dtype.kind == "f" and not isinstance(value, np.ndarray):
        return arr.astype(npt)  # `[]` (NumPy: float64) is an empty tensor of any dtype, as in TF
    if arr.dtype.kind in "OUS":
        raise TypeError(f"Expected {dtype.name}, got {value!r} of type '{type(value).__name__}' "
                        "instead.")
    if dtype.is_integer or dtype.is_bool:
        if arr.dtype.kind == "f" or arr.dtype.kind == "c":
            if not np.all(np.equal(np.mod(arr, 1), 0)) if arr.dtype.kind == "f" else True:
                raise TypeError(f"Expected {dtype.name}, got {value!r} of type "
                                f"'{type(value).__name__}' instead.")
    if dtype.is_bool and arr.dtype.kind != "b":
        raise TypeError(f"Expected bool, got {value!r} of type '{type(value).__name__}' instead.")
    if dtype.is_integer and arr.dtype.kind in "iu" and arr.size:
        info = np.iinfo(npt)
        if arr.min() < info.min or arr.max() > info.max:
            raise ValueError(f"Value {value!r} is out of range for {dtype.name}")
    return arr.astype(npt)


def _dimensions_to_ints(arr):
    """An object array of known Dimensions and ints as ints (TF1 code builds shapes from
    Dimensions: `[-1, x.shape[1] * x.shape[2]]`); any other array unchanged."""
    if arr.dtype.kind == "O" and arr.size and all(_is_int_like(v) for v in arr.reshape(-1)):
        return np.array([int(v) for v in arr.reshape(-1)]).reshape(arr.shape)
    return arr


def _is_int_like(v):
    from flowloom.framework.tensor_shape import Dimension

    if isinstance(v, Dimension):
        return v.value is not None
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def infer_dtype(value):
    """TF's dtype for a Python value: int → int32, float → float32, str → string."""
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        return dtypes.as_dtype(value.dtype)
    arr = _dimensions_to_ints(np.asarray(value))
    kind = arr.dtype.kind
    if kind == "b":
        return dtypes.bool_
    if kind in "iu":
        if arr.size and (arr.max() > 2**31 - 1 or arr.min() < -2**31):
            return dtypes.int64
        return dtypes.int32
    if kind == "f":
        return dtypes.float32
    if kind == "c":
        return dtypes.complex128
    if kind in "USO":
        return dtypes.string
    raise TypeError(f"Cannot infer a TensorFlow dtype for {value!r}")
