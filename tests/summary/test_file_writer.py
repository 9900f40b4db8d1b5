"""FileWriter: events on disk, read back by flowloom and by real TensorFlow."""

import glob
import json
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import flowloom as tf
from flowloom.proto import config_pb2, event_pb2, graph_pb2, summary_pb2


def _events(logdir):
    (path,) = glob.glob(os.path.join(str(logdir), "events.out.tfevents.*"))
    return path, list(tf.train.summary_iterator(path))


def _hand_built_graph_def():
    gd = graph_pb2.GraphDef()
    x = gd.node.add(name="input/x", op="Placeholder", device="/device:CPU:0")
    x.attr["dtype"].type = 1
    x.attr["shape"].shape.dim.add(size=-1)
    x.attr["shape"].shape.dim.add(size=3)
    y = gd.node.add(name="layer/y", op="Identity", input=["input/x"])
    y.attr["T"].type = 1
    gd.versions.producer = 1766
    return gd


def _write_run(logdir):
    x = tf.placeholder(tf.float32, [None], name="x")
    tf.summary.scalar("avg", tf.reduce_mean(x))
    tf.summary.histogram("values", x)
    tf.summary.image("pic", tf.reshape(x[:12], [1, 2, 2, 3]), max_outputs=1)
    merged = tf.summary.merge_all()
    writer = tf.summary.FileWriter(logdir)
    writer.add_graph(_hand_built_graph_def())
    with tf.Session() as sess:
        for step in range(3):
            value = np.arange(12, dtype=np.float32) * (step + 1)
            writer.add_summary(sess.run(merged, {x: value}), global_step=step)
    writer.close()
    return writer


def test_events_written_and_read_back(tmp_path):
    _write_run(str(tmp_path))
    _, events = _events(tmp_path)
    assert events[0].file_version == "brain.Event:2"
    assert graph_pb2.GraphDef.FromString(events[1].graph_def) == _hand_built_graph_def()
    summaries = [e for e in events if e.HasField("summary")]
    assert [e.step for e in summaries] == [0, 1, 2]
    means = [v.simple_value for e in summaries for v in e.summary.value if v.tag == "avg"]
    assert means == [5.5, 11.0, 16.5]
    assert all(e.wall_time > 1e9 for e in events)


def test_add_summary_accepts_bytes_and_protos_and_strips_repeated_metadata(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path), filename_suffix=".v1")
    value = summary_pb2.Summary.Value(tag="t", simple_value=1.0)
    value.metadata.plugin_data.plugin_name = "scalars"
    proto = summary_pb2.Summary(value=[value])
    writer.add_summary(proto, global_step=1)
    writer.add_summary(proto.SerializeToString(), global_step=2)
    writer.add_session_log(event_pb2.SessionLog(status=event_pb2.SessionLog.START), 3)
    writer.add_event(event_pb2.Event(step=4, wall_time=1.0))
    writer.close()
    path, events = _events(tmp_path)
    assert path.endswith(".v1")
    first, second = events[1].summary.value[0], events[2].summary.value[0]
    assert first.metadata.plugin_data.plugin_name == "scalars"
    assert not second.HasField("metadata")
    assert proto.value[0].HasField("metadata")  # the caller's proto is not modified
    assert events[3].session_log.status == event_pb2.SessionLog.START
    assert (events[4].step, events[4].wall_time) == (4, 1.0)


def test_add_run_metadata_and_graph_errors(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path))
    meta = config_pb2.RunMetadata()
    meta.step_stats.dev_stats.add(device="/job:localhost/replica:0/task:0/device:CPU:0")
    writer.add_run_metadata(meta, "step_1", global_step=1)
    with pytest.raises(ValueError, match="tag was already used"):
        writer.add_run_metadata(meta, "step_1")
    with pytest.raises(ValueError, match="not both"):
        writer.add_graph(_hand_built_graph_def(), graph_def=_hand_built_graph_def())
    with pytest.raises(TypeError, match="must be an instance of `Graph`"):
        writer.add_graph("graph")
    writer.close()
    _, events = _events(tmp_path)
    tagged = events[1].tagged_run_metadata
    assert tagged.tag == "step_1"
    assert config_pb2.RunMetadata.FromString(tagged.run_metadata) == meta


def test_closed_writer_is_a_noop_and_reopen_starts_a_new_file(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path))
    assert writer.get_logdir() == str(tmp_path)
    writer.close()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        writer.add_summary(summary_pb2.Summary(), 1)
    assert "closed FileWriter" in str(caught[0].message)
    old = set(glob.glob(str(tmp_path / "*")))
    import time

    time.sleep(1.05)  # event file names carry whole seconds
    writer.reopen()
    writer.add_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(
        tag="again", simple_value=2.0)]), 5)
    writer.close()
    new = set(glob.glob(str(tmp_path / "*"))) - old
    assert len(new) == 1
    events = list(tf.train.summary_iterator(new.pop()))
    assert events[-1].summary.value[0].tag == "again"
    assert len(list(tf.train.summary_iterator(old.pop()))) == 1  # only the version event


