"""Records what TensorFlow 1.15 yields for tests/data/dataset_programs.py.

  $FLOWLOOM_TF1_PYTHON tests/data/record_datasets.py   -> tests/data/datasets_tf1.json
  $FLOWLOOM_TF_PYTHON tests/data/record_datasets.py    -> tests/data/datasets_tf2.json
      (TF 2.x compat.v1: the shuffle_* programs, whose orders differ between releases)
"""

import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import tensorflow as tf  # noqa: E402

import dataset_programs  # noqa: E402

if hasattr(tf, "compat") and hasattr(tf.compat, "v1") and tf.__version__.startswith("2"):
    tf = tf.compat.v1
    tf.disable_v2_behavior()


def main():
    out = {"tf_version": tf.__version__, "programs": {}}
    two = tf.__version__.startswith("2")
    for name in dataset_programs.PROGRAMS:
        if two and not name.startswith("shuffle_"):
            continue
        with tempfile.TemporaryDirectory() as d:
            out["programs"][name] = dataset_programs.run(tf, name, d)
    with open(os.path.join(HERE, "datasets_tf2.json" if two else "datasets_tf1.json"),
              "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    print("recorded", len(out["programs"]), "programs with TF", tf.__version__)


if __name__ == "__main__":
    main()
