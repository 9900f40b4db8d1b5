"""TF 1.15's `tensorflow.python.framework.constant_op`: the module-level `constant` (TF 2.x's
broadcasting rule, which TF 1.15's own library code and tests call), `constant_v1` (the
public `tf.constant` of TF 1.x: fewer values than the shape repeat the last one), and the
conversions of TensorShape and Dimension to int32/int64 tensors.
"""

import numpy as np

from flowloom.framework import dtypes, tensor_shape
from flowloom.framework.tensor_conversion import (infer_dtype, register_tensor_conversion_function,
                                                  tensor_value_to_numpy)
from flowloom.ops.array.array_ops import constant as constant_v1


def constant(value, dtype=None, shape=None, name="Const"):
    """Creates a constant tensor (TF 1.15's `constant_op.constant`).

    Args:
      value: a scalar, (nested) list or NumPy array.
      dtype: the element type; inferred when None.
      shape: optional shape: a one-element value is broadcast to it, any other value must
        have exactly as many elements (it is reshaped).
      name: the op's name.

    Returns:
      A `Tensor` of op type `Const`.

    Raises:
      TypeError: `value` has another number of elements than `shape` (TF's "Expected
        Tensor's shape").
    """
    if shape is not None and value is not None:
        dt = dtypes.as_dtype(dtype).base_dtype if dtype is not None else infer_dtype(value)
        array = tensor_value_to_numpy(value, dt)
        want = tuple(tensor_shape.as_shape(shape).as_list())
        if array.shape not in ((1,), ()) and array.size != int(np.prod(want, dtype=np.int64)):
            raise TypeError(f"Expected Tensor's shape: {want}, got {array.shape}.")
        return constant_v1(array, dtype=dt, shape=shape, name=name)
    return constant_v1(value, dtype=dtype, shape=shape, name=name)


def _shape_dtype(dtype, large):
    if dtype is None:
        return dtypes.int64 if large else dtypes.int32
    dtype = dtypes.as_dtype(dtype)
    if dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"Cannot convert a TensorShape to dtype: {dtype}")
    if dtype == dtypes.int32 and large:
        raise ValueError("Cannot convert a TensorShape to dtype int32; a dimension is too "
                         f"large ({large})")
    return dtype


def _tensor_shape_to_tensor(s, dtype=None, name=None, as_ref=False):
    del as_ref
    if not s.is_fully_defined():
        raise ValueError(f"Cannot convert a partially known TensorShape to a Tensor: {s}")
    dims = s.as_list()
    large = next((d for d in dims if d >= 2**31), 0)
    return constant_v1(dims, dtype=_shape_dtype(dtype, large), name=name or "shape_as_tensor")


def _dimension_to_tensor(d, dtype=None, name=None, as_ref=False):
    del as_ref
    if d.value is None:
        raise ValueError(f"Cannot convert an unknown Dimension to a Tensor: {d}")
    dtype = _shape_dtype(dtype, 0) if dtype is not None else dtypes.int32
    return constant_v1(d.value, dtype=dtype, name=name or "shape_as_tensor")


register_tensor_conversion_function(tensor_shape.TensorShape, _tensor_shape_to_tensor, 100)
register_tensor_conversion_function(tensor_shape.Dimension, _dimension_to_tensor, 100)
