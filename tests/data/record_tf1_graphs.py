"""Records the ops TF 1.15 builds for the graphs of tests/ops/tf1_graph_cases.py.

    $FLOWLOOM_TF1_PYTHON tests/data/record_tf1_graphs.py

Writes tests/data/tf1_graphs.json: for each case, the [name, type] of every op in the order TF
made them (TF 1.15's default op seeds count them).
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "ops"))

import tf1_graph_cases  # noqa: E402


def main():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    if not tf.__version__.startswith("1."):
        sys.exit("record_tf1_graphs.py: needs TF 1.x, got %s" % tf.__version__)
    graphs = {name: tf1_graph_cases.op_list(tf, fn)
              for name, fn in tf1_graph_cases.CASES.items()}
    out = os.path.join(HERE, "tf1_graphs.json")
    with open(out, "w") as f:
        json.dump({"tf_version": tf.__version__, "graphs": graphs}, f, indent=0)
        f.write("\n")
    print("wrote %s: %d graphs, TF %s" % (out, len(graphs), tf.__version__))


if __name__ == "__main__":
    main()
