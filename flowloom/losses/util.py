"""Loss collections and weight broadcasting for tf.losses."""

from flowloom.framework import errors as _errors  # noqa: F401 - documented error classes
from flowloom.framework.graph import GraphKeys, add_to_collection, get_collection, name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.array import array_ops
from flowloom.ops.control_flow import control_flow_ops
from flowloom.ops.math import math_ops, reduction_ops


def add_loss(loss, loss_collection=GraphKeys.LOSSES):
    """Adds `loss` to `loss_collection` (nothing when the collection is None)."""
    if loss_collection:
        add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=GraphKeys.LOSSES):
    """The losses in `loss_collection`, filtered by `scope`."""
    return get_collection(loss_collection, scope)


def get_regularization_losses(scope=None):
    """The losses in GraphKeys.REGULARIZATION_LOSSES."""
    return get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    """The sum of the regularization losses (a 0.0 constant when there are none)."""
    losses = get_regularization_losses(scope)
    if losses:
        return math_ops.add_n(losses, name=name)
    return array_ops.constant(0.0)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    """The sum of the losses (and by default the regularization losses).

    Raises:
      ValueError: when there are no losses.
    """
    losses = get_losses(scope=scope)
    if add_regularization_losses:
        losses += get_regularization_losses(scope=scope)
    return math_ops.add_n(losses, name=name)


_ASSERT_BROADCASTABLE_ERROR_PREFIX = "weights can not be broadcast to values."


def assert_broadcastable(weights, values):
    """An op that checks `weights` can be broadcast to `values` (TF's rules for loss weights).

    Weights broadcast when they are a scalar, or have the rank of `values` with each
    dimension 1 or equal to that of `values`. Checked now when the static shapes tell;
    otherwise an Assert checks the run-time shapes (as TF's does).

    Raises:
      ValueError: when the static shapes show the weights cannot be broadcast.
    """
    with name_scope(None, "assert_broadcastable", (weights, values)) as scope:
        # As TF: the shapes and ranks are made first (static shapes make them Consts); they
        # count in TF 1.15's default op seeds.
        weights = convert_to_tensor(weights, name="weights")
        weights_shape = array_ops.shape(weights, name="weights/shape")
        weights_rank = array_ops.rank(weights, name="weights/rank")
        values = convert_to_tensor(values, name="values")
        values_shape = array_ops.shape(values, name="values/shape")
        values_rank = array_ops.rank(values, name="values/rank")
        ws, vs = weights._shape, values._shape
        if ws.ndims is not None and vs.ndims is not None:
            if ws.ndims == 0:
                return control_flow_ops.no_op(name="static_scalar_check_success")
            if ws.ndims != vs.ndims:
                raise ValueError(
                    f"{_ASSERT_BROADCASTABLE_ERROR_PREFIX} values.rank={vs.ndims}. "
                    f"weights.rank={ws.ndims}. values.shape={vs}. weights.shape={ws}.")
            if ws.is_fully_defined() and vs.is_fully_defined():
                for w, v in zip(ws.as_list(), vs.as_list()):
                    if w not in (1, v):
                        raise ValueError(f"{_ASSERT_BROADCASTABLE_ERROR_PREFIX} "
                                         f"values.shape={vs}. weights.shape={ws}.")
                return control_flow_ops.no_op(name="static_dims_check_success")
        from flowloom.ops.checks.logging_ops import Assert_
        from flowloom.ops.control_flow.cond import cond

        is_scalar = math_ops.equal(0, weights_rank, name="is_scalar")

        def valid_dims():
            return reduction_ops.reduce_all(math_ops.logical_or(
                math_ops.equal(weights_shape, values_shape), math_ops.equal(weights_shape, 1)))

        def valid_nonscalar():
            same_rank = math_ops.equal(values_rank, weights_rank, name="is_same_rank")
            return cond(same_rank, valid_dims, lambda: same_rank)

        is_valid = cond(is_scalar, lambda: is_scalar, valid_nonscalar, name="is_valid_shape")
        data = (_ASSERT_BROADCASTABLE_ERROR_PREFIX, "weights.shape=", weights.name,
                weights_shape, "values.shape=", values.name, values_shape, "is_scalar=",
                is_scalar)
        return Assert_(is_valid, data, name=scope)


def broadcast_weights(weights, values):
    """`weights` broadcast to the shape of `values` (weights * ones_like(values))."""
    with name_scope(None, "broadcast_weights", (weights, values)) as scope:
        values = convert_to_tensor(values, name="values")
        weights = convert_to_tensor(weights, name="weights")
        if weights._shape.is_fully_defined() and values._shape.is_fully_defined() and \
                weights._shape.is_compatible_with(values._shape):
            return weights
        with _deps(assert_broadcastable(weights, values)):
            return math_ops.multiply(weights, array_ops.ones_like(values), name=scope)


def _deps(op):
    from flowloom.framework.graph import control_dependencies

    return control_dependencies((op,))
