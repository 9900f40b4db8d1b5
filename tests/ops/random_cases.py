"""Seeded random programs whose values flowloom must reproduce from TF's CPU kernels.

Each case takes the TF-like module (`tensorflow.compat.v1` or `flowloom`) and returns the
tensors to fetch; the runner fetches them twice in one session (the second run shows how
each op's generator moved on) after initializing any variables. Used by
tests/data/record_random.py (under TF) and tests/ops/test_random_vs_tf.py (under flowloom).
"""

import numpy as np

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


@case
def graph_seed_777(tf):
    tf.set_random_seed(777)
    return [tf.random_normal([2, 2]), tf.random_uniform([5]), tf.random_uniform([3], seed=1),
            tf.truncated_normal([3]), tf.random_uniform([3], seed=1, dtype=tf.float64)]


def _sizes_case(op, dtype_name, seed):
    def build(tf):
        dtype = getattr(tf, dtype_name)
        # 1000 x 33 is many groups: TF splits it over its CPU threads.
        return [op(tf)(shape, dtype=dtype, seed=seed)
                for shape in ([1], [7], [3, 5], [2, 3, 2], [1000, 33])]
    return build


for _op_name, _op in (("uniform", lambda tf: tf.random_uniform),
                      ("normal", lambda tf: tf.random_normal),
                      ("truncated", lambda tf: tf.truncated_normal)):
    for _dtype in ("float32", "float64", "float16"):
        CASES[f"{_op_name}_{_dtype}_sizes"] = _sizes_case(_op, _dtype, 5)


@case
def op_seed_only(tf):
    return [tf.random_uniform([4], seed=3), tf.random_normal([4], seed=2**40 + 9),
            tf.truncated_normal([5], seed=123456789)]


@case
def graph_and_op_seeds(tf):
    tf.set_random_seed(2**33 + 5)
    return [tf.random_uniform([4], seed=3), tf.random_normal([3], mean=2.0, stddev=0.5),
            tf.random_uniform([6], minval=-2.0, maxval=3.0),
            tf.random_uniform([2], maxval=4.0), tf.truncated_normal([9], stddev=3.0)]


@case
def zero_seeds(tf):
    tf.set_random_seed(0)
    return [tf.random_uniform([4], seed=0)]


@case
def uniform_ints(tf):
    tf.set_random_seed(17)
    return [tf.random_uniform([9], minval=-5, maxval=7, dtype=tf.int32),
            tf.random_uniform([7], minval=0, maxval=2**40, dtype=tf.int64),
            tf.random_uniform([5], minval=-2**31, maxval=2**31 - 1, dtype=tf.int32),
            tf.random_uniform([3, 3], maxval=10, dtype=tf.int64, seed=4)]


@case
def shuffles(tf):
    tf.set_random_seed(21)
    return [tf.random_shuffle(tf.range(10)),
            tf.random_shuffle(tf.reshape(tf.range(75), [25, 3])),
            tf.random_shuffle(tf.constant([4.0])),
            tf.random_shuffle(tf.range(1000), seed=8)]


@case
def multinomials(tf):
    tf.set_random_seed(31)
    logits = np.log(np.array([[0.1, 0.6, 0.3], [0.5, 0.25, 0.25], [0.2, 0.2, 0.6]]))
    with_inf = np.array([[0.0, -np.inf, 1.0, 2.0], [-np.inf, 0.5, 0.5, -np.inf]])
    return [tf.multinomial(tf.constant(logits, tf.float32), 5),
            tf.multinomial(tf.constant(logits, tf.float64), 7, seed=3),
            tf.multinomial(tf.constant(with_inf, tf.float32), 6),
            tf.multinomial(tf.constant(logits[:1], tf.float32), 1, output_dtype=tf.int32)]


@case
def dropouts(tf):
    tf.set_random_seed(41)
    x = tf.reshape(tf.range(1.0, 21.0), [4, 5])
    return [tf.nn.dropout(x, keep_prob=0.5), tf.nn.dropout(x, rate=0.3, seed=2),
            tf.nn.dropout(x, keep_prob=0.6, noise_shape=[4, 1])]


@case
def initializers(tf):
    tf.set_random_seed(51)
    shapes = [3, 4]
    made = [tf.get_variable("default", shapes),
            tf.get_variable("glorot_u", shapes, initializer=tf.glorot_uniform_initializer()),
            tf.get_variable("glorot_n", shapes, initializer=tf.glorot_normal_initializer()),
            tf.get_variable("trunc", shapes,
                            initializer=tf.truncated_normal_initializer(stddev=0.1)),
            tf.get_variable("normal", shapes,
                            initializer=tf.random_normal_initializer(1.0, 2.0)),
            tf.get_variable("uniform", shapes,
                            initializer=tf.random_uniform_initializer(-1.0, 1.0)),
            tf.get_variable("vs", [2, 3, 4, 5], initializer=tf.variance_scaling_initializer(
                2.0, mode="fan_out", distribution="uniform")),
            tf.get_variable("vs_n", [5, 6], initializer=tf.variance_scaling_initializer()),
            tf.get_variable("seeded", shapes, initializer=tf.glorot_uniform_initializer(seed=7)),
            tf.Variable(tf.random_normal([3, 2], stddev=0.01)),
            tf.Variable(tf.truncated_normal([2, 3], stddev=0.1))]
    return [tf.convert_to_tensor(v) for v in made]


@case
def orthogonal(tf):
    tf.set_random_seed(61)
    return [tf.convert_to_tensor(tf.get_variable(
        name, shape, initializer=tf.orthogonal_initializer(gain=g)))
        for name, shape, g in (("tall", [6, 3], 1.0), ("wide", [2, 5], 2.0),
                               ("conv", [2, 2, 3, 4], 1.0))]


@case
def dense_layer(tf):
    tf.set_random_seed(71)
    x = tf.ones([2, 3])
    return [tf.layers.dense(x, 4), tf.layers.dense(x, 2, activation=tf.nn.relu)]


# Values that go through linear algebra (QR) are compared with a float tolerance.
LINALG_CASES = {"orthogonal"}


def run_case(tf, fn):
    """(first run, second run) fetch values of one case in a fresh graph and session."""
    with tf.Graph().as_default():
        outs = fn(tf)
        with tf.Session() as sess:
            if tf.global_variables():
                sess.run(tf.global_variables_initializer())
            return sess.run(outs), sess.run(outs)
