"""Records what TF 1.15 does with tests/data/context_import_program.py into
tests/data/context_import_tf.json (graphs and meta graphs imported into conds and loops), and
the meta graph of nested contexts TF writes, tests/data/nested_contexts_tf1.meta, and a frozen
dynamic_rnn, tests/data/frozen_gru_tf1.pb.

    TF_CPP_MIN_LOG_LEVEL=3 $FLOWLOOM_TF1_PYTHON tests/data/record_context_import.py
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import context_import_program as program  # noqa: E402


def main():
    import tensorflow.compat.v1 as tf
    from tensorflow.python.framework import function, graph_util, meta_graph

    record = {"while_in_cond": program.while_in_cond(tf),
              "cond_in_while": program.cond_in_while(tf),
              "function_call_in_cond": program.function_call_in_cond(tf, function),
              "shapes_in_gradient_loops": program.shapes_in_gradient_loops(tf),
              "while_in_while": program.while_in_while(tf, meta_graph),
              "scoped_loop_gradients": program.scoped_loop_gradients(tf, meta_graph),
              "resource_variables_under_scopes":
                  program.resource_variables_under_scopes(tf, meta_graph),
              "variables_in_custom_collections":
                  program.variables_in_custom_collections(tf, meta_graph)}
    meta = os.path.join(HERE, "nested_contexts_tf1.meta")
    record["nested_contexts_written"] = program.write_nested_contexts(tf, meta)
    record["nested_contexts_read"] = program.read_nested_contexts(tf, meta)
    frozen = os.path.join(HERE, "frozen_gru_tf1.pb")
    program.write_frozen_gru(tf, graph_util, frozen)
    record["frozen_gru_in_contexts"] = program.frozen_gru_in_contexts(tf, frozen)
    with open(os.path.join(HERE, "context_import_tf.json"), "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
    print(json.dumps(record, sort_keys=True)[:3000])


if __name__ == "__main__":
    main()
