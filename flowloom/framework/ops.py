"""Operation and Tensor: the nodes and edges of a graph."""

from flowloom.framework import lazy_registry, op_metadata
from flowloom.framework import tensor_shape
from flowloom.framework.user_stack import site_frame, user_site

_UNKNOWN_SHAPE = tensor_shape.unknown_shape()


def _add_control_output(op, consumer):
    outs = op._control_outputs
    if type(outs) is tuple:
        op._control_outputs = [consumer]
    else:
        outs.append(consumer)


class Operation:
    """A node in the graph: an instance of an op type with inputs, attrs and a device."""

    __slots__ = ("_graph", "_name", "_type", "_opdef", "_inputs", "_control_inputs", "_outputs",
                 "_attrs", "_device", "_site", "_id", "_control_outputs",
                 "_control_flow_context", "_original_op", "_scope_sites", "__weakref__")

    def __init__(self, node_def, g, *args, **kwargs):
        """TF's `Operation(node_def, g, inputs, ...)` (op_construction); graphs use _init."""
        from flowloom.framework.op_construction import _operation_init

        _operation_init(self, node_def, g, *args, **kwargs)

    def _init(self, graph, name, opdef, inputs, output_dtypes, attrs, control_inputs, depth):
        self._graph = graph
        self._original_op = graph._default_original_op
        self._name = name
        self._type = opdef.type
        self._opdef = opdef
        self._inputs = inputs or ()  # no inputs: the shared empty tuple, no list per op
        self._control_inputs = control_inputs
        self._attrs = attrs
        self._device = ""
        # The user's line, resolved when asked for. The walk starts `depth` frames up: the
        # caller of Graph._create_op_internal (which calls this), or above callers known to
        # be flowloom's (apply_op's), whose frames need not be looked at.
        self._site = user_site(depth)
        self._scope_sites = None  # (device entries, colocation entries): op_metadata
        self._control_outputs = ()  # most ops have none: a list is made on the first
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
        return _InputList(self._inputs)

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
            # Resolved once: (file, line, function, the function's first line).
            site = self._site = site_frame(site) + (site[0].co_firstlineno,)
        return site[:3] if site is not None and len(site) == 4 else site

    @_traceback.setter
    def _traceback(self, frame):
        self._site = frame

    @property
    def traceback(self):
        """TF's frames (file, line, function, source line) of the user's line that made it."""
        return op_metadata.traceback(self)

    @property
    def traceback_with_start_lines(self):
        return op_metadata.traceback(self, start_lines=True)

    @property
    def _device_assignments(self):
        return op_metadata.device_assignments(self)

    @property
    def _colocation_dict(self):
        return op_metadata.colocation_dict(self)

    def values(self):
        return tuple(self._outputs)

    @property
    def node_def(self):
        from flowloom.framework.graph_def import node_def_from_op

        return node_def_from_op(self)

    def get_attr(self, name):
        return op_metadata.attr_value(self, name)

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
            # Both start as shared empty tuples (no container per op until one is needed).
            if type(self._control_inputs) is tuple:
                self._control_inputs = list(self._control_inputs)
            self._control_inputs.append(op)
            _add_control_output(op, self)
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
        self._control_inputs = ()
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


class _InputList(tuple):
    """An op's inputs, read-only (TF's `Operation._InputList`)."""

    __slots__ = ()


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


# Conversion of Python values, numpy arrays and Tensor-likes to Tensors lives in
# tensor_conversion.py; its names stay importable from here.
from flowloom.framework.tensor_conversion import (  # noqa: E402,F401
    _conversion_functions, convert_n_to_tensor, convert_to_tensor,
    convert_to_tensor_or_indexed_slices, infer_dtype, register_tensor_conversion_function,
    tensor_value_to_numpy)
