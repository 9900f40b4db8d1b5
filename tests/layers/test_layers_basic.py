"""tf.layers: variable and op names as TF 2.21 (legacy tf.layers) makes them."""

import numpy as np

import flowloom as tf


def test_dense_conv_flatten_names_match_tf():
    x = tf.placeholder(tf.float32, [None, 8, 8, 3])
    c = tf.layers.conv2d(x, 4, 3, padding="same", activation=tf.nn.relu)
    f = tf.layers.flatten(c)
    d = tf.layers.dense(f, 5, activation=tf.nn.relu)
    d2 = tf.layers.dense(d, 2)
    # Recorded from TensorFlow 2.21 with TF_USE_LEGACY_KERAS=1.
    assert [v.name for v in tf.global_variables()] == [
        "conv2d/kernel:0", "conv2d/bias:0", "dense/kernel:0", "dense/bias:0",
        "dense_1/kernel:0", "dense_1/bias:0"]
    assert [c.name, f.name, d.name, d2.name] == [
        "conv2d/Relu:0", "flatten/Reshape:0", "dense/Relu:0", "dense_1/BiasAdd:0"]
    assert [str(t.shape) for t in (c, f, d, d2)] == ["(?, 8, 8, 4)", "(?, 256)", "(?, 5)",
                                                     "(?, 2)"]
    ops = [op.name for op in tf.get_default_graph().get_operations()]
    assert ops[1:11] == [
        "conv2d/kernel/Initializer/random_uniform/shape",
        "conv2d/kernel/Initializer/random_uniform/min",
        "conv2d/kernel/Initializer/random_uniform/max",
        "conv2d/kernel/Initializer/random_uniform/RandomUniform",
        "conv2d/kernel/Initializer/random_uniform/sub",
        "conv2d/kernel/Initializer/random_uniform/mul",
        "conv2d/kernel/Initializer/random_uniform", "conv2d/kernel", "conv2d/kernel/Assign",
        "conv2d/kernel/read"]
    assert "conv2d/Conv2D" in ops and "dense/MatMul" in ops and "flatten/Const" in ops


def test_dense_values_and_reuse():
    x = tf.placeholder(tf.float32, [None, 3])
    y1 = tf.layers.dense(x, 2, name="fc", kernel_initializer=tf.ones_initializer(),
                         bias_initializer=tf.constant_initializer(0.5))
    y2 = tf.layers.dense(x, 2, name="fc", reuse=True)
    assert len(tf.trainable_variables()) == 2
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        a, b = sess.run([y1, y2], {x: [[1, 2, 3]]})
    np.testing.assert_allclose(a, [[6.5, 6.5]])
    np.testing.assert_allclose(b, a)


def test_layer_object_called_twice_shares_variables():
    layer = tf.layers.Dense(4)
    a = layer(tf.ones([1, 3]))
    b = layer(tf.zeros([1, 3]))
    assert len(tf.trainable_variables()) == 2
    assert a.name == "dense/BiasAdd:0" and b.name == "dense/BiasAdd_1:0"  # as TF names them


def test_batch_norm_and_dropout_with_a_training_tensor_build_conds_as_tf():
    x = tf.placeholder(tf.float32, [None, 4, 4, 3])
    training = tf.placeholder_with_default(False, [])
    y = tf.layers.batch_normalization(x, training=training)
    d = tf.layers.dropout(tf.layers.flatten(y), 0.5, training=training)
    # Recorded from TensorFlow 2.21 (TF_USE_LEGACY_KERAS=1, control flow v1).
    assert y.name == "batch_normalization/cond/Merge:0" and d.name == "dropout/cond/Merge:0"
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert [(u.name, u.type) for u in updates] == [
        ("batch_normalization/AssignMovingAvg", "AssignSub"),
        ("batch_normalization/AssignMovingAvg_1", "AssignSub")]
    value = np.random.RandomState(0).rand(2, 4, 4, 3).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        inference = sess.run(d, {x: value})
        # Inference: moving mean 0, variance 1, so the output is x / sqrt(1 + eps).
        np.testing.assert_allclose(inference, value.reshape(2, 48) / np.sqrt(1.001), rtol=1e-5)
        sess.run(updates, {x: value, training: True})
        moved = sess.run(tf.global_variables()[2])  # moving_mean
    np.testing.assert_allclose(moved, 0.01 * value.mean(axis=(0, 1, 2)), rtol=1e-4)
