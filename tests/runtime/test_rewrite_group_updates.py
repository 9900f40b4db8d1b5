"""One optimizer's ApplyAdam steps run as one step (part of `remapping`): the same variables,
bit for bit, as the plan that runs them one by one; the same errors, naming the same op."""

import types

import numpy as np
import pytest

import flowloom as tf
from flowloom.proto.rewriter_config_pb2 import RewriterConfig
from flowloom.runtime import rewrites

OFF = RewriterConfig.OFF
acts = pytest.mark.skipif(rewrites.ALL_OFF, reason="FLOWLOOM_REWRITES=0: no rewrite acts")


def _config(**toggles):
    return tf.ConfigProto(graph_options=tf.GraphOptions(
        rewrite_options=RewriterConfig(**toggles)))


def _train(config, steps=5, dtype=np.float32, nesterov=False, locking=False, grads=None):
    """(losses, final variables, the train plan's rewrite log) of a small Adam MLP."""
    rng = np.random.RandomState(0)
    x = rng.randn(16, 3).astype(dtype)
    y = rng.randint(0, 2, 16)
    with tf.Graph().as_default():
        tf.set_random_seed(3)
        net = tf.constant(x)
        for units in (5, 4):
            net = tf.layers.dense(net, units, activation=tf.nn.relu)
        logits = tf.layers.dense(net, 2)
        loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
        opt = tf.contrib.opt.NadamOptimizer(0.05) if nesterov else \
            tf.train.AdamOptimizer(0.05, use_locking=locking)
        pairs = opt.compute_gradients(loss)
        if grads is not None:
            pairs = grads(pairs)
        train = opt.apply_gradients(pairs)
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run([train, loss])[1] for _ in range(steps)]
            plan = [p for p in sess._plan_cache.values() if p.steps is not None][-1]
            values = sess.run(tf.global_variables())
    return losses, values, [w for _, w in plan.rewrites.log]


def _same(a, b):
    for x, y in zip(a[0] + a[1], b[0] + b[1]):
        x, y = np.asarray(x), np.asarray(y)
        assert x.dtype == y.dtype and x.tobytes() == y.tobytes()


@acts
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_grouped_adam_equals_one_by_one(dtype):
    on = _train(None, dtype=dtype)
    off = _train(_config(remapping=OFF), dtype=dtype)
    # (float64: each update casts the float32 beta powers itself, so no two share scalars)
    assert any("group(s) of variable updates" in w for w in on[2]) == (dtype == np.float32)
    assert not any("group(s) of variable updates" in w for w in off[2])
    _same(on, off)


@pytest.mark.parametrize("nesterov", [False, True])
def test_the_group_kernel_equals_the_kernel_of_each(nesterov):
    from flowloom.ops.state import training_ops
    from flowloom.runtime.executor import Ref

    rng = np.random.RandomState(5)
    shapes = [(4, 3), (3,), (1,), (2, 2, 2)]

    def refs():
        out = []
        for shape in shapes:
            trio = []
            for scale in (1.0, 0.1, 0.01):
                r = Ref("r")
                r.value = (np.abs(rng.randn(*shape)) * scale).astype(np.float32)
                trio.append(r)
            out.append(trio)
        return out
    state = rng.get_state()
    grouped = refs()
    rng.set_state(state)
    each = refs()
    grads = [rng.randn(*shape).astype(np.float32) for shape in shapes]
    scalars = [np.array(x, np.float32) for x in (0.9 ** 2, 0.999 ** 2, 0.1, 0.9, 0.999, 1e-7)]
    ops = [types.SimpleNamespace(_attrs={"use_locking": False, "use_nesterov": nesterov})]
    apply_all = training_ops._adam_group(ops * len(shapes))
    args = [x for trio, g in zip(grouped, grads) for x in trio + [g]]
    assert apply_all(*args, *scalars) is True
    for trio, g in zip(each, grads):
        training_ops.ApplyAdam.kernel_fn(np, *trio, *scalars, g, use_locking=False,
                                         use_nesterov=nesterov)
    for a, b in zip(grouped, each):
        for x, y in zip(a, b):
            assert x.value.tobytes() == y.value.tobytes()
    # What it cannot take changes nothing: a gradient that is a buffer of the group, a view,
    # an uninitialized slot, a read-only buffer, a scalar that is not 0-d.
    before = [x.value.copy() for trio in grouped for x in trio]
    for bad in ([grouped[1][0].value], [grouped[0][0].value[:1].reshape(3)]):
        args2 = list(args)
        args2[7] = bad[0]
        assert apply_all(*args2, *scalars) is False
    grouped[2][2].value, saved = None, grouped[2][2].value
    assert apply_all(*args, *scalars) is False
    grouped[2][2].value = saved
    saved.flags.writeable = False
    assert apply_all(*args, *scalars) is False
    saved.flags.writeable = True
    assert apply_all(*args, *scalars[:5], np.array([1e-7], np.float32)) is False
    after = [x.value for trio in grouped for x in trio]
    assert all(x.tobytes() == y.tobytes() for x, y in zip(before, after))


@acts
def test_locked_updates_are_not_grouped():
    on = _train(None, locking=True)
    assert not any("group(s) of variable updates" in w for w in on[2])
    _same(on, _train(_config(remapping=OFF), locking=True))


def test_a_gradient_that_is_a_variable_buffer_runs_one_by_one():
    # Each variable's gradient is the value of another variable (the members' updates read
    # buffers the group updates): the members run in their order, as without the group.
    def swap(pairs):
        vs = [v for _, v in pairs]
        out = []
        for k, (g, v) in enumerate(pairs):
            other = vs[(k + 2) % len(vs)]
            if other.shape == v.shape:
                g = tf.identity(other) * 1.0 if k % 2 else tf.reshape(other, v.shape)
            out.append((g, v))
        return out
    _same(_train(None, grads=swap), _train(_config(remapping=OFF), grads=swap))


def test_an_uninitialized_slot_fails_naming_its_update():
    def run(config):
        with tf.Graph().as_default():
            a = tf.Variable(np.ones(3, np.float32), name="a")
            b = tf.Variable(np.ones(2, np.float32), name="b")
            loss = tf.reduce_sum(a * a) + tf.reduce_sum(b * b)
            train = tf.train.AdamOptimizer(0.1).minimize(loss)
            slot = [v for v in tf.global_variables() if v.op.name == "b/Adam_1"][0]
            with tf.Session(config=config) as sess:
                sess.run([v.initializer for v in tf.global_variables() if v is not slot])
                errors = []
                for _ in range(3):  # interpreted, then compiled
                    with pytest.raises(tf.errors.FailedPreconditionError) as e:
                        sess.run(train)
                    errors.append(e.value)
                av = sess.run(a)
        return [(type(e), e.op.name, e.message) for e in errors], av

    got, want = run(None), run(_config(remapping=OFF))
    assert got[0] == want[0]
    assert "b/Adam_1" in got[0][0][2] and got[0][0][1] == "Adam/update_b/ApplyAdam"
    np.testing.assert_array_equal(got[1], want[1])
