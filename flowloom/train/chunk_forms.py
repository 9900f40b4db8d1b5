"""How each op of a queue runner's enqueue graph runs on a chunk of examples
(train/chunked_enqueue.py): batched forms of the ops that need one, the per-element
fallback for other pure ops, the random draws of several runs at once, and which ops
depend on their inputs' memory layout.

Every form computes, on examples stacked along a new leading axis, exactly the stack of
what the op's kernel computes for each example in a single run.
"""

import functools

import numpy as np

from flowloom.data import vectorize
from flowloom.framework.tensor_util import constant_value

# Layout. A reduction's result depends on the memory layout of its input (NumPy sums in
# memory order), and single runs hand some ops views (a Slice, a Transpose) where a chunk
# hands them rows of a stack. So an op whose values may depend on layout runs on a chunk only
# where, in single runs, each of its per-example inputs is a C-ordered array: made fresh by
# its producer (below), or kept so by ops that pass an input on as it is (`PASS_ON`).
FRESH = frozenset({
    "DecodeRaw", "ReverseV2", "AdjustContrastv2", "Mean", "Sum", "Prod", "Max", "Min",
    "All", "Any", "Pack", "ConcatV2", "Tile", "Pad", "PadV2", "OneHot"})
PASS_ON = frozenset({"Identity", "StopGradient", "Reshape", "ExpandDims", "Squeeze",
                      "Switch", "Cast"})
# Ops whose values are the same whatever their inputs' layout (data movement, comparisons,
# order-free reductions); any other op without a rule must have fresh inputs.
LAYOUT_FREE = frozenset({
    "Identity", "StopGradient", "Reshape", "ExpandDims", "Squeeze", "Pack", "ConcatV2",
    "Pad", "PadV2", "Tile", "GatherV2", "OneHot", "Select", "SelectV2", "Slice",
    "StridedSlice", "Transpose", "ReverseV2", "DecodeRaw", "Cast", "Max", "Min", "All",
    "Any", "ArgMax", "ArgMin", "AdjustContrastv2", "ZerosLike", "OnesLike", "Equal",
    "NotEqual"})
RANDOM = {"RandomUniform": "float", "RandomUniformInt": "int"}
SHAPE_OPS = {"Shape", "Size", "Rank"}


def unbound(op, **overrides):
    """The op's general kernel with some attrs replaced (no specialised binding)."""
    opdef = op._opdef
    kwargs = {a: op._attrs[a] for a in opdef.kernel_attrs if a in op._attrs}
    kwargs.update(overrides)
    return functools.partial(opdef.kernel_fn, np, **kwargs)


# The elementwise op types (data/vectorize.py): each makes a new C-ordered array.
ELEMENTWISE = vectorize.UNARY | vectorize.BINARY


def per_element(kernel, flags, nout):
    """Any pure op: its kernel once per element, the results stacked (unequal shapes make the
    chunk fail, and it is redone element by element)."""
    def run(*args):
        args = [np.ascontiguousarray(a) if b else a for a, b in zip(args, flags)]
        n = next(len(a) for a, b in zip(args, flags) if b)
        outs = [kernel(*[a[i] if b else a for a, b in zip(args, flags)]) for i in range(n)]
        if nout == 1:
            return np.stack([np.asarray(o) for o in outs])
        return [np.stack([np.asarray(o[j]) for o in outs]) for j in range(nout)]
    return run


# -- native batched forms -------------------------------------------------------------------

def _strided_slice(op, flags):
    """StridedSlice of a batched tensor by constant begin/end/strides: the same slice with
    a whole first axis in front (every mask moves up by one bit)."""
    if not flags[0] or any(flags[1:]):
        return None
    specs = [constant_value(t) for t in op.inputs[1:]]
    if any(s is None for s in specs):
        return None
    begin, end, strides = (np.concatenate([[0], np.asarray(s).reshape(-1)]).astype(
        np.asarray(s).dtype) for s in specs)
    begin[0], end[0], strides[0] = 0, 0, 1
    m = {a: int(op.get_attr(a)) for a in ("begin_mask", "end_mask", "ellipsis_mask",
                                          "new_axis_mask", "shrink_axis_mask")}
    kernel = unbound(op, begin_mask=(m["begin_mask"] << 1) | 1,
                      end_mask=(m["end_mask"] << 1) | 1,
                      ellipsis_mask=m["ellipsis_mask"] << 1,
                      new_axis_mask=m["new_axis_mask"] << 1,
                      shrink_axis_mask=m["shrink_axis_mask"] << 1)

    def run(x, b, e, s):
        return kernel(x, begin, end, strides)
    return [True], run


def _reverse(op, flags):
    """ReverseV2 of a batched tensor along constant axes (each one further in)."""
    if not flags[0] or flags[1] or op.inputs[0].shape.ndims is None:
        return None
    axes = constant_value(op.inputs[1])
    if axes is None:
        return None
    rank = op.inputs[0].shape.ndims
    axes = [int(a) for a in np.asarray(axes).reshape(-1)]
    if any(not -rank <= a < rank for a in axes) or len({a % rank for a in axes}) != len(axes):
        return None
    shifted = tuple(a % rank + 1 for a in axes)

    def run(x, axis):
        return np.flip(x, shifted) if shifted else x
    return [True], run


