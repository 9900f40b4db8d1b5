"""Filename inputs as TF1 programs build them: a `match_filenames_once` list (a local
reference variable) handed to `string_input_producer`, read by a TFRecordReader."""

import os

import pytest

import flowloom as tf


def test_reference_variable_is_truthy_resource_variable_refuses():
    # TF 1.15: RefVariable has no __bool__ (any object is true); a resource variable reads
    # its value, which graph mode refuses.
    with tf.Graph().as_default():
        assert bool(tf.Variable(0.0))
        assert not (not tf.train.match_filenames_once("*.none"))
        with pytest.raises(TypeError):
            bool(tf.get_variable("r", [2], use_resource=True))


def test_match_filenames_once_feeds_string_input_producer(tmp_path):
    for shard in range(2):
        with tf.python_io.TFRecordWriter(str(tmp_path / ("data.tfrecords-%d" % shard))) as w:
            for j in range(2):
                ex = tf.train.Example()
                ex.features.feature["i"].int64_list.value.append(shard)
                ex.features.feature["j"].int64_list.value.append(j)
                w.write(ex.SerializeToString())
    with tf.Graph().as_default():
        files = tf.train.match_filenames_once(os.path.join(str(tmp_path), "data.tfrecords-*"))
        queue = tf.train.string_input_producer(files, shuffle=False)
        _, record = tf.TFRecordReader().read(queue)
        feats = tf.parse_single_example(record, {"i": tf.FixedLenFeature([], tf.int64),
                                                 "j": tf.FixedLenFeature([], tf.int64)})
        i_batch, j_batch = tf.train.batch([feats["i"], feats["j"]], 3)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            got = [sess.run([i_batch, j_batch]) for _ in range(2)]
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
    # the files in sorted order, each in order, cycling (TF 1.15's output for this program)
    assert [a.tolist() for a, _ in got] == [[0, 0, 1], [1, 0, 0]]
    assert [b.tolist() for _, b in got] == [[0, 1, 0], [1, 0, 1]]
