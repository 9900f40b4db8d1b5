"""`tf.ConditionalAccumulator` and `tf.SparseConditionalAccumulator` (ops in
flowloom/ops/data/accumulator_ops.py), with TF 1.15's op types and names."""

import collections

from flowloom.framework import dtypes as dtypes_lib
from flowloom.framework import tensor_shape
from flowloom.framework.apply_op import apply_op
from flowloom.framework.indexed_slices import IndexedSlices
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.math import math_ops
import flowloom.ops.data.accumulator_ops  # noqa: F401 - registers the accumulator op types


_SparseTake = collections.namedtuple("SparseAccumulatorTakeGradient",
                                     ["indices", "values", "shape"])


def _int64(value):
    return math_ops.cast(convert_to_tensor(value), dtypes_lib.int64)


class ConditionalAccumulatorBase:
    """A conditional accumulator for aggregating gradients.

    Up-to-date gradients (their time step equals the accumulator's) are added to it;
    extraction of the average gradient blocks until the required number of gradients has
    been accumulated.

    Args:
      dtype: the type of the accumulated gradients.
      shape: their shape (None: unknown).
      accumulator_ref: the handle of the accumulator, made by a subclass.
    """

    _prefix = "Resource"

    def __init__(self, dtype, shape, accumulator_ref):
        self._dtype = dtypes_lib.as_dtype(dtype)
        self._shape = (tensor_shape.TensorShape(shape) if shape is not None
                       else tensor_shape.unknown_shape())
        self._accumulator_ref = accumulator_ref
        self._name = accumulator_ref.op.name.split("/")[-1]

    @property
    def accumulator_ref(self):
        """The handle of the accumulator."""
        return self._accumulator_ref

    @property
    def name(self):
        """The name of the accumulator (its op's last name component)."""
        return self._name

    @property
    def dtype(self):
        """The type of the accumulated gradients."""
        return self._dtype

    def num_accumulated(self, name=None):
        """Returns an int32 tensor: the number of gradients accumulated so far."""
        if name is None:
            name = "%s_NumAccumulated" % self._name
        return apply_op(self._prefix + "AccumulatorNumAccumulated", (self._accumulator_ref,),
                        name=name).outputs[0]

    def set_global_step(self, new_global_step, name=None):
        """Returns the op that sets the accumulator's time step to `new_global_step` (a
        warning is logged when it is lower than the current one)."""
        return apply_op(self._prefix + "AccumulatorSetGlobalStep",
                        (self._accumulator_ref, _int64(new_global_step)), name=name)


class ConditionalAccumulator(ConditionalAccumulatorBase):
    """A conditional accumulator for aggregating dense gradients.

    ```python
    acc = tf.ConditionalAccumulator(tf.float32, shape=[2])
    apply = acc.apply_grad([1.0, 2.0], local_step=0)
    average = acc.take_grad(1)   # blocks until one gradient is in
    ```

    Args:
      dtype: the type of the accumulated gradients.
      shape: their shape.
      shared_name: if not empty, the accumulator is shared under this name across
        sessions (and graphs).
      name: the name of the accumulator op.
      reduction_type: "MEAN" (the default) or "SUM".
    """

    def __init__(self, dtype, shape=None, shared_name=None, name="conditional_accumulator",
                 reduction_type="MEAN"):
        ref = apply_op("ResourceConditionalAccumulator", (), name=name,
                       dtype=dtypes_lib.as_dtype(dtype), shape=tensor_shape.as_shape(shape),
                       shared_name=shared_name or "", reduction_type=reduction_type).outputs[0]
        super().__init__(dtype, shape, ref)

    def apply_grad(self, grad, local_step=0, name=None):
        """Returns the op that adds `grad` unless it is stale (`local_step` lower than the
        accumulator's time step: then it is dropped silently).

        Raises:
          ValueError: `grad`'s shape is incompatible with the accumulator's.
        """
        grad = convert_to_tensor(grad, self._dtype)
        grad.get_shape().assert_is_compatible_with(self._shape)
        return apply_op("ResourceAccumulatorApplyGradient",
                        (self._accumulator_ref, _int64(local_step), grad), name=name)

    def take_grad(self, num_required, name=None):
        """Returns the average (or sum) of the gradients once `num_required` are in; taking
        resets the accumulator and increments its time step.

        Raises (at run time):
          InvalidArgumentError: `num_required` < 1.
        """
        out = apply_op("ResourceAccumulatorTakeGradient", (self._accumulator_ref,
                                                           num_required),
                       name=name, dtype=self._dtype).outputs[0]
        out.set_shape(self._shape)
        return out


class SparseConditionalAccumulator(ConditionalAccumulatorBase):
    """A conditional accumulator for aggregating sparse gradients (`IndexedSlices`).

    The mean is taken per row: each index is divided by the number of gradients that had it.

    Args:
      dtype: the type of the accumulated gradients.
      shape: the shape of the dense gradient.
      shared_name: if not empty, the accumulator is shared under this name.
      name: the name of the accumulator op.
      reduction_type: "MEAN" (the default) or "SUM".
    """

    _prefix = ""

    def __init__(self, dtype, shape=None, shared_name=None,
                 name="sparse_conditional_accumulator", reduction_type="MEAN"):
        ref = apply_op("SparseConditionalAccumulator", (), name=name,
                       dtype=dtypes_lib.as_dtype(dtype), shape=tensor_shape.as_shape(shape),
                       shared_name=shared_name or "", reduction_type=reduction_type).outputs[0]
        super().__init__(dtype, shape, ref)

    def apply_indexed_slices_grad(self, grad, local_step=0, name=None):
        """`apply_grad` of an `IndexedSlices` gradient."""
        return self.apply_grad(grad_indices=grad.indices, grad_values=grad.values,
                               grad_shape=grad.dense_shape, local_step=local_step, name=name)

    def apply_grad(self, grad_indices, grad_values, grad_shape=None, local_step=0, name=None):
        """Returns the op that adds the sparse gradient (indices, values[, dense shape])
        unless it is stale."""
        return apply_op(
            "SparseAccumulatorApplyGradient",
            (self._accumulator_ref, _int64(local_step),
             math_ops.cast(grad_indices, dtypes_lib.int64),
             convert_to_tensor(grad_values, self._dtype),
             math_ops.cast([] if grad_shape is None else grad_shape, dtypes_lib.int64)),
            name=name, has_known_shape=grad_shape is not None)

    def take_grad(self, num_required, name=None):
        """Returns (indices, values, shape) of the average once `num_required` are in."""
        return _SparseTake(*apply_op("SparseAccumulatorTakeGradient",
                                     (self._accumulator_ref, num_required), name=name,
                                     dtype=self._dtype).outputs)

    def take_indexed_slices_grad(self, num_required, name=None):
        """`take_grad` as an `IndexedSlices`."""
        indices, values, shape = self.take_grad(num_required, name=name)
        return IndexedSlices(indices=indices, values=values, dense_shape=shape)
