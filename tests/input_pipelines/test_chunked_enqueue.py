"""Queue runners that run their enqueue op for several examples at once
(flowloom/train/chunked_enqueue.py) enqueue exactly what single runs of the op would."""

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework import errors
from flowloom.train import chunk_forms, chunked_enqueue
from tests import tf_reference


def _cifar_files(tmp_path, records=(40, 30), seed=0):
    rng = np.random.RandomState(seed)
    files = []
    for i, n in enumerate(records):
        path = str(tmp_path / f"data_batch_{i}.bin")
        labels = rng.randint(0, 10, size=(n, 1)).astype(np.uint8)
        pixels = rng.randint(0, 256, size=(n, 3072)).astype(np.uint8)
        np.concatenate([labels, pixels], 1).tofile(path)
        files.append(path)
    return files


def _tutorial_example(files, num_epochs=None):
    """The CIFAR-10 tutorial's per-example preprocessing (distorted_inputs)."""
    queue = tf.train.string_input_producer(files, shuffle=False, num_epochs=num_epochs)
    key, value = tf.FixedLengthRecordReader(record_bytes=3073).read(queue)
    record = tf.decode_raw(value, tf.uint8)
    label = tf.cast(tf.strided_slice(record, [0], [1]), tf.int32)
    image = tf.transpose(tf.reshape(tf.strided_slice(record, [1], [3073]), [3, 32, 32]),
                         [1, 2, 0])
    image = tf.random_crop(tf.cast(image, tf.float32), [24, 24, 3])
    image = tf.image.random_flip_left_right(image)
    image = tf.image.random_brightness(image, max_delta=63)
    image = tf.image.random_contrast(image, lower=0.2, upper=1.8)
    image = tf.image.per_image_standardization(image)
    image.set_shape([24, 24, 3])
    label.set_shape([1])
    return key, image, label


def _run_pipeline(monkeypatch, chunk, build_example, batches, batch_size=10, seed=11):
    """Runs a one-thread `tf.train.batch` pipeline; returns (batches, the enqueue fns)."""
    monkeypatch.setenv("FLOWLOOM_RUNNER_CHUNK", str(chunk))
    with tf.Graph().as_default():
        tf.set_random_seed(seed)
        tensors = build_example()
        out = tf.train.batch(list(tensors), batch_size=batch_size, num_threads=1,
                             capacity=64, allow_smaller_final_batch=True)
        made = []
        qr = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)[-1]
        plain = qr._enqueue_fn

        def spy(sess, op):
            fn = plain(sess, op)
            made.append(fn)
            return fn
        qr._enqueue_fn = spy
        got = []
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            try:
                for _ in range(batches):
                    got.append(sess.run(out))
            except errors.OutOfRangeError:
                pass
            coord.request_stop()
            coord.join(threads)
        return got, made


def _same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        for u, v in zip(x, y):
            assert u.dtype == v.dtype and u.shape == v.shape
            assert np.array_equal(u, v), "chunked values differ from single runs"


def test_tutorial_preprocessing_chunked_equals_single_runs(tmp_path, monkeypatch):
    files = _cifar_files(tmp_path)
    example = lambda: _tutorial_example(files)[1:]  # noqa: E731
    chunked, made = _run_pipeline(monkeypatch, 16, example, 12)
    assert isinstance(made[0], chunked_enqueue.ChunkedEnqueue)
    assert made[0]._fallbacks == 0
    single, made1 = _run_pipeline(monkeypatch, 1, example, 12)
    assert not isinstance(made1[0], chunked_enqueue.ChunkedEnqueue)
    _same(chunked, single)
    # both flips happened, and the images are not all alike
    images = np.concatenate([b[0] for b in chunked])
    assert images.shape == (120, 24, 24, 3) and len({im.tobytes() for im in images}) == 120


def test_epochs_end_at_the_same_record_with_keys(tmp_path, monkeypatch):
    files = _cifar_files(tmp_path, records=(21, 9))
    example = lambda: _tutorial_example(files, num_epochs=2)  # noqa: E731
    chunked, made = _run_pipeline(monkeypatch, 8, example, 100, batch_size=7)
    assert isinstance(made[0], chunked_enqueue.ChunkedEnqueue)
    single, _ = _run_pipeline(monkeypatch, 1, example, 100, batch_size=7)
    _same(chunked, single)
    keys = [k for b in chunked for k in b[0]]
    assert len(keys) == 60 and keys[0].endswith(b"data_batch_0.bin:0")
    assert keys[21].endswith(b"data_batch_1.bin:0")


