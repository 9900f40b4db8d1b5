"""Records what real TensorFlow's random kernels give for tests/ops/random_cases.py.

    FLOWLOOM_TF_PYTHON=... ; $FLOWLOOM_TF_PYTHON tests/data/record_random.py      # TF 2.x
    FLOWLOOM_TF1_PYTHON=...; $FLOWLOOM_TF1_PYTHON tests/data/record_random.py     # TF 1.15

Writes tests/data/random_tf2.npz or tests/data/random_tf1.npz (the TF major version picks
the file): for each case and output, run1/run2 values; a case TF cannot run is left out.
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "ops"))

import random_cases  # noqa: E402


def main():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.layers under TF 2.x
    import tensorflow

    major = tensorflow.__version__.split(".")[0]
    if major == "1":
        tf = tensorflow
    else:
        import tensorflow.compat.v1 as tf

        tf.disable_v2_behavior()
    values = {}
    for name, fn in random_cases.CASES.items():
        try:
            first, second = random_cases.run_case(tf, fn)
        except Exception as e:  # noqa: BLE001 - report and go on
            print(f"skipped {name}: {type(e).__name__}: {str(e).splitlines()[0]}")
            continue
        for i, (a, b) in enumerate(zip(first, second)):
            values[f"{name}/{i}/run1"] = np.asarray(a)
            values[f"{name}/{i}/run2"] = np.asarray(b)
    out = os.path.join(HERE, f"random_tf{major}.npz")
    np.savez_compressed(out, **values)
    print(f"wrote {out}: {len(values)} arrays, TF {tensorflow.__version__}")


if __name__ == "__main__":
    main()
