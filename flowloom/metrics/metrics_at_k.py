"""The metrics at k of `tf.metrics` (TF 1.15's): precision_at_k, precision_at_top_k,
recall_at_k, recall_at_top_k, average_precision_at_k and the deprecated sparse_* names.

Labels are class ids (a dense `int64` Tensor with -1 or out-of-range ids for padding, or a
SparseTensor), of shape [D1, ... DN, num_labels] or [D1, ... DN]; the top k predicted ids
come from `tf.nn.top_k`. True positives, false positives and false negatives per row are the
sizes of set intersections and differences of the two (`tf.sets`), summed into float64 local
variables.
"""

from flowloom.framework import dtypes
from flowloom.framework.graph import control_dependencies, name_scope
from flowloom.framework.sparse_tensor import (SparseTensor, SparseTensorValue,
                                              convert_to_tensor_or_sparse_tensor)
from flowloom.losses import util as weights_util
from flowloom.metrics.metrics_impl import _collect, metric_variable
from flowloom.ops.array import array_ops
from flowloom.ops.array.gather_ops import where_v2
from flowloom.ops.array.sparse_concat_ops import sparse_concat
from flowloom.ops.array.sparse_reshape_ops import sparse_reshape, sparse_retain
from flowloom.ops.control_flow.cond import cond
from flowloom.ops.math import math_ops, reduction_ops
from flowloom.ops.math.scan_ops import cumsum
from flowloom.ops.sets import set_ops
from flowloom.ops.state import state_ops


def _at_k_name(name, k=None, class_id=None):
    name = f"{name}_at_{k}" if k is not None else f"{name}_at_k"
    return name if class_id is None else f"{name}_class{class_id}"


def _maybe_expand_labels(labels, predictions):
    """`labels` with a last dimension of 1 added when it has one rank less than `predictions`.

    Raises:
      ValueError: if the static ranks differ by other than 0 or 1.
    """
    with name_scope(None, "expand_labels", (labels, predictions)) as scope:
        labels = convert_to_tensor_or_sparse_tensor(labels)
        if isinstance(labels, SparseTensor):
            return cond(
                math_ops.equal(array_ops.rank(predictions),
                               array_ops.size(labels.dense_shape) + 1),
                lambda: sparse_reshape(labels, shape=array_ops.concat(
                    (labels.dense_shape, (1,)), 0), name=scope),
                lambda: labels)
        labels_rank = labels.get_shape().ndims
        if labels_rank is not None:
            predictions_rank = predictions.get_shape().ndims
            if predictions_rank is not None:
                if predictions_rank == labels_rank:
                    return labels
                if predictions_rank == labels_rank + 1:
                    return array_ops.expand_dims(labels, -1, name=scope)
                raise ValueError(f"Unexpected labels shape {labels.get_shape()} for "
                                 f"predictions shape {predictions.get_shape()}.")
        return cond(math_ops.equal(array_ops.rank(predictions), array_ops.rank(labels) + 1),
                    lambda: array_ops.expand_dims(labels, -1, name=scope), lambda: labels)


def _select_class_id(ids, selected_id):
    """The entries of `ids` (dense or sparse) equal to `selected_id`, as a SparseTensor of
    `ids`' dense shape."""
    ids = convert_to_tensor_or_sparse_tensor(ids)
    if isinstance(ids, SparseTensor):
        return sparse_retain(ids, math_ops.equal(ids.values, selected_id))
    ids_shape = array_ops.shape(ids, out_type=dtypes.int64)
    ids_last_dim = array_ops.size(ids_shape) - 1
    filled_shape = reduction_ops.reduced_shape(ids_shape,
                                               array_ops.reshape(ids_last_dim, [1]))
    filled = array_ops.fill(filled_shape, math_ops.cast(selected_id, dtypes.int64))
    result = set_ops.set_intersection(filled, ids)
    return SparseTensor(indices=result.indices, values=result.values, dense_shape=ids_shape)


def _maybe_select_class_id(labels, predictions_idx, selected_id=None):
    if selected_id is None:
        return labels, predictions_idx
    return (_select_class_id(labels, selected_id),
            _select_class_id(predictions_idx, selected_id))


