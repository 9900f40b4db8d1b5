"""Graph <-> GraphDef: NodeDefs and AttrValues encoded as TensorFlow encodes them.

An op's attrs live in flowloom as Python values (bool, int, float, str, DType, TensorShape,
numpy array for tensors, lists of those); here they become `AttrValue` protos and back. The
AttrValue kind of an attr whose Python value is ambiguous (an int given for a float attr) is
taken from the op's declared default.
"""

import re

import numpy as np

from flowloom.framework import dtypes, tensor_proto, tf1_attrs
from flowloom.framework.tensor_shape import TensorShape
from flowloom.proto import attr_value_pb2, graph_pb2, node_def_pb2, versions_pb2

# The GraphDef version of the TF release whose op semantics flowloom follows (TF 2.21).
GRAPH_DEF_VERSION = 2474
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0

# AttrValue oneof field -> the kind name TF uses in its error messages.
KIND_NAMES = {"s": "string", "i": "int", "f": "float", "b": "bool", "type": "type",
              "shape": "shape", "tensor": "tensor", "list": "list", "func": "func",
              "placeholder": "placeholder"}
_LIST_FIELDS = ("s", "i", "f", "b", "type", "shape", "tensor", "func")


def versions_def(graph=None):
    """The VersionDef of `graph` (a copy): flowloom's own unless imports changed it."""
    if graph is not None and graph._graph_def_versions is not None:
        return versions_pb2.VersionDef.FromString(graph._graph_def_versions.SerializeToString())
    return versions_pb2.VersionDef(producer=GRAPH_DEF_VERSION,
                                   min_consumer=GRAPH_DEF_VERSION_MIN_CONSUMER)


# -- Python value -> AttrValue ----------------------------------------------------------------
def _kind_of(value):
    """The AttrValue field for one Python attr value, or None if it has none."""
    if isinstance(value, (bool, np.bool_)):
        return "b"
    if isinstance(value, (int, np.integer)):
        return "i"
    if isinstance(value, (float, np.floating)):
        return "f"
    if isinstance(value, (str, bytes)):
        return "s"
    if isinstance(value, dtypes.DType):
        return "type"
    if isinstance(value, TensorShape):
        return "shape"
    if isinstance(value, np.ndarray):
        return "tensor"
    if isinstance(value, attr_value_pb2.NameAttrList):
        return "func"
    return None


def _set_scalar(target, kind, value, dtype=None):
    """Stores `value` as `kind` in an AttrValue (or appends it to an AttrValue.ListValue)."""
    is_list = isinstance(target, attr_value_pb2.AttrValue.ListValue)
    if kind == "s":
        value = value.encode("utf-8") if isinstance(value, str) else bytes(value)
    elif kind == "i":
        value = int(value)
    elif kind == "f":
        value = float(value)
    elif kind == "b":
        value = bool(value)
    elif kind == "type":
        value = dtypes.as_dtype(value).as_datatype_enum
    elif kind == "shape":
        value = value.as_proto()
    elif kind == "tensor":
        value = tensor_proto.from_numpy(value, dtype=dtype)
    if is_list:
        field = getattr(target, kind)
        if kind in ("shape", "tensor", "func"):
            field.add().CopyFrom(value)
        else:
            field.append(value)
    elif kind in ("shape", "tensor", "func"):
        getattr(target, kind).CopyFrom(value)
    else:
        setattr(target, kind, value)


