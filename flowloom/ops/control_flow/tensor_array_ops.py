"""`tf.TensorArray`: the TensorArrayV3 op family, its kernels, gradients and Python class.

At run time a TensorArrayV3 op creates a fresh `TensorArrayResource` (one per run, and one per
loop iteration if it is created inside a loop); its `handle` output is that object and the other
ops mutate it. The scalar `flow` tensors order the ops (each write returns a new flow), which is
what carries a TensorArray through a while_loop.
"""

import contextlib
import itertools

import numpy as np

from flowloom.framework import dtypes, errors, tensor_shape
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import colocate_with, control_dependencies, device, name_scope
from flowloom.framework.op_def import NotDifferentiable, defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework import tensor_util
from flowloom.ops.control_flow.tensor_array_resource import (TensorArrayResource, _dtype_name,
                                                              _err, _partial_str, _shape_str)


def _flow(xp):
    """A flow value: only its arrival matters (it orders the array's ops)."""
    return np.float32(0.0)


# -- ops --------------------------------------------------------------------------------------
TensorArrayV3 = defop(
    "TensorArrayV3", inputs=["size: int32"], outputs=["handle: resource", "flow: float32"],
    attrs={"dtype": None, "element_shape": tensor_shape.unknown_shape(), "dynamic_size": False,
           "clear_after_read": True, "identical_element_shapes": False,
           "tensor_array_name": ""}, stateful=True)
TensorArrayV3.shape(lambda op: [tensor_shape.TensorShape([2]), tensor_shape.TensorShape([])])


_ARRAY_COUNTER = itertools.count()


@TensorArrayV3.kernel
def _(xp, size, *, dtype, element_shape, dynamic_size, clear_after_read,
      identical_element_shapes, tensor_array_name, ctx):
    if size.ndim != 0:
        raise _err(f"TensorArray size must be scalar, but had shape: {_shape_str(size.shape)}")
    if int(size) < 0:
        raise _err("Size should be >= 0.")
    shape = tensor_shape.as_shape(element_shape) if element_shape is not None \
        else tensor_shape.unknown_shape()
    # As TF: the array's name carries a process-wide counter ("foo_0", "TensorArray_1").
    name = f"{tensor_array_name or ctx.op._name}_{next(_ARRAY_COUNTER)}"
    return (TensorArrayResource(name, dtypes.as_dtype(dtype),
                                int(size), dynamic_size, clear_after_read, shape,
                                identical_element_shapes), _flow(xp))


TensorArrayGradV3 = defop(
    "TensorArrayGradV3", inputs=["handle: resource", "flow_in: float32"],
    outputs=["grad_handle: resource", "flow_out: float32"], attrs={"source": ""}, stateful=True)
TensorArrayGradV3.shape(lambda op: [tensor_shape.TensorShape([2]), tensor_shape.TensorShape([])])


@TensorArrayGradV3.kernel
def _(xp, handle, flow_in, *, source):
    g = handle.grads.get(source)
    if g is None:
        g = TensorArrayResource(handle.name + "@" + source, handle.dtype, handle.size(), False,
                                True, handle.element_shape, handle.identical_shapes,
                                aggregate=True)
        g.written_shapes = list(handle.written_shapes)
        g.marked_size = handle.marked_size
        handle.grads[source] = g
        handle.dynamic_size = False  # the forward array may not grow once it has a gradient
    return g, _flow(xp)


TensorArrayGradWithShape = defop(
    "TensorArrayGradWithShape",
    inputs=["handle: resource", "flow_in: float32", "shape_to_prepend: int32"],
    outputs=["grad_handle: resource", "flow_out: float32"], attrs={"source": ""}, stateful=True)
TensorArrayGradWithShape.shape(
    lambda op: [tensor_shape.TensorShape([2]), tensor_shape.TensorShape([])])


@TensorArrayGradWithShape.kernel
def _(xp, handle, flow_in, shape_to_prepend, *, source):
    prepend = [int(d) for d in np.asarray(shape_to_prepend).reshape(-1)]
    g = handle.grads.get(source)
    if g is None:
        es = handle.element_shape
        es = tensor_shape.TensorShape(prepend).concatenate(es) if es.ndims is not None else es
        g = TensorArrayResource(handle.name + "@" + source, handle.dtype, handle.size(), False,
                                True, es, handle.identical_shapes, aggregate=True)
        g.written_shapes = [None if w is None else tuple(prepend) + tuple(w)
                            for w in handle.written_shapes]
        g.marked_size = handle.marked_size
        handle.grads[source] = g
        handle.dynamic_size = False
    return g, _flow(xp)


