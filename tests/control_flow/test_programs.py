"""flowloom runs the control-flow programs of programs.py with TF's results and graphs
(recorded by tests/data/record_control_flow.py)."""

import gzip
import json
import os

import numpy as np
import pytest

import flowloom as tf
from tests.control_flow import programs
from tests.tf_reference import as_tf2_op_type

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
VALUES = np.load(os.path.join(DATA, "control_flow_values.npz"), allow_pickle=False)
with gzip.open(os.path.join(DATA, "control_flow_graphs.json.gz"), "rt") as _f:
    GRAPHS = json.load(_f)


def _listing(graph):
    out = []
    for op in graph.get_operations():
        attrs = {}
        for k in ("frame_name", "is_constant", "parallel_iterations"):
            if k in op._attrs:
                attrs[k] = op._attrs[k]
        # Recorded by TF 2.21, whose math_ops.add builds AddV2 (TF 1.15's and flowloom's: Add).
        out.append([op.name, as_tf2_op_type(op.type), [t.name for t in op.inputs],
                    [c.name for c in op.control_inputs], attrs])
    return out


@pytest.mark.parametrize("name", sorted(programs.PROGRAMS))
def test_values_match_tensorflow(name):
    g = tf.Graph()
    with g.as_default():
        fetches, feeds = programs.PROGRAMS[name](tf)
        tensors = {k: v for k, v in fetches.items() if isinstance(v, tf.Tensor)}
        ops = [v for v in fetches.values() if isinstance(v, tf.Operation)]
        with tf.Session() as sess:
            for k, feed in enumerate(feeds):
                if ops:
                    sess.run(ops)
                got = sess.run(tensors, feed)
                for key, v in got.items():
                    want = VALUES[f"{name}/{k}/{key}"]
                    assert np.asarray(v).dtype == want.dtype, (key, k)
                    np.testing.assert_allclose(v, want, rtol=2e-5, atol=1e-6,
                                               err_msg=f"{name} feed {k} fetch {key}")


@pytest.mark.parametrize("name", programs.STRUCTURE_PROGRAMS)
def test_graph_matches_tensorflow(name):
    g = tf.Graph()
    with g.as_default():
        programs.PROGRAMS[name](tf)
    got = _listing(g)
    want = GRAPHS[name]
    assert [row[:2] for row in got] == [row[:2] for row in want]
    assert got == want


@pytest.mark.parametrize("name", sorted(programs.ERROR_PROGRAMS))
def test_errors_match_tensorflow(name):
    want_class, want_message = GRAPHS["errors"][name]
    g = tf.Graph()
    with g.as_default():
        with pytest.raises(Exception) as info:
            target = programs.ERROR_PROGRAMS[name](tf)
            with tf.Session() as sess:
                sess.run(target)
    assert type(info.value).__name__ == want_class
    assert want_message in str(info.value)


def test_nest_matches_tensorflow():
    got = programs.nest_results(tf.nest)
    assert got == GRAPHS["nest"]
