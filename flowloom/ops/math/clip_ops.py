"""Clipping: clip_by_value, clip_by_norm, global_norm, clip_by_global_norm."""

import collections.abc

from flowloom.framework.graph import name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.array import array_ops
from flowloom.ops.math import math_ops
from flowloom.ops.nn.nn_loss_ops import l2_loss


def _is_indexed_slices(t):
    return hasattr(t, "indices") and hasattr(t, "values") and hasattr(t, "dense_shape")


def _like(t, values):
    """`values` in the form of `t`: an IndexedSlices stays one."""
    if _is_indexed_slices(t):
        return type(t)(values, t.indices, t.dense_shape)
    return values


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Clips `t` elementwise to [clip_value_min, clip_value_max].

    Args:
      t: a tensor or IndexedSlices.
      clip_value_min, clip_value_max: scalars or tensors broadcastable to `t`.

    Returns:
      The clipped tensor (named `clip_by_value`).

    Raises:
      ValueError: when the clipping bounds would change the shape of `t`.
    """
    with name_scope(name, "clip_by_value", [t, clip_value_min, clip_value_max]) as scope:
        values = convert_to_tensor(t.values if _is_indexed_slices(t) else t, name="t")
        t_min = math_ops.minimum(values, clip_value_max)
        if values._shape.is_fully_defined() and t_min._shape.is_fully_defined() and \
                values._shape != t_min._shape:
            raise ValueError(f"Shapes {values._shape} and {t_min._shape} are incompatible")
        t_max = math_ops.maximum(t_min, clip_value_min, name=scope)
        if values._shape.is_fully_defined() and t_max._shape.is_fully_defined() and \
                values._shape != t_max._shape:
            raise ValueError(f"Shapes {values._shape} and {t_max._shape} are incompatible")
        return _like(t, t_max)


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """Scales `t` so that its L2 norm (over `axes`) is at most `clip_norm`.

    Args:
      t: a tensor or IndexedSlices.
      clip_norm: a positive scalar.
      axes: the dimensions the norm is taken over (all when None).

    Returns:
      The clipped tensor.
    """
    with name_scope(name, "clip_by_norm", [t, clip_norm]) as scope:
        values = convert_to_tensor(t.values if _is_indexed_slices(t) else t, name="t")
        l2sum = math_ops.reduce_sum(values * values, axes, keepdims=True)
        pred = l2sum > 0
        l2sum_safe = array_ops.where(pred, l2sum, array_ops.ones_like(l2sum))
        l2norm = array_ops.where(pred, math_ops.sqrt(l2sum_safe), l2sum)
        intermediate = values * clip_norm
        # as TF: the shape must not grow by broadcasting against clip_norm (ValueError)
        values._shape.merge_with(intermediate._shape)
        clipped = array_ops.identity(intermediate / math_ops.maximum(l2norm, clip_norm),
                                     name=scope)
        return _like(t, clipped)


def clip_by_average_norm(t, clip_norm, name=None):
    """Scales `t` so that its average L2 norm (the L2 norm divided by the number of
    elements) is at most `clip_norm` (TF 1.x, deprecated there in favour of clip_by_norm)."""
    from flowloom.framework import dtypes

    with name_scope(name, "clip_by_average_norm", [t, clip_norm]) as scope:
        t = convert_to_tensor(t, name="t")
        n_element = math_ops.cast(array_ops.size(t), dtypes.float32)
        l2norm_inv = math_ops.rsqrt(math_ops.reduce_sum(
            t * t, math_ops.range_(array_ops.rank(t))))
        return array_ops.identity(
            t * clip_norm * math_ops.minimum(l2norm_inv * n_element,
                                             array_ops.constant(1.0) / clip_norm),
            name=scope)


def global_norm(t_list, name=None):
    """sqrt(sum of squared L2 norms of the tensors in `t_list`); None entries are ignored.

    Raises:
      TypeError: if `t_list` is not a sequence.
    """
    if not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    t_list = list(t_list)
    with name_scope(name, "global_norm", [t for t in t_list if t is not None]):
        values = [convert_to_tensor(t.values if _is_indexed_slices(t) else t, name=f"t_{i}")
                  for i, t in enumerate(t_list) if t is not None]
        half_squared = [l2_loss(v) for v in values]
        half_squared_norm = math_ops.reduce_sum(array_ops.stack(half_squared))
        two = array_ops.constant(2.0, dtype=half_squared_norm.dtype.base_dtype)
        return math_ops.sqrt(half_squared_norm * two, name="global_norm")


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scales all tensors by clip_norm / max(global_norm, clip_norm).

    Args:
      t_list: a sequence of tensors, IndexedSlices or None.
      clip_norm: the largest global norm allowed.
      use_norm: the global norm, when already computed.

    Returns:
      (list_clipped, global_norm).

    Raises:
      TypeError: if `t_list` is not a sequence.
    """
    if not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    t_list = list(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list, name)
    with name_scope(name, "clip_by_global_norm",
                    [t for t in t_list if t is not None] + [clip_norm]) as scope:
        dtype = use_norm.dtype.base_dtype
        scale_for_finite = clip_norm * math_ops.minimum(
            1.0 / use_norm, array_ops.constant(1.0, dtype=dtype) / clip_norm)
        # NaN/inf norms give NaN scales, as in TF.
        scale = scale_for_finite + (use_norm - use_norm)
        clipped = []
        for i, t in enumerate(t_list):
            if t is None:
                clipped.append(None)
                continue
            v = convert_to_tensor(t.values if _is_indexed_slices(t) else t, name=f"t_{i}")
            # TF names these "<scope>_<i>" relative to the scope: clip_by_global_norm/_0.
            clipped.append(_like(t, array_ops.identity(v * scale, name=f"{scope}_{i}")))
        return clipped, use_norm
