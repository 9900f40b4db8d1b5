"""A read whose keys nobody reads (`_, v = reader.read_up_to(...)`) leaves them unmade once its
plan is compiled (runtime/compiled_plan.py, `without_outputs`): the values, counters, epochs
and errors are those of a read that makes them, and keys that are fetched or consumed are
made."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.io import tfrecord
from flowloom.ops.data import reader_ops


@pytest.fixture
def calls(monkeypatch):
    seen = []
    original = reader_ops.Reader.read_up_to

    def read_up_to(self, queue, n, with_keys=True):
        seen.append(with_keys)
        return original(self, queue, n, with_keys)

    monkeypatch.setattr(reader_ops.Reader, "read_up_to", read_up_to)
    return seen


def _files(tmp_path, count=3, records=50):
    paths = []
    for f in range(count):
        path = str(tmp_path / f"part{f}.tfrecord")
        with open(path, "wb") as out:
            for i in range(records):
                out.write(tfrecord.encode_record(bytes([f, i % 251]) * (1 + i % 5)))
        paths.append(path)
    return paths


def _drain(paths, fetch_keys, single=False, consume=False, batch=16):
    """Every run's fetched values until OutOfRangeError, and the reader's counters."""
    g = tf.Graph()
    with g.as_default():
        files = tf.train.string_input_producer(paths, num_epochs=2, shuffle=False)
        reader = tf.TFRecordReader()
        keys, values = reader.read(files) if single else reader.read_up_to(files, batch)
        fetches = [values]
        if fetch_keys:
            fetches.append(keys)
        if consume:  # the keys feed another op, whose result is fetched
            fetches.append(tf.strings.length(keys))
        counters = [reader.num_records_produced(), reader.num_work_units_completed()]
        runs = []
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            while True:
                try:
                    runs.append(sess.run(fetches))
                except tf.errors.OutOfRangeError:
                    break
            produced = sess.run(counters)
            coord.request_stop()
            coord.join(threads)
    return runs, produced


@pytest.mark.parametrize("single", [False, True])
def test_values_alone_are_those_of_a_read_that_makes_keys(tmp_path, calls, single):
    paths = _files(tmp_path)
    with_keys, produced = _drain(paths, True, single)
    assert all(calls) and calls
    del calls[:]
    alone, produced_alone = _drain(paths, False, single)
    assert False in calls  # its compiled runs left the keys unmade
    assert produced_alone == produced == [300, 6]
    assert len(alone) == len(with_keys) == (300 if single else 2 * 3 * 4)
    for (v,), (w, k) in zip(alone, with_keys):
        if single:
            assert type(v) is bytes and v == w
        else:
            assert v.dtype == object and v.tolist() == w.tolist()  # trailing NULs kept
    keys = [k for _, k in with_keys]
    first = keys[0] if single else keys[0][0]
    assert first == f"{paths[0]}:0".encode()


@pytest.mark.parametrize("single", [False, True])
def test_consumed_keys_are_made(tmp_path, calls, single):
    paths = _files(tmp_path, count=1, records=20)
    runs, _ = _drain(paths, False, single, consume=True, batch=8)
    assert calls and all(calls)
    lengths = np.concatenate([np.ravel(r[1]) for r in runs]).tolist()
    assert lengths == [len(f"{paths[0]}:{o}") for o in _offsets(20)] * 2


def _offsets(records):
    out, at = [], 0
    for i in range(records):
        out.append(at)
        at += 16 + 2 * (1 + i % 5)
    return out


def test_a_bad_record_count_fails_the_same_way_compiled(tmp_path, calls):
    paths = _files(tmp_path, count=1)
    g = tf.Graph()
    with g.as_default():
        files = tf.train.string_input_producer(paths, shuffle=False)
        n = tf.placeholder(tf.int64, [])
        _, values = tf.TFRecordReader().read_up_to(files, n)
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            messages = []
            for k in (0, 2, 2, 0, 2, -1):
                try:
                    assert len(sess.run(values, {n: k})) == k
                except tf.errors.InvalidArgumentError as e:
                    messages.append(e.message.splitlines()[0])
            assert False in calls
            assert messages == ["num_records must be > 0 but got 0"] * 2 + [
                "num_records must be > 0 but got -1"]
            coord.request_stop()
            coord.join(threads)
