"""Resource variables (use_resource=True): TF 1.15's op names, read/assign semantics,
gradients, optimizers (ResourceApply*), Saver (found by TF 1.15's optimizer, variable_scope,
array_ops and control_flow tests, which use ResourceVariable throughout)."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.resource_variable import ResourceVariable


def test_graph_names_and_types_are_tf_s():
    with tf.Graph().as_default() as g:
        v = tf.Variable(1.0, name="x", use_resource=True)
        assert isinstance(v, ResourceVariable) and isinstance(v, tf.Variable)
        types = {op.name: op.type for op in g.get_operations()}
        assert types == {"x/Initializer/initial_value": "Const", "x": "VarHandleOp",
                         "x/IsInitialized/VarIsInitializedOp": "VarIsInitializedOp",
                         "x/Assign": "AssignVariableOp", "x/Read/ReadVariableOp": "ReadVariableOp"}
        assert v.name == "x:0" and v.handle.dtype == tf.resource and v.dtype == tf.float32
        w = tf.get_variable("w", [2, 3], use_resource=True)
        assert isinstance(w, ResourceVariable) and w.shape.as_list() == [2, 3]
        with tf.variable_scope("s", use_resource=True):
            assert isinstance(tf.get_variable("u", [1]), ResourceVariable)
        assert not isinstance(tf.get_variable("ref", [1]), ResourceVariable)
        assert [x.name for x in tf.trainable_variables()] == ["x:0", "w:0", "s/u:0", "ref:0"]


def test_reads_are_snapshots_and_updates_read_after():
    with tf.Graph().as_default():
        v = tf.get_variable("v", initializer=np.array([1., 2.], np.float32), use_resource=True)
        before = v.read_value()
        with tf.control_dependencies([before]):
            inc = v.assign_add([10., 10.])
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized"):
                sess.run(v.value())
            sess.run(v.initializer)
            b, after = sess.run([before, inc])
            np.testing.assert_allclose(b, [1., 2.])       # the read is not changed by the add
            np.testing.assert_allclose(after, [11., 12.])
            np.testing.assert_allclose(sess.run(v.assign([5., 6.])), [5., 6.])
            op = v.assign_sub([1., 1.], read_value=False)
            assert isinstance(op, tf.Operation) and op.type == "AssignSubVariableOp"
            sess.run(op)
            np.testing.assert_allclose(sess.run(v), [4., 5.])
            sess.run(tf.assign_add(v, [1., 1.]))
            np.testing.assert_allclose(sess.run(v), [5., 6.])
            sess.run(tf.scatter_update(v, [1], [0.]))
            np.testing.assert_allclose(sess.run(v), [5., 0.])
            assert sess.run(tf.is_variable_initialized(v))
        with pytest.raises(ValueError):
            v.assign([1., 2., 3.])


def test_gradients_dense_and_sparse():
    with tf.Graph().as_default():
        v = tf.Variable(2.0, use_resource=True)
        e = tf.get_variable("e", initializer=np.arange(6, dtype=np.float32).reshape(3, 2),
                            use_resource=True)
        rows = tf.gather(e, [0, 2])
        assert rows.op.inputs[0].op.type == "ResourceGather"
        gv, ge = tf.gradients(v * v + tf.reduce_sum(rows), [v, e])
        assert isinstance(ge, tf.IndexedSlices)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(gv) == 4.0
            got = sess.run(ge)
            np.testing.assert_array_equal(got.indices, [0, 2])
            np.testing.assert_array_equal(got.values, np.ones((2, 2)))


def test_gradients_match_central_differences_through_the_variable():
    # ReadVariableOp and ResourceGather send their gradient to the handle; perturb the
    # variable itself (AssignVariableOp) to compare with central differences.
    rng = np.random.RandomState(3)
    start = rng.uniform(-1, 1, size=(4, 3))
    with tf.Graph().as_default():
        v = tf.Variable(start, dtype=tf.float64, use_resource=True)
        rows = tf.gather(v, [2, 0, 2])
        y = tf.reduce_sum(tf.sin(v.value()) * 3.0) + tf.reduce_sum(rows ** 3)
        (g,) = tf.gradients(y, [v])
        dense = tf.convert_to_tensor(g) if not isinstance(g, tf.IndexedSlices) else \
            tf.math.unsorted_segment_sum(g.values, g.indices, 4)
        new = tf.placeholder(tf.float64, (4, 3))
        assign = v.assign(new, read_value=False)
        with tf.Session() as sess:
            sess.run(v.initializer)
            got = sess.run(dense)
            eps, numeric = 1e-6, np.zeros_like(start)
            for i in np.ndindex(start.shape):
                values = []
                for sign in (1, -1):
                    x = start.copy()
                    x[i] += sign * eps
                    sess.run(assign, {new: x})
                    values.append(sess.run(y))
                numeric[i] = (values[0] - values[1]) / (2 * eps)
    np.testing.assert_allclose(got, numeric, atol=1e-6)


@pytest.mark.parametrize("make", [
    lambda: tf.train.GradientDescentOptimizer(0.1),
    lambda: tf.train.MomentumOptimizer(0.1, 0.9),
    lambda: tf.train.AdamOptimizer(0.1),
    lambda: tf.train.RMSPropOptimizer(0.1),
])
def test_optimizers_match_reference_variables(make):
    results = []
    for use_resource in (False, True):
        with tf.Graph().as_default() as g:
            w = tf.get_variable("w", initializer=np.array([[1., 2.], [3., 4.]], np.float32),
                                use_resource=use_resource)
            e = tf.get_variable("e", initializer=np.ones((3, 2), np.float32),
                                use_resource=use_resource)
            loss = tf.reduce_sum(tf.matmul(w, w)) + \
                tf.reduce_sum(tf.nn.embedding_lookup(e, [0, 2, 2]) ** 2)
            train = make().minimize(loss)
            if use_resource:
                assert any(op.type.startswith("Resource") for op in g.get_operations())
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                for _ in range(3):
                    sess.run(train)
                results.append(sess.run([w, e]))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_saver_round_trip(tmp_path):
    with tf.Graph().as_default():
        v = tf.Variable([1., 2.], name="v", use_resource=True)
        saver = tf.train.Saver([v])
        with tf.Session() as sess:
            sess.run(v.initializer)
            path = saver.save(sess, str(tmp_path / "m"))
            sess.run(v.assign([7., 7.]))
            saver.restore(sess, path)
            np.testing.assert_allclose(sess.run(v), [1., 2.])
    reader = tf.train.load_checkpoint(path) if hasattr(tf.train, "load_checkpoint") else \
        tf.train.NewCheckpointReader(path)
    np.testing.assert_allclose(reader.get_tensor("v"), [1., 2.])
