"""tf.contrib.seq2seq.sequence_loss: weighted cross-entropy over [batch, time] logits."""

from flowloom.framework.graph import name_scope
from flowloom.ops.array import array_ops
from flowloom.ops.math import math_ops
from flowloom.ops.nn import nn_loss_ops


def sequence_loss(logits, targets, weights, average_across_timesteps=True,
                  average_across_batch=True, sum_over_timesteps=False, sum_over_batch=False,
                  softmax_loss_function=None, name=None):
    """Weighted cross-entropy of a sequence of logits.

    Args:
      logits: [batch_size, sequence_length, num_decoder_symbols] float tensor.
      targets: [batch_size, sequence_length] int tensor.
      weights: [batch_size, sequence_length] float tensor (0 masks a step).
      average_across_timesteps / average_across_batch: divide the summed loss by the summed
        weights over that dimension (both: a scalar over all weights).
      sum_over_timesteps / sum_over_batch: divide by the count of non-zero weights instead.
      softmax_loss_function: `fn(labels=..., logits=...)` instead of the sparse softmax
        cross-entropy.
    Returns:
      A scalar, or a [batch_size] / [sequence_length] / [batch_size, sequence_length] tensor
      when a dimension is not reduced.
    Raises:
      ValueError: wrong ranks, or averaging and summing the same dimension.
    """
    if len(logits.get_shape()) != 3:
        raise ValueError("Logits must be a [batch_size x sequence_length x logits] tensor")
    if len(targets.get_shape()) != 2:
        raise ValueError("Targets must be a [batch_size x sequence_length] tensor")
    if len(weights.get_shape()) != 2:
        raise ValueError("Weights must be a [batch_size x sequence_length] tensor")
    if average_across_timesteps and sum_over_timesteps:
        raise ValueError("average_across_timesteps and sum_over_timesteps cannot be set to "
                         "True at same time.")
    if average_across_batch and sum_over_batch:
        raise ValueError("average_across_batch and sum_over_batch cannot be set to True at "
                         "same time.")
    with name_scope(name, "sequence_loss", [logits, targets, weights]):
        num_classes = array_ops.shape(logits)[2]
        logits_flat = array_ops.reshape(logits, [-1, num_classes])
        targets = array_ops.reshape(targets, [-1])
        if softmax_loss_function is None:
            crossent = nn_loss_ops.sparse_softmax_cross_entropy_with_logits(
                labels=targets, logits=logits_flat)
        else:
            crossent = softmax_loss_function(labels=targets, logits=logits_flat)
        crossent *= array_ops.reshape(weights, [-1])
        if average_across_timesteps and average_across_batch:
            crossent = math_ops.div_no_nan(math_ops.reduce_sum(crossent),
                                           math_ops.reduce_sum(weights))
        elif sum_over_timesteps and sum_over_batch:
            crossent = math_ops.reduce_sum(crossent)
            total_count = math_ops.cast(math_ops.count_nonzero(weights), crossent.dtype)
            crossent = math_ops.div_no_nan(crossent, total_count)
        else:
            crossent = array_ops.reshape(crossent, array_ops.shape(logits)[0:2])
            if average_across_timesteps or average_across_batch:
                axis = [0] if average_across_batch else [1]
                crossent = math_ops.div_no_nan(math_ops.reduce_sum(crossent, axis=axis),
                                               math_ops.reduce_sum(weights, axis=axis))
            elif sum_over_timesteps or sum_over_batch:
                axis = [0] if sum_over_batch else [1]
                crossent = math_ops.reduce_sum(crossent, axis=axis)
                total_count = math_ops.cast(math_ops.count_nonzero(weights, axis=axis),
                                            dtype=crossent.dtype)
                crossent = math_ops.div_no_nan(crossent, total_count)
        return crossent
