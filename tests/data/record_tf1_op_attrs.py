"""Records TensorFlow 1.15's attr names for every op type it registers, so that tests can
check that the NodeDefs flowloom writes carry no attr TF 1.15 would refuse.

  $FLOWLOOM_TF1_PYTHON tests/data/record_tf1_op_attrs.py   -> tests/data/tf1_op_attrs.json
"""

import json
import os

import tensorflow as tf
from tensorflow.python.framework import op_def_registry

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ops = op_def_registry.get_registered_ops()
    table = {name: sorted(a.name for a in od.attr) for name, od in sorted(ops.items())}
    with open(os.path.join(HERE, "tf1_op_attrs.json"), "w") as f:
        json.dump({"tf_version": tf.__version__, "attrs": table}, f, indent=0, sort_keys=True)
    print(len(table), "op types")


if __name__ == "__main__":
    main()
