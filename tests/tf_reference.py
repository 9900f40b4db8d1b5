"""Where the tests find a real TensorFlow to compare against (never a dependency).

Only the environment names it: FLOWLOOM_TF_PYTHON is a Python that imports TensorFlow 2.x
(`tensorflow.compat.v1`), FLOWLOOM_TF1_PYTHON one with TensorFlow 1.15. Unset (or pointing
at nothing): the tests that need it skip, saying which variable to set.
"""

import os


def tensorflow_python(variable="FLOWLOOM_TF_PYTHON"):
    """The reference interpreter named by `variable`, or None."""
    candidate = os.environ.get(variable)
    return candidate if candidate and os.path.exists(candidate) else None


def skip_reason(variable="FLOWLOOM_TF_PYTHON"):
    value = os.environ.get(variable)
    if not value:
        return f"{variable} is not set (a Python with TensorFlow to compare against)"
    return f"{variable}={value} does not exist"


def as_tf2_op_type(op_type):
    """The op type TF 2.21 records for one flowloom builds: TF 2.21's `math_ops.add` (tf.add,
    and every library function that adds: initializers, RNN cells, gradients) builds AddV2,
    TF 1.15's and flowloom's build Add (`+` is AddV2 in both). Comparisons with TF 2.21
    records map flowloom's Add through this."""
    return "AddV2" if op_type == "Add" else op_type
