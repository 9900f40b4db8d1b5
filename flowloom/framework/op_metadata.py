"""Where an op's construction scopes were opened: TF's creation-site metadata.

TF records, for every op, the user's line of each `tf.device` and `tf.colocate_with` block
the op was created in (`op._device_assignments`, `op._colocation_dict`), so that a placement
error can say which line asked for the device. flowloom does the same: `Graph.device` and
`Graph.colocate_with` note the user's site (a code object and an instruction offset, cheap to
take) on their stack entry, and an op created under a non-empty stack keeps a snapshot of the
entries (`Operation._scope_sites`). Line numbers are worked out only when asked for.
"""

import linecache

import numpy as np

from flowloom.framework.user_stack import site_frame
from flowloom.framework.tensor_shape import TensorShape


class TraceableObject:
    """An object with the user's file and line where it was given (TF's
    `traceable_stack.TraceableObject`).

    Attributes:
      obj: the object (a device string, a device function's description), or None.
      filename: the user's source file.
      lineno: the line in it.
    """

    __slots__ = ("obj", "filename", "lineno")

    def __init__(self, obj, filename=None, lineno=None):
        self.obj, self.filename, self.lineno = obj, filename, lineno

    def copy_metadata(self):
        """The same file and line without the object (TF's form for colocation sites)."""
        return TraceableObject(None, self.filename, self.lineno)

    def __repr__(self):
        return f"TraceableObject({self.obj!r}, {self.filename!r}, {self.lineno!r})"


def device_display_name(device_name_or_function):
    """How TF describes a `tf.device` argument: the string as written, or for a function
    `name<file, first line>`."""
    arg = device_name_or_function
    if isinstance(arg, (str, bytes)) or not callable(arg):
        return arg.decode() if isinstance(arg, bytes) else str(arg)
    fn = getattr(arg, "func", arg)  # functools.partial names its function
    code = getattr(fn, "__code__", None)
    name = getattr(fn, "__name__", type(fn).__name__)
    if code is None:
        return f"{name}<unknown, -1>"
    return f"{name}<{code.co_filename}, {code.co_firstlineno}>"


def _traceable(obj, site):
    if site is None:
        return TraceableObject(obj)
    filename, lineno, _ = site_frame(site)
    return TraceableObject(obj, filename, lineno)


def device_assignments(op):
    """`op._device_assignments`: a TraceableObject per `tf.device` block the op was made in
    (its argument as TF describes it, and the block's line), outermost first."""
    sites = op._scope_sites
    if not sites:
        return []
    return [_traceable(entry.display_name, entry.site) for entry in sites[0]
            if entry is not None]


def colocation_dict(op):
    """`op._colocation_dict`: for each `colocate_with` block the op was made in, the name of
    the op it colocates with -> a TraceableObject (obj None) with the block's line."""
    sites = op._scope_sites
    if not sites:
        return {}
    return {c._op._name: _traceable(None, c._site) for c in sites[1]}


def traceback(op, start_lines=False):
    """`op.traceback`: TF's frames (file, line, function, source line) of the user's line that
    made the op; with `start_lines`, each frame also holds its function's first line."""
    frame = op._traceback
    if not frame:
        return []
    filename, lineno, name = frame
    line = linecache.getline(filename, lineno).strip() or None
    if not start_lines:
        return [(filename, lineno, name, line)]
    start = op._site[3] if len(op._site) == 4 else None
    return [(filename, lineno, name, line, start)]


def attr_value(op, name):
    """`Operation.get_attr`: the attr as TF's Python API gives it, string attrs (and lists of
    them) as bytes. (flowloom's own code reads `op._attrs`, where they are str.)"""
    attrs = op._attrs
    if name not in attrs:
        raise ValueError(f"Operation '{op._name}' has no attr named '{name}'.")
    value = attrs[name]
    if type(value) is str:
        return value.encode()
    if type(value) is list and value and all(type(v) is str for v in value):
        return [v.encode() for v in value]
    if isinstance(value, np.ndarray):
        # A tensor attr (a Const's `value`): TF gives the TensorProto of its NodeDef.
        from flowloom.framework import tensor_proto

        return tensor_proto.from_numpy(value, dtype=attrs.get("dtype") if name == "value"
                                       else None)
    if isinstance(value, TensorShape):
        return value.as_proto()  # TF gives a shape attr as its TensorShapeProto
    if type(value) is list and value and all(isinstance(v, (TensorShape, np.ndarray))
                                             for v in value):
        from flowloom.framework import tensor_proto

        return [v.as_proto() if isinstance(v, TensorShape) else tensor_proto.from_numpy(v)
                for v in value]
    return value
