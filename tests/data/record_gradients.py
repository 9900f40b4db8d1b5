"""Records what real TensorFlow's tf.gradients builds and computes, for tests/test_gradients.py.

Run with "$FLOWLOOM_TF_PYTHON" tests/data/record_gradients.py. Each case is a small program
written against the TF1 API with `tf` as its only free name, so the test runs the same source
under flowloom. Recorded: gradient tensor names (None for unconnected), values, the names and
types of the ops under `gradients/`, and error classes.
"""

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import sys

import numpy as np
import tensorflow.compat.v1 as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gradient_observe import run_gradient_program  # noqa: E402

tf.disable_v2_behavior()

# Each program defines `grads` (the result of tf.gradients) and `feed` (a feed dict by
# placeholder name), and may define `extra` (more tensors to fetch).
CASES = {
    "broadcast_add_mul": """
x = tf.placeholder(tf.float32, [2, 3], name='x')
b = tf.placeholder(tf.float32, [3], name='b')
w = tf.Variable(tf.ones([3, 4]) * 0.5, name='w')
y = tf.matmul(x + b, w)
z = tf.reduce_sum(y * y) + tf.reduce_mean(tf.tanh(y))
grads = tf.gradients(z, [x, b, w])
feed = {'x': np.arange(6).reshape(2, 3) / 6.0, 'b': [0.1, -0.2, 0.3]}
""",
    "unconnected_and_int": """
x = tf.placeholder(tf.float32, [3], name='x')
u = tf.placeholder(tf.float32, [3], name='u')
i = tf.placeholder(tf.int32, [3], name='i')
y = tf.reduce_sum(x * tf.cast(i, tf.float32))
grads = tf.gradients(y, [x, u, i])
feed = {'x': [1.0, 2.0, 3.0], 'u': [0.0, 0.0, 0.0], 'i': [1, 2, 3]}
""",
    "stop_gradient_and_stop_list": """
x = tf.placeholder(tf.float32, [2], name='x')
a = x * x
b = tf.stop_gradient(a) * x
c = a + x
grads = tf.gradients([b, c], [x]) + tf.gradients(c, [x], stop_gradients=[a])
feed = {'x': [1.5, -2.0]}
""",
    "grad_ys_and_multiple_ys": """
x = tf.placeholder(tf.float32, [2, 2], name='x')
y1 = tf.sigmoid(x)
y2 = tf.exp(x)
grads = tf.gradients([y1, y2], x, grad_ys=[tf.constant([[1.0, 2.0], [3.0, 4.0]]), None])
feed = {'x': [[0.1, 0.2], [-0.3, 0.4]]}
""",
    "gather_indexed_slices": """
p = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], name='p')
y = tf.gather(p, [2, 0, 2])
grads = tf.gradients(tf.reduce_sum(y * y), p)
extra = [tf.convert_to_tensor(grads[0])]
feed = {}
""",
    "gather_twice_and_dense": """
p = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], name='p')
a = tf.gather(p, [2, 0])
b = tf.gather(p, [1, 1])
grads = tf.gradients(tf.reduce_sum(a * b) + tf.reduce_sum(tf.gather(p, [0]) * 3.0), p)
grads += tf.gradients(tf.reduce_sum(a) + tf.reduce_sum(p * p), p)
extra = [tf.convert_to_tensor(grads[0])]
feed = {}
""",
    "custom_gradient": """
@tf.custom_gradient
def log1pexp(x):
    e = tf.exp(x)
    def grad(dy):
        return dy * (1 - 1 / (1 + e))
    return tf.log(1 + e), grad
@tf.custom_gradient
def clip_grad(x, y):
    def grad(dy):
        return dy * 0.5, dy * 2.0
    return x * y, grad
x = tf.placeholder(tf.float32, [3], name='x')
y = tf.placeholder(tf.float32, [3], name='y')
grads = tf.gradients(tf.reduce_sum(log1pexp(x) + clip_grad(x, y)), [x, y])
extra = [log1pexp(x)]
feed = {'x': [0.0, 50.0, -3.0], 'y': [1.0, 2.0, 3.0]}
""",
    "second_order": """
x = tf.placeholder(tf.float32, [4], name='x')
y = tf.reduce_sum(tf.tanh(x) * tf.sigmoid(x) + tf.sqrt(x + 2.0) + tf.nn.relu(x) * x
                  + tf.rsqrt(x + 3.0) + tf.reciprocal(x + 4.0) + tf.nn.softplus(x))
g, = tf.gradients(y, x)
grads = tf.gradients(g, x)
feed = {'x': [-1.5, -0.3, 0.4, 2.0]}
""",
    "hessians": """
x = tf.placeholder(tf.float32, [2, 2], name='x')
w = tf.placeholder(tf.float32, [3], name='w')
y = tf.reduce_sum(tf.sin(x) * tf.reduce_sum(x)) + tf.reduce_sum(w * w * w)
grads = tf.hessians(y, [x, w])
feed = {'x': [[0.1, 0.2], [0.3, 0.4]], 'w': [1.0, -2.0, 0.5]}
""",
    "gather_axis1_and_concat": """
x = tf.placeholder(tf.float32, [2, 3], name='x')
y = tf.placeholder(tf.float32, [2, 2], name='y')
g = tf.gather(x, [2, 2, 0], axis=1)
c = tf.concat([g, y], 1)
grads = tf.gradients(tf.reduce_sum(c * c), [x, y])
feed = {'x': [[1., 2., 3.], [4., 5., 6.]], 'y': [[0.5, 1.5], [2.5, 3.5]]}
""",
    "override_map": """
@tf.RegisterGradient('FlowloomTestCustomSquare')
def _custom(op, grad):
    return grad * 3.0
x = tf.placeholder(tf.float32, [2], name='x')
with tf.get_default_graph().gradient_override_map({'Square': 'FlowloomTestCustomSquare'}):
    y = tf.square(x)
z = tf.square(x)
grads = tf.gradients(y, x) + tf.gradients(z, x)
extra = [tf.constant(y.op.get_attr('_gradient_op_type'))]
feed = {'x': [1.0, 2.0]}
""",
    "slices_reductions": """
x = tf.placeholder(tf.float32, [3, 4], name='x')
y = tf.reduce_max(x, axis=1) + tf.reduce_prod(x[:, 1:3], axis=1) + tf.reduce_min(x[1])
z = tf.reduce_sum(y * tf.reduce_mean(tf.slice(x, [1, 0], [2, 3])))
grads = tf.gradients(z, x)
feed = {'x': np.array([[1., 5., 2., 3.], [4., 4., 0.5, 1.], [2., -1., 3., 2.5]])}
""",
    "unknown_shape_broadcast": """
x = tf.placeholder(tf.float32, None, name='x')
y = tf.placeholder(tf.float32, [None, 1], name='y')
z = tf.reduce_sum((x - y) / (y + 2.0))
grads = tf.gradients(z, [x, y])
feed = {'x': [[1., 2., 3.], [4., 5., 6.]], 'y': [[0.5], [1.5]]}
""",
    "nn_conv_bias_relu": """
x = tf.placeholder(tf.float32, [1, 4, 4, 2], name='x')
w = tf.Variable(np.linspace(-1, 1, 18).reshape(3, 3, 2, 1).astype(np.float32), name='w')
b = tf.Variable([0.1], name='b')
y = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w, [1, 2, 2, 1], 'SAME'), b))
grads = tf.gradients(tf.reduce_sum(y * y), [x, w, b])
feed = {'x': np.sin(np.arange(32)).reshape(1, 4, 4, 2)}
""",
    "gate_gradients": """
x = tf.placeholder(tf.float32, [2, 2], name='x')
w = tf.placeholder(tf.float32, [2, 2], name='w')
grads = tf.gradients(tf.reduce_sum(tf.matmul(x, w)), [x, w], gate_gradients=True)
feed = {'x': [[1., 2.], [3., 4.]], 'w': [[0.5, -1.], [2., 0.]]}
""",
}

