"""Data-flow ops: DynamicStitch and ParallelDynamicStitch (interleaving tensors by index)."""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.framework.tensor_shape import TensorShape, unknown_shape
from flowloom.framework.shape_eval import input_value
from flowloom.ops.array import array_ops

DynamicStitch = defop("DynamicStitch", inputs=["indices: N * int32", "data: N * T"],
                      outputs=["merged: T"])


# TF's ParallelDynamicStitch: the same result (where indices repeat, TF leaves which value
# wins unspecified; here the last, as DynamicStitch).
ParallelDynamicStitch = defop("ParallelDynamicStitch",
                              inputs=["indices: N * int32", "data: N * T"],
                              outputs=["merged: T"])


@ParallelDynamicStitch.shape
@DynamicStitch.shape
def _(op):
    """TF's DynamicStitchShapeFunction: each data starts with its indices' shape, the rest of
    every data shape agrees; the rows are max(indices) + 1 when every indices is constant."""
    n = op._attrs["N"]
    indices, data = op._inputs[:n], op._inputs[n:]
    all_constant = True
    max_index = 0  # TF starts from 0: constant but empty indices give one row
    rest = unknown_shape()
    for k, (i, d) in enumerate(zip(indices, data)):
        value = input_value(i)
        if value is None:
            all_constant = False
        si, sd = i._shape, d._shape
        if si.ndims is None:
            continue
        if sd.ndims is not None and sd.ndims < si.ndims:
            raise ValueError(f"Shape must be at least rank {si.ndims} but is rank {sd.ndims}")
        prefix = sd[:si.ndims] if sd.ndims is not None else unknown_shape(si.ndims)
        if not prefix.is_compatible_with(si):
            raise ValueError(f"Dimensions must be equal, but data[{k}].shape {sd} does not "
                             f"start with indices[{k}].shape {si}")
        tail = sd[si.ndims:] if sd.ndims is not None else unknown_shape()
        if not rest.is_compatible_with(tail):
            raise ValueError(f"Shapes {rest} and {tail} are not compatible (the data shapes "
                             "after their indices' dims must agree)")
        rest = rest.merge_with(tail)
        if value is not None and np.size(value):
            max_index = max(max_index, int(np.max(value)))
    rows = max_index + 1 if all_constant else None
    return TensorShape([rows]).concatenate(rest)


@ParallelDynamicStitch.kernel
@DynamicStitch.kernel
def _(xp, *args):
    n = len(args) // 2
    indices, data = args[:n], args[n:]
    rows = max((int(i.max()) for i in indices if i.size), default=-1) + 1
    tail = data[0].shape[indices[0].ndim:]
    out = xp.zeros((rows,) + tuple(tail), dtype=data[0].dtype)
    for idx, d in zip(indices, data):
        if d.shape[:idx.ndim] != idx.shape:
            raise errors.InvalidArgumentError(
                None, None, "data[0].shape = [%s] does not start with indices[0].shape = [%s]"
                % (",".join(map(str, d.shape)), ",".join(map(str, idx.shape))))
        out[idx.reshape(-1)] = d.reshape((-1,) + tuple(tail))
    return out


@ParallelDynamicStitch.gradient
@DynamicStitch.gradient
def _(op, grad):
    from flowloom.framework.indexed_slices import IndexedSlices
    from flowloom.ops.math import math_ops, segment_ops

    n = len(op._inputs) // 2
    indices = [op._inputs[i] if op._inputs[i].dtype.base_dtype == dtypes.int32
               else math_ops.cast(op._inputs[i], dtypes.int32) for i in range(n)]
    if isinstance(grad, IndexedSlices):
        rows = array_ops.shape(op._outputs[0])[0]
        grad = segment_ops.unsorted_segment_sum(grad.values, grad.indices, rows)
    return [None] * n + [array_ops.gather(grad, i) for i in indices]


def dynamic_stitch(indices, data, name=None):
    """Interleaves `data` into one tensor: `merged[indices[m][i]] = data[m][i]`."""
    return apply_op("DynamicStitch", (list(indices), list(data)), name=name).outputs[0]


def parallel_dynamic_stitch(indices, data, name=None):
    """`dynamic_stitch` as TF's ParallelDynamicStitch op (the op embedding lookups use)."""
    return apply_op("ParallelDynamicStitch", (list(indices), list(data)),
                    name=name).outputs[0]


DynamicPartition = defop("DynamicPartition", inputs=["data: T", "partitions: int32"],
                         outputs=["outputs: num_partitions * T"],
                         attrs={"num_partitions": None})


@DynamicPartition.shape
def _(op):
    data, partitions = op._inputs
    num = op._attrs["num_partitions"]
    if num < 1:
        raise ValueError(f"num_partitions must be at least 1, got {num} for "
                         f"'{op._name}' (op: 'DynamicPartition')")
    p, d = partitions._shape, data._shape
    if p.ndims is None or d.ndims is None:
        return [unknown_shape()] * num
    d.with_rank_at_least(p.ndims)
    if not d[:p.ndims].is_compatible_with(p):
        raise ValueError(f"Dimensions must be equal, but are {d[:p.ndims]} and {p} for "
                         f"'{op._name}' (op: 'DynamicPartition') with input shapes: {d}, {p}.")
    return [TensorShape([None] + d.as_list()[p.ndims:]) for _ in range(num)]


@DynamicPartition.kernel
def _(xp, data, partitions, *, num_partitions):
    partitions = np.asarray(partitions)
    if data.shape[:partitions.ndim] != partitions.shape:
        raise errors.InvalidArgumentError(
            None, None, "data.shape must start with partitions.shape, got data.shape = "
            "[%s], partitions.shape = [%s]" % (",".join(map(str, data.shape)),
                                              ",".join(map(str, partitions.shape))))
    flat_p = partitions.reshape(-1)
    bad = np.flatnonzero((flat_p < 0) | (flat_p >= num_partitions))
    if len(bad):
        i = np.unravel_index(int(bad[0]), partitions.shape) if partitions.ndim else ()
        raise errors.InvalidArgumentError(
            None, None, "partitions%s = %d is not in [0, %d)" % (
                "".join(f"[{int(j)}]" for j in i) if partitions.ndim else "",
                int(flat_p[bad[0]]), num_partitions))
    flat_d = data.reshape((-1,) + data.shape[partitions.ndim:])
    return [flat_d[flat_p == k] for k in range(num_partitions)]


@DynamicPartition.gradient
def _(op, *grads):
    from flowloom.ops.math import math_ops, reduction_ops

    data, indices = op._inputs
    num = op._attrs["num_partitions"]
    prefix_shape = array_ops.shape(indices)
    original_indices = array_ops.reshape(
        math_ops.range_(reduction_ops.reduce_prod(prefix_shape)), prefix_shape)
    partitioned = dynamic_partition(original_indices, indices, num)
    reconstructed = dynamic_stitch(partitioned, list(grads))
    return [array_ops.reshape(reconstructed, array_ops.shape(data)), None]


def dynamic_partition(data, partitions, num_partitions, name=None):
    """Splits `data` into `num_partitions` tensors: `outputs[k]` holds the slices of `data`
    where `partitions == k`, in order.

    Example:
      tf.dynamic_partition([10, 20, 30, 40], [0, 1, 0, 1], 2)  # [[10, 30], [20, 40]]
    """
    return apply_op("DynamicPartition", (data, partitions), name=name,
                    num_partitions=num_partitions).outputs