def _weighted(counts, weights):
    counts = math_ops.cast(counts, dtypes.float64)
    if weights is None:
        return counts
    with control_dependencies((weights_util.assert_broadcastable(weights, counts),)):
        return math_ops.multiply(counts, math_ops.cast(weights, dtypes.float64))


def _sparse_true_positive_at_k(labels, predictions_idx, class_id=None, weights=None,
                               name=None):
    with name_scope(name, "true_positives", (predictions_idx, labels, weights)):
        labels, predictions_idx = _maybe_select_class_id(labels, predictions_idx, class_id)
        tp = set_ops.set_size(set_ops.set_intersection(predictions_idx, labels))
        return _weighted(tp, weights)


def _sparse_false_negative_at_k(labels, predictions_idx, class_id=None, weights=None):
    with name_scope(None, "false_negatives", (predictions_idx, labels, weights)):
        labels, predictions_idx = _maybe_select_class_id(labels, predictions_idx, class_id)
        fn = set_ops.set_size(set_ops.set_difference(predictions_idx, labels, aminusb=False))
        return _weighted(fn, weights)


def _sparse_false_positive_at_k(labels, predictions_idx, class_id=None, weights=None):
    with name_scope(None, "false_positives", (predictions_idx, labels, weights)):
        labels, predictions_idx = _maybe_select_class_id(labels, predictions_idx, class_id)
        fp = set_ops.set_size(set_ops.set_difference(predictions_idx, labels, aminusb=True))
        return _weighted(fp, weights)


def _streaming_count(kind, count_fn, labels, predictions_idx, k, class_id, weights):
    """(local float64 variable, its assign_add of this batch's total) for one count."""
    with name_scope(None, _at_k_name(kind, k, class_id=class_id),
                    (predictions_idx, labels, weights)) as scope:
        counts = count_fn(labels=labels, predictions_idx=predictions_idx, class_id=class_id,
                          weights=weights)
        batch_total = math_ops.cast(reduction_ops.reduce_sum(counts), dtypes.float64)
        var = metric_variable([], dtypes.float64, name=scope)
        return var, state_ops.assign_add(var, batch_total, name="update")


def _ratio_at_top_k(kind, other_kind, other_fn, labels, predictions_idx, k, class_id,
                    weights, metrics_collections, updates_collections, name):
    with name_scope(name, _at_k_name(kind, k, class_id=class_id),
                    (predictions_idx, labels, weights)) as scope:
        labels = _maybe_expand_labels(labels, predictions_idx)
        top_k_idx = math_ops.cast(predictions_idx, dtypes.int64)
        tp, tp_update = _streaming_count("true_positive", _sparse_true_positive_at_k, labels,
                                         top_k_idx, k, class_id, weights)
        other, other_update = _streaming_count(other_kind, other_fn, labels, top_k_idx, k,
                                               class_id, weights)
        metric = _collect(metrics_collections,
                          math_ops.div(tp, math_ops.add(tp, other), name=scope))
        update = math_ops.div(tp_update, math_ops.add(tp_update, other_update), name="update")
        return metric, _collect(updates_collections, update)


def recall_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None,
                    metrics_collections=None, updates_collections=None, name=None):
    """Computes recall@k of top-k predicted class ids with respect to sparse labels.

    As `recall_at_k`, with `predictions_idx` the [D1, ... DN, k] top class ids instead of
    logits (`k` only names the ops).

    Returns:
      recall: scalar float64 true_positives / (true_positives + false_negatives).
      update_op: the op that adds this batch's counts and gives the updated recall.
    """
    return _ratio_at_top_k("recall", "false_negative", _sparse_false_negative_at_k, labels,
                           predictions_idx, k, class_id, weights, metrics_collections,
                           updates_collections, name)


