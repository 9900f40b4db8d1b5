"""TF1 graph-building programs that run unchanged on TensorFlow and on flowloom.

Each `prog_*` takes the `tf` module, builds a fresh graph and returns it. record_graphdef.py
stores TF's `as_graph_def(add_shapes=True)` of each in graphdef/<name>.pbtxt; tests/framework/
test_graph_def.py builds the same program with flowloom and compares the NodeDefs.
"""

import numpy as np


def prog_variable_assign(tf):
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(1.0, name="v")
        inc = tf.assign_add(v, 2.0)
        tf.identity(inc, name="out")
        with tf.control_dependencies([inc]):
            tf.identity(v, name="after")
        tf.constant([b"a", b"bc"], name="strings")
        tf.constant(np.array([1, -2], np.int64), name="int64s")
        tf.constant(True, name="flag")
        tf.constant(np.zeros([2, 3], np.float32), name="zeros")
        tf.constant(np.arange(4, dtype=np.float64).reshape(2, 2), name="doubles")
    return g


def prog_scoped_variables(tf):
    g = tf.Graph()
    with g.as_default():
        with tf.variable_scope("layer1"):
            w = tf.get_variable("w", [2, 3], initializer=tf.zeros_initializer())
            b = tf.get_variable("b", [3], initializer=tf.constant_initializer(0.5))
        with tf.name_scope("ops"):
            x = tf.placeholder(tf.float32, [None, 2], name="x")
            tf.nn.bias_add(tf.matmul(x, w), b, name="y")
        with tf.device("/cpu:0"):
            tf.constant(3, name="on_cpu")
    return g


def prog_mlp(tf):
    g = tf.Graph()
    rng = np.random.RandomState(0)
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        w1 = tf.Variable(rng.randn(4, 8).astype(np.float32), name="w1")
        b1 = tf.Variable(np.zeros(8, np.float32), name="b1")
        w2 = tf.Variable(rng.randn(8, 3).astype(np.float32), name="w2")
        b2 = tf.Variable(np.zeros(3, np.float32), name="b2")
        h = tf.nn.relu(tf.matmul(x, w1) + b1, name="hidden")
        logits = tf.nn.bias_add(tf.matmul(h, w2, transpose_b=False), b2)
        tf.identity(logits, name="logits")
        img = tf.placeholder(tf.float32, [1, 5, 5, 2], name="img")
        k = tf.constant(np.ones([3, 3, 2, 4], np.float32), name="kernel")
        tf.nn.conv2d(img, k, strides=[1, 2, 2, 1], padding="SAME", name="conv")
    return g


def prog_saver(tf):
    g = tf.Graph()
    with g.as_default():
        tf.Variable([1.0, 2.0], name="v")
        with tf.variable_scope("s"):
            tf.get_variable("w", [2], initializer=tf.zeros_initializer())
        tf.Variable(7, dtype=tf.int64, name="step")
        g.saver_for_test = tf.train.Saver()
    return g


def prog_saver_sharded(tf):
    g = tf.Graph()
    with g.as_default():
        tf.Variable([1.0, 2.0], name="v")
        tf.Variable(3, name="w")
        g.saver_for_test = tf.train.Saver(sharded=True, max_to_keep=3)
    return g


PROGRAMS = [prog_variable_assign, prog_scoped_variables, prog_mlp, prog_saver,
            prog_saver_sharded]


def checkpoint_values():
    """The variables of the recorded TF checkpoint (graphdef/tf_ckpt)."""
    return {
        "weights": np.arange(6, dtype=np.float32).reshape(2, 3) / 8,
        "layer/bias": np.array([0.5, -0.25, 8.0], np.float32),
        "global_step": np.array(42, np.int64),
        "vocab": np.array([b"alpha", b"beta"], dtype=object),
        "counts": np.array([[1, 2], [3, 4]], np.int32),
        "precise": np.array([1.0 / 3, 2.0 / 3], np.float64),
    }


def build_checkpoint_graph(tf):
    """Variables named as in checkpoint_values, initialized to zeros-like values."""
    out = {}
    for name, value in checkpoint_values().items():
        scope, _, short = name.rpartition("/")
        init = np.zeros_like(value) if value.dtype != object else np.array([b"", b""], object)
        if scope:
            with tf.variable_scope(scope):
                out[name] = tf.get_variable(short, initializer=init)
        else:
            dtype = tf.string if value.dtype == object else None
            out[name] = tf.Variable(init, name=short, dtype=dtype)
    return out
