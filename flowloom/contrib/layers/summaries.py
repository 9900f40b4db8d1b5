"""tf.contrib.layers summaries of tensors, activations and collections."""

import functools
import re

from flowloom import summary
from flowloom.framework import dtypes
from flowloom.framework.graph import GraphKeys, get_collection
from flowloom.ops.math import math_ops


def _add_scalar_summary(tensor, tag=None):
    tensor.get_shape().assert_has_rank(0)
    return summary.scalar(tag or "%s_summary" % tensor.op.name, tensor)


def _add_histogram_summary(tensor, tag=None):
    return summary.histogram(tag or "%s_summary" % tensor.op.name, tensor)


def summarize_activation(op):
    """A histogram `<op>/activation`, plus the fraction of zeros (Relu, Relu6, Softplus) and
    of sixes (Relu6)."""
    if op.op.type in ("Relu", "Softplus", "Relu6"):
        inp = op.op.inputs[0]
        _add_scalar_summary(math_ops.reduce_mean(math_ops.to_float(
            math_ops.less(inp, math_ops.cast(0.0, inp.dtype)))), "%s/zeros" % op.op.name)
    if op.op.type == "Relu6":
        inp = op.op.inputs[0]
        _add_scalar_summary(math_ops.reduce_mean(math_ops.to_float(
            math_ops.greater(inp, math_ops.cast(6.0, inp.dtype)))), "%s/sixes" % op.op.name)
    return _add_histogram_summary(op, "%s/activation" % op.op.name)


def summarize_tensor(tensor, tag=None):
    """A scalar summary for a scalar, a histogram otherwise (None for strings and bools)."""
    if tensor.dtype.is_compatible_with(dtypes.string) or tensor.dtype.base_dtype == dtypes.bool_:
        return None
    if tensor.get_shape().ndims == 0:
        return _add_scalar_summary(tensor, tag)
    return _add_histogram_summary(tensor, tag)


def summarize_tensors(tensors, summarizer=summarize_tensor):
    return [summarizer(tensor) for tensor in tensors]


def summarize_collection(collection, name_filter=None, summarizer=summarize_tensor):
    """Summaries of the tensors of `collection` whose op names match `name_filter`."""
    tensors = [t for t in get_collection(collection)
               if name_filter is None or re.match(name_filter, t.op.name)]
    return summarize_tensors(tensors, summarizer)


summarize_variables = functools.partial(summarize_collection, GraphKeys.GLOBAL_VARIABLES)
summarize_weights = functools.partial(summarize_collection, GraphKeys.WEIGHTS)
summarize_biases = functools.partial(summarize_collection, GraphKeys.BIASES)


def summarize_activations(name_filter=None, summarizer=summarize_activation):
    """Summaries of the ACTIVATIONS collection."""
    return summarize_collection(GraphKeys.ACTIVATIONS, name_filter, summarizer)
