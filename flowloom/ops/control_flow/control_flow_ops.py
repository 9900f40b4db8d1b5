"""Control flow: the TF1 dataflow primitives (Switch, Merge, Enter, Exit, NextIteration,
LoopCond, ControlTrigger and their Ref variants), and grouping ops (no_op, group, tuple,
with_dependencies).

The primitives' kernels handle live values only; deadness and frames are the executor's job
(runtime/dataflow.py). Switch outputs `DEAD` on its untaken port; Merge receives `DEAD` for the
inputs that have not arrived and forwards the first live one with its index.

`cond`, `case` (ops/control_flow/cond.py) and `while_loop` (ops/control_flow/while_loop.py) build graphs from these.
"""

import builtins
import collections

import numpy as np

from flowloom.framework import common_shapes, dtypes, errors, tensor_shape
from flowloom.framework.indexed_slices import IndexedSlices, is_indexed_slices
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import (_graph_of, control_dependencies, get_default_graph,
                                      name_scope)
from flowloom.framework.op_def import defop
from flowloom.framework.ops import Operation, Tensor, convert_to_tensor
from flowloom.ops.array import array_ops
from flowloom.runtime.dataflow import DEAD

# -- the dataflow primitives ----------------------------------------------------------------
def _check_pred(pred):
    if getattr(pred, "ndim", 0) != 0:
        raise errors.InvalidArgumentError(
            None, None, "The second input must be a scalar, but it has shape "
            f"[{','.join(str(d) for d in pred.shape)}]")
    return bool(pred)


def _switch_kernel(xp, data, pred):
    return (data, DEAD) if not _check_pred(pred) else (DEAD, data)


def _switch_shape(op):
    if op._inputs[1]._shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {op._inputs[1]._shape.ndims}")
    return [op._inputs[0]._shape, op._inputs[0]._shape]


def _read_only_index(i):
    a = np.asarray(i, dtype=np.int32)
    a.flags.writeable = False
    return a


_INDEX = tuple(_read_only_index(i) for i in range(8))  # Merge's value_index, preallocated


def _merge_kernel(xp, *inputs):
    for i, v in enumerate(inputs):
        if v is not DEAD:
            if xp is np and i < len(_INDEX):
                return v, _INDEX[i]
            return v, xp.asarray(i, dtype=xp.int32)
    raise errors.InternalError(None, None, "Merge ran without a live input")


def _merge_shape(op):
    shapes = [t._shape for t in op._inputs]
    out = shapes[0]
    for s in shapes[1:]:
        if out.ndims is None or s.ndims is None or out.ndims != s.ndims:
            out = tensor_shape.unknown_shape()
            break
        out = tensor_shape.TensorShape(
            [a if a.value == b.value else None for a, b in zip(out.dims, s.dims)])
    return [out, tensor_shape.TensorShape([])]


def _forward_kernel(xp, data):
    return data


def _enter_shape(op):
    # A loop variable's shape is set by while_loop from its shape invariant; a loop constant
    # keeps its input's shape.
    if op._attrs.get("is_constant"):
        return op._inputs[0]._shape
    return tensor_shape.unknown_shape()


def _loop_cond_shape(op):
    if op._inputs[0]._shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {op._inputs[0]._shape.ndims}")
    return tensor_shape.TensorShape([])


_ENTER_ATTRS = {"frame_name": "", "is_constant": False, "parallel_iterations": 10}
for _ref in ("", "Ref"):
    _t = "Ref(T)" if _ref else "T"
    _op = defop(_ref + "Switch", inputs=[f"data: {_t}", "pred: bool"],
                outputs=[f"output_false: {_t}", f"output_true: {_t}"])
    _op.shape(_switch_shape)
    _op.kernel(_switch_kernel)
    _op = defop(_ref + "Merge", inputs=[f"inputs: N * {_t}"],
                outputs=[f"output: {_t}", "value_index: int32"])
    _op.shape(_merge_shape)
    _op.kernel(_merge_kernel)
    _op = defop(_ref + "Enter", inputs=[f"data: {_t}"], outputs=[f"output: {_t}"],
                attrs=dict(_ENTER_ATTRS))
    _op.shape(_enter_shape)
    _op.kernel(_forward_kernel)
    for _name in ("Exit", "NextIteration"):
        _op = defop(_ref + _name, inputs=[f"data: {_t}"], outputs=[f"output: {_t}"])
        _op.shape(common_shapes.unchanged)
        _op.kernel(_forward_kernel)