def attr_value_from_python(value, default=None, dtype=None):
    """Returns the AttrValue for a Python attr value.

    Args:
      value: bool, int, float, str/bytes, DType, TensorShape, ndarray, or a list of one kind.
      default: the op's default for this attr; its kind decides ambiguous cases.
      dtype: for tensor values, the DType to encode with (a Const's `dtype` attr).

    Returns:
      An `AttrValue`.

    Raises:
      TypeError: for a value that has no AttrValue encoding.
    """
    if isinstance(value, attr_value_pb2.AttrValue):
        return value
    out = attr_value_pb2.AttrValue()
    if isinstance(value, (list, tuple)):
        out.list.SetInParent()
        hint = _kind_of(default[0]) if isinstance(default, (list, tuple)) and default else None
        for item in value:
            kind = _kind_of(item)
            if kind is None:
                raise TypeError(f"Cannot encode attr list element {item!r} as an AttrValue")
            if hint == "f" and kind == "i":
                kind = "f"
            _set_scalar(out.list, kind, item)
        return out
    kind = _kind_of(value)
    if kind is None:
        raise TypeError(f"Cannot encode attr value {value!r} as an AttrValue")
    if kind == "i" and _kind_of(default) == "f":
        kind = "f"
    _set_scalar(out, kind, value, dtype)
    return out


def node_def_from_op(op, add_shapes=False, sort_control_inputs=False, device=None, inputs=None):
    """Returns the NodeDef of an Operation, as TF's `op.node_def`.

    Args:
      op: an `Operation`.
      add_shapes: also add the `_output_shapes` attr (a list of the outputs' static shapes).
      sort_control_inputs: list control inputs by name, as TF's GraphDef serialization does
        (a single op's NodeDef keeps them in the order they were added).
      device: the device string to write instead of `op.device` (partition graphs).
      inputs: input strings to write instead of the op's own (partition graphs).

    Returns:
      A `NodeDef`: name, op type, inputs (`name`, `name:i`, `^ctrl`), device and attrs.
    """
    node = node_def_pb2.NodeDef(name=op._name, op=op._type,
                                device=(op._device or "") if device is None else device)
    if inputs is not None:
        node.input.extend(inputs)
    else:
        node.input.extend(t._as_node_def_input() for t in op._inputs)
        control = [c._name for c in op._control_inputs]
        node.input.extend("^" + name for name in (sorted(control) if sort_control_inputs
                                                  else control))
    defaults = op._opdef.attr_defaults
    added = tf1_attrs.ADDED_AFTER_TF1.get(op._type)
    for key, value in op._attrs.items():
        if value is None:
            continue
        if added is not None and tf1_attrs.omitted(op._type, key, value, defaults.get(key)):
            continue
        dtype = op._attrs.get("dtype") if key == "value" else None
        if dtype is not None and not isinstance(value, (np.ndarray, attr_value_pb2.AttrValue)):
            value = np.asarray(value)  # a Const built by hand from a Python scalar
        node.attr[key].CopyFrom(attr_value_from_python(value, defaults.get(key), dtype))
    if add_shapes and op._outputs:  # TF leaves the attr off ops with no outputs
        node.attr.pop("_output_shapes", None)
        shapes = node.attr["_output_shapes"].list
        shapes.SetInParent()
        for t in op._outputs:
            shapes.shape.add().CopyFrom(t._shape.as_proto())
    return node


def graph_to_graph_def(graph, add_shapes=False):
    """Returns the GraphDef of `graph` (`Graph.as_graph_def`).

    Nodes come in creation order; the function library of an imported graph is kept.
    """
    graph_def = graph_pb2.GraphDef()
    graph_def.versions.CopyFrom(versions_def(graph))
    graph_def.node.extend(node_def_from_op(op, add_shapes, sort_control_inputs=True)
                          for op in graph._ops)
    library = getattr(graph, "_function_library", None)
    if library is not None:
        graph_def.library.CopyFrom(library)
    return graph_def


# -- AttrValue -> Python value ----------------------------------------------------------------
def attr_kind_name(attr_value):
    """TF's name for the kind an AttrValue holds ('int', 'list(type)', ...)."""
    which = attr_value.WhichOneof("value")
    if which == "list":
        for f in _LIST_FIELDS:
            if len(getattr(attr_value.list, f)):
                return f"list({KIND_NAMES[f]})"
        return "list"
    return KIND_NAMES.get(which, "<unset>")