def tensor_array_grad_with_shape(handle, flow_in, shape_to_prepend, source, name=None):
    """A gradient TensorArray of the array `handle` whose elements have `shape_to_prepend`
    in front of the forward elements' shape (op TensorArrayGradWithShape); returns
    (grad_handle, flow_out)."""
    return tuple(apply_op("TensorArrayGradWithShape", (handle, flow_in, shape_to_prepend),
                          name=name, source=source).outputs)


_FORWARDING = frozenset(["Identity", "Enter", "Switch", "Merge", "Exit", "RefIdentity"])


def handle_element_shape(handle):
    """The static element shape of the TensorArray behind `handle` (TF's handle shape data):
    the TensorArrayV3's element_shape, or a gradient array's (TensorArrayGradWithShape puts
    one unknown dimension per entry of shape_to_prepend in front); unknown otherwise."""
    t = handle
    prepend = 0
    for _ in range(64):
        op = t.op
        if op.type == "TensorArrayV3":
            es = op.get_attr("element_shape")
            es = tensor_shape.unknown_shape() if es is None else tensor_shape.as_shape(es)
            if es.ndims is None:
                return es
            return tensor_shape.unknown_shape(prepend).concatenate(es) if prepend else es
        if op.type == "TensorArrayGradWithShape":
            n = op.inputs[2].shape.with_rank_at_most(1)
            if n.ndims != 1 or n.dims[0].value is None:
                return tensor_shape.unknown_shape()
            prepend += n.dims[0].value
        elif op.type not in _FORWARDING and op.type != "TensorArrayGradV3":
            break
        t = op.inputs[0]
    return tensor_shape.unknown_shape()


TensorArrayWriteV3 = defop(
    "TensorArrayWriteV3", inputs=["handle: resource", "index: int32", "value: T",
                                  "flow_in: float32"], outputs=["flow_out: float32"], stateful=True)
TensorArrayWriteV3.shape(lambda op: tensor_shape.TensorShape([]))


@TensorArrayWriteV3.kernel
def _(xp, handle, index, value, flow_in):
    handle.write(index, value)
    return _flow(xp)


TensorArrayReadV3 = defop(
    "TensorArrayReadV3", inputs=["handle: resource", "index: int32", "flow_in: float32"],
    outputs=["value: dtype"], attrs={"dtype": None}, stateful=True)
TensorArrayReadV3.shape(lambda op: handle_element_shape(op.inputs[0]))


@TensorArrayReadV3.kernel
def _(xp, handle, index, flow_in, *, dtype):
    if dtypes.as_dtype(dtype).base_dtype != handle.dtype.base_dtype:
        raise _err(f"TensorArray dtype is {_dtype_name(handle.dtype)} but Op requested dtype "
                   f"{_dtype_name(dtypes.as_dtype(dtype))}.", handle)
    return handle.read(index)


TensorArrayGatherV3 = defop(
    "TensorArrayGatherV3", inputs=["handle: resource", "indices: int32", "flow_in: float32"],
    outputs=["value: dtype"], attrs={"dtype": None, "element_shape": tensor_shape.unknown_shape()},
    stateful=True)


@TensorArrayGatherV3.shape
def _(op):
    es = op._attrs.get("element_shape")
    es = tensor_shape.as_shape(es) if es is not None else tensor_shape.unknown_shape()
    n = op._inputs[1]._shape
    d0 = n[0].value if n.ndims == 1 else None
    if es.ndims is None:
        return tensor_shape.unknown_shape()
    return tensor_shape.TensorShape([d0]).concatenate(es)


@TensorArrayGatherV3.kernel
def _(xp, handle, indices, flow_in, *, dtype, element_shape):
    idx = [int(i) for i in np.asarray(indices).reshape(-1)]
    if not idx:
        es = handle.element_shape
        if element_shape is not None:
            es = es.merge_with(tensor_shape.as_shape(element_shape))
        if not es.is_fully_defined():
            raise errors.UnimplementedError(
                None, None, f"TensorArray has size zero, but element shape {_partial_str(es)} "
                "is not fully defined. Currently only static shapes are supported when "
                "packing zero-size TensorArrays.")
        return np.zeros([0] + es.as_list(), handle.dtype.as_numpy_dtype)
    values = [handle.read(i) for i in idx]
    first = values[0].shape
    for i, v in zip(idx, values):
        if v.shape != first:
            raise _err(f"TensorArray has inconsistent shapes.  Index 0 has shape: "
                       f"{_shape_str(first)} but index {i} has shape: {_shape_str(v.shape)}")
    return np.stack(values)


