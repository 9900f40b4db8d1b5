"""GraphOptions.build_cost_model: the runs TF 1.15 reports a cost graph for
(tests/data/cost_model_tf.json, made by tests/data/record_cost_model.py), and what the graph
holds."""

import pytest

import flowloom as tf
from flowloom.runtime import cost_model
from tests.ops.recorded import run_program

GOT, EXPECTED = run_program("cost_model_programs", "cost_model_tf.json", tf)


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_reporting_runs_match_tf_1_15(key):
    assert GOT[key] == EXPECTED[key]


def test_cost_graph_nodes_have_inputs_outputs_and_times():
    config = tf.ConfigProto(graph_options=tf.GraphOptions(build_cost_model=1))
    meta = tf.RunMetadata()
    with tf.Graph().as_default(), tf.Session(config=config) as sess:
        a = tf.placeholder(tf.float32, [2, 2], name="a")
        b = tf.matmul(a, a, name="b")
        c = tf.reduce_sum(b, axis=0, name="c")
        sess.run(c, feed_dict={a: [[1.0, 2.0], [3.0, 4.0]]}, run_metadata=meta)
    nodes = {n.name: n for n in meta.cost_graph.node}
    assert {"b", "c"} <= set(nodes)
    assert [i.preceding_node for i in nodes["c"].input_info][:1] == [nodes["b"].id]
    out = nodes["c"].output_info[0]
    assert (out.size, out.dtype, [d.size for d in out.shape.dim]) == (8, tf.float32.as_datatype_enum,
                                                                     [2])
    assert nodes["c"].device.endswith("CPU:0") and nodes["c"].compute_time >= 0


def test_schedule_counts_each_plan_on_its_own():
    s = cost_model.Schedule(every=2, after=0)
    assert [s.due("p") for _ in range(4)] == [False, True, False, True]
    assert s.due("q") is False
    assert cost_model.schedule(tf.ConfigProto()) is None
