"""Records what TensorFlow 1.15 computes for tests/feature_column/fc_cases.py: hash buckets,
crossed buckets, bucketized/vocabulary/identity ids, input_layer and linear_model outputs,
variable names and shapes.

    FLOWLOOM_TF1_PYTHON=/path/to/tf1.15/python
    TF_CPP_MIN_LOG_LEVEL=3 $FLOWLOOM_TF1_PYTHON tests/data/record_feature_columns.py

Writes tests/data/feature_column_tf.json.
"""

import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from tests.feature_column import fc_cases  # noqa: E402


def encode(value):
    value = np.asarray(value)
    if value.dtype == object:
        return {"dtype": "string", "shape": list(value.shape),
                "values": [v.decode("utf-8", "replace") for v in value.ravel()]}
    return {"dtype": value.dtype.name, "shape": list(value.shape),
            "values": value.ravel().tolist()}


def main():
    import tensorflow as tf

    out = {"tf_version": tf.__version__, "cases": {}}
    for name, fn in fc_cases.CASES.items():
        tf.reset_default_graph()
        values, variables, extra = fc_cases.run(tf, fn)
        out["cases"][name] = {"values": {k: encode(v) for k, v in values.items()},
                              "variables": variables, "extra": extra}
    out["errors"] = fc_cases.record_errors(tf)
    with open(os.path.join(HERE, "feature_column_tf.json"), "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)


if __name__ == "__main__":
    main()
