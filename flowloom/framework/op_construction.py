"""Operations from NodeDefs: TF's `Operation(node_def, g, ...)` and its low-level creation API.

TF code and TF's own tests build ops from a NodeDef in three ways, all kept here (outside the
core) and all going through the graph's one creation path, so that shapes, names and control
flow behave as for ops built by `tf.*` functions:

- `Operation(node_def, g, inputs, ...)`: the op is added to `g` as the NodeDef says (its name,
  device and attrs), ignoring the graph's control-dependency, device and colocation stacks
  (as TF does); only the control-flow context of a cond/while being built applies.
- `_create_c_op(g, node_def, inputs, control_inputs)` then `g._create_op_from_tf_operation(c)`
  or `g._add_new_tf_operations()`: TF's two-step form (a validated NodeDef waits in the graph
  until it is wrapped; wrapping applies the graph's stacks as `Graph.create_op` does).
- `_NodeDef(op_type, name, device=None, attrs=None)`: the NodeDef proto those take.

`Operation.__init__` (TF's public constructor) calls `_operation_init` here; graphs create
their ops through `Operation._init`. Importing this module (touching `tf.Graph`, `tf.Operation`
or `tf.Tensor` does) attaches `Graph._create_op_from_tf_operation`,
`Graph._add_new_tf_operations` and a few TF-internal Tensor/Operation helpers to the core
classes, which stay small.
"""

import contextlib
import threading

from flowloom.framework import device as device_lib
from flowloom.framework import dtypes
from flowloom.framework import graph as graph_lib
from flowloom.framework import observers
from flowloom.framework import op_def as op_registry
from flowloom.framework.graph import _VALID_OP_NAME, Graph
from flowloom.framework.ops import Operation, Tensor, register_tensor_conversion_function
from flowloom.framework.session_stack import _default_session_stack  # noqa: F401 - TF's ops


def _NodeDef(op_type, name, device=None, attrs=None):  # noqa: N802 - TF's name
    """A NodeDef proto for op type `op_type` named `name` (TF's `ops._NodeDef`).

    Args:
      op_type: the op type name (`"MatMul"`).
      name: the node's name.
      device: a device string, a `DeviceSpec`, or a function of the NodeDef returning one.
      attrs: a dict of attr name to `AttrValue` proto.

    Returns:
      A `NodeDef`.
    """
    from flowloom.proto import attr_value_pb2, node_def_pb2  # noqa: F401 - protobuf on use

    node_def = node_def_pb2.NodeDef()
    node_def.op = _as_str(op_type)
    node_def.name = _as_str(name)
    if attrs is not None:
        for key, value in attrs.items():
            node_def.attr[key].CopyFrom(value)
    if device is not None:
        if callable(device):
            node_def.device = device(node_def)
        elif isinstance(device, device_lib.DeviceSpec):
            node_def.device = device.to_string()
        else:
            node_def.device = device
    return node_def


def _as_str(value):
    return value.decode("utf-8") if isinstance(value, bytes) else value