LoopCond = defop("LoopCond", inputs=["input: bool"], outputs=["output: bool"])
LoopCond.shape(_loop_cond_shape)
LoopCond.kernel(_forward_kernel)

ControlTrigger = defop("ControlTrigger")
ControlTrigger.shape(lambda op: [])


@ControlTrigger.kernel
def _(xp):
    return None


def switch(data, pred, dtype=None, name=None):
    """Forwards `data` to output_true if `pred` else to output_false; the other is dead.

    Args:
      data: the tensor (or IndexedSlices) to forward.
      pred: a scalar bool tensor.
      name: the op's name (default "Switch").

    Returns:
      `(output_false, output_true)`.
    """
    with name_scope(name, "Switch", [data, pred]) as name:
        if is_indexed_slices(data):
            # Each component (values, indices, dense_shape) through its own Switch, as TF's
            # composite tensors go.
            pred = convert_to_tensor(pred, name="pred")
            parts = [data.values, data.indices] + (
                [data.dense_shape] if data.dense_shape is not None else [])
            outs = [_switch_op(t, pred, None) for t in parts]
            f = [o[0] for o in outs] + [None] * (3 - len(outs))
            t = [o[1] for o in outs] + [None] * (3 - len(outs))
            return IndexedSlices(*f), IndexedSlices(*t)
        data = convert_to_tensor(data, dtype=dtype, name="data")
        pred = convert_to_tensor(pred, name="pred")
        return _switch_op(data, pred, name)


def _switch_op(data, pred, name):
    op_type = "RefSwitch" if data.dtype.is_ref_dtype else "Switch"
    op = apply_op(op_type, (data, pred), name=name)
    return op.outputs[0], op.outputs[1]


def ref_switch(data, pred, name=None):
    """`switch` of a reference (a variable), keeping it a reference."""
    op = apply_op("RefSwitch", (data, pred), name=name or "RefSwitch")
    return op.outputs[0], op.outputs[1]


def merge(inputs, name=None):
    """Forwards the first live tensor of `inputs`.

    Returns:
      `(output, value_index)`: the value and the index of the input it came from. If any
      input is an IndexedSlices, all are treated as IndexedSlices and merged componentwise.
    """
    with name_scope(name, "Merge", inputs) as name:
        if any(is_indexed_slices(x) for x in inputs):
            slices = _as_indexed_slices_list(inputs)
            has_shape = all(s.dense_shape is not None for s in slices)
            parts = [[s.values for s in slices], [s.indices for s in slices]]
            if has_shape:
                parts.append([s.dense_shape for s in slices])
            merged = [_merge_op(p, None) for p in parts]
            return MergeOutput(IndexedSlices(*[m[0] for m in merged]), merged[0][1])
        inputs = [convert_to_tensor(x) for x in inputs]
        return _merge_op(inputs, name)


# What merge returns, as TF's generated wrapper names it: (output, value_index).
MergeOutput = collections.namedtuple("Merge", ["output", "value_index"])


def _merge_op(inputs, name):
    op_type = "RefMerge" if all(x.dtype.is_ref_dtype for x in inputs) else "Merge"
    op = apply_op(op_type, (list(inputs),), name=name)
    return MergeOutput(op.outputs[0], op.outputs[1])


