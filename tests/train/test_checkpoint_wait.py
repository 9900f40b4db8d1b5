"""tf.train.checkpoints_iterator / wait_for_new_checkpoint: yield each new checkpoint of a
directory, stop on timeout unless timeout_fn says more are coming (TF's behaviour)."""

import flowloom as tf
from flowloom.train import checkpoint_utils


def _save(directory, step):
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.Variable(1.0, name="v")
        saver = tf.train.Saver()
        sess.run(tf.global_variables_initializer())
        return saver.save(sess, str(directory / "model"), global_step=step)


def test_iterator_yields_new_checkpoints_then_times_out(tmp_path):
    assert list(tf.train.checkpoints_iterator(str(tmp_path), timeout=0)) == []
    first = _save(tmp_path, 1)
    calls = []

    def timeout_fn():
        calls.append(1)
        if len(calls) == 1:
            _save(tmp_path, 2)
            return False
        return True

    got = list(tf.train.checkpoints_iterator(str(tmp_path), timeout=0.1,
                                             timeout_fn=timeout_fn))
    assert got == [first, first[:-len("-1")] + "-2"]
    assert len(calls) == 2
    assert checkpoint_utils.wait_for_new_checkpoint(str(tmp_path), got[-1],
                                                    seconds_to_sleep=0.05,
                                                    timeout=0.1) is None