TensorArrayScatterV3 = defop(
    "TensorArrayScatterV3", inputs=["handle: resource", "indices: int32", "value: T",
                                    "flow_in: float32"], outputs=["flow_out: float32"],
    stateful=True)
TensorArrayScatterV3.shape(lambda op: tensor_shape.TensorShape([]))


@TensorArrayScatterV3.kernel
def _(xp, handle, indices, value, flow_in):
    idx = [int(i) for i in np.asarray(indices).reshape(-1)]
    value = np.asarray(value)
    if value.ndim == 0 or value.shape[0] != len(idx):
        raise _err(f"Expected len(indices) == values.shape[0], but saw: {len(idx)} vs. "
                   f"{value.shape[0] if value.ndim else 0}")
    for k, i in enumerate(idx):
        handle.write(i, value[k])
    return _flow(xp)


TensorArrayConcatV3 = defop(
    "TensorArrayConcatV3", inputs=["handle: resource", "flow_in: float32"],
    outputs=["value: dtype", "lengths: int64"],
    attrs={"dtype": None, "element_shape_except0": tensor_shape.unknown_shape()}, stateful=True)


@TensorArrayConcatV3.shape
def _(op):
    es = op._attrs.get("element_shape_except0")
    es = tensor_shape.as_shape(es) if es is not None else tensor_shape.unknown_shape()
    if es.ndims is None:
        return [tensor_shape.unknown_shape(), tensor_shape.TensorShape([None])]
    return [tensor_shape.TensorShape([None]).concatenate(es), tensor_shape.TensorShape([None])]


@TensorArrayConcatV3.kernel
def _(xp, handle, flow_in, *, dtype, element_shape_except0):
    values = [handle.read(i) for i in range(handle.concat_size())]
    for i, v in enumerate(values):
        if v.ndim == 0:
            raise _err(f"Concat saw a scalar shape at index {i} but requires at least vectors.  "
                       "Did you mean to call TensorArray::Pack instead?")
    lengths = np.array([v.shape[0] for v in values], np.int64)
    if not values:
        es = tensor_shape.as_shape(element_shape_except0) \
            if element_shape_except0 is not None else tensor_shape.unknown_shape()
        if not es.is_fully_defined():
            raise errors.UnimplementedError(
                None, None, "TensorArray has size zero, but element_shape_except0 "
                f"{_partial_str(es)} is not fully defined. Currently only static shapes are "
                "supported when concatenating zero-size TensorArrays.")
        return np.zeros([0] + es.as_list(), handle.dtype.as_numpy_dtype), lengths
    return np.concatenate(values, axis=0), lengths


TensorArraySplitV3 = defop(
    "TensorArraySplitV3", inputs=["handle: resource", "value: T", "lengths: int64",
                                  "flow_in: float32"], outputs=["flow_out: float32"], stateful=True)
TensorArraySplitV3.shape(lambda op: tensor_shape.TensorShape([]))


@TensorArraySplitV3.kernel
def _(xp, handle, value, lengths, flow_in):
    value = np.asarray(value)
    lengths = np.asarray(lengths)
    if lengths.ndim != 1:
        raise _err("Expected lengths to be a vector, received shape: "
                   f"{_shape_str(lengths.shape)}", handle)
    if value.ndim == 0:
        raise _err("Expected value to be at least a vector, but received shape: "
                   f"{_shape_str(value.shape)}", handle)
    lengths = [int(n) for n in lengths]
    if sum(lengths) != value.shape[0]:
        raise _err(f"Expected sum of lengths to be equal to values.shape[0], but sum of "
                   f"lengths is {sum(lengths)} and value's shape is: "
                   f"{_shape_str(value.shape)}", handle)
    if handle.size() != len(lengths) and not handle.dynamic_size:
        raise _err(f"TensorArray's size is not equal to the size of lengths ({handle.size()} "
                   f"vs. {len(lengths)}), and the TensorArray is not marked as dynamically "
                   "resizeable", handle)
    start = 0
    for i, n in enumerate(lengths):
        handle.write(i, value[start:start + n])
        start += n
    if not handle.aggregate:
        handle.marked_size = len(lengths)
    return _flow(xp)


