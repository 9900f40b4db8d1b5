"""Saver.save(global_step=tensor) reads the step as TF 1.15's training_util.global_step does:
a one-element step (shape [1], as supervisor_test's global_step) names the checkpoint too."""

import os

import flowloom as tf


def test_save_with_a_one_element_global_step(tmp_path):
    with tf.Graph().as_default(), tf.Session() as sess:
        step = tf.Variable([123], name="global_step")
        sess.run(step.initializer)
        path = tf.train.Saver().save(sess, os.path.join(str(tmp_path), "model.ckpt"),
                                     global_step=step)
    assert path.endswith("model.ckpt-123")
    assert os.path.exists(path + ".index")
