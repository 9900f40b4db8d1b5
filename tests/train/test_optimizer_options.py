"""Optimizer and Saver options TF 1.15's optimizer and saver tests use: a callable loss in
graph mode, resources.initialize_resources, Variable._shared_name, Saver(reshape=True)."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.ops.state import resources


def test_callable_loss_takes_the_variables_it_reads():
    with tf.Graph().as_default(), tf.Session() as sess:
        w = tf.Variable([1.0, 2.0], use_resource=True)
        unused = tf.Variable(5.0)
        pairs = tf.train.GradientDescentOptimizer(0.5).compute_gradients(
            lambda: tf.reduce_sum(w * w))
        assert [v for _, v in pairs] == [w]
        train = tf.train.MomentumOptimizer(0.5, 0.9).minimize(lambda: tf.reduce_sum(w * w))
        resources.initialize_resources([w]).run()
        sess.run(unused.initializer)
        sess.run(tf.variables_initializer(
            [v for v in tf.global_variables() if v is not w and v is not unused]))
        sess.run(train)
        np.testing.assert_allclose(sess.run(w), [0.0, 0.0])
        assert sess.run(unused) == 5.0


def test_resources_collections_and_report():
    with tf.Graph().as_default(), tf.Session() as sess:
        v = tf.Variable(1.0, use_resource=True, name="r")
        resources.register_resource(v.handle, v.initializer, v.is_initialized())
        assert len(resources.shared_resources()) == 1 and resources.local_resources() == []
        assert list(sess.run(resources.report_uninitialized_resources())) == [b"r"]
        sess.run(resources.initialize_resources(resources.shared_resources()))
        assert list(sess.run(resources.report_uninitialized_resources())) == []
        assert resources.initialize_resources([]).type == "NoOp"


def test_shared_name_is_the_name_without_output_index():
    with tf.Graph().as_default():
        with tf.name_scope("s"):
            assert tf.Variable(1.0)._shared_name == "s/Variable"
        assert tf.Variable(1.0, use_resource=True, name="r")._shared_name == "r"


def test_saver_reshape_restores_another_shape(tmp_path):
    prefix = str(tmp_path / "ckpt")
    with tf.Graph().as_default(), tf.Session() as sess:
        v = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], name="v")
        sess.run(v.initializer)
        tf.train.Saver().save(sess, prefix)
    with tf.Graph().as_default(), tf.Session() as sess:
        v = tf.Variable(tf.zeros([3, 2]), name="v")
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.train.Saver().restore(sess, prefix)
        tf.train.Saver(reshape=True).restore(sess, prefix)
        np.testing.assert_array_equal(sess.run(v), [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])


def test_save_under_a_file_is_a_value_error_and_file_io_strings(tmp_path):
    from flowloom import gfile
    from flowloom.variable_scope import variable

    path = str(tmp_path / "actually_a_file")
    gfile.write_string_to_file(path, "abc")
    assert gfile.read_file_to_string(path) == "abc"
    assert gfile.read_file_to_string(path, binary_mode=True) == b"abc"
    with tf.Graph().as_default(), tf.Session() as sess:
        v = variable(1.0, name="v")
        assert isinstance(v, tf.Variable) and v.op.type == "VariableV2"
        sess.run(v.initializer)
        with pytest.raises(ValueError, match="Parent directory"):
            tf.train.Saver().save(sess, path + "/ckpt")


def test_adagrad_on_a_variable_of_unknown_shape():
    with tf.Graph().as_default(), tf.Session() as sess:
        var = tf.get_variable("var0", initializer=tf.constant(1.0), validate_shape=False)
        assert not var.shape.is_fully_defined()
        opt = tf.train.AdagradOptimizer(lambda: 3.0, initial_accumulator_value=0.1)
        update = opt.apply_gradients([(tf.constant(0.1), var)])
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(update)
        # TF 1.15's adagrad_test value for these three steps.
        np.testing.assert_allclose(sess.run(var), -1.6026098728179932, rtol=1e-6)