TensorArraySizeV3 = defop("TensorArraySizeV3", inputs=["handle: resource", "flow_in: float32"],
                          outputs=["size: int32"], stateful=True)
TensorArraySizeV3.shape(lambda op: tensor_shape.TensorShape([]))


@TensorArraySizeV3.kernel
def _(xp, handle, flow_in):
    return np.int32(handle.size())


TensorArrayCloseV3 = defop("TensorArrayCloseV3", inputs=["handle: resource"], stateful=True)
TensorArrayCloseV3.shape(lambda op: [])


@TensorArrayCloseV3.kernel
def _(xp, handle):
    handle.closed = True
    return None


NotDifferentiable("TensorArrayV3", "TensorArrayGradV3", "TensorArraySizeV3",
                  "TensorArrayCloseV3")


# -- gradients (TF's tensor_array_grad.py) ------------------------------------------------------
def _GetGradSource(op_or_tensor):  # noqa: N802 - TF's name (tensor_array_grad)
    """The name scope of the gradients call that the op or tensor belongs to (`gradients`,
    `gradients_1`, `outer/gradients`, the innermost one when nested): each gradients call
    gets its own gradient TensorArray.

    Raises:
      ValueError: When no scope of the name starts with "gradients".
    """
    tokens = op_or_tensor.name.split("/")
    pos = [i for i, x in enumerate(tokens) if x.startswith("gradients")]
    if not pos:
        raise ValueError("Expected op/tensor name to start with gradients (excluding scope), "
                         f"got: {op_or_tensor.name}")
    return "/".join(tokens[:pos[-1] + 1])


def _gradient_ta(op, flow, source):
    """The gradient TensorArray of the array `op` works on (its handle is input 0)."""
    forward = TensorArray(dtype=op._attrs.get("dtype") or op._attrs.get("T"),
                          handle=op._inputs[0], flow=flow,
                          colocate_with_first_write_call=False)
    return forward.grad(source=_GetGradSource(source._op), flow=flow)


@TensorArrayReadV3.gradient
def _(op, grad):
    _, index, flow = op._inputs
    return [None, None, _gradient_ta(op, flow, grad).write(index, grad).flow]


@TensorArrayWriteV3.gradient
def _(op, flow):
    _, index, _, _ = op._inputs
    return [None, None, _gradient_ta(op, flow, flow).read(index), flow]


@TensorArrayGatherV3.gradient
def _(op, grad):
    _, indices, flow = op._inputs
    return [None, None, _gradient_ta(op, flow, grad).scatter(indices, grad).flow]


@TensorArrayScatterV3.gradient
def _(op, flow):
    _, indices, _, _ = op._inputs
    return [None, None, _gradient_ta(op, flow, flow).gather(indices), flow]


@TensorArrayConcatV3.gradient
def _(op, grad, unused_lengths_grad):
    _, flow = op._inputs
    lengths = op._outputs[1]
    return [None, _gradient_ta(op, flow, grad).split(grad, lengths=lengths).flow]


@TensorArraySplitV3.gradient
def _(op, flow):
    return [None, _gradient_ta(op, flow, flow).concat(), None, flow]


