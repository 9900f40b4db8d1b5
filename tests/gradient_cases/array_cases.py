"""Gradient-check builders for ops/array/array_ops.py, broadcast, segment, scan and data-flow ops."""

import numpy as np

import flowloom as tf
from flowloom.framework.apply_op import apply_op
from flowloom.ops.array import broadcast_ops, data_flow_ops
from flowloom.ops.math import segment_ops
from tests.gradient_cases import dims, ph


def _op(op_type, *inputs, **attrs):
    return apply_op(op_type, inputs, **attrs).outputs[0]


def _identity(rng):
    x, xv = ph(rng, dims(rng, 2))
    return [(x, xv)], tf.identity(x) * 2.0


def _placeholder_with_default(rng):
    x, xv = ph(rng, dims(rng, 2))
    return [(x, xv)], tf.placeholder_with_default(x * 1.5, x.shape)


def _reshape(rng):
    a, b, c = dims(rng, 3)
    x, xv = ph(rng, (a, b, c))
    return [(x, xv)], tf.reshape(x, [c, a * b])


def _transpose(rng):
    x, xv = ph(rng, dims(rng, 3, 2, 4))
    return [(x, xv)], tf.transpose(x, rng.permutation(3).tolist())


def _transpose_dynamic_perm(rng):
    x, xv = ph(rng, dims(rng, 3, 2, 4))
    perm = tf.placeholder(tf.int32, [3])
    return [(x, xv)], tf.transpose(x, perm), None, {perm: rng.permutation(3).astype(np.int32)}


def _expand_dims(rng):
    x, xv = ph(rng, dims(rng, 2))
    return [(x, xv)], tf.expand_dims(x, int(rng.integers(-3, 3)))


def _squeeze(rng):
    a, b = dims(rng, 2, 2, 4)
    x, xv = ph(rng, (a, 1, b, 1))
    return [(x, xv)], tf.squeeze(x, axis=[1])


def _concat(rng):
    axis = int(rng.integers(0, 2))
    pairs = []
    for _ in range(3):
        shape = list(dims(rng, 2, 2, 4))
        if pairs:
            shape[1 - axis] = pairs[0][1].shape[1 - axis]
        pairs.append(ph(rng, tuple(shape)))
    return pairs, tf.concat([p[0] for p in pairs], axis)


def _pack(rng):
    shape = dims(rng, 2)
    pairs = [ph(rng, shape) for _ in range(3)]
    return pairs, tf.stack([p[0] for p in pairs], axis=int(rng.integers(0, 3)))


def _unpack(rng):
    x, xv = ph(rng, (3,) + dims(rng, 2))
    parts = tf.unstack(x)
    return [(x, xv)], parts[0] * 2.0 + parts[2]  # parts[1] unused: a zero gradient


def _slice(rng):
    x, xv = ph(rng, dims(rng, 3, 3, 5))
    begin = [int(rng.integers(0, 2)) for _ in range(3)]
    return [(x, xv)], tf.slice(x, begin, [2, -1, 1])


def _strided_slice(rng):
    x, xv = ph(rng, dims(rng, 3, 3, 6))
    return [(x, xv)], x[1:, ::2, tf.newaxis, -1]


def _strided_slice_grad(rng):
    dy, dyv = ph(rng, (2, 3))
    return [(dy, dyv)], _op("StridedSliceGrad", tf.constant([4, 5]), tf.constant([1, 0]),
                            tf.constant([3, 5]), tf.constant([1, 2]), dy)


def _fill(rng):
    x, xv = ph(rng, ())
    return [(x, xv)], tf.fill([2, 3], x)


def _gather(axis):
    def build(rng):
        p, pv = ph(rng, (4, 3, 2))
        indices = tf.constant(rng.integers(0, p.shape[axis].value, size=(2, 3)).astype(np.int32))
        return [(p, pv)], tf.gather(p, indices, axis=axis)
    return build


def _select(rng):
    shape = dims(rng, 2, 2, 4)
    x, xv = ph(rng, shape)
    y, yv = ph(rng, shape)
    cond = tf.constant(rng.random(shape) > 0.5)
    return [(x, xv), (y, yv)], tf.where(cond, x, y)


def _broadcast_to(rng):
    x, xv = ph(rng, (3, 1))
    return [(x, xv)], broadcast_ops.broadcast_to(x, [2, 3, 4])


def _tile(rng):
    x, xv = ph(rng, dims(rng, 2))
    return [(x, xv)], broadcast_ops.tile(x, [2, 3])


def _unsorted_segment_sum(rng):
    data, dv = ph(rng, (5, 2))
    ids = tf.constant(np.array([0, 2, -1, 2, 1], dtype=np.int32))
    return [(data, dv)], segment_ops.unsorted_segment_sum(data, ids, 3)


def _dynamic_stitch(rng):
    a, av = ph(rng, (2, 3))
    b, bv = ph(rng, (2, 3))
    return [(a, av), (b, bv)], data_flow_ops.dynamic_stitch(
        [tf.constant([0, 2]), tf.constant([1, 3])], [a, b])


def _parallel_dynamic_stitch(rng):
    a, av = ph(rng, (2, 3))
    b, bv = ph(rng, (2, 3))
    return [(a, av), (b, bv)], data_flow_ops.parallel_dynamic_stitch(
        [tf.constant([0, 2]), tf.constant([1, 3])], [a, b])


def _dynamic_partition(rng):
    x, xv = ph(rng, (4, 3))
    parts = data_flow_ops.dynamic_partition(x, tf.constant([1, 0, 1, 2]), 3)
    return [(x, xv)], tf.concat([parts[0] * 2.0, parts[1], parts[2] * 3.0], 0)


def _conjugate_transpose(rng):
    from flowloom.ops.array import array_extra_ops

    # A real input (the checker differentiates real functions; flowloom has no tf.complex):
    # checks the permutation of the gradient.
    x, xv = ph(rng, (2, 3, 4))
    return [(x, xv)], array_extra_ops.conjugate_transpose(x, [2, 0, 1])


CASES = {
    "Identity": _identity,
    "PlaceholderWithDefault": _placeholder_with_default,
    "Reshape": _reshape,
    "Transpose": [_transpose, _transpose_dynamic_perm],
    "ExpandDims": _expand_dims,
    "Squeeze": _squeeze,
    "ConcatV2": _concat,
    "Pack": _pack,
    "Unpack": _unpack,
    "Slice": _slice,
    "StridedSlice": _strided_slice,
    "StridedSliceGrad": _strided_slice_grad,
    "Fill": _fill,
    "GatherV2": [_gather(0), _gather(1)],
    "Select": _select,
    "BroadcastTo": _broadcast_to,
    "Tile": _tile,
    "UnsortedSegmentSum": _unsorted_segment_sum,
    "DynamicStitch": _dynamic_stitch,
    "ParallelDynamicStitch": _parallel_dynamic_stitch,
    "DynamicPartition": _dynamic_partition,
    "ConjugateTranspose": _conjugate_transpose,
}
