"""Records what TensorFlow 1.15 (which has tf.contrib) builds and computes for the programs of
tests/contrib/programs.py and the checks of tests/contrib/cases.py.

Run with TF 1.15:
  $FLOWLOOM_TF1_PYTHON tests/data/record_contrib.py
Writes:
  tests/data/contrib_tf.npz      values "<program>/<key>" (outputs, loss, gradients, the
                                 variables after the update ops) and "<case>/<key>";
  tests/data/contrib_tf.json.gz  per program: op names and types, variables, collections,
                                 output names; per case: its recorded facts.
"""

import gzip
import json
import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "contrib"))
import cases  # noqa: E402
import programs  # noqa: E402


def main():
    only = sys.argv[1:]
    values, meta = {}, {"programs": {}, "cases": {}}
    npz = os.path.join(HERE, "contrib_tf.npz")
    js = os.path.join(HERE, "contrib_tf.json.gz")
    if only and os.path.exists(js):
        with gzip.open(js, "rt") as f:
            meta = json.load(f)
        old = np.load(npz)
        values = {k: old[k] for k in old.files if k.split("/")[0] not in only}
    for name in programs.PROGRAMS:
        if only and name not in only:
            continue
        listing, variables, collections, got = programs.run_program(tf, name)
        for k, v in got.items():
            values[name + "/" + k] = np.asarray(v)
        meta["programs"][name] = {"ops": listing, "variables": variables,
                                  "collections": collections}
        print(name, len(listing), "ops")
    for name, case in cases.CASES.items():
        if only and name not in only:
            continue
        g = tf.Graph()
        with g.as_default():
            facts, arrays = case(tf)
        meta["cases"][name] = facts
        for k, v in arrays.items():
            values[name + "/" + k] = np.asarray(v)
        print(name)
    np.savez_compressed(npz, **values)
    with gzip.open(js, "wt") as f:
        json.dump(meta, f, indent=0, sort_keys=True)


if __name__ == "__main__":
    main()
