"""Counting ops: Bincount, HistogramFixedWidth (and TF's composite bins function)."""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_shape import TensorShape
from flowloom.framework.tensor_util import constant_value
from flowloom.ops.array import array_ops

Bincount = defop("Bincount", inputs=["arr: int32", "size: int32", "weights: T"],
                 outputs=["bins: T"])
Bincount.shape(lambda op: TensorShape([None if constant_value(op._inputs[1]) is None
                                       else int(constant_value(op._inputs[1]))]))


@Bincount.kernel
def _(xp, arr, size, weights):
    size = int(size)
    if size < 0:
        raise errors.InvalidArgumentError(None, None, f"size ({size}) must be non-negative")
    if arr.size and arr.min() < 0:
        raise errors.InvalidArgumentError(None, None, "Input arr must be non-negative!")
    flat = arr.reshape(-1)
    keep = flat < size
    w = weights.reshape(-1)[keep] if weights.size else None
    out = np.bincount(flat[keep], weights=w, minlength=size)[:size]
    return out.astype(weights.dtype)


Bincount.no_gradient()


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=dtypes.int32):
    """Counts each value of the non-negative int32 tensor `arr` (weighted by `weights`).

    Returns:
      A vector of length `max(arr) + 1` (then at least `minlength`, at most `maxlength`).
    """
    from flowloom.ops.math.math_ops import cast, maximum, minimum
    from flowloom.ops.math.reduction_ops import reduce_max, reduce_prod
    from flowloom.ops.math.segment_ops import unsorted_segment_sum

    with name_scope(None, "bincount", [arr, weights, minlength, maxlength]):
        arr = convert_to_tensor(arr, name="arr", dtype=dtypes.int32)
        nonempty = reduce_prod(array_ops.shape(arr)) > 0
        output_size = cast(nonempty, dtypes.int32) * (reduce_max(arr) + 1)
        if minlength is not None:
            output_size = maximum(convert_to_tensor(minlength, name="minlength",
                                                    dtype=dtypes.int32), output_size)
        if maxlength is not None:
            output_size = minimum(convert_to_tensor(maxlength, name="maxlength",
                                                    dtype=dtypes.int32), output_size)
        if weights is not None:
            weights = convert_to_tensor(weights, name="weights")
            out = unsorted_segment_sum(weights, arr, output_size)
        else:
            out = apply_op("Bincount", (arr, output_size, array_ops.constant([], dtype))).outputs[0]
        out.set_shape([_static_size(arr, minlength, maxlength)])
        return out


def _static_size(arr, minlength, maxlength):
    """The output length when arr (and the limits) are known while building, as TF's shape
    inference finds it by evaluating the small constant graph; else None."""
    values = constant_value(arr)
    lo = None if minlength is None else constant_value(convert_to_tensor(minlength))
    hi = None if maxlength is None else constant_value(convert_to_tensor(maxlength))
    if values is None or (minlength is not None and lo is None) or \
            (maxlength is not None and hi is None):
        return None
    n = int(values.max()) + 1 if values.size else 0
    n = n if lo is None else max(int(lo), n)
    return n if hi is None else min(int(hi), n)


HistogramFixedWidth = defop("HistogramFixedWidth",
                            inputs=["values: T", "value_range: T", "nbins: int32"],
                            outputs=["out: dtype"], attrs={"dtype": dtypes.int32})
HistogramFixedWidth.shape(lambda op: TensorShape(
    [None if constant_value(op._inputs[2]) is None else int(constant_value(op._inputs[2]))]))


@HistogramFixedWidth.kernel
def _(xp, values, value_range, nbins, *, dtype):
    nbins = int(nbins)
    if nbins <= 0:
        raise errors.InvalidArgumentError(None, None, f"nbins should be a positive number, "
                                          f"but got '{nbins}'")
    lo, hi = value_range
    if not lo < hi:
        raise errors.InvalidArgumentError(None, None, "value_range should satisfy "
                                          f"value_range[0] < value_range[1], but got "
                                          f"'[{lo}, {hi}]'")
    step = (float(hi) - float(lo)) / nbins
    scaled = (np.maximum(values.reshape(-1), lo) - lo).astype(np.float64) / step
    index = np.minimum(scaled, nbins - 1).astype(np.int32)
    return np.bincount(index, minlength=nbins).astype(dtype.as_numpy_dtype)


HistogramFixedWidth.no_gradient()


def histogram_fixed_width(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """Counts of `values` in `nbins` equal bins spanning `value_range` (outliers go to the
    first or last bin)."""
    with name_scope(name, "histogram_fixed_width", [values, value_range, nbins]) as scope:
        return apply_op("HistogramFixedWidth", (values, value_range, nbins), name=scope,
                        dtype=dtypes.as_dtype(dtype)).outputs[0]


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """The bin index of each of `values` for histogram_fixed_width's bins."""
    from flowloom.ops.math.clip_ops import clip_by_value
    from flowloom.ops.math.math_ops import cast, floor, truediv

    with name_scope(name, "histogram_fixed_width_bins", [values, value_range, nbins]):
        values = convert_to_tensor(values, name="values")
        shape = array_ops.shape(values)
        values = array_ops.reshape(values, [-1])
        value_range = convert_to_tensor(value_range, name="value_range")
        nbins = convert_to_tensor(nbins, dtype=dtypes.int32, name="nbins")
        nbins_float = cast(nbins, values.dtype)
        scaled = truediv(values - value_range[0], value_range[1] - value_range[0],
                         name="scaled_values")
        indices = floor(nbins_float * scaled, name="indices")
        indices = cast(clip_by_value(indices, 0, nbins_float - 1), dtypes.int32)
        return array_ops.reshape(indices, shape)
