"""TF1's low-level control-flow builders under TF's names (`control_flow_ops._Enter`,
`_Identity`, `next_iteration`, `_SwitchRefOrTensor`, `ref_select`) and the RefIdentity and
RefSelect ops. SparseTensors and IndexedSlices go through component by component."""

from flowloom.framework import common_shapes, tensor_shape
from flowloom.framework import nest
from flowloom.framework.apply_op import apply_op
from flowloom.framework import op_def
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.control_flow import control_flow_ops as _cfo
from flowloom.ops.control_flow.control_flow_context import _switch_ref_or_tensor

RefIdentity = defop("RefIdentity", inputs=["input: Ref(T)"], outputs=["output: Ref(T)"],
                    forwards_ref=True)
RefIdentity.shape(common_shapes.unchanged)


@RefIdentity.kernel
def _(xp, ref):
    return ref  # the reference itself, initialized or not (TF allows both)


RefIdentity.gradient(op_def.get("Identity").grad_fn)  # the gradient passes through


RefSelect = defop("RefSelect", inputs=["index: int32", "inputs: N * Ref(T)"],
                  outputs=["output: Ref(T)"])


@RefSelect.shape
def _(op):
    shapes = [t.shape for t in op.inputs[1:]]
    first = shapes[0]
    if first.is_fully_defined() and all(s.is_fully_defined() and s == first for s in shapes):
        return first
    return tensor_shape.unknown_shape()


@RefSelect.kernel
def _(xp, index, *refs):
    i = int(index)
    if not 0 <= i < len(refs):
        raise IndexError(f"Index {i} out of range for {len(refs)} inputs")
    return refs[i]


def _componentwise(fn, data):
    if nest._is_composite(data):
        return data._from_components([fn(t) for t in data._to_components()])
    return fn(data)


def _as_ref_or_composite(data):
    if nest._is_composite(data):
        return data
    return convert_to_tensor(data, as_ref=True)


def ref_identity(input, name=None):  # noqa: A002 - TF's argument name
    """The reference `input`, forwarded (RefIdentity)."""
    return apply_op("RefIdentity", (input,), name=name).outputs[0]


def _Identity(data, name=None):  # noqa: N802 - TF's name
    """An identity of `data` that keeps a reference a reference (RefIdentity)."""
    from flowloom.ops.array import array_ops

    def one(t):
        if t.dtype.is_ref_dtype:
            return ref_identity(t, name=name)
        return array_ops.identity(t, name=name)
    return _componentwise(one, _as_ref_or_composite(data))


def _Enter(data, frame_name, is_constant=False, parallel_iterations=10,  # noqa: N802
           use_ref=True, use_input_shape=True, name=None):
    """`data` entered into the child frame `frame_name` (RefEnter for a reference)."""
    return _componentwise(
        lambda t: _cfo._enter(t, frame_name, is_constant=is_constant,
                              parallel_iterations=parallel_iterations, use_ref=use_ref,
                              use_input_shape=use_input_shape, name=name),
        _as_ref_or_composite(data))


def next_iteration(data, name=None):
    """`data` made available to the next iteration of its loop."""
    return _componentwise(lambda t: _cfo._next_iteration(t, name=name),
                          _as_ref_or_composite(data))


_NextIteration = next_iteration


def _SwitchRefOrTensor(data, pred, name="Switch"):  # noqa: N802 - TF's name
    """`switch` that keeps a reference a reference (RefSwitch)."""
    return _switch_ref_or_tensor(_as_ref_or_composite(data), pred, name=name)


def ref_select(index, inputs, name=None):
    """The reference `inputs[index]` (RefSelect)."""
    refs = [convert_to_tensor(x, as_ref=True) for x in inputs]
    return apply_op("RefSelect", (index, refs), name=name).outputs[0]