ERROR_CASES = {
    "no_gradient_defined": """
x = tf.placeholder(tf.float32, [2], name='x')
with tf.get_default_graph().gradient_override_map({'Square': 'FlowloomTestNoSuchGradient'}):
    y = tf.square(x)
grads = tf.gradients(y, x)
""",
    "not_differentiable_registered": """
tf.NotDifferentiable('FlowloomTestNotDiff')
tf.NotDifferentiable('FlowloomTestNotDiff')
""",
    "grad_ys_length": """
x = tf.placeholder(tf.float32, [2], name='x')
grads = tf.gradients([x * 2.0], [x], grad_ys=[None, None])
""",
}


def _record(source):
    names, ops, values = run_gradient_program(tf, np, source)
    out_values = []
    for v in values:
        if hasattr(v, "indices") and hasattr(v, "dense_shape"):
            out_values.append({"values": v.values.tolist(), "indices": v.indices.tolist(),
                               "dense_shape": v.dense_shape.tolist()})
        elif isinstance(v, bytes):
            out_values.append(v.decode())
        else:
            out_values.append(np.asarray(v).tolist())
    return {"source": source, "names": names, "ops": ops, "values": out_values}


def main():
    out = {"cases": {k: _record(v) for k, v in CASES.items()}, "errors": {}}
    for name, source in ERROR_CASES.items():
        g = tf.Graph()
        with g.as_default():
            try:
                exec(source, {"tf": tf, "np": np})  # noqa: S102
                out["errors"][name] = {"source": source, "error": None}
            except Exception as e:  # noqa: BLE001 - recording the class
                out["errors"][name] = {"source": source, "error": type(e).__name__,
                                       "message": str(e)[:200]}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gradients_tf.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