def _checked(node_def, g, inputs, control_inputs, input_types):
    """TF's argument checks; returns (name, opdef, attrs, inputs, control ops)."""
    from flowloom.proto import attr_value_pb2, node_def_pb2  # noqa: F401 - protobuf on use

    if not isinstance(node_def, node_def_pb2.NodeDef):
        raise TypeError(f"node_def needs to be a NodeDef: {node_def}")
    if node_def.ByteSize() >= (1 << 31):
        raise ValueError("Cannot create a tensor proto whose content is larger than 2GB.")
    if not _VALID_OP_NAME.match(node_def.name):
        raise ValueError(f"'{node_def.name}' is not a valid node name")
    if not isinstance(g, Graph):
        raise TypeError(f"g needs to be a Graph: {g}")
    if inputs is None:
        inputs = []
    elif not isinstance(inputs, list):
        raise TypeError(f"inputs needs to be a list of Tensors: {inputs}")
    for t in inputs:
        if not isinstance(t, Tensor):
            raise TypeError(f"input needs to be a Tensor: {t}")
    if input_types is not None:
        input_types = [dtypes.as_dtype(x) for x in input_types]
        if not all(x.is_compatible_with(t.dtype) for t, x in zip(inputs, input_types)):
            raise TypeError(f"In op '{node_def.name}', input types "
                            f"({[t.dtype for t in inputs]}) are not compatible with expected "
                            f"types ({input_types})")
    control_ops = []
    for c in control_inputs or ():
        if isinstance(c, Operation):
            control_ops.append(c)
        elif isinstance(c, Tensor) or hasattr(c, "indices") and hasattr(c, "values"):
            control_ops.append(c.op)
        else:
            raise TypeError("Control input must be an Operation, a Tensor, or IndexedSlices: "
                            f"{c}")
    opdef = op_registry.get(node_def.op)
    if opdef is None:
        raise ValueError(f"Op type not registered '{node_def.op}' in binary.")
    from flowloom.framework.importer import _Importer
    from flowloom.proto import graph_pb2

    node_def = _with_input_type_attrs(node_def, opdef, inputs)
    # The importer's NodeDef rules (attr kinds and defaults, input count and types).
    rules = _Importer(g, graph_pb2.GraphDef(), {}, "", None)
    attrs = rules._attrs(node_def, opdef, node_def.name)
    rules._check_input_types(opdef, attrs, inputs, node_def.name)
    return node_def.name, opdef, attrs, list(inputs), control_ops


def _with_input_type_attrs(node_def, opdef, inputs):
    """`node_def` with the type and count attrs its inputs imply, where it does not set them
    (TF sets them as the inputs are added to a new node)."""
    from flowloom.proto import attr_value_pb2, node_def_pb2  # noqa: F401 - protobuf on use

    lists = [a for a in opdef.input_args if a.is_list]
    if len(lists) > 1 or not inputs:
        return node_def
    implied = {}
    pos = 0
    for arg in opdef.input_args:
        n = len(inputs) - (len(opdef.input_args) - 1) if arg.is_list else 1
        got = [t.dtype.base_dtype for t in inputs[pos:pos + max(n, 0)]]
        pos += max(n, 0)
        if arg.type_list_attr is not None:
            implied[arg.type_list_attr] = attr_value_pb2.AttrValue(
                list=attr_value_pb2.AttrValue.ListValue(type=[d.as_datatype_enum for d in got]))
            continue
        if arg.number_attr is not None:
            implied[arg.number_attr] = attr_value_pb2.AttrValue(i=len(got))
        if arg.type_attr is not None and got:
            implied.setdefault(arg.type_attr, attr_value_pb2.AttrValue(type=got[0].as_datatype_enum))
    missing = {k: v for k, v in implied.items() if k not in node_def.attr}
    if not missing:
        return node_def
    filled = node_def_pb2.NodeDef()
    filled.CopyFrom(node_def)
    for key, value in missing.items():
        filled.attr[key].CopyFrom(value)
    return filled


def _create(g, node_def, name, opdef, attrs, inputs, control_ops, op=None, bare=False):
    from flowloom.framework.apply_op import _output_dtypes

    if name in g._ops_by_name:
        raise ValueError(f"Duplicate node name in graph: '{name}'")
    op = g._create_op_internal(opdef, inputs, _output_dtypes(opdef, attrs, inputs), attrs,
                               name, op=op, bare=bare)
    if node_def.device:
        op._device = device_lib.canonical_name(node_def.device)
    for c in control_ops:
        op._add_control_input(c)
    key = name.lower()
    with g._lock:
        g._names_in_use[key] = max(g._names_in_use.get(key, 0), 1)
    return op