def _assert_example(files):
    queue = tf.train.string_input_producer(files, shuffle=False, num_epochs=1)
    _, value = tf.FixedLengthRecordReader(record_bytes=3073).read(queue)
    record = tf.decode_raw(value, tf.uint8)
    label = tf.cast(record[0], tf.int32)
    check = tf.Assert(tf.less(label, 9), [label], name="label_below_nine")
    with tf.control_dependencies([check]):
        label = tf.identity(label)
    return label, tf.cast(record[1:], tf.float32) + tf.random_uniform([3072])


def test_a_failing_example_fails_at_the_same_element(tmp_path, monkeypatch):
    files = _cifar_files(tmp_path, records=(50,), seed=3)
    labels = np.fromfile(files[0], np.uint8).reshape(50, 3073)[:, 0]
    bad = int(np.argmax(labels >= 9))
    assert labels.max() >= 9 and bad > 0

    def run(chunk):
        monkeypatch.setenv("FLOWLOOM_RUNNER_CHUNK", str(chunk))
        with tf.Graph().as_default():
            tf.set_random_seed(5)
            label, pixels = _assert_example(files)
            q = tf.FIFOQueue(100, [tf.int32, tf.float32], shapes=[[], [3072]])
            qr = tf.train.QueueRunner(q, [q.enqueue([label, pixels])])
            with tf.Session() as sess:
                sess.run(tf.local_variables_initializer())
                coord = tf.train.Coordinator()
                threads = tf.train.start_queue_runners(sess, coord)
                threads += qr.create_threads(sess, coord, start=True)
                with pytest.raises(errors.InvalidArgumentError, match="label_below_nine"):
                    coord.join(threads)
                n = sess.run(q.size())
                return sess.run(q.dequeue_many(n))
    chunked, single = run(16), run(1)
    assert len(chunked[0]) == len(single[0]) == bad
    assert np.array_equal(chunked[0], single[0]) and np.array_equal(chunked[1], single[1])


def test_random_draws_equal_single_runs():
    def draws(chunked):
        with tf.Graph().as_default():
            tf.set_random_seed(3)
            u = tf.random_uniform([2, 3], seed=1)
            i = tf.random_uniform([5], minval=-4, maxval=1000, dtype=tf.int32, seed=2)
            sess = tf.Session()
            if not chunked:
                return [np.stack(v) for v in zip(*[sess.run([u, i]) for _ in range(37)])]
            return [chunk_forms.random_draw(sess, t.op)(37) for t in (u, i)]
    got, want = draws(True), draws(False)
    assert got[0].shape == (37, 2, 3) and got[0].dtype == np.float32
    assert got[1].shape == (37, 5) and got[1].dtype == np.int32
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_draws_interleave_with_single_runs_of_the_same_op():
    """A chunk reserves its runs' counters: a single run after it draws what the run after
    that many single runs would."""
    with tf.Graph().as_default():
        tf.set_random_seed(9)
        u = tf.random_uniform([], seed=4)
        sess = tf.Session()
        first = sess.run(u)
        chunk = chunk_forms.random_draw(sess, u.op)(5)
        after = sess.run(u)
    with tf.Graph().as_default():
        tf.set_random_seed(9)
        u = tf.random_uniform([], seed=4)
        sess = tf.Session()
        want = [sess.run(u) for _ in range(7)]
    assert np.array_equal(np.array([first, *chunk, after], np.float32), np.array(want))


def _text_files(tmp_path):
    path = tmp_path / "lines.txt"
    path.write_text("".join("x" * (i % 7 + 1) + "\n" for i in range(40)))
    return [str(path)]


def test_unequal_records_fall_back_to_single_runs(tmp_path, monkeypatch):
    """Lines of different lengths cannot be stacked: the chunks are redone element by
    element, then the runner goes back to single runs; the values are the same."""
    files = _text_files(tmp_path)

    def example():
        queue = tf.train.string_input_producer(files, shuffle=False, num_epochs=1)
        _, line = tf.TextLineReader().read(queue)
        codes = tf.cast(tf.decode_raw(line, tf.uint8), tf.int32)
        return (tf.reduce_sum(codes) + tf.random_uniform([], maxval=10, dtype=tf.int32),)

    chunked, made = _run_pipeline(monkeypatch, 4, example, 10)
    assert isinstance(made[0], chunked_enqueue.ChunkedEnqueue)
    assert made[0]._fallbacks == chunked_enqueue.MAX_FALLBACKS
    single, _ = _run_pipeline(monkeypatch, 1, example, 10)
    _same(chunked, single)
    assert sum(len(b) for b in chunked) == 40  # one tensor: batch gives it, not a list


