"""A graph written by TF 2.21 with summary and parse_example ops imports into flowloom and
gives TF's outputs, byte for byte (recorded by tests/data/record_summary_graph.py)."""

import os

import numpy as np

import flowloom as tf

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")


def test_tf_graph_with_summaries_and_parsing_runs_identically():
    with open(os.path.join(DATA, "summary_graph_tf.pb"), "rb") as f:
        graph_def = tf.GraphDef.FromString(f.read())
    recorded = np.load(os.path.join(DATA, "summary_graph_tf.npz"), allow_pickle=False)
    tf.import_graph_def(graph_def, name="")
    example = recorded["ex"].tobytes()
    with tf.Session() as sess:
        merged, pa, pv, pq = sess.run(["merged/merged:0", "pa:0", "pv:0", "pq:0"],
                                      {"x:0": recorded["x"], "serialized:0": [example] * 2})
    assert merged == recorded["merged"].tobytes()
    np.testing.assert_array_equal(pa, recorded["pa"])
    np.testing.assert_array_equal(pv, recorded["pv"])
    assert pq.astype(bytes).tolist() == recorded["pq"].tolist()