# -- the Python class ---------------------------------------------------------------------------
class TensorArray:
    """A list of tensors of one dtype, written and read by index inside the graph.

    Each write/scatter/unstack/split returns a new TensorArray (a new `flow`); use the returned
    object, as in TF. Inside `while_loop` a TensorArray is a loop variable like any tensor.

    Args:
      dtype: the element dtype.
      size: the initial size (an int32 scalar).
      dynamic_size: whether writes past the end grow the array.
      clear_after_read: whether reading an element frees it (default True).
      tensor_array_name: a name for the run-time array.
      handle, flow: an existing array's handle and flow (advanced).
      infer_shape: whether all elements must have one shape, learned from the writes.
      element_shape: the shape of each element, if known.
      colocate_with_first_write_call: place the array where its first write (or
        unstack, scatter, split) is: the array op gets no device and every write is
        colocated with the first one's value (TF). False: the array stays on the current
        device.
      name: the op name (default "TensorArray").

    Example:
      ta = tf.TensorArray(tf.float32, size=3)
      ta = ta.write(0, 1.0).write(1, 2.0).write(2, 3.0)
      ta.stack()  # [1., 2., 3.]
    """

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        if clear_after_read is None:
            clear_after_read = True
        if (flow is None) != (handle is None):
            raise ValueError("Both handle and flow must be set or unset")
        if handle is not None and size is not None:
            raise ValueError("Cannot provide both a handle and size at the same time")
        if handle is None and size is None:
            raise ValueError("Size must be provided if handle is not provided")
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        self._dynamic_size = dynamic_size or False
        self._infer_shape = infer_shape
        self._element_shape = [tensor_shape.as_shape(element_shape)
                               if element_shape is not None else tensor_shape.unknown_shape()]
        self._size = size
        # The value the writes colocate with (the first write's), shared by every flow of
        # the array; None when the array does not follow its first write.
        self._colocate_with = [] if colocate_with_first_write_call else None
        if handle is not None:
            self._handle = handle
            self._flow = flow
            return
        with name_scope(name, "TensorArray", [size]) as scope:
            first_write = device(None) if colocate_with_first_write_call else contextlib.nullcontext()
            with first_write, colocate_with(None, ignore_existing=True):
                op = apply_op(
                    "TensorArrayV3", (size,), name=scope, dtype=self._dtype,
                    element_shape=None if element_shape is None else self._element_shape[0],
                    dynamic_size=self._dynamic_size, clear_after_read=clear_after_read,
                    identical_element_shapes=infer_shape,
                    tensor_array_name=tensor_array_name or "")
            self._handle, self._flow = op.outputs

    # -- properties
    @property
    def flow(self):
        return self._flow

    @property
    def dtype(self):
        return self._dtype

    @property
    def handle(self):
        return self._handle

    @property
    def dynamic_size(self):
        return self._dynamic_size

    @property
    def element_shape(self):
        return self._element_shape[0]

    def _with_flow(self, flow):
        """The same array, ordered after `flow` (TF's build_ta_with_new_flow)."""
        ta = TensorArray.__new__(TensorArray)
        ta._dtype = self._dtype
        ta._dynamic_size = self._dynamic_size
        ta._infer_shape = self._infer_shape
        ta._element_shape = self._element_shape
        ta._size = self._size
        ta._handle = self._handle
        ta._flow = flow
        ta._colocate_with = self._colocate_with
        return ta

    def _maybe_colocate_with(self, value):
        """Colocates a write with the array's first write (see the class docstring)."""
        if self._colocate_with is None:
            return contextlib.nullcontext()
        if not self._colocate_with:
            self._colocate_with.append(value)
        return colocate_with(self._colocate_with[0])

    def _check_element_shape(self, shape):
        if not shape.is_compatible_with(self.element_shape):
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected "
                             f"{self.element_shape} ")
        if self._infer_shape:
            self._element_shape[0] = self.element_shape.merge_with(shape)

    def _check_dtype(self, value):
        # TF only logs a mismatch here; the write fails when it runs.
        return None

    # -- ops
    def mark_used(self):
        """TF's should-use marker on a TensorArray result: flowloom never warns about
        unused TensorArrays, so there is nothing to mark."""

    def identity(self):
        from flowloom.ops.array import array_ops

        return self._with_flow(array_ops.identity(self._flow))

    def grad(self, source, flow=None, name=None):
        if flow is None:
            flow = self.flow
        with name_scope(name, "TensorArrayGrad", [self._handle]):
            with colocate_with(self._handle):
                g_handle, _ = apply_op("TensorArrayGradV3", (self._handle, flow),
                                       name=name, source=source).outputs
                from flowloom.ops.array import array_ops

                with control_dependencies([g_handle]):
                    flow = array_ops.identity(flow, name="gradient_flow")
                g = TensorArray(dtype=self._dtype, handle=g_handle, flow=flow,
                                infer_shape=self._infer_shape,
                                colocate_with_first_write_call=False)
                g._element_shape = self._element_shape
                return g

    def read(self, index, name=None):
        """The element at `index` (an int32 scalar)."""
        value = apply_op("TensorArrayReadV3", (self._handle, index, self._flow), name=name,
                         dtype=self._dtype).outputs[0]
        if self._element_shape[0].ndims is not None:
            value.set_shape(self._element_shape[0])
        return value

    def write(self, index, value, name=None):
        """Writes `value` at `index`; returns the TensorArray that follows the write."""
        with name_scope(name, "TensorArrayWrite", [self._handle, index, value]):
            value = convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            self._check_dtype(value)
            self._check_element_shape(value.shape)
            with self._maybe_colocate_with(value):
                flow_out = apply_op("TensorArrayWriteV3",
                                    (self._handle, index, value, self._flow),
                                    name=name).outputs[0]
            return self._with_flow(flow_out)

    def gather(self, indices, name=None):
        """The elements at `indices`, stacked along a new first dimension."""
        es = self._element_shape[0]
        value = apply_op("TensorArrayGatherV3", (self._handle, indices, self._flow), name=name,
                         dtype=self._dtype, element_shape=es).outputs[0]
        return value

    def stack(self, name=None):
        """All elements stacked along a new first dimension."""
        from flowloom.ops.math import math_ops

        with colocate_with(self._handle):
            with name_scope(name, "TensorArrayStack", [self._handle]):
                value = self.gather(math_ops.range_(0, self.size()), name=name)
                if self.element_shape.ndims is not None and not self._dynamic_size \
                        and self._size is not None:
                    size = tensor_util.constant_value(self._size)
                    value.set_shape([None if size is None else int(size)] +
                                    self.element_shape.as_list())
                return value

    def concat(self, name=None):
        """All elements concatenated along their first dimension."""
        es = self.element_shape
        except0 = es[1:] if es.ndims is not None else tensor_shape.unknown_shape()
        value = apply_op("TensorArrayConcatV3", (self._handle, self._flow), name=name,
                         dtype=self._dtype, element_shape_except0=except0).outputs[0]
        return value

    def unstack(self, value, name=None):
        """Writes the slices of `value` along its first dimension as elements 0..n-1."""
        from flowloom.ops.array import array_ops
        from flowloom.ops.math import math_ops

        with name_scope(name, "TensorArrayUnstack", [self._handle, value]):
            num_elements = array_ops.shape(value)[0]
            return self.scatter(indices=math_ops.range_(0, num_elements), value=value,
                                name=name)

    def scatter(self, indices, value, name=None):
        """Writes `value[k]` at `indices[k]`."""
        with name_scope(name, "TensorArrayScatter", [self._handle, value, indices]):
            value = convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            self._check_dtype(value)
            if value.shape.ndims is not None:
                self._check_element_shape(value.shape[1:])
            with self._maybe_colocate_with(value):
                flow_out = apply_op("TensorArrayScatterV3",
                                    (self._handle, indices, value, self._flow),
                                    name=name).outputs[0]
            return self._with_flow(flow_out)

    def split(self, value, lengths, name=None):
        """Splits `value` along its first dimension into pieces of `lengths`."""
        from flowloom.ops.math import math_ops

        with name_scope(name, "TensorArraySplit", [self._handle, value, lengths]):
            value = convert_to_tensor(value, dtype=self._dtype, name="value")
            lengths_64 = math_ops.cast(lengths, dtypes.int64)
            clengths = tensor_util.constant_value(lengths_64)
            if value.shape.ndims is not None and clengths is not None and clengths.shape \
                    and clengths.size and clengths.max() == clengths.min():
                self._check_element_shape(
                    tensor_shape.TensorShape([int(clengths[0])]).concatenate(value.shape[1:]))
            with self._maybe_colocate_with(value):
                flow_out = apply_op("TensorArraySplitV3",
                                    (self._handle, value, lengths_64, self._flow),
                                    name=name).outputs[0]
            return self._with_flow(flow_out)

    def size(self, name=None):
        """The current size (an int32 scalar; a constant when the size is fixed)."""
        from flowloom.ops.random.random_ops import seed_rules

        # TF 1.15 always made the op (it counts in that release's default op seeds)
        if not self._dynamic_size and self._size is not None and seed_rules() != "1":
            return convert_to_tensor(self._size, dtype=dtypes.int32)
        return apply_op("TensorArraySizeV3", (self._handle, self._flow),
                        name=name).outputs[0]

    def close(self, name=None):
        """Closes the array (an op)."""
        return apply_op("TensorArrayCloseV3", (self._handle,), name=name)
