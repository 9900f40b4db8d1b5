"""Temporary variables: a ref tensor that lives for one step (TemporaryVariable), destroyed
by DestroyTemporaryVariable, which returns its value.

A TemporaryVariable op makes a fresh buffer each run and keeps it in the run's step container
(runtime/step_container.py) under `var_name` (the op's name when empty): Assign and AssignAdd
update it as a variable; DestroyTemporaryVariable with the same `var_name` removes it and
outputs its value. A second TemporaryVariable of the same name in one run is
AlreadyExistsError; destroying a name the run does not hold is NotFoundError; whatever is left
is dropped when the run ends. As TF, the new buffer is allocated, not initialised: reading it
before an assignment is allowed (TF gives whatever the memory held; flowloom gives zeros, or
empty strings).

Example:
    var = gen_state_ops.temporary_variable([1, 2], tf.float32, var_name="acc")
    var = tf.assign_add(tf.assign(var, [[4., 5.]]), [[6., 7.]])
    final = gen_state_ops.destroy_temporary_variable(var, var_name="acc")  # [[10., 12.]]

Not implemented: TF suffixes the name with the frame and iteration inside a while_loop, so
each iteration has its own; flowloom's kernels do not see their iteration, so a temporary
variable created in a loop body must be destroyed in the same iteration.
"""

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework import errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.framework.tensor_shape import TensorShape, as_shape
from flowloom.runtime import step_container
from flowloom.runtime.executor import Ref

# The type name TF's resource manager files a temporary variable under (in its messages).
_TMP_VAR_TYPE = "N10tensorflow19TemporaryVariableOp6TmpVarE"

TemporaryVariable = defop("TemporaryVariable", outputs=["ref: Ref(dtype)"],
                          attrs={"shape": None, "dtype": None, "var_name": ""}, stateful=True)
TemporaryVariable.shape(lambda op: op._attrs["shape"])


@TemporaryVariable.kernel
def _(xp, *, shape, dtype, var_name, ctx):
    shape = as_shape(shape)
    if shape.ndims is not None and not shape.is_fully_defined():
        raise errors.InvalidArgumentError(None, None, f"Shape {_shape_str(shape)} is not fully "
                                          "defined")
    dims = tuple(shape.as_list()) if shape.ndims is not None else ()  # unknown rank: scalar
    dtype = dtypes.as_dtype(dtype).base_dtype
    ref = Ref(ctx.op._name)
    ref.value = (np.full(dims, b"", dtype=object) if dtype == dtypes.string
                 else xp.zeros(dims, dtype=dtype.as_numpy_dtype))
    step_container.current().create(var_name or ctx.op._name, _TMP_VAR_TYPE, ref)
    return ref


DestroyTemporaryVariable = defop("DestroyTemporaryVariable", inputs=["ref: Ref(T)"],
                                 outputs=["value: T"], attrs={"var_name": None}, stateful=True)
DestroyTemporaryVariable.shape(lambda op: op._inputs[0]._shape)


@DestroyTemporaryVariable.kernel
def _(xp, ref, *, var_name, ctx):
    if not var_name:
        raise errors.InvalidArgumentError(None, None, "Missing var_name attribute")
    # The value is the input buffer, whatever the name names (as TF's kernel).
    value = ref.value
    step_container.current().delete(var_name, _TMP_VAR_TYPE)
    return value


def _shape_str(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def temporary_variable(shape, dtype, var_name="", name=None):
    """A ref tensor that lives for one step (TF's `gen_state_ops.temporary_variable`).

    Args:
      shape: the shape of the buffer (fully defined when it runs; unknown rank: a scalar).
      dtype: its element type.
      var_name: the name it is kept under for the step (default: the op's name); pass the
        same to `destroy_temporary_variable`.
      name: the op's name.

    Returns:
      A ref `Tensor` that Assign, AssignAdd and AssignSub update.
    """
    return apply_op("TemporaryVariable", (), name=name, shape=TensorShape(None)
                    if shape is None else as_shape(shape),
                    dtype=dtypes.as_dtype(dtype).base_dtype, var_name=var_name).outputs[0]


def destroy_temporary_variable(ref, var_name, name=None):
    """Ends the temporary variable `var_name` of this step and returns its value.

    Args:
      ref: the temporary variable's ref tensor (after the updates it should see: order them
        with data or control dependencies).
      var_name: the name it was created under.
      name: the op's name.

    Returns:
      A `Tensor` with the variable's value.

    Raises:
      TypeError: `ref` is not a ref tensor.
      NotFoundError (at run time): the step holds no temporary variable `var_name`.
    """
    return apply_op("DestroyTemporaryVariable", (ref,), name=name,
                    var_name=var_name).outputs[0]