def _as_indexed_slices_list(inputs):
    """Dense inputs as IndexedSlices of all their rows; int32 indices become int64 when the
    list mixes both (TF's math_ops._as_indexed_slices_list)."""
    from flowloom.ops.math import math_ops

    out = []
    for x in inputs:
        if not is_indexed_slices(x):
            x = convert_to_tensor(x)
            shape = array_ops.shape(x, optimize=False)
            x = IndexedSlices(x, math_ops.range_(0, shape[0]), shape)
        out.append(x)
    int32 = [s for s in out if s.indices.dtype.base_dtype == dtypes.int32]
    if not int32 or len(int32) == len(out):
        return out
    return [IndexedSlices(s.values, math_ops.cast(s.indices, dtypes.int64), s.dense_shape)
            if s.indices.dtype.base_dtype == dtypes.int32 else s for s in out]


def ref_merge(inputs, name=None):
    op = apply_op("RefMerge", (list(inputs),), name=name or "RefMerge")
    return MergeOutput(op.outputs[0], op.outputs[1])


def _enter(data, frame_name, is_constant=False, parallel_iterations=10, use_ref=True,
           use_input_shape=True, name=None):
    """Makes `data` available in the child frame `frame_name` (TF's `_Enter`)."""
    data = convert_to_tensor(data)
    op_type = "RefEnter" if data.dtype.is_ref_dtype and use_ref else "Enter"
    out = apply_op(op_type, (data,), name=name, frame_name=frame_name,
                   is_constant=is_constant, parallel_iterations=parallel_iterations).outputs[0]
    if use_input_shape:
        out.set_shape(data.shape)
    return out


def exit(data, name=None):  # noqa: A001 - TF's name
    """Makes `data` available in the parent frame (a SparseTensor or IndexedSlices
    component by component)."""
    if hasattr(data, "_to_components"):
        return data._from_components([exit(t) for t in data._to_components()])
    data = convert_to_tensor(data)
    op_type = "RefExit" if data.dtype.is_ref_dtype else "Exit"
    return apply_op(op_type, (data,), name=name).outputs[0]


def _next_iteration(data, name=None):
    data = convert_to_tensor(data)
    op_type = "RefNextIteration" if data.dtype.is_ref_dtype else "NextIteration"
    return apply_op(op_type, (data,), name=name).outputs[0]


def loop_cond(input, name=None):  # noqa: A002 - TF's name
    """Forwards the loop predicate; marks it as the condition of its loop."""
    return apply_op("LoopCond", (input,), name=name or "LoopCond").outputs[0]


def control_trigger(name=None):
    """An op that runs even when its control inputs are dead."""
    return apply_op("ControlTrigger", (), name=name)


# -- grouping ------------------------------------------------------------------------------
NoOp = defop("NoOp")
NoOp.shape(lambda op: [])


@NoOp.kernel
def _(xp):
    return None


def no_op(name=None):
    """An op that does nothing; useful as a target with control dependencies."""
    return apply_op("NoOp", (), name=name)


