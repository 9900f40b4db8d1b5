"""Writes SavedModels with real TensorFlow for the SavedModel tests.

  FLOWLOOM_TF_PYTHON=... $FLOWLOOM_TF_PYTHON tests/data/record_saved_model.py

Writes tests/data/saved_models/<program>/ (saved_model.pb, variables/, assets/) for each
program of saved_model_programs.py, and saved_models/expected.npz with TF's outputs.
"""

import os
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import tensorflow.compat.v1 as tf  # noqa: E402

import saved_model_programs as programs  # noqa: E402

tf.disable_v2_behavior()


def main():
    out = os.path.join(HERE, "saved_models")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    vocab = os.path.join(out, "vocab.txt")
    with open(vocab, "w") as f:
        f.write("apple\nbanana\n")
    expected = {}
    for name in programs.PROGRAMS:
        tf.reset_default_graph()
        values, feed = programs.build_and_save(tf, name, os.path.join(out, name), vocab)
        for k, v in values.items():
            expected[f"{name}/{k}"] = v
        for k, v in feed.items():
            expected[f"{name}/feed/{k}"] = v
    os.remove(vocab)
    np.savez(os.path.join(out, "expected.npz"), **expected)
    print("wrote", sorted(os.listdir(out)), "with TF", tf.__version__)


if __name__ == "__main__":
    main()
