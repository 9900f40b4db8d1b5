"""The demo trains: a short run on two towers learns, logs and checkpoints."""

import glob
import os

import pytest

pytest.importorskip("sklearn")

from flowloom.examples import digits_multitower  # noqa: E402
import flowloom as tf  # noqa: E402


def test_short_multitower_run_learns_and_writes_logs(tmp_path):
    accuracy = digits_multitower.train(num_towers=2, batch_size=32, max_steps=150,
                                       logdir=str(tmp_path), quiet=True)
    assert accuracy > 0.8
    assert glob.glob(os.path.join(tmp_path, "events.out.tfevents.*"))
    assert tf.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-150")
    reader = tf.train.NewCheckpointReader(tf.train.latest_checkpoint(str(tmp_path)))
    names = set(reader.get_variable_to_shape_map())
    assert "conv1/weights" in names and "conv1/weights/ExponentialMovingAverage" in names
    # loss() already made a `total_loss` in the tower, so tower_loss's is total_loss_1, as in TF.
    assert "tower_0/total_loss_1/avg" in names and "tower_1/cross_entropy/avg" in names


def test_towers_share_variables_and_sit_on_two_devices():
    tf.reset_default_graph()
    with tf.variable_scope(tf.get_variable_scope()):
        for i in range(2):
            with tf.device("/cpu:%d" % i), tf.name_scope("tower_%d" % i) as scope:
                images = tf.placeholder(tf.float32, [None, 8, 8, 1])
                labels = tf.placeholder(tf.int32, [None])
                digits_multitower.tower_loss(scope, images, labels)
                tf.get_variable_scope().reuse_variables()
    weights = [v.name for v in tf.trainable_variables()]
    assert weights == ["conv1/weights:0", "conv1/biases:0", "conv2/weights:0", "conv2/biases:0",
                       "local3/weights:0", "local3/biases:0", "softmax_linear/weights:0",
                       "softmax_linear/biases:0"]
    g = tf.get_default_graph()
    assert g.get_operation_by_name("conv1/weights").device == "/device:CPU:0"
    assert g.get_operation_by_name("tower_1/conv1/Conv2D").device == "/device:CPU:1"
    identity = g.get_operation_by_name("tower_1/Identity")
    assert [c.type for c in identity.control_inputs] == ["NoOp"]