def test_flushed_events_survive_a_killed_process(tmp_path):
    code = textwrap.dedent(f"""
        import os
        import flowloom as tf
        from flowloom.proto import summary_pb2
        w = tf.summary.FileWriter({str(tmp_path)!r}, flush_secs=10000)
        for i in range(5):
            w.add_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(
                tag="s", simple_value=i)]), i)
        w.flush()
        os._exit(9)  # no close, no interpreter cleanup
    """)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True)
    assert out.returncode == 9, out.stderr
    _, events = _events(tmp_path)
    assert [e.step for e in events[1:]] == [0, 1, 2, 3, 4]


def test_file_writer_cache_shares_one_writer_per_logdir(tmp_path, monkeypatch):
    import flowloom.summary.writer as writer_module

    monkeypatch.setattr(writer_module, "_graph_def_of", lambda g: graph_pb2.GraphDef())
    a = tf.summary.FileWriterCache.get(str(tmp_path / "a"))
    assert tf.summary.FileWriterCache.get(str(tmp_path / "a")) is a
    assert tf.summary.FileWriterCache.get(str(tmp_path / "b")) is not a
    tf.summary.FileWriterCache.clear()
    assert tf.summary.FileWriterCache.get(str(tmp_path / "a")) is not a
    tf.summary.FileWriterCache.clear()


def test_train_summary_writer_alias():
    assert tf.train.SummaryWriter is tf.summary.FileWriter


READ_WITH_TF = """
import json, sys
import tensorflow.compat.v1 as tf
out = []
for e in tf.train.summary_iterator(sys.argv[1]):
    item = {"step": e.step, "what": e.WhichOneof("what")}
    if e.HasField("summary"):
        item["values"] = []
        for v in e.summary.value:
            kind = v.WhichOneof("value")
            val = {"tag": v.tag, "kind": kind}
            if kind == "simple_value":
                val["value"] = v.simple_value
            elif kind == "histo":
                val["value"] = [v.histo.num, v.histo.sum, len(v.histo.bucket)]
            elif kind == "image":
                img = tf.image.decode_png(v.image.encoded_image_string)  # eager
                val["value"] = img.numpy().tolist()
            item["values"].append(val)
    if e.HasField("graph_def"):
        g = tf.GraphDef.FromString(e.graph_def)
        item["nodes"] = [n.name for n in g.node]
    out.append(item)
print(json.dumps(out))
"""


def test_tensorflow_reads_flowloom_event_file(tmp_path, run_tf):
    _write_run(str(tmp_path))
    path, mine = _events(tmp_path)
    seen = json.loads(run_tf(READ_WITH_TF, path))
    assert [e["what"] for e in seen] == [e.WhichOneof("what") for e in mine]
    assert seen[1]["nodes"] == ["input/x", "layer/y"]
    last = seen[-1]
    assert last["step"] == 2
    values = {v["tag"]: v for v in last["values"]}
    assert values["avg"]["value"] == 16.5
    assert values["values"]["value"][:2] == [12.0, 198.0]
    pic = np.array(values["pic/image"]["value"])
    assert pic.shape == (2, 2, 3)
    # Non-negative float images are scaled so that the largest value is 255.
    np.testing.assert_allclose(pic, np.arange(12).reshape(2, 2, 3) * 255 / 11, atol=1)


def test_graph_in_constructor_writes_graph_and_meta_graph_with_shapes(tmp_path):
    from flowloom.proto import meta_graph_pb2

    with tf.device("/cpu:0"):
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        with tf.name_scope("layer"):
            y = tf.matmul(x, tf.ones([3, 2]), name="mm")
    del y
    with tf.Session() as sess:
        writer = tf.summary.FileWriter(str(tmp_path), sess.graph)
    writer.close()
    _, events = _events(tmp_path)
    assert [e.WhichOneof("what") for e in events] == ["file_version", "graph_def",
                                                       "meta_graph_def"]
    graph_def = graph_pb2.GraphDef.FromString(events[1].graph_def)
    mm = [n for n in graph_def.node if n.name == "layer/mm"][0]
    assert mm.device == "/device:CPU:0"
    dims = [d.size for d in mm.attr["_output_shapes"].list.shape[0].dim]
    assert dims == [-1, 2]
    meta = meta_graph_pb2.MetaGraphDef.FromString(events[2].meta_graph_def)
    assert [n.name for n in meta.graph_def.node] == [n.name for n in graph_def.node]


def test_events_are_flushed_every_flush_secs_without_new_events(tmp_path):
    import time

    writer = tf.summary.FileWriter(str(tmp_path), flush_secs=0.2)
    writer.add_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(
        tag="early", simple_value=1.0)]), 1)
    deadline = time.time() + 5
    events = []
    while time.time() < deadline and len(events) < 2:
        time.sleep(0.1)
        _, events = _events(tmp_path)
    assert [e.step for e in events] == [0, 1]  # visible before any flush() or close()
    writer.close()
