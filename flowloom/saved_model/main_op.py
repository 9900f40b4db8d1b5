"""The ops a SavedModel runs after restoring (TF's `tf.saved_model.main_op`)."""

from flowloom.framework.graph import GraphKeys, control_dependencies, get_collection
from flowloom.ops.control_flow.control_flow_ops import group


def main_op():
    """One op that initializes the local variables and tables (and the global variables).

    Returns:
      A grouped Operation, to pass as `main_op=` to the SavedModel builder.
    """
    from flowloom.variables import global_variables_initializer, local_variables_initializer

    tables = get_collection(GraphKeys.TABLE_INITIALIZERS)
    return group(global_variables_initializer(), local_variables_initializer(),
                 group(*tables) if tables else group())


def main_op_with_restore(restore_op_name):
    """`main_op()`, then the restore op named `restore_op_name`."""
    with control_dependencies([main_op()]):
        return group(restore_op_name)