def _mean(op, flags):
    """Mean of a batched tensor over all of an element's axes: each element's values as one
    contiguous row, reduced as the kernel reduces one contiguous element."""
    from flowloom.ops.math.reduction_ops import _mean as mean

    rank = op.inputs[0].shape.ndims
    axes = constant_value(op.inputs[1])
    if not flags[0] or flags[1] or not rank or axes is None:
        return None
    axes = [int(a) for a in np.asarray(axes).reshape(-1)]
    if any(not -rank <= a < rank for a in axes) or {a % rank for a in axes} != set(range(rank)):
        return None
    keep = op.get_attr("keep_dims")
    dtype = op.inputs[0].dtype.as_numpy_dtype

    def run(x, axis):
        if x.dtype != dtype or x.ndim != rank + 1:
            raise ValueError("not the element's dtype and rank")
        n = x.shape[0]
        r = np.asarray(mean(np.ascontiguousarray(x).reshape(n, -1), axis=(1,), keepdims=False))
        if r.dtype != x.dtype:
            r = r.astype(x.dtype)
        return r.reshape((n,) + (1,) * rank if keep else (n,))
    return [True], run


def _adjust_contrast(op, flags):
    """AdjustContrastv2 of stacked images, each with its own factor (or one for all)."""
    from flowloom.ops.image.color_ops import adjust_contrast

    if not flags[0] or op.inputs[0].shape.ndims != 3:
        return None

    def run(images, factor):
        f = np.asarray(factor, np.float32)
        n = images.shape[0]
        if images.ndim != 4 or not images.size or f.shape != ((n,) if flags[1] else ()):
            raise ValueError("not a stack of images")
        return adjust_contrast(images, f.reshape(n, 1) if flags[1] else f)
    return [True], run


def _slice(op, flags):
    """Slice of stacked elements at each element's own begin, by a constant size."""
    rank = op.inputs[0].shape.ndims
    size = constant_value(op.inputs[2])
    if not flags[0] or flags[2] or not rank or size is None:
        return None
    size = [int(v) for v in np.asarray(size).reshape(-1)]
    if len(size) != rank or min(size) < 0:
        return None
    axes = tuple(range(1, rank + 1))

    def run(x, begin, _):
        n = x.shape[0]
        b = np.asarray(begin).reshape(-1, rank) if flags[1] else \
            np.broadcast_to(np.asarray(begin).reshape(1, rank), (n, rank))
        if x.ndim != rank + 1 or b.shape != (n, rank) or \
                np.any(b < 0) or np.any(b + size > np.array(x.shape[1:])):
            raise ValueError("a slice out of bounds")
        windows = np.lib.stride_tricks.sliding_window_view(x, size, axis=axes)
        return windows[(np.arange(n),) + tuple(b[:, j] for j in range(rank))]
    return [True], run


NATIVE = {"StridedSlice": _strided_slice, "ReverseV2": _reverse, "Mean": _mean,
           "AdjustContrastv2": _adjust_contrast, "Slice": _slice}


# -- random draws ---------------------------------------------------------------------------

def random_draw(sess, op):
    """`draw(n)`: the values of n runs of a RandomUniform (float32) or RandomUniformInt
    (int32) op of constant shape and bounds, stacked; None for any other."""
    from flowloom.ops.random import philox
    from flowloom.ops.random.random_ops import philox_state
    from flowloom.runtime.executor import KernelContext

    consts = [constant_value(t) for t in op.inputs]
    if any(c is None for c in consts):
        return None
    shape = np.asarray(consts[0])
    if shape.ndim != 1 or np.any(shape < 0):
        return None
    dims = tuple(int(d) for d in shape)
    size = int(np.prod(dims, dtype=np.int64))
    kind = RANDOM[op.type]
    dtype = (op.get_attr("dtype") if kind == "float" else op.get_attr("Tout")).as_numpy_dtype
    if dtype not in (np.float32, np.int32) or (kind == "float") != (dtype == np.float32):
        return None
    if not size:
        return None
    if kind == "int":
        if np.ndim(consts[1]) or np.ndim(consts[2]):
            return None
        lo, hi = int(consts[1]), int(consts[2])
        if lo >= hi:
            return None
        span = np.uint32((hi - lo) & 0xFFFFFFFF)
    ctx = KernelContext(sess, op)
    seed, seed2 = int(op.get_attr("seed")), int(op.get_attr("seed2"))
    nblocks = -(-size // 4)

    def draw(n):
        state = philox_state(ctx, seed, seed2)
        words = state.reserve_runs(size, nblocks, n)[:, :size]
        if kind == "float":
            values = philox.uint32_to_float(words)
        else:
            values = (lo + (words % span).astype(np.int64)).astype(np.int32)
        return values.reshape((n,) + dims)
    return draw


