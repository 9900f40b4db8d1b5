"""TF1's internal module paths, the compat.v1 alias, a missing module, an error's exit status."""
import sys

import tensorflow as tf
import tensorflow.compat.v1 as tf_v1
from tensorflow.python.framework import ops, dtypes, constant_op, tensor_shape
from tensorflow.python.ops import array_ops, math_ops, nn_ops, init_ops, variable_scope
from tensorflow.python.ops import rnn, rnn_cell_impl, control_flow_ops, state_ops, variables  # noqa: F401,E501
from tensorflow.python.platform import gfile, tf_logging  # noqa: F401
from tensorflow.python.client import session
from tensorflow.python.training import saver as saver_lib, training
from tensorflow.python.util import nest
from tensorflow.contrib import rnn as contrib_rnn
from tensorflow.core.framework import graph_pb2

print("compat.v1 is tensorflow:", tf_v1.placeholder is tf.placeholder)
ops.reset_default_graph()
x = array_ops.placeholder(dtypes.float32, [None, 2], name="x")
print("shape", tensor_shape.TensorShape([None, 2]).as_list(), x.shape.as_list())
with variable_scope.variable_scope("layer"):
    w = variable_scope.get_variable("w", [2, 3], initializer=init_ops.ones_initializer())
y = nn_ops.relu(math_ops.matmul(x, w)) + constant_op.constant(1.0)
cell = rnn_cell_impl.BasicRNNCell(4)
print("cell", type(cell).__name__, contrib_rnn.BasicLSTMCell.__name__)
step = state_ops.assign_add(variables.Variable(0, name="step"), 1)
z = control_flow_ops.cond(tf.constant(True), lambda: y, lambda: y * 0)
with session.Session() as sess:
    sess.run(variables.global_variables_initializer())
    print("value", sess.run(z, {x: [[1.0, -2.0]]}).tolist(), sess.run(step))
print("nest", nest.flatten({"b": [1, 2], "a": 3}))
print("graph_def", isinstance(ops.get_default_graph().as_graph_def(), graph_pb2.GraphDef))
print("saver", saver_lib.Saver is training.Saver is tf.train.Saver)
print("gfile", gfile.Exists(__file__))
print("argv", sys.argv[1:])
try:
    import tensorflow.python.no_such_module  # noqa: F401
except ImportError as e:
    print("ImportError for the missing module:", "tensorflow.python.no_such_module" in str(e))
if "--fail" in sys.argv:
    raise ValueError("failing as asked")
sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 0)
