"""Records what TF 1.15 does with tests/data/scoped_meta_graph_program.py into
tests/data/scoped_meta_graph_tf.json (scoped export, import and copy; a meta graph imported
into an implicit name scope; clear_extraneous_savers; how collections are stored; the op types tf.add and `+` build).

    TF_CPP_MIN_LOG_LEVEL=3 $FLOWLOOM_TF1_PYTHON tests/data/record_scoped_meta_graph.py
"""

import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import scoped_meta_graph_program as program  # noqa: E402


def main():
    import tensorflow.compat.v1 as tf
    from tensorflow.python.framework import function, meta_graph

    with tempfile.TemporaryDirectory() as directory:
        record = {"scoped": program.scoped_export(tf, meta_graph),
                  "implicit": program.implicit_scope(tf, directory),
                  "extraneous": program.extraneous_savers(tf),
                  "collections": program.collections(tf),
                  "op_types": program.op_types(tf, function)}
    with open(os.path.join(HERE, "scoped_meta_graph_tf.json"), "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
    print(json.dumps(record, sort_keys=True)[:4000])


if __name__ == "__main__":
    main()
