"""tf.data.experimental's transformations yield what TensorFlow 1.15 yields
(tests/data/experimental_datasets_tf1.json: elements and static shapes)."""

import json
import os
import subprocess
import sys

import pytest

import flowloom as tf
from tests import tf_reference

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
sys.path.insert(0, DATA)
import experimental_dataset_programs as programs  # noqa: E402

with open(os.path.join(DATA, "experimental_datasets_tf1.json")) as f:
    RECORDED = json.load(f)["programs"]


def test_every_program_is_recorded():
    assert sorted(RECORDED) == sorted(programs.PROGRAMS)


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_program_yields_tfs_elements(name, monkeypatch):
    monkeypatch.setenv("FLOWLOOM_SEED_RULES", "1")  # TF 1.15's op seeds under a graph seed
    assert programs.run(tf, name) == RECORDED[name]


_TF_RUNS_GRAPH = """
import json, sys
import tensorflow as tf
out = {}
for path in sys.argv[1:]:
    g = tf.Graph()
    with g.as_default():
        gd = tf.GraphDef()
        gd.ParseFromString(open(path, "rb").read())
        tf.import_graph_def(gd, name="")
        fetch = sorted(op.name + ":0" for op in g.get_operations() if op.name.startswith("out_"))
        with tf.Session() as sess:
            rows = []
            for _ in range(12):
                try:
                    rows.append([v.tolist() for v in sess.run(fetch)])
                except tf.errors.OutOfRangeError:
                    rows.append("end")
                    break
    out[path] = rows
print("RESULT" + json.dumps(out))
"""

GRAPH_PROGRAMS = ["scan_running_sum", "group_by_window_fixed", "sample_seeded", "bucket_padded",
                  "take_while_unique", "counter_enumerate", "group_by_reducer_sum_count"]


@pytest.mark.skipif(tf_reference.tensorflow_python("FLOWLOOM_TF1_PYTHON") is None,
                    reason=tf_reference.skip_reason("FLOWLOOM_TF1_PYTHON"))
def test_tf1_runs_the_graphs_flowloom_writes(tmp_path, monkeypatch):
    """TF 1.15 imports flowloom's GraphDefs of these pipelines (op types, attrs, function
    library) and yields what flowloom yields from the same GraphDef."""
    monkeypatch.setenv("FLOWLOOM_SEED_RULES", "1")
    paths, expected = [], {}
    for name in GRAPH_PROGRAMS:
        with tf.Graph().as_default() as g:
            fetch = programs.PROGRAMS[name](tf)[0]
            for k, t in enumerate(programs._flat(fetch)):
                tf.identity(t, name=f"out_{k}")
            gd = g.as_graph_def()
        path = str(tmp_path / f"{name}.pb")
        with open(path, "wb") as f:
            f.write(gd.SerializeToString())
        paths.append(path)
        with tf.Graph().as_default() as g2:
            tf.import_graph_def(gd, name="")
            names = sorted(op.name + ":0" for op in g2.get_operations()
                           if op.name.startswith("out_"))
            rows = []
            with tf.Session() as sess:
                for _ in range(12):
                    try:
                        rows.append([v.tolist() for v in sess.run(names)])
                    except tf.errors.OutOfRangeError:
                        rows.append("end")
                        break
        expected[path] = rows
    out = subprocess.run([tf_reference.tensorflow_python("FLOWLOOM_TF1_PYTHON"), "-c",
                          _TF_RUNS_GRAPH] + paths, capture_output=True, text=True, timeout=600)
    line = [x for x in out.stdout.splitlines() if x.startswith("RESULT")]
    assert line, out.stderr[-3000:]
    assert json.loads(line[0][len("RESULT"):]) == expected