def _operation_init(self, node_def, g, inputs=None, output_types=None, control_inputs=None,
                    input_types=None, original_op=None, op_def=None):
    """TF's `Operation(node_def, g, ...)`: the op `node_def` describes, added to graph `g`.

    Output types come from the op type, as in TF (`output_types` and `op_def` are not needed).
    """
    del output_types, op_def
    name, opdef, attrs, inputs, control_ops = _checked(node_def, g, inputs, control_inputs,
                                                       input_types)
    _create(g, node_def, name, opdef, attrs, inputs, control_ops, op=self, bare=True)
    self._original_op = original_op


class _PendingOp:
    """A validated NodeDef waiting in its graph to become an Operation (TF's TF_Operation)."""

    __slots__ = ("node_def", "name", "opdef", "attrs", "inputs", "control_ops")

    def __init__(self, node_def, checked):
        self.node_def = node_def
        self.name, self.opdef, self.attrs, self.inputs, self.control_ops = checked


_pending_lock = threading.Lock()


def _pending(g):
    with _pending_lock:
        if "_pending_c_ops" not in g.__dict__:
            g._pending_c_ops = []
        return g._pending_c_ops


def _create_c_op(graph, node_def, inputs, control_inputs, op_def=None):
    """Validates `node_def` for `graph` and leaves it waiting there (TF's `ops._create_c_op`).

    Returns:
      The waiting op, for `graph._create_op_from_tf_operation`; `graph._add_new_tf_operations`
      wraps every waiting op.

    Raises:
      ValueError: for a node its op type rejects (attrs, input count or types, name).
    """
    pending = _PendingOp(node_def, _checked(node_def, graph, list(inputs), control_inputs, None))
    names = {p.name for p in _pending(graph)}
    if pending.name in graph._ops_by_name or pending.name in names:
        raise ValueError(f"Duplicate node name in graph: '{pending.name}'")
    _pending(graph).append(pending)
    return pending


def _create_op_from_tf_operation(self, c_op, compute_device=True):
    """Wraps a waiting op of `_create_c_op` into an Operation of this graph (TF's API)."""
    self._check_not_finalized()
    queue = _pending(self)
    if c_op not in queue:
        raise ValueError(f"Op '{c_op.name}' is not waiting in this graph")
    queue.remove(c_op)
    return _create(self, c_op.node_def, c_op.name, c_op.opdef, c_op.attrs, c_op.inputs,
                   c_op.control_ops)


def _add_new_tf_operations(self, compute_devices=True):
    """Wraps every op `_create_c_op` left waiting in this graph; returns them (TF's API)."""
    return [self._create_op_from_tf_operation(c) for c in list(_pending(self))]


def has_default_graph():
    """True when a graph was made the default with `as_default()` in this thread (TF's API)."""
    from flowloom.framework.graph import _default_graph_stack

    return len(_default_graph_stack.stack) >= 1


_DENSE_TENSOR_LIKE_TYPES = (Tensor,)


def is_dense_tensor_like(t):
    """True for a Tensor and instances of types `register_dense_tensor_like_type` added."""
    return isinstance(t, _DENSE_TENSOR_LIKE_TYPES)


def register_dense_tensor_like_type(tensor_type):
    """Makes `is_dense_tensor_like` accept instances of `tensor_type` (TF's API).

    Raises:
      TypeError: when the type has no `name` or no `dtype` property.
    """
    global _DENSE_TENSOR_LIKE_TYPES
    if not (hasattr(tensor_type, "name") and isinstance(tensor_type.name, property)):
        raise TypeError("Type %s does not define a `name` property" % tensor_type.__name__)
    if not (hasattr(tensor_type, "dtype") and isinstance(tensor_type.dtype, property)):
        raise TypeError("Type %s does not define a `dtype` property" % tensor_type.__name__)
    _DENSE_TENSOR_LIKE_TYPES = _DENSE_TENSOR_LIKE_TYPES + (tensor_type,)