def recall_at_k(labels, predictions, k, class_id=None, weights=None, metrics_collections=None,
                updates_collections=None, name=None):
    """Computes recall@k of the predictions with respect to sparse labels.

    With `class_id`, recall over the rows whose labels hold `class_id`: the fraction of them
    with `class_id` among the top-k `predictions`. Without, how often on average a label of
    a row is among its top-k predictions. Labels outside [0, num_classes) count as false
    negatives.

    Args:
      labels: `int64` Tensor or SparseTensor [D1, ... DN, num_labels] or [D1, ... DN].
      predictions: float Tensor [D1, ... DN, num_classes] of logits.
      k: the number of top predictions.
      class_id: the class for binary recall (NaN when outside [0, num_classes)).
      weights: None, a scalar, or a Tensor broadcastable to [D1, ... DN].
      metrics_collections: collections to add the recall to.
      updates_collections: collections to add the update op to.
      name: the name scope.

    Returns:
      recall: scalar float64 true_positives / (true_positives + false_negatives).
      update_op: the op that adds this batch's counts and gives the updated recall.

    Raises:
      ValueError: if `weights` cannot be broadcast to the per-row counts.
    """
    from flowloom.ops.math.reduction_ops import top_k

    with name_scope(name, _at_k_name("recall", k, class_id=class_id),
                    (predictions, labels, weights)) as scope:
        _, top_k_idx = top_k(predictions, k)
        return recall_at_top_k(labels=labels, predictions_idx=top_k_idx, k=k,
                               class_id=class_id, weights=weights,
                               metrics_collections=metrics_collections,
                               updates_collections=updates_collections, name=scope)


def precision_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None,
                       metrics_collections=None, updates_collections=None, name=None):
    """Computes precision@k of top-k predicted class ids with respect to sparse labels.

    As `precision_at_k`, with `predictions_idx` the [D1, ... DN, k] top class ids instead of
    logits (`k` only names the ops).

    Returns:
      precision: scalar float64 true_positives / (true_positives + false_positives).
      update_op: the op that adds this batch's counts and gives the updated precision.
    """
    return _ratio_at_top_k("precision", "false_positive", _sparse_false_positive_at_k, labels,
                           predictions_idx, k, class_id, weights, metrics_collections,
                           updates_collections, name)


def precision_at_k(labels, predictions, k, class_id=None, weights=None,
                   metrics_collections=None, updates_collections=None, name=None):
    """Computes precision@k of the predictions with respect to sparse labels.

    With `class_id`, precision over the rows whose top-k predictions hold `class_id`: the
    fraction of them whose labels hold it. Without, how often on average a top-k predicted
    class of a row is among its labels.

    Args:
      labels: `int64` Tensor or SparseTensor [D1, ... DN, num_labels] or [D1, ... DN].
      predictions: float Tensor [D1, ... DN, num_classes] of logits.
      k: the number of top predictions.
      class_id: the class for binary precision (NaN when no row predicts it).
      weights: None, a scalar, or a Tensor broadcastable to [D1, ... DN].
      metrics_collections: collections to add the precision to.
      updates_collections: collections to add the update op to.
      name: the name scope.

    Returns:
      precision: scalar float64 true_positives / (true_positives + false_positives).
      update_op: the op that adds this batch's counts and gives the updated precision.

    Raises:
      ValueError: if `weights` cannot be broadcast to the per-row counts.
    """
    from flowloom.ops.math.reduction_ops import top_k

    with name_scope(name, _at_k_name("precision", k, class_id=class_id),
                    (predictions, labels, weights)) as scope:
        _, top_k_idx = top_k(predictions, k)
        return precision_at_top_k(labels=labels, predictions_idx=top_k_idx, k=k,
                                  class_id=class_id, weights=weights,
                                  metrics_collections=metrics_collections,
                                  updates_collections=updates_collections, name=scope)


def sparse_precision_at_k(labels, predictions, k, class_id=None, weights=None,
                          metrics_collections=None, updates_collections=None, name=None):
    """The deprecated name of `precision_at_k`."""
    return precision_at_k(labels=labels, predictions=predictions, k=k, class_id=class_id,
                          weights=weights, metrics_collections=metrics_collections,
                          updates_collections=updates_collections, name=name)


