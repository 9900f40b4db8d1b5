"""map_and_batch and parallel_interleave build TF 1.15's ops (observed with TF 1.15.5 on
the same program: op types, input names and the non-function attrs below); their elements
are checked against TF in test_datasets_vs_tf.py."""

import pytest

import flowloom as tf


def _nodes():
    g = tf.Graph()
    with g.as_default():
        d = tf.data.Dataset.range(10).apply(tf.data.experimental.map_and_batch(
            lambda x: x * 2, 3))
        e = tf.data.Dataset.range(4).apply(tf.data.experimental.parallel_interleave(
            lambda x: tf.data.Dataset.range(x), 2))
        got = {}
        with tf.Session() as sess:
            for name, ds in (("mb", d), ("pi", e)):
                nxt = ds.make_one_shot_iterator().get_next()
                out = []
                try:
                    while True:
                        out.append(sess.run(nxt).tolist())
                except tf.errors.OutOfRangeError:
                    pass
                got[name] = out
    nodes = {n.op: n for n in g.as_graph_def().node}
    return nodes, got


def test_graph_def_keeps_tfs_fused_ops():
    nodes, got = _nodes()
    mb = nodes["MapAndBatchDataset"]
    assert list(mb.input) == ["RangeDataset", "batch_size", "num_parallel_calls",
                              "drop_remainder"]
    assert mb.attr["preserve_cardinality"].b is True
    assert set(mb.attr) == {"f", "Targuments", "output_types", "output_shapes",
                            "preserve_cardinality"}
    pi = nodes["ParallelInterleaveDataset"]
    assert list(pi.input) == ["RangeDataset_1", "cycle_length", "block_length", "sloppy",
                              "buffer_output_elements", "prefetch_input_elements"]
    assert set(pi.attr) == {"f", "Targuments", "output_types", "output_shapes"}
    assert "InterleaveDataset" not in nodes and "BatchDatasetV2" not in nodes
    assert got == {"mb": [[0, 2, 4], [6, 8, 10], [12, 14, 16], [18]],
                   "pi": [0, 0, 1, 0, 1, 2]}


def test_map_and_batch_arguments():
    ds = tf.data.Dataset.range(5)
    with pytest.raises(ValueError, match="mutually exclusive"):
        ds.apply(tf.data.experimental.map_and_batch(lambda x: x, 2, num_parallel_batches=1,
                                                    num_parallel_calls=2))
    fixed = ds.apply(tf.data.experimental.map_and_batch(lambda x: x, 2, drop_remainder=True))
    assert fixed.output_shapes.as_list() == [2]
    assert ds.apply(tf.data.experimental.map_and_batch(lambda x: x, 2)).output_shapes \
        .as_list() == [None]
