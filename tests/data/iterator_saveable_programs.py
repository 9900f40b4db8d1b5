"""Programs that save an iterator's state mid-way and restore it in a new session, written
once for TensorFlow 1.15 (record_iterator_saveable.py) and flowloom
(tests/input_data/test_iterator_saveable.py). Each returns (dataset, reads before the save,
reads after the restore, initializable?)."""

import os

import numpy as np


def range_one_shot(tf):
    return tf.data.Dataset.range(10), 2, 3, False


def shuffle_repeat_map_batch(tf):
    ds = tf.data.Dataset.range(20).shuffle(5, seed=1).repeat(2).map(lambda x: x * 2).batch(3)
    return ds, 5, 9, False


def shuffle_same_order_initializable(tf):
    ds = tf.data.Dataset.from_tensor_slices((np.arange(12), np.arange(12) * 0.5))
    ds = ds.shuffle(12, seed=4, reshuffle_each_iteration=False).repeat(3)
    return ds, 14, 8, True


def sample_from_seeded(tf):
    ds = tf.data.experimental.sample_from_datasets(
        [tf.data.Dataset.range(50), tf.data.Dataset.range(100, 150)], [0.3, 0.7], seed=8)
    return ds, 7, 7, False


def interleave_filter_take(tf):
    ds = tf.data.Dataset.range(1, 6).interleave(lambda n: tf.data.Dataset.range(n * 10, n * 10 + n),
                                                cycle_length=2)
    return ds.filter(lambda x: x % 3 != 0).take(9), 4, 8, False


PROGRAMS = {name: fn for name, fn in list(globals().items())
            if callable(fn) and not name.startswith("_") and fn.__module__ == __name__}


def _plain(v):
    if isinstance(v, tuple):
        return [_plain(x) for x in v]
    return np.asarray(v).tolist()


def run(tf, name, directory):
    """(elements before the save, elements after the restore in a new session)."""
    tf.reset_default_graph()
    ds, before, after, initializable = PROGRAMS[name](tf)
    it = ds.make_initializable_iterator() if initializable else ds.make_one_shot_iterator()
    nxt = it.get_next()
    tf.add_to_collection(tf.GraphKeys.SAVEABLE_OBJECTS,
                         tf.data.experimental.make_saveable_from_iterator(it))
    saver = tf.train.Saver()
    prefix = os.path.join(directory, "model")

    def read(sess, n):
        out = []
        for _ in range(n):
            try:
                out.append(_plain(sess.run(nxt)))
            except tf.errors.OutOfRangeError:
                out.append("end")
                break
        return out

    with tf.Session() as sess:
        if initializable:
            sess.run(it.initializer)
        first = read(sess, before)
        saver.save(sess, prefix)
    with tf.Session() as sess:
        if initializable:
            sess.run(it.initializer)
        saver.restore(sess, prefix)
        second = read(sess, after)
    return [first, second]


def estimator_hook(tf, directory):
    """Three Estimator.train calls with CheckpointInputPipelineHook: the input continues
    across them. Returns the last element each call read and the files in the model dir."""
    def input_fn():
        return tf.data.Dataset.range(100).shuffle(10, seed=3).map(lambda x: ({"x": x}, x))

    def model_fn(features, labels, mode):
        last = tf.get_variable("last", [], tf.int64, initializer=tf.zeros_initializer())
        w = tf.get_variable("w", [], tf.float32)
        loss = tf.square(w - tf.cast(features["x"], tf.float32))
        train = tf.group(tf.assign(last, features["x"]),
                         tf.assign_add(tf.train.get_global_step(), 1))
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train)

    est = tf.estimator.Estimator(model_fn, model_dir=directory,
                                 config=tf.estimator.RunConfig(save_checkpoints_steps=2))
    out = []
    for steps in (5, 3, 4):
        est.train(input_fn, steps=steps,
                  hooks=[tf.data.experimental.CheckpointInputPipelineHook(est)])
        out.append(int(est.get_variable_value("last")))
    return [out, sorted(f for f in os.listdir(directory) if "input" in f)]