def _expand_and_tile(tensor, multiple, dim=0, name=None):
    """`tensor` with a new dimension before `dim` holding `multiple` copies of it."""
    if multiple < 1:
        raise ValueError(f"Invalid multiple {multiple}, must be > 0.")
    with name_scope(name, "expand_and_tile", (tensor, multiple, dim)) as scope:
        tensor = convert_to_tensor_or_sparse_tensor(tensor)
        if isinstance(tensor, SparseTensor):
            if dim < 0:
                expand_dims = array_ops.reshape(array_ops.size(tensor.dense_shape) + dim, [1])
            else:
                expand_dims = [dim]
            expanded_shape = array_ops.concat(
                (array_ops.slice(tensor.dense_shape, [0], expand_dims), [1],
                 array_ops.slice(tensor.dense_shape, expand_dims, [-1])), 0,
                name="expanded_shape")
            expanded = sparse_reshape(tensor, shape=expanded_shape, name="expand")
            if multiple == 1:
                return expanded
            return sparse_concat(dim - 1 if dim < 0 else dim, [expanded] * multiple, name=scope)
        expanded = array_ops.expand_dims(tensor, dim if dim >= 0 else dim - 1, name="expand")
        if multiple == 1:
            return expanded
        ones = array_ops.ones_like(array_ops.shape(tensor))
        tile_multiples = array_ops.concat((ones[:dim], (multiple,), ones[dim:]), 0,
                                          name="multiples")
        return array_ops.tile(expanded, tile_multiples, name=scope)


def _num_relevant(labels, k):
    """min(number of labels, k) per row (dense labels count their ids >= 0)."""
    if k < 1:
        raise ValueError(f"Invalid k={k}.")
    with name_scope(None, "num_relevant", (labels,)) as scope:
        labels = convert_to_tensor_or_sparse_tensor(labels)
        if isinstance(labels, SparseTensor):
            return math_ops.minimum(set_ops.set_size(labels), k, name=scope)
        num_labels = reduction_ops.reduce_sum(
            where_v2(math_ops.greater_equal(labels, 0), array_ops.ones_like(labels),
                     array_ops.zeros_like(labels)), axis=-1)
        return math_ops.minimum(num_labels, k, name=scope)


def _sparse_average_precision_at_top_k(labels, predictions_idx):
    """Average precision per row: sum over i <= k of precision@i * rel_i / num_relevant."""
    with name_scope(None, "average_precision", (predictions_idx, labels)) as scope:
        predictions_idx = math_ops.cast(predictions_idx, dtypes.int64, name="predictions_idx")
        if predictions_idx.get_shape().ndims == 0:
            raise ValueError("The rank of predictions_idx must be at least 1.")
        k = predictions_idx.get_shape().as_list()[-1]
        if k is None:
            raise ValueError("The last dimension of predictions_idx must be set.")
        labels = _maybe_expand_labels(labels, predictions_idx)
        predictions_idx_per_k = array_ops.expand_dims(predictions_idx, -1,
                                                      name="predictions_idx_per_k")
        labels_per_k = _expand_and_tile(labels, multiple=k, dim=-1, name="labels_per_k")
        relevant_per_k = _sparse_true_positive_at_k(labels_per_k, predictions_idx_per_k,
                                                    name="relevant_per_k")
        tp_per_k = cumsum(relevant_per_k, axis=-1, name="tp_per_k")
        retrieved_per_k = cumsum(array_ops.ones_like(relevant_per_k), axis=-1,
                                 name="retrieved_per_k")
        precision_per_k = math_ops.div(math_ops.cast(tp_per_k, dtypes.float64),
                                       math_ops.cast(retrieved_per_k, dtypes.float64),
                                       name="precision_per_k")
        relevant_precision_per_k = math_ops.multiply(
            precision_per_k, math_ops.cast(relevant_per_k, dtypes.float64),
            name="relevant_precision_per_k")
        precision_sum = reduction_ops.reduce_sum(relevant_precision_per_k, axis=(-1,),
                                                 name="precision_sum")
        num_relevant_items = math_ops.cast(_num_relevant(labels, k), dtypes.float64)
        return math_ops.div(precision_sum, num_relevant_items, name=scope)


def _safe_scalar_div(numerator, denominator, name):
    numerator.get_shape().with_rank_at_most(1)
    denominator.get_shape().with_rank_at_most(1)
    return math_ops.div_no_nan(numerator, denominator, name=name)


