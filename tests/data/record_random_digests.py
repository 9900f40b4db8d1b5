"""Records digests of large outputs of real TensorFlow's float32 normal kernels.

    $FLOWLOOM_TF1_PYTHON tests/data/record_random_digests.py     # TF 1.15 (CPU)

Writes tests/data/random_digests_tf1.json: for each case (tests/ops/test_libm_float.py lists
the same ones), the SHA-256 of the first and second run's float32 bytes and the first values.
Millions of Box-Muller values stay a few bytes of test data.
"""

import hashlib
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# name -> (op, shape, dtype, graph seed, op seed)
CASES = {
    "normal_1000x1000_s1_2": ("random_normal", [1000, 1000], "float32", 1, 2),
    "normal_777x1300_s777_0": ("random_normal", [777, 1300], "float32", 777, 0),
    "normal_half_300x301_s5_9": ("random_normal", [300, 301], "float16", 5, 9),
    "truncated_640x640_s3_4": ("truncated_normal", [640, 640], "float32", 3, 4),
}


def digest(array):
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()


def run(tf, op, shape, dtype, graph_seed, op_seed):
    """(first run, second run) of one seeded random op in a fresh graph."""
    with tf.Graph().as_default():
        tf.set_random_seed(graph_seed)
        out = getattr(tf, op)(shape, dtype=getattr(tf, dtype), seed=op_seed)
        with tf.Session() as sess:
            return sess.run(out), sess.run(out)


def main():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    values = {}
    for name, args in CASES.items():
        first, second = run(tf, *args)
        values[name] = {"run1": digest(first), "run2": digest(second),
                        "head": [float(v) for v in first.ravel()[:4]]}
    out = os.path.join(HERE, f"random_digests_tf{tf.__version__.split('.')[0]}.json")
    with open(out, "w") as f:
        json.dump({"tf_version": tf.__version__, "cases": values}, f, indent=1)
        f.write("\n")
    print(f"wrote {out}: {len(values)} cases, TF {tf.__version__}")


if __name__ == "__main__":
    main()