@pytest.mark.parametrize("kind", ["plain", "variable", "py_func", "normal"])
def test_what_is_not_exact_in_chunks_runs_one_example_per_run(tmp_path, kind):
    files = _cifar_files(tmp_path, records=(5,))
    with tf.Graph().as_default():
        queue = tf.train.string_input_producer(files)
        _, value = tf.FixedLengthRecordReader(record_bytes=3073).read(queue)
        x = tf.cast(tf.decode_raw(value, tf.uint8), tf.float32)
        if kind == "variable":
            x = x * tf.Variable(2.0)
        elif kind == "py_func":
            x = tf.py_func(lambda v: v * 2, [x], tf.float32)
        elif kind == "normal":
            x = x + tf.random_normal([3073])
        q = tf.FIFOQueue(10, [tf.float32])
        with tf.Session() as sess:
            chunked = chunked_enqueue.build(sess, q.enqueue([x]))
            assert (chunked is not None) == (kind == "plain")


def test_one_at_a_time_lets_a_waiting_dequeue_in_after_each_row():
    """A seeded RandomShuffleQueue: a dequeue waiting while rows arrive sees the queue as it
    would after single enqueues of the rows."""
    from flowloom.ops.data.queue_resource import Queue

    def dequeued(many):
        with tf.Graph().as_default():
            q = tf.RandomShuffleQueue(50, 3, [tf.int32], shapes=[[]], seed=1)
            one = tf.placeholder(tf.int32, [])
            enqueue, take = q.enqueue([one]), q.dequeue_many(2)
            with tf.Session() as sess:
                sess.run(q.size())  # makes the queue
                (queue,) = [v for v in sess._resources.values() if isinstance(v, Queue)]
                got = []
                waiter = threading.Thread(target=lambda: got.append(sess.run(take)))
                waiter.start()
                for _ in range(1000):
                    if queue._dequeue_line:
                        break
                    threading.Event().wait(0.005)
                assert queue._dequeue_line
                if many:
                    queue.enqueue([np.arange(10, dtype=np.int32)], many=True,
                                  one_at_a_time=True)
                else:
                    for v in range(10):
                        sess.run(enqueue, {one: v})
                waiter.join(10)
                sess.run(q.close())  # the rest can go below min_after_dequeue
                rest = sess.run(q.dequeue_many(sess.run(q.size())))
                return got[0], rest
    a, b = dequeued(True), dequeued(False)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_closing_the_session_releases_a_chunked_runner_blocked_on_a_full_queue(
        tmp_path, monkeypatch):
    monkeypatch.setenv("FLOWLOOM_RUNNER_CHUNK", "8")
    files = _cifar_files(tmp_path, records=(30,))
    with tf.Graph().as_default():
        _, image, label = _tutorial_example(files)
        q = tf.FIFOQueue(4, [tf.float32, tf.int32], shapes=[[24, 24, 3], [1]])
        qr = tf.train.QueueRunner(q, [q.enqueue([image, label])])
        sess = tf.Session()
        threads = tf.train.start_queue_runners(sess) + qr.create_threads(sess, start=True,
                                                                          daemon=True)
        for _ in range(200):
            if sess.run(q.size()) == 4:
                break
            threading.Event().wait(0.01)
        assert sess.run(q.size()) == 4
        sess.close()
        for t in threads:
            t.join(10)
            assert not t.is_alive()


def test_chunk_size_follows_capacity_and_environment(monkeypatch):
    monkeypatch.delenv("FLOWLOOM_RUNNER_CHUNK", raising=False)
    assert chunked_enqueue.chunk_size(592, 2) == chunked_enqueue.DEFAULT_CHUNK
    assert chunked_enqueue.chunk_size(20, 2) == 5
    assert chunked_enqueue.chunk_size(2, 4) == 1
    monkeypatch.setenv("FLOWLOOM_RUNNER_CHUNK", "1")
    assert chunked_enqueue.chunk_size(592, 2) == 1
    monkeypatch.setenv("FLOWLOOM_RUNNER_CHUNK", "junk")
    assert chunked_enqueue.chunk_size(592, 2) == chunked_enqueue.DEFAULT_CHUNK
    assert os.environ["FLOWLOOM_RUNNER_CHUNK"] == "junk"


@pytest.mark.parametrize("fresh", [False, True])
def test_a_reduction_of_a_view_stays_in_single_runs(tmp_path, fresh):
    """Single runs hand a Mean after a Transpose a view (NumPy then sums in memory order);
    a chunk's rows are C-ordered, so such a Mean is not chunked. After an elementwise op
    (a new array in single runs too) it is, and gives the same values."""
    files = _cifar_files(tmp_path, records=(5,))
    with tf.Graph().as_default():
        queue = tf.train.string_input_producer(files)
        _, value = tf.FixedLengthRecordReader(record_bytes=3073).read(queue)
        x = tf.reshape(tf.cast(tf.decode_raw(value, tf.uint8)[1:], tf.float32), [3, 32, 32])
        x = tf.transpose(x, [1, 2, 0])
        if fresh:
            x = x * 1.5
        q = tf.FIFOQueue(10, [tf.float32])
        with tf.Session() as sess:
            chunked = chunked_enqueue.build(sess, q.enqueue([tf.reduce_mean(x, [0, 1, 2])]))
            assert (chunked is not None) == fresh


