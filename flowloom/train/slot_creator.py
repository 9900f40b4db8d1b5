"""TF's slot_creator module: the variables optimizers keep per trained variable ("slots"),
named `<primary>/<name>` and colocated with their primary (flowloom/train/optimizer.py
creates them)."""

from flowloom.framework import dtypes as dtypes_lib
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_shape import as_shape
from flowloom.ops.array import array_ops
from flowloom.train import optimizer as _optimizer


def create_slot(primary, val, name, colocate_with_primary=True):
    """A slot for `primary` (a Variable or Tensor) whose initial value is the tensor `val`."""
    val = convert_to_tensor(val)
    return _optimizer.create_slot(primary, val, name, val.get_shape(), val.dtype.base_dtype,
                                  colocate_with_primary)


def create_slot_with_initializer(primary, initializer, shape, dtype, name,
                                 colocate_with_primary=True):
    """A slot for `primary` of `shape` and `dtype` filled by `initializer`."""
    return _optimizer.create_slot(primary, initializer, name, as_shape(shape),
                                  dtypes_lib.as_dtype(dtype), colocate_with_primary)


def create_zeros_slot(primary, name, dtype=None, colocate_with_primary=True):
    """A slot for `primary` filled with zeros (of `dtype`, default the primary's)."""
    from flowloom.ops.state import init_ops
    from flowloom.variables import Variable

    dtype = primary.dtype.base_dtype if dtype is None else dtypes_lib.as_dtype(dtype)
    shape = primary.get_shape()
    if shape.is_fully_defined():
        return create_slot_with_initializer(primary, init_ops.zeros_initializer(), shape,
                                            dtype, name, colocate_with_primary)
    source = primary.initialized_value() if isinstance(primary, Variable) else primary
    return create_slot(primary, array_ops.zeros(array_ops.shape(source), dtype=dtype), name,
                       colocate_with_primary)
