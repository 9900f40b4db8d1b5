"""Records what TensorFlow 1.15 yields for tests/data/experimental_dataset_programs.py.

  $FLOWLOOM_TF1_PYTHON tests/data/record_experimental_datasets.py
      -> tests/data/experimental_datasets_tf1.json
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import tensorflow as tf  # noqa: E402

import experimental_dataset_programs as programs  # noqa: E402


def main():
    out = {"tf_version": tf.__version__, "programs": {}}
    for name in programs.PROGRAMS:
        out["programs"][name] = programs.run(tf, name)
    with open(os.path.join(HERE, "experimental_datasets_tf1.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    print("recorded", len(out["programs"]), "programs with TF", tf.__version__)


if __name__ == "__main__":
    main()