_LIVE_PROGRAM = r"""
import sys
import numpy as np
if sys.argv[1] == "tf":
    import tensorflow as tf
else:
    import flowloom as tf
files, out = sys.argv[2].split(","), sys.argv[3]
tf.set_random_seed(7)
queue = tf.train.string_input_producer(files, shuffle=False)
_, value = tf.FixedLengthRecordReader(record_bytes=3073).read(queue)
record = tf.decode_raw(value, tf.uint8)
label = tf.cast(tf.strided_slice(record, [0], [1]), tf.int32)
image = tf.transpose(tf.reshape(tf.strided_slice(record, [1], [3073]), [3, 32, 32]), [1, 2, 0])
image = tf.random_crop(tf.cast(image, tf.float32), [24, 24, 3], seed=1)
image = tf.image.random_flip_left_right(image, seed=2)
image = tf.image.random_brightness(image, max_delta=63, seed=3)
image = tf.image.random_contrast(image, lower=0.2, upper=1.8, seed=4)
image.set_shape([24, 24, 3])
label.set_shape([1])
images, labels = tf.train.batch([image, label], batch_size=20, num_threads=1, capacity=64)
with tf.Session() as sess:
    if sys.argv[1] != "tf":  # the runner does run chunks
        from flowloom.train import chunked_enqueue
        runner = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)[-1]
        assert chunked_enqueue.build(sess, runner.enqueue_ops[0]) is not None
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess, coord)
    got = [sess.run([images, labels]) for _ in range(4)]
    coord.request_stop()
    coord.join(threads)
np.save(out, np.concatenate([g[0] for g in got]))
"""


@pytest.mark.skipif(not tf_reference.tensorflow_python("FLOWLOOM_TF1_PYTHON"),
                    reason=tf_reference.skip_reason("FLOWLOOM_TF1_PYTHON"))
def test_chunked_tutorial_preprocessing_equals_tf_1_15(tmp_path):
    """The tutorial's random crop, flip, brightness and contrast through a one-thread queue
    runner: flowloom's chunked runner gives TF 1.15's values bit for bit."""
    files = ",".join(_cifar_files(tmp_path, records=(50, 30)))
    program = tmp_path / "program.py"
    program.write_text(_LIVE_PROGRAM)
    env = dict(os.environ, FLOWLOOM_RUNNER_CHUNK="16")
    outs = {}
    for who, python in (("tf", tf_reference.tensorflow_python("FLOWLOOM_TF1_PYTHON")),
                        ("flowloom", sys.executable)):
        outs[who] = str(tmp_path / f"{who}.npy")
        subprocess.run([python, str(program), who, files, outs[who]], check=True, env=env,
                       capture_output=True, timeout=300)
    tf_images, ours = np.load(outs["tf"]), np.load(outs["flowloom"])
    assert tf_images.shape == ours.shape == (80, 24, 24, 3)
    assert np.array_equal(tf_images, ours)


def test_tfrecords_parsed_per_example_chunked_equal_single_runs(tmp_path, monkeypatch):
    """TFRecordReader -> parse_single_example -> decode_raw -> flip and brightness: chunked,
    and the same values as single runs."""
    path = str(tmp_path / "images.tfrecords")
    rng = np.random.RandomState(1)
    with tf.python_io.TFRecordWriter(path) as writer:
        for i in range(45):
            pixels = rng.randint(0, 256, 4 * 4 * 3).astype(np.uint8).tobytes()
            features = {"image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[pixels])),
                        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i]))}
            writer.write(tf.train.Example(features=tf.train.Features(
                feature=features)).SerializeToString())

    def example():
        queue = tf.train.string_input_producer([path], shuffle=False, num_epochs=1)
        _, serialized = tf.TFRecordReader().read(queue)
        parsed = tf.parse_single_example(serialized, {
            "image": tf.FixedLenFeature([], tf.string),
            "label": tf.FixedLenFeature([], tf.int64)})
        image = tf.reshape(tf.decode_raw(parsed["image"], tf.uint8), [4, 4, 3])
        image = tf.image.random_flip_left_right(tf.cast(image, tf.float32) / 255.0)
        image = tf.image.random_brightness(image, 0.2)
        return image, parsed["label"]

    chunked, made = _run_pipeline(monkeypatch, 8, example, 10, batch_size=10)
    assert isinstance(made[0], chunked_enqueue.ChunkedEnqueue) and made[0]._fallbacks == 0
    single, _ = _run_pipeline(monkeypatch, 1, example, 10, batch_size=10)
    _same(chunked, single)
    assert [len(b[1]) for b in chunked] == [10, 10, 10, 10, 5]
    assert np.array_equal(np.concatenate([b[1] for b in chunked]), np.arange(45))
