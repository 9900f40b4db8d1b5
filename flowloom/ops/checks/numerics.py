"""`tf.add_check_numerics_ops`: a CheckNumerics op on every float tensor of the graph."""

from flowloom.framework import dtypes
from flowloom.framework.graph import control_dependencies, get_default_graph


def add_check_numerics_ops():
    """Connects a `check_numerics` to every floating point tensor of the default graph.

    The checks run one after another (each under a control dependency on the previous), so
    the first tensor holding a NaN or Inf names itself in the error.

    Returns:
      A `group` op that depends on all the checks.

    Raises:
      ValueError: if the graph holds control-flow ops (cond, while_loop), as in TF.
    """
    from flowloom.ops.checks.logging_ops import check_numerics
    from flowloom.ops.control_flow.control_flow_ops import group

    check_op = []
    for op in get_default_graph().get_operations():
        for output in op.outputs:
            if output.dtype in (dtypes.float16, dtypes.float32, dtypes.float64):
                if op._get_control_flow_context() is not None:
                    raise ValueError(
                        "`tf.add_check_numerics_ops() is not compatible with TensorFlow "
                        "control flow operations such as `tf.cond()` or `tf.while_loop()`.")
                message = op.name + ":" + str(output.value_index)
                with control_dependencies(check_op):
                    check_op = [check_numerics(output, message=message)]
    return group(*check_op)