def _streaming_sparse_average_precision_at_top_k(labels, predictions_idx, weights=None,
                                                 metrics_collections=None,
                                                 updates_collections=None, name=None):
    with name_scope(name, "average_precision_at_top_k",
                    (predictions_idx, labels, weights)) as scope:
        average_precision = _sparse_average_precision_at_top_k(
            predictions_idx=predictions_idx, labels=labels)
        if weights is not None:
            weights = weights_util.broadcast_weights(math_ops.cast(weights, dtypes.float64),
                                                     average_precision)
            average_precision = math_ops.multiply(average_precision, weights)
        with name_scope(None, "max", (average_precision,)) as max_scope:
            max_var = metric_variable([], dtypes.float64, name=max_scope)
            if weights is None:
                batch_max = math_ops.cast(array_ops.size(average_precision, name="batch_max"),
                                          dtypes.float64)
            else:
                batch_max = reduction_ops.reduce_sum(weights, name="batch_max")
            max_update = state_ops.assign_add(max_var, batch_max, name="update")
        with name_scope(None, "total", (average_precision,)) as total_scope:
            total_var = metric_variable([], dtypes.float64, name=total_scope)
            batch_total = reduction_ops.reduce_sum(average_precision, name="batch_total")
            total_update = state_ops.assign_add(total_var, batch_total, name="update")
        mean_average_precision = _collect(metrics_collections,
                                          _safe_scalar_div(total_var, max_var, name="mean"))
        update = _safe_scalar_div(total_update, max_update, name=scope)
        return mean_average_precision, _collect(updates_collections, update)


def _clean_out_of_range_indices(labels, num_classes):
    """`labels` with the ids >= num_classes replaced by -1 (only when there are any)."""
    is_sparse = isinstance(labels, (SparseTensor, SparseTensorValue))

    def clean(values):
        return where_v2(math_ops.greater_equal(values, num_classes),
                        -1 * array_ops.ones_like(values), values)

    def clean_labels():
        if is_sparse:
            return type(labels)(indices=labels.indices, values=clean(labels.values),
                                dense_shape=labels.dense_shape)
        return clean(labels)

    max_labels = reduction_ops.reduce_max(labels.values if is_sparse else labels)
    return cond(math_ops.greater_equal(max_labels, num_classes), clean_labels, lambda: labels)


def average_precision_at_k(labels, predictions, k, weights=None, metrics_collections=None,
                           updates_collections=None, name=None):
    """Computes average precision@k of the predictions with respect to sparse labels.

    The mean over rows (weighted) of sum_{i=1..k} precision@i * rel_i / min(k, num_labels),
    streamed in the local variables `average_precision_at_<k>/total` and `.../max`. Labels
    outside [0, num_classes) are ignored.

    Args:
      labels: `int64` Tensor or SparseTensor [D1, ... DN, num_labels] or [D1, ... DN].
      predictions: float Tensor [D1, ... DN, num_classes] of logits.
      k: the number of top predictions.
      weights: None, a scalar, or a Tensor broadcastable to [D1, ... DN].
      metrics_collections: collections to add the value to.
      updates_collections: collections to add the update op to.
      name: the name scope.

    Returns:
      mean_average_precision: scalar float64.
      update: the op that adds this batch and gives the updated value.

    Raises:
      ValueError: if k < 1.
    """
    from flowloom.ops.math.reduction_ops import top_k

    if k < 1:
        raise ValueError(f"Invalid k={k}.")
    with name_scope(name, _at_k_name("average_precision", k),
                    (predictions, labels, weights)) as scope:
        _, predictions_idx = top_k(predictions, k)
        labels = _clean_out_of_range_indices(
            labels, math_ops.cast(array_ops.shape(predictions)[-1], dtypes.int64))
        return _streaming_sparse_average_precision_at_top_k(
            labels=labels, predictions_idx=predictions_idx, weights=weights,
            metrics_collections=metrics_collections, updates_collections=updates_collections,
            name=scope)


def sparse_average_precision_at_k(labels, predictions, k, weights=None,
                                  metrics_collections=None, updates_collections=None,
                                  name=None):
    """The deprecated name of `average_precision_at_k`."""
    return average_precision_at_k(labels=labels, predictions=predictions, k=k, weights=weights,
                                  metrics_collections=metrics_collections,
                                  updates_collections=updates_collections, name=name)
