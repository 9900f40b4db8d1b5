"""Gradients through cond, while_loop, TensorArray and the functional ops against central
finite differences (float64). The same gradients are compared with TF's values in
test_programs.py."""

import numpy as np
import pytest

import flowloom as tf


def _check(build, shapes, seed=0, rtol=1e-5, atol=1e-7):
    """`build(*placeholders)` returns a scalar loss; checks tf.gradients against finite
    differences at a random point."""
    rs = np.random.RandomState(seed)
    g = tf.Graph()
    with g.as_default():
        xs = [tf.placeholder(tf.float64, s, name=f"x{i}") for i, s in enumerate(shapes)]
        loss = build(*xs)
        grads = tf.gradients(loss, xs)
        values = [rs.uniform(0.3, 1.2, size=s) for s in shapes]
        with tf.Session() as sess:
            feed = dict(zip(xs, values))
            got = sess.run(grads, feed)
            eps = 1e-6
            for k, v in enumerate(values):
                num = np.zeros_like(v)
                for idx in np.ndindex(*v.shape):
                    plus = [w.copy() for w in values]
                    minus = [w.copy() for w in values]
                    plus[k][idx] += eps
                    minus[k][idx] -= eps
                    num[idx] = (sess.run(loss, dict(zip(xs, plus))) -
                                sess.run(loss, dict(zip(xs, minus)))) / (2 * eps)
                np.testing.assert_allclose(got[k], num, rtol=rtol, atol=atol)


def test_cond_both_branches():
    def build(x, y):
        a = tf.cond(tf.reduce_sum(x) > 2.0, lambda: x * y, lambda: tf.sin(x) + y)
        b = tf.cond(tf.reduce_sum(x) <= 2.0, lambda: x * y, lambda: tf.sin(x) + y)
        return tf.reduce_sum(a * a) + tf.reduce_sum(b)
    _check(build, [[3], [3]])


def test_while_loop_variable_and_invariant():
    def build(x, w):
        _, h = tf.while_loop(lambda i, h: i < 4, lambda i, h: (i + 1, tf.tanh(h * w + x)),
                             [0, tf.zeros([3], tf.float64)])
        return tf.reduce_sum(h)
    _check(build, [[3], [3]])


def test_nested_loops_with_cond():
    def build(x):
        def outer(i, a):
            _, a = tf.while_loop(
                lambda j, b: j < i,
                lambda j, b: (j + 1, tf.cond(j > 0, lambda: b * x, lambda: b + x)), [0, a])
            return i + 1, a
        _, r = tf.while_loop(lambda i, a: i < 3, outer, [0, tf.ones([2], tf.float64)])
        return tf.reduce_sum(r)
    _check(build, [[2]])


def test_parallel_iterations_one():
    def build(x):
        _, r = tf.while_loop(lambda i, a: i < 5, lambda i, a: (i + 1, a * x + 1.0),
                             [0, tf.ones([2], tf.float64)], parallel_iterations=1)
        return tf.reduce_sum(r)
    _check(build, [[2]])


def test_tensor_array_rnn():
    def build(xs, w):
        inp = tf.TensorArray(tf.float64, size=3).unstack(xs)
        out = tf.TensorArray(tf.float64, size=3)

        def step(t, h, o):
            h = tf.tanh(tf.matmul(inp.read(t), w) + h)
            return t + 1, h, o.write(t, h)

        _, h, o = tf.while_loop(lambda t, h, o: t < 3, step,
                                [0, tf.zeros([1, 2], tf.float64), out])
        return tf.reduce_sum(o.stack() ** 2) + tf.reduce_sum(h)
    _check(build, [[3, 1, 2], [2, 2]])


def test_functional_ops():
    def build(x, y):
        m = tf.map_fn(lambda r: r * y[0], x)
        s = tf.scan(lambda a, r: a * r + y, x)
        f = tf.foldr(lambda a, r: a * r, x, initializer=y)
        return tf.reduce_sum(m) + tf.reduce_sum(s * s) + tf.reduce_sum(f)
    _check(build, [[3, 2], [2]])


def test_back_prop_false_stops_gradients():
    x = tf.placeholder(tf.float32, [])
    r = tf.while_loop(lambda a: a < 10.0, lambda a: a * 2.0, [x], back_prop=False)
    assert tf.gradients(r, x) == [None]


def test_gradient_of_unused_loop_output_is_zero_through_used_one():
    x = tf.placeholder(tf.float64, [])
    a, b = tf.while_loop(lambda a, b: a < 100.0, lambda a, b: (a * 2.0, b + a), [x, x])
    g = tf.gradients(b, x)[0]
    with tf.Session() as sess:
        # b = x + x + 2x + 4x + ... while a < 100: d/dx at x=3: a: 3,6,...,96 (6 steps)
        assert sess.run(g, {x: 3.0}) == pytest.approx(1 + 1 + 2 + 4 + 8 + 16 + 32)


def test_sparse_gradient_through_cond_stays_indexed_slices():
    v = tf.Variable(np.ones((3, 2), np.float32))
    p = tf.placeholder(tf.bool, [])
    r = tf.cond(p, lambda: tf.gather(v, [0, 2]), lambda: tf.gather(v, [1]))
    g = tf.gradients(tf.reduce_sum(r), v)[0]
    assert isinstance(g, tf.IndexedSlices)  # as in TF
    assert g.dense_shape.op.name == "gradients/cond/GatherV2_1/Switch_grad/cond_grad/Merge_2"


def test_loop_in_cond_in_loop():
    def build(x):
        def body(i, a):
            a = tf.cond(i % 2 > 0,
                        lambda: tf.while_loop(lambda j, b: j < i, lambda j, b: (j + 1, b * x),
                                              [0, a])[1],
                        lambda: a + x * x)
            return i + 1, a
        _, r = tf.while_loop(lambda i, a: i < 4, body, [0, tf.ones([2], tf.float64)])
        return tf.reduce_sum(r)
    _check(build, [[2]])


def test_sparse_gradient_of_loop_invariant_is_accumulated_sparsely():
    v = tf.Variable(np.arange(6.0, dtype=np.float32).reshape(3, 2))
    _, acc = tf.while_loop(lambda i, a: i < 3,
                           lambda i, a: (i + 1, a + tf.reduce_sum(tf.gather(v, [i]) * a)),
                           [0, 1.0])
    g = tf.gradients(acc, v)[0]
    assert isinstance(g, tf.IndexedSlices)  # as in TF: indices and values concatenated
    dense = tf.convert_to_tensor(g)
    with tf.Session() as sess:
        sess.run(v.initializer)
        eps = 1e-2
        base = sess.run(v)
        want = np.zeros_like(base)
        for idx in np.ndindex(*base.shape):
            for sign in (1, -1):
                w = base.copy()
                w[idx] += sign * eps
                sess.run(v.assign(w))
                want[idx] += sign * sess.run(acc) / (2 * eps)
        sess.run(v.assign(base))
        np.testing.assert_allclose(sess.run(dense), want, rtol=1e-3)
