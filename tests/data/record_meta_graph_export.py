"""Records what TF 1.15 does with tests/data/meta_graph_export_program.py into
tests/data/meta_graph_export_tf.json (export_meta_graph's save_debug_info, default attrs stripped in library functions, VariableDefs of TF < 1.9).

    TF_CPP_MIN_LOG_LEVEL=3 $FLOWLOOM_TF1_PYTHON tests/data/record_meta_graph_export.py
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import meta_graph_export_program as program  # noqa: E402


def main():
    import tensorflow.compat.v1 as tf
    from tensorflow.core.framework import variable_pb2
    from tensorflow.core.protobuf import graph_debug_info_pb2
    from tensorflow.python.framework import function, meta_graph

    record = {"export_with_debug_info": program.export_with_debug_info(tf, graph_debug_info_pb2),
              "stripped_function_attrs": program.stripped_function_attrs(tf, function,
                                                                         meta_graph),
              "old_variable_defs": program.old_variable_defs(tf, variable_pb2)}
    with open(os.path.join(HERE, "meta_graph_export_tf.json"), "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
    print(json.dumps(record, sort_keys=True))


if __name__ == "__main__":
    main()