def _scalar_to_python(kind, value, what):
    if kind == "s":
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return bytes(value)
    if kind in ("i", "f", "b"):
        return value
    if kind == "type":
        try:
            return dtypes.as_dtype(value)
        except TypeError:
            raise ValueError(f"{what}: unknown DataType value {value}") from None
    if kind == "shape":
        for d in value.dim:
            if d.size < -1:
                raise ValueError(f"{what}: shape has an invalid dimension ({d.size})")
        return TensorShape(value)
    if kind == "tensor":
        array = tensor_proto.to_numpy(value, what)
        array.flags.writeable = False
        return array
    if kind == "func":
        return value
    raise ValueError(f"{what}: attr holds a placeholder ('{value}'), which only function "
                     "bodies may")


def attr_value_to_python(attr_value, what="attr"):
    """Returns the Python value an AttrValue holds (the inverse of `attr_value_from_python`).

    Raises:
      ValueError: for an unset AttrValue, a placeholder, or a malformed tensor or type.
      TypeError: for a tensor of a dtype flowloom cannot hold.
    """
    which = attr_value.WhichOneof("value")
    if which is None:
        raise ValueError(f"{what}: AttrValue has no value set")
    if which != "list":
        return _scalar_to_python(which, getattr(attr_value, which), what)
    for f in _LIST_FIELDS:
        items = getattr(attr_value.list, f)
        if len(items):
            return [_scalar_to_python(f, v, what) for v in items]
    return []


# -- Variables ----------------------------------------------------------------------------------
def strip_name_scope(name, export_scope):
    """Removes `export_scope/` from the front of a name (also after '^' or 'loc:@')."""
    if not export_scope:
        return name
    if export_scope[-1] == "/":
        export_scope = export_scope[:-1]
    # As TF: `scope/`, `scope///`, `^scope/` and `loc:@scope/` lose the scope (first match).
    pattern = r"([\^]|loc:@|^)" + re.escape(export_scope) + r"[\/]+(.*)"
    return re.sub(pattern, r"\1\2", name, count=1)


def prepend_name_scope(name, import_scope):
    """Puts `import_scope/` in front of a name (after a leading '^' or 'loc:@')."""
    if not import_scope:
        return name
    scope = import_scope.rstrip("/")
    for lead in ("^", "loc:@"):
        if name.startswith(lead):
            return f"{lead}{scope}/{name[len(lead):]}"
    return f"{scope}/{name}"


def variable_to_proto(variable, export_scope=None):
    """Returns the VariableDef of a Variable (`Variable.to_proto`), or None if it lies
    outside `export_scope`."""
    from flowloom.proto import variable_pb2

    if export_scope and not variable._variable.name.startswith(export_scope):
        return None
    proto = variable_pb2.VariableDef()
    proto.variable_name = strip_name_scope(variable._variable.name, export_scope)
    if variable._initial_value is not None:
        proto.initial_value_name = strip_name_scope(variable._initial_value.name, export_scope)
    proto.trainable = variable.trainable
    proto.initializer_name = strip_name_scope(variable.initializer.name, export_scope)
    if variable._snapshot is not None:
        proto.snapshot_name = strip_name_scope(variable._snapshot.name, export_scope)
    sync, agg = getattr(variable, "synchronization", None), getattr(variable, "aggregation", None)
    if sync is not None:
        proto.synchronization = sync.value  # the enums' values are the proto's
    if agg is not None:
        proto.aggregation = agg.value
    info = getattr(variable, "_save_slice_info", None)
    slice_def = info.to_proto(export_scope) if info is not None else None
    if slice_def is not None:
        proto.save_slice_info_def.MergeFrom(slice_def)
    return proto


def attr_value(value):
    """The AttrValue of a Python attr value (what partition graphs write for _Send/_Recv)."""
    return attr_value_from_python(value)
