"""Summary writer resources: FileWriter(session=...) and tf.contrib.summary in graph mode."""

import glob
import os
import time

import numpy as np
import pytest

import flowloom as tf
from flowloom.summary import plugin_asset
from flowloom.train import summary_iterator


def _events(path):
    return list(summary_iterator(path))


def _tags(path):
    return [e.summary.value[0].tag for e in _events(path) if e.summary.value]


def test_session_writers_of_one_logdir_share_one_file(tmp_path):
    logdir = str(tmp_path / "logs")
    with tf.Session() as sess:
        w1 = tf.summary.FileWriter(logdir, session=sess)
        w1.add_summary(tf.Summary(value=[tf.Summary.Value(tag="one", simple_value=1)]), 1)
        w1.flush()
        w2 = tf.summary.FileWriter(logdir, session=sess)
        w2.add_summary(tf.Summary(value=[tf.Summary.Value(tag="two", simple_value=2)]), 2)
        w2.flush()
        writer = tf.contrib.summary.create_file_writer(logdir)  # the same shared name
        with tf.contrib.summary.always_record_summaries(), writer.as_default():
            s3 = tf.contrib.summary.scalar("three", tf.constant(3.0), step=3)
            h4 = tf.contrib.summary.histogram("four", tf.constant([1.0, 2.0, 2.5]), step=4)
        with tf.contrib.summary.never_record_summaries(), writer.as_default():
            skipped = tf.contrib.summary.scalar("never", 5.0, step=5)
        assert "filewriter/SummaryWriter" in [op.name for op in sess.graph.get_operations()]
        sess.run(writer.init())
        sess.run([s3, h4, skipped])
        sess.run(writer.flush())
    files = glob.glob(os.path.join(logdir, "events*"))
    assert len(files) == 1
    events = _events(files[0])
    assert events[0].file_version == "brain.Event:2"
    assert _tags(files[0]) == ["one", "two", "three", "four"]
    assert events[3].summary.value[0].simple_value == 3.0 and events[3].step == 3
    assert events[4].summary.value[0].histo.num == 3


def test_other_session_gets_its_own_writer_and_close_reopen(tmp_path):
    logdir = str(tmp_path)
    with tf.Session() as sess:
        w = tf.summary.FileWriter(logdir, session=sess, filename_suffix=".mine")
        w.add_session_log(tf.SessionLog(status=tf.SessionLog.START), 1)
        w.close()
        with pytest.raises(tf.errors.NotFoundError, match="does not exist"):
            w.event_writer.flush()  # the resource is gone after close, as in TF
        time.sleep(1.05)  # event file names carry whole seconds
        w.reopen()
        w.add_session_log(tf.SessionLog(status=tf.SessionLog.STOP), 2)
        w.close()
    files = sorted(glob.glob(os.path.join(logdir, "events*")))
    assert len(files) == 2 and all(f.endswith(".mine") for f in files)
    assert [e.session_log.status for e in _events(files[1])[1:]] == [tf.SessionLog.STOP]


def test_generic_writes_a_tensor_with_metadata(tmp_path):
    writer = tf.contrib.summary.create_file_writer(str(tmp_path), name="gen")
    meta = tf.SummaryMetadata(display_name="shown")
    with tf.contrib.summary.always_record_summaries(), writer.as_default():
        op = tf.contrib.summary.generic("t", tf.constant([[1, 2]], tf.int32), metadata=meta,
                                        step=7)
    with tf.Session() as sess:
        sess.run(tf.contrib.summary.summary_writer_initializer_op())
        sess.run(op)
        sess.run(writer.close())
    (path,) = glob.glob(str(tmp_path / "events*.v2"))
    value = _events(path)[1].summary.value[0]
    assert value.metadata.display_name == "shown"
    assert tf.make_ndarray(value.tensor).tolist() == [[1, 2]]
    assert any(o is op for o in tf.contrib.summary.all_summary_ops())


def test_no_default_writer_gives_no_op_and_bad_scalar_fails(tmp_path):
    assert tf.contrib.summary.scalar("x", 1.0, step=0).type == "NoOp"
    writer = tf.contrib.summary.create_file_writer(str(tmp_path))
    with tf.contrib.summary.always_record_summaries(), writer.as_default():
        bad = tf.contrib.summary.scalar("x", tf.constant([1.0, 2.0]), step=0)
    with tf.Session() as sess:
        sess.run(writer.init())
        with pytest.raises(tf.errors.InvalidArgumentError, match="scalar summary"):
            sess.run(bad)


def test_plugin_assets_written_with_the_graph(tmp_path):
    class Example(plugin_asset.PluginAsset):
        plugin_name = "example"

        def assets(self):
            return {"a.txt": "alpha", "b.bin": b"\x00\x01"}

    with tf.Graph().as_default() as g:
        first = plugin_asset.get_plugin_asset(Example)
        assert plugin_asset.get_plugin_asset(Example) is first

        class Other(plugin_asset.PluginAsset):
            plugin_name = "example"

            def assets(self):
                return {}

        with pytest.raises(ValueError, match="collision"):
            plugin_asset.get_plugin_asset(Other)
        tf.summary.FileWriter(str(tmp_path), graph=g).close()
    plugin_dir = tmp_path / "plugins" / "example"
    assert (plugin_dir / "a.txt").read_text() == "alpha"
    assert (plugin_dir / "b.bin").read_bytes() == b"\x00\x01"
    assert np.array_equal(sorted(os.listdir(plugin_dir)), ["a.txt", "b.bin"])
