"""Programs in the style of TF's multi-GPU CIFAR-10 tutorial that run unchanged on TF 1.x and
on flowloom: the pre-1.0 summaries of `tf.contrib.deprecated` inside tower scopes, and the
seeds' story of `tf.identity` giving queue-fed tensors of `shuffle_batch` their own node (and
scope) in the graph TensorBoard reads from the event file.

`record_pipelines.py towers` runs them on TF 1.15 (FLOWLOOM_TF1_PYTHON) into towers_tf.json;
tests/input_pipelines/test_towers_against_tf.py runs them on flowloom. Python 3.7 compatible.
"""

import glob
import os
import shutil
import tempfile


def prog_contrib_deprecated_summaries(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant([[1.0, -2.0], [0.0, 4.0]])
        out = {}
        for i in range(2):
            with tf.device("/cpu:0"), tf.name_scope("tower_%d" % i) as scope:
                tf.contrib.deprecated.scalar_summary("total_loss (raw)", tf.reduce_sum(x))
                tf.contrib.deprecated.histogram_summary("conv1/activations", tf.nn.relu(x))
                tf.contrib.deprecated.image_summary(
                    "images", tf.zeros([1, 2, 2, 1]), max_images=1)
                out["tower_%d" % i] = [s.name for s in
                                       tf.get_collection(tf.GraphKeys.SUMMARIES, scope)]
        vec = tf.contrib.deprecated.scalar_summary(["a", "b"], [1.5, 2.5], name="pair")
        merged_all = tf.contrib.deprecated.merge_all_summaries()
        merged = tf.contrib.deprecated.merge_summary(
            tf.get_collection(tf.GraphKeys.SUMMARIES, "tower_1") + [vec])
        out["merged_op"] = [merged.op.type, merged.name, len(merged.op.inputs)]
        out["pair"] = [vec.op.type, vec.name, vec.op.inputs[0].op.name]
        with tf.Session() as sess:
            try:
                sess.run(merged_all)
                out["merge_all"] = None
            except tf.errors.OpError as e:
                # both towers write the same tags: the merge refuses them, as TF's does
                out["merge_all"] = [type(e).__name__, e.message.split("\n")[0]]
            summary = tf.Summary()
            summary.ParseFromString(sess.run(merged))
        values = []
        for v in summary.value:
            kind = v.WhichOneof("value")
            if kind == "simple_value":
                values.append([v.tag, kind, float(v.simple_value)])
            elif kind == "histo":
                values.append([v.tag, kind, v.histo.min, v.histo.max, v.histo.num,
                               v.histo.sum, v.histo.sum_squares, len(v.histo.bucket)])
            else:
                values.append([v.tag, kind])
        out["values"] = values
        try:
            tf.contrib.deprecated.scalar_summary("bad", tf.constant([1.0, 2.0]))
            with tf.Session() as sess:
                sess.run(tf.get_collection(tf.GraphKeys.SUMMARIES)[-1])
            out["shape_error"] = None
        except (ValueError, tf.errors.OpError) as e:
            out["shape_error"] = type(e).__name__
    return out


def _write_records(path, n):
    with open(path, "wb") as f:
        for i in range(n):
            f.write(bytes([i % 10]) + bytes(((i * 7 + k) % 256 for k in range(12))))


def prog_identity_names_shuffle_batch_in_event_graph(tf):
    """The seed: shuffle_batch returns queue-fed tensors (QueueDequeueManyV2 outputs); passed
    through tf.identity in a scope of their own, they get named nodes in the graph that
    FileWriter writes, which is what TensorBoard shows."""
    work = tempfile.mkdtemp()
    try:
        data = os.path.join(work, "data.bin")
        _write_records(data, 40)
        g = tf.Graph()
        with g.as_default():
            with tf.name_scope("input"):
                files = tf.train.string_input_producer([data], shuffle=False)
                _, value = tf.FixedLengthRecordReader(record_bytes=13).read(files)
                raw = tf.decode_raw(value, tf.uint8)
                label = tf.cast(raw[0], tf.int32)
                image = tf.reshape(tf.cast(raw[1:], tf.float32), [2, 2, 3])
                images, labels = tf.train.shuffle_batch([image, label], batch_size=4,
                                                        capacity=30, min_after_dequeue=10,
                                                        num_threads=1, seed=3)
            with tf.name_scope("model_input"):
                images = tf.identity(images, name="images")
                labels = tf.identity(labels, name="labels")
            tf.reduce_sum(images, name="total")
            writer = tf.summary.FileWriter(os.path.join(work, "logs"), g)
            writer.flush()
            writer.close()
        graph_def = None
        for path in glob.glob(os.path.join(work, "logs", "events.out.tfevents.*")):
            for event in tf.train.summary_iterator(path):
                if event.graph_def:
                    graph_def = tf.GraphDef()
                    graph_def.ParseFromString(event.graph_def)
        nodes = {n.name: n for n in graph_def.node}
        picked = {}
        for name in ("model_input/images", "model_input/labels", "total",
                     "input/shuffle_batch"):
            n = nodes[name]
            picked[name] = [n.op, list(n.input)]
        scopes = sorted({n.name.split("/")[0] for n in graph_def.node})
        return {"nodes": picked, "top_scopes": scopes,
                "dequeue_outputs_used_by": sorted(
                    n.name for n in graph_def.node
                    if any(i.startswith("input/shuffle_batch") and
                           not i.startswith("input/shuffle_batch/") for i in n.input))}
    finally:
        shutil.rmtree(work, ignore_errors=True)


PROGRAMS = [prog_contrib_deprecated_summaries, prog_identity_names_shuffle_batch_in_event_graph]