def _operation_to_tensor(value, dtype=None, name=None, as_ref=False):
    raise TypeError(f"Can't convert Operation '{value.name}' to Tensor (target dtype={dtype}, "
                    f"name={name}, as_ref={as_ref})")


def _input_types(self):
    """The types the op takes its inputs as: a reference where its op type takes one."""
    types, i = [], 0
    for arg in self._opdef.input_args:
        if arg.number_attr is not None:
            n = self._attrs.get(arg.number_attr, 0)
        elif arg.type_list_attr is not None:
            n = len(self._attrs.get(arg.type_list_attr) or ())
        else:
            n = 1
        for t in self._inputs[i:i + n]:
            types.append(t.dtype if arg.is_ref else t.dtype.base_dtype)
        i += n
    return types


@contextlib.contextmanager
def _original_op(self, op):
    """Ops created in the block get `op` as their `_original_op` (TF's Graph API)."""
    old = self.__dict__.get("_default_original_op")
    self._default_original_op = op
    try:
        yield
    finally:
        self._default_original_op = old


def check_update_input(op, index, tensor):
    """TF's checks of `op._update_input(index, tensor)`.

    Raises:
      ValueError: `tensor` is from another graph.
      OutOfRangeError: `op` has no input `index`.
      InvalidArgumentError: `tensor`'s shape is incompatible with the input's.
    """
    from flowloom.framework import errors

    if tensor._op._graph is not op._graph:
        raise ValueError(f"Tensor {tensor!r} must be from the same graph as the op being "
                         f"updated ({op._name}).")
    if not 0 <= index < len(op._inputs):
        raise errors.OutOfRangeError(
            None, op, f"Cannot update edge. Input index [{index}] is greater than the number "
            f"of total inputs [{len(op._inputs)}].")
    old = op._inputs[index]._shape
    if not tensor._shape.is_compatible_with(old):
        raise errors.InvalidArgumentError(
            None, op, f"Cannot update edge, incompatible shapes: {_dims(tensor._shape)} and "
            f"{_dims(old)}.")
    _note_input_type(op, index, tensor)


def _note_input_type(op, index, tensor):
    """As TF, an edge of the wrong type is accepted here and refused when a session runs the
    op (`pruning.check_input_types`): the graph keeps the mistyped edges."""
    mistyped = op._graph.__dict__.setdefault("_mistyped_inputs", {})
    # The type the op was built for (its type attrs say it), not a mistyped edge's.
    expected = mistyped.get((op, index), (op._inputs[index]._dtype.base_dtype,))[0]
    if tensor._dtype.base_dtype == expected:
        mistyped.pop((op, index), None)
    else:
        mistyped[(op, index)] = (expected, (
            f"Input {index} of node {op._name} was passed "
            f"{dtypes.type_string(tensor._dtype.base_dtype)} from {tensor.name} incompatible "
            f"with expected {dtypes.type_string(expected)}."))


def _dims(shape):
    if shape.dims is None:
        return "?"
    return "[" + ",".join("?" if d.value is None else str(d.value) for d in shape.dims) + "]"


class name_scope_v2:  # noqa: N801 - TF's spelling
    """TF's `ops.name_scope_v2(name)`: a re-entrant name scope of the default graph; each
    entry opens `name` inside the scope current at that point ("foo/", then "foo/foo/").

    Raises:
      ValueError: `name` is not a string.
    """

    def __init__(self, name):
        if not isinstance(name, str):
            raise ValueError("name for name_scope must be a string.")
        self._name = name
        self._exits = []

    @property
    def name(self):
        return self._name

    def __enter__(self):
        from flowloom.framework.graph import get_default_graph

        scope = get_default_graph().name_scope(self._name)
        name = scope.__enter__()
        self._exits.append(scope.__exit__)
        return name

    def __exit__(self, *exc):
        return self._exits.pop()(*exc)


