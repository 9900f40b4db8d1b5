"""Fault injection: a process killed at random points while saving checkpoints never leaves
`latest_checkpoint` pointing at a checkpoint that does not restore."""

import os
import random
import select
import signal
import time

import numpy as np
import pytest

import flowloom as tf
from flowloom.io import bundle

KILLS = 20


def _train_and_save_forever(directory, weights, step, saver, ready_fd):
    """The child: resume from the latest checkpoint, then save step after step."""
    with tf.Session() as sess:
        latest = tf.train.latest_checkpoint(directory)
        if latest:
            saver.restore(sess, latest)
        else:
            sess.run(tf.global_variables_initializer())
        value = tf.placeholder(tf.float32, [])
        set_weights = tf.assign(weights, tf.fill(tf.shape(weights), value))
        n = int(sess.run(step))
        os.write(ready_fd, b"r")  # from here on the child only saves
        while True:
            n += 1
            sess.run([set_weights, step.assign(n)], {value: float(n)})
            saver.save(sess, os.path.join(directory, "model.ckpt"), global_step=n)


def _check_consistent(prefix):
    """The checkpoint restores, and its tensors are those of one single step."""
    values = bundle.read_bundle(prefix)  # verifies every checksum
    n = int(values["step"])
    assert prefix.endswith(f"-{n}")
    assert np.all(values["weights"] == n)
    return n


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
@pytest.mark.parametrize("sharded", [False, True])
def test_killed_saves_leave_a_restorable_latest_checkpoint(tmp_path, sharded):
    directory = str(tmp_path)
    weights = tf.Variable(tf.zeros([50000]), name="weights")
    step = tf.Variable(0, dtype=tf.int64, name="step")
    saver = tf.train.Saver(max_to_keep=2, sharded=sharded)
    rng = random.Random(1234)
    steps_seen = []
    kills = 0
    # Kill KILLS times (more if the machine is so slow that training barely progressed).
    while kills < KILLS or (kills < 3 * KILLS and (not steps_seen or steps_seen[-1] < 5)):
        ready_read, ready_write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child never returns into pytest
            try:
                os.close(ready_read)
                _train_and_save_forever(directory, weights, step, saver, ready_write)
            finally:
                os._exit(1)
        os.close(ready_write)
        readable, _, _ = select.select([ready_read], [], [], 60)
        os.close(ready_read)
        # Saves take ~10-100 ms (fsync bound): kill anywhere in the first few of them.
        time.sleep(rng.uniform(0.0, 0.25) if readable else 0)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        kills += 1
        latest = tf.train.latest_checkpoint(directory)
        if latest is not None:
            steps_seen.append(_check_consistent(latest))
            state = tf.train.get_checkpoint_state(directory)
            assert state.model_checkpoint_path == latest
    # Training made progress across the kills, resuming each time where it stopped.
    assert steps_seen == sorted(steps_seen) and steps_seen[-1] >= 5
    with tf.Session() as sess:
        saver.restore(sess, tf.train.latest_checkpoint(directory))
        assert sess.run(step) == steps_seen[-1]