def group(*inputs, **kwargs):
    """An op that runs all of `inputs` (ops or tensors) when it runs; it has no output."""
    name = kwargs.pop("name", None)
    if kwargs:
        raise ValueError("Unknown keyword arguments: " + ", ".join(kwargs))
    flat = []
    for x in inputs:
        if isinstance(x, (list, builtins.tuple)):
            flat.extend(_flatten(x))
        elif isinstance(x, dict):
            flat.extend(_flatten(list(x.values())))
        else:
            flat.append(x)
    if not flat:
        return no_op(name=name)
    ops = []
    for x in flat:
        if x is None:
            continue
        if hasattr(x, "_handle") and hasattr(x, "op") and not isinstance(x, Tensor):
            x = x.op  # a resource (or unread) variable: its op, as TF's control_dependencies
        elif hasattr(x, "_as_graph_element") and not isinstance(x, (Tensor, Operation)):
            x = x._as_graph_element()
        if not isinstance(x, (Tensor, Operation)) and isinstance(getattr(x, "op", None),
                                                                 Operation):
            x = x.op  # IndexedSlices, SparseTensor: the op of their values
        if not isinstance(x, (Tensor, Operation)):
            raise TypeError(f"Expected tf.group() expected Tensor arguments not '{x}' with "
                            f"type '{type(x)}'")
        ops.append(x.op if isinstance(x, Tensor) else x)
    g = _graph_of(ops)
    with g.as_default(), name_scope(name, "group_deps", ops) as scope:
        # Ops on different devices are grouped per device first, as TF does.
        by_device = {}
        for op in ops:
            by_device.setdefault(op.device, []).append(op)
        # Each NoOp is made under `tf.device(dev)`: merged with the enclosing device scopes
        # ('' merges nothing), as TF does.
        if len(by_device) == 1:
            (dev, deps), = by_device.items()
            with control_dependencies(deps), g.device(dev):
                return no_op(name=scope)
        deps = []
        for dev in sorted(by_device):
            with g.device(dev), control_dependencies(by_device[dev]):
                deps.append(no_op())
        with control_dependencies(deps):
            return no_op(name=scope)


def _flatten(xs):
    out = []
    for x in xs:
        if isinstance(x, (list, builtins.tuple)):
            out.extend(_flatten(x))
        else:
            out.append(x)
    return out


def tuple(tensors, name=None, control_inputs=None):  # noqa: A001 - TF's name
    """Groups tensors: each returned tensor is available only after all inputs are computed."""
    with name_scope(name, "tuple", tensors) as scope:
        gating = [t if isinstance(t, Operation) else t.op for t in tensors if t is not None]
        if control_inputs:
            for c in control_inputs:
                gating.append(c.op if isinstance(c, Tensor) else c)
        # Unique ops in creation order, as TF gates them.
        gating = sorted(set(gating), key=lambda op: op._id)
        if not gating:
            raise ValueError("'tensors' must have at least one Tensor")
        gate = group(*gating)
        out = []
        for t in tensors:
            if t is None:
                out.append(None)
            elif isinstance(t, Operation):
                with control_dependencies([gate]):
                    out.append(group(t))
            else:
                out.append(with_dependencies([gate], t))
        del scope
        return out


def with_dependencies(dependencies, output_tensor, name=None):
    """`output_tensor`, computed only after all `dependencies` have run."""
    with name_scope(name, "control_dependency", list(dependencies) + [output_tensor]) as scope:
        if not hasattr(output_tensor, "indices"):
            output_tensor = convert_to_tensor(output_tensor)  # a Python value: a Const first
        g = get_default_graph()
        with g.colocate_with(output_tensor.values if hasattr(output_tensor, "indices")
                             else output_tensor), control_dependencies(dependencies):
            if hasattr(output_tensor, "indices") and hasattr(output_tensor, "values"):
                from flowloom.framework.indexed_slices import IndexedSlices

                return IndexedSlices(array_ops.identity(output_tensor.values, name=scope),
                                     output_tensor.indices, output_tensor.dense_shape)
            output_tensor = convert_to_tensor(output_tensor)
            return array_ops.identity(output_tensor, name=scope)


def cond_initialized(variable):
    """`variable`'s value if it is initialized, else its initial value (as TF builds
    `Variable.initialized_value()`: a cond on IsVariableInitialized)."""
    from flowloom import variables
    from flowloom.ops.control_flow.cond import cond

    return cond(variables.is_variable_initialized(variable), variable.read_value,
                lambda: variable.initial_value)


def __getattr__(name):
    # TF1 code reaches these through control_flow_ops; they live in their own modules.
    if name == "cond" or name == "case":
        from flowloom.ops.control_flow import cond as cond_module

        return getattr(cond_module, name)
    if name == "while_loop":
        from flowloom.ops.control_flow.while_loop import while_loop

        return while_loop
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
