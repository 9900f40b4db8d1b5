"""make_saveable_from_iterator: a Saver writes an iterator's position and a new session
restores it, continuing at the element TF 1.15 continues at
(tests/data/iterator_saveable_tf1.json); a state TF wrote is refused with a clear error."""

import json
import os
import shutil
import sys

import numpy as np
import pytest

import flowloom as tf
from flowloom.io import bundle
from flowloom.proto import tensor_pb2

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
sys.path.insert(0, DATA)
import iterator_saveable_programs as programs  # noqa: E402

with open(os.path.join(DATA, "iterator_saveable_tf1.json")) as f:
    RECORDED = json.load(f)["programs"]


def test_every_program_is_recorded():
    assert sorted(RECORDED) == sorted(programs.PROGRAMS)


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_restored_iterator_continues_where_tf_does(name, tmp_path, monkeypatch):
    monkeypatch.setenv("FLOWLOOM_SEED_RULES", "1")
    assert programs.run(tf, name, str(tmp_path)) == RECORDED[name]


def _reads(sess, nxt, n):
    return [sess.run(nxt).tolist() for _ in range(n)]


def test_unseeded_shuffle_restores_its_seeds(tmp_path):
    """The fresh seeds of an unseeded shuffle are part of the state: the restored session
    yields what the saving session went on to yield."""
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(30).shuffle(10).repeat(2).batch(4)
        it = ds.make_one_shot_iterator()
        nxt = it.get_next()
        saver = tf.train.Saver([tf.data.experimental.make_saveable_from_iterator(it)])
        with tf.Session() as sess:
            _reads(sess, nxt, 4)
            saver.save(sess, str(tmp_path / "m"))
            expected = _reads(sess, nxt, 8)
        with tf.Session() as sess:
            saver.restore(sess, str(tmp_path / "m"))
            assert _reads(sess, nxt, 8) == expected


def test_restore_in_the_same_session_rewinds(tmp_path):
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(40).shuffle(8, seed=2).repeat()
        it = ds.make_initializable_iterator()
        nxt = it.get_next()
        saver = tf.train.Saver([tf.data.experimental.make_saveable_from_iterator(it)])
        with tf.Session() as sess:
            sess.run(it.initializer)
            _reads(sess, nxt, 45)
            saver.save(sess, str(tmp_path / "m"))
            expected = _reads(sess, nxt, 50)
            saver.restore(sess, str(tmp_path / "m"))
            assert _reads(sess, nxt, 50) == expected


def test_the_checkpoint_entry_is_tfs(tmp_path):
    with tf.Graph().as_default():
        it = tf.data.Dataset.range(3).make_one_shot_iterator()
        saveable = tf.data.experimental.make_saveable_from_iterator(it)
        assert saveable.specs[0].name == "OneShotIterator:0-state"
        assert saveable.specs[0].tensor.op.type == "SerializeIterator"
        saver = tf.train.Saver([saveable])
        with tf.Session() as sess:
            sess.run(it.get_next())
            saver.save(sess, str(tmp_path / "m"))
    reader = bundle.BundleReader(str(tmp_path / "m"))
    assert reader.list() == {"OneShotIterator:0-state": (21, ())}  # DT_VARIANT, scalar
    state = reader.get("OneShotIterator:0-state")[()]
    assert isinstance(state, tensor_pb2.VariantTensorDataProto)
    assert state.type_name == "flowloom.IteratorReplayState"
    assert list(state.tensors[0].int64_val) == [1]


def test_variant_entries_round_trip_in_tfs_framing(tmp_path):
    protos = np.empty([2], dtype=object)
    protos[0] = tensor_pb2.VariantTensorDataProto(type_name="a", metadata=b"x" * 300)
    protos[1] = tensor_pb2.VariantTensorDataProto(type_name="b")
    bundle.write_bundle(str(tmp_path / "v"), {"v": protos})
    back = bundle.BundleReader(str(tmp_path / "v")).get("v")
    assert back.shape == (2,) and [p.type_name for p in back] == ["a", "b"]
    assert back[0].metadata == b"x" * 300
    # TF's own checkpoint reads back, and flowloom writes its element bytes identically
    tf_prefix = os.path.join(DATA, "iterator_state_tf1", "model")
    reader = bundle.BundleReader(tf_prefix)
    value = reader.get("OneShotIterator:0-state")
    entry = reader.entry("OneShotIterator:0-state")
    data, _ = bundle._encode_variants(value.reshape(-1))
    assert data == reader._read_data("x", entry)


def test_corrupt_variant_entry_is_data_loss(tmp_path):
    prefix = str(tmp_path / "model")
    for name in os.listdir(os.path.join(DATA, "iterator_state_tf1")):
        shutil.copy(os.path.join(DATA, "iterator_state_tf1", name), tmp_path)
    path = bundle.data_filename(prefix)
    raw = bytearray(open(path, "rb").read())
    raw[10] ^= 0xFF
    open(path, "wb").write(bytes(raw))
    with pytest.raises(tf.errors.DataLossError):
        bundle.BundleReader(prefix).get("OneShotIterator:0-state")


def test_a_state_tf_wrote_is_refused_clearly():
    with tf.Graph().as_default():
        it = tf.data.Dataset.range(10).make_one_shot_iterator()
        nxt = it.get_next()
        saver = tf.train.Saver([tf.data.experimental.make_saveable_from_iterator(it)])
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="written by TensorFlow"):
                saver.restore(sess, os.path.join(DATA, "iterator_state_tf1", "model"))
            assert sess.run(nxt) == 0


def test_a_state_of_another_pipeline_is_refused(tmp_path):
    with tf.Graph().as_default():
        it = tf.data.Dataset.range(10).make_one_shot_iterator()
        saver = tf.train.Saver([tf.data.experimental.make_saveable_from_iterator(it)])
        with tf.Session() as sess:
            saver.save(sess, str(tmp_path / "m"))
    with tf.Graph().as_default():
        it = tf.data.Dataset.range(10).shuffle(3, seed=1).make_one_shot_iterator()
        saver = tf.train.Saver([tf.data.experimental.make_saveable_from_iterator(it)])
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="another input pipeline"):
                saver.restore(sess, str(tmp_path / "m"))


def test_restoring_an_uninitialized_iterator_says_so(tmp_path):
    with tf.Graph().as_default():
        it = tf.data.Dataset.range(10).make_initializable_iterator()
        saver = tf.train.Saver([tf.data.experimental.make_saveable_from_iterator(it)])
        with tf.Session() as sess:
            sess.run(it.initializer)
            saver.save(sess, str(tmp_path / "m"))
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError, match="initializ"):
                saver.restore(sess, str(tmp_path / "m"))


def test_checkpoint_input_pipeline_hook_continues_across_train_calls(tmp_path):
    """Three Estimator.train calls: each continues the input where the last stopped, and the
    model dir holds TF's input.ckpt-<step> files and checkpoint_input state file."""
    with open(os.path.join(DATA, "iterator_saveable_tf1.json")) as f:
        expected = json.load(f)["estimator_hook"]
    assert programs.estimator_hook(tf, str(tmp_path)) == expected


def test_every_iterator_is_in_the_iterators_collection():
    with tf.Graph().as_default() as g:
        a = tf.data.Dataset.range(3).make_one_shot_iterator()
        b = tf.data.Dataset.range(3).make_initializable_iterator()
        assert g.get_collection("iterators") == [a._handle, b._handle]