class init_scope(contextlib.ContextDecorator):  # noqa: N801 - TF's spelling
    """TF's `init_scope` in graph mode: ops created in the block go to the innermost graph on
    the default-graph stack that is not building a function (the global default graph when
    all are), under the current name scope, outside every control-dependency block and
    cond/while context, with the innermost non-empty device stack.

    Raises:
      RuntimeError: the stack is empty and the default graph is building a function.
    """

    __slots__ = ("_entered",)

    def __init__(self):
        self._entered = []  # per open __enter__: the general path's generator, or None

    def __enter__(self):
        default = graph_lib.get_default_graph()
        stack = graph_lib._default_graph_stack.stack
        if not default._building_function and (not stack or stack[-1] is default) and \
                not default._control_dependencies_stack and \
                default._control_flow_context is None and not observers.control_block:
            # Nothing to lift out of (what variables built outside any block see): the
            # general path would re-enter the same graph, name scope and device stack. As
            # TF's, the block has the default graph on the graph stack even when it was empty.
            pushed = not stack
            if pushed:
                stack.append(default)
            self._entered.append(stack if pushed else None)
            return None
        general = _lifted(default, stack)
        general.__enter__()
        self._entered.append(general)
        return None

    def __exit__(self, *exc):
        general = self._entered.pop()
        if type(general) is list:  # the graph stack the fast path pushed the default onto
            general.pop()
        elif general is not None:
            return general.__exit__(*exc)
        return False


@contextlib.contextmanager
def _lifted(default, stack):
    scope = default.get_name_scope()
    if scope and scope[-1] != "/":
        scope += "/"
    devices = default._device_function_stack
    outer = None
    if not stack:
        if default._building_function:
            raise RuntimeError("The global graph is building a function.")
        outer = default
    else:
        for g in reversed(stack):
            if not devices:
                devices = g._device_function_stack
            if not g._building_function:
                outer = g
                break
        if outer is None:
            outer = graph_lib._default_graph_stack.get_global_default()
    saved_devices = outer._device_function_stack
    with outer.as_default(), outer.name_scope(scope), outer.control_dependencies(None):
        outer._device_function_stack = devices
        try:
            yield
        finally:
            outer._device_function_stack = saved_devices


def _shape_tuple(self):
    """The static shape as a tuple of ints and None, or None when the rank is unknown."""
    dims = self._shape.dims
    return None if dims is None else tuple(d.value for d in dims)


@contextlib.contextmanager
def _kernel_label_map(self, op_to_kernel_label_map):
    """TF's kernel-label block (which registered kernel an op type's ops use). flowloom
    registers one unlabelled kernel per op type, so only an empty map has a meaning."""
    if op_to_kernel_label_map:
        raise NotImplementedError(
            f"kernel labels ({sorted(op_to_kernel_label_map.items())}): flowloom registers one "
            "unlabelled kernel per op type")
    yield


Graph._kernel_label_map = _kernel_label_map
Graph._create_op_from_tf_operation = _create_op_from_tf_operation
Graph._original_op = _original_op
Graph.collections = property(lambda self: list(self._collections),
                             doc="The names of the graph's collections (TF's API).")
register_tensor_conversion_function(Operation, _operation_to_tensor, 0)
Graph._add_new_tf_operations = _add_new_tf_operations
Tensor._shape_tuple = _shape_tuple
Operation._input_types = property(_input_types)

from flowloom.framework import container as _container  # noqa: E402,F401 - Graph.container


def __getattr__(name):
    # TF's names this module re-exports, loaded on first use: they import google.protobuf,
    # which a program that only builds and runs graphs never needs.
    if name in ("prepend_name_scope", "strip_name_scope"):
        from flowloom.framework import graph_def

        return getattr(graph_def, name)
    if name in ("attr_value_pb2", "node_def_pb2"):
        import importlib

        return importlib.import_module("flowloom.proto." + name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
