"""`tf.contrib.layers` regularizers: functions `weights -> scalar penalty` (or None)."""

import logging
import numbers

from flowloom.framework.graph import GraphKeys, add_to_collection, get_collection, name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.array import array_ops
from flowloom.ops.math import math_ops
from flowloom.ops.nn import nn_loss_ops


def _check_scale(scale, what="scale", dot=""):
    if isinstance(scale, numbers.Integral):
        raise ValueError("%s cannot be an integer: %s" % (what, scale))
    if isinstance(scale, numbers.Real):
        if scale < 0.0:
            raise ValueError("Setting a scale less than 0 on a regularizer: %g%s" % (scale, dot))
        if scale == 0.0:
            logging.info("Scale of 0 disables regularizer.")
            return False
    return True


def l1_regularizer(scale, scope=None):
    """`scale * sum(|w|)`; scale 0 gives a regularizer returning None.

    Raises:
      ValueError: `scale` is an integer or negative.
    """
    if not _check_scale(scale):
        return lambda _: None

    def l1(weights, name=None):
        with name_scope(scope, "l1_regularizer", [weights]) as name:
            my_scale = convert_to_tensor(scale, dtype=weights.dtype.base_dtype, name="scale")
            return math_ops.multiply(my_scale, math_ops.reduce_sum(math_ops.abs(weights)),
                                     name=name)
    return l1


def l2_regularizer(scale, scope=None):
    """`scale * sum(w ** 2) / 2` (tf.nn.l2_loss); scale 0 gives a regularizer returning None.

    Raises:
      ValueError: `scale` is an integer or negative.
    """
    if not _check_scale(scale, dot="."):
        return lambda _: None

    def l2(weights):
        with name_scope(scope, "l2_regularizer", [weights]) as name:
            my_scale = convert_to_tensor(scale, dtype=weights.dtype.base_dtype, name="scale")
            return math_ops.multiply(my_scale, nn_loss_ops.l2_loss(weights), name=name)
    return l2


def l1_l2_regularizer(scale_l1=1.0, scale_l2=1.0, scope=None):
    """The sum of an L1 and an L2 regularizer."""
    if isinstance(scale_l1, numbers.Integral):
        raise ValueError("scale_l1 cannot be an integer: %s" % (scale_l1,))
    if isinstance(scale_l2, numbers.Integral):
        raise ValueError("scale_l2 cannot be an integer: %s" % (scale_l2,))
    scope = scope or "l1_l2_regularizer"
    if scale_l1 == 0.0:
        return l2_regularizer(scale_l2, scope)
    if scale_l2 == 0.0:
        return l1_regularizer(scale_l1, scope)
    return sum_regularizer([l1_regularizer(scale_l1), l2_regularizer(scale_l2)], scope=scope)


def sum_regularizer(regularizer_list, scope=None):
    """A regularizer summing the penalties of `regularizer_list` (None if the list is empty)."""
    regularizer_list = [reg for reg in regularizer_list if reg is not None]
    if not regularizer_list:
        return None

    def sum_reg(weights):
        with name_scope(scope, "sum_regularizer", [weights]) as name:
            tensors = [t for t in (reg(weights) for reg in regularizer_list) if t is not None]
            return math_ops.add_n(tensors, name=name) if tensors else None
    return sum_reg


def apply_regularization(regularizer, weights_list=None):
    """The summed penalty of `regularizer` over `weights_list` (default: GraphKeys.WEIGHTS),
    also added to GraphKeys.REGULARIZATION_LOSSES.

    Raises:
      ValueError: no weights, or a penalty that is not a scalar.
    """
    if not weights_list:
        weights_list = get_collection(GraphKeys.WEIGHTS)
    if not weights_list:
        raise ValueError("No weights to regularize.")
    with name_scope("get_regularization_penalty", values=weights_list) as scope:
        penalties = [regularizer(w) for w in weights_list]
        penalties = [p if p is not None else array_ops.constant(0.0) for p in penalties]
        for p in penalties:
            if p.get_shape().ndims != 0:
                raise ValueError("regularizer must return a scalar Tensor instead of a Tensor "
                                 "with rank %d." % p.get_shape().ndims)
        summed = math_ops.add_n(penalties, name=scope)
        add_to_collection(GraphKeys.REGULARIZATION_LOSSES, summed)
        return summed
