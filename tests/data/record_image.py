"""Records what real TensorFlow's tf.image gives for tests/ops/image_cases.py.

    $FLOWLOOM_TF_PYTHON tests/data/record_image.py      # TF 2.x -> tests/data/image_tf2.npz
    $FLOWLOOM_TF1_PYTHON tests/data/record_image.py     # TF 1.15 -> tests/data/image_tf1.npz

Each case's fetched values are stored as CASE/out<i> and CASE/grad<i>; a case TF cannot run
is reported and left out. The error classes of ERROR_CASES go to image_errors_tf<major>.json.
"""

import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "ops"))

import image_cases  # noqa: E402


def main():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow

    major = tensorflow.__version__.split(".")[0]
    if major == "1":
        tf = tensorflow
    else:
        import tensorflow.compat.v1 as tf

        tf.disable_v2_behavior()
    values = {}
    for name, fn in image_cases.CASES.items():
        try:
            got, n_out = image_cases.run_case(tf, fn)
        except Exception as e:  # noqa: BLE001 - report and go on
            print(f"skipped {name}: {type(e).__name__}: {str(e).splitlines()[0]}")
            continue
        for i, v in enumerate(got):
            kind, idx = ("out", i) if i < n_out else ("grad", i - n_out)
            values[f"{name}/{kind}{idx}"] = np.asarray(v)
    errors = {name: image_cases.error_of(tf, fn) for name, fn in image_cases.ERROR_CASES.items()}
    with open(os.path.join(HERE, f"image_errors_tf{major}.json"), "w") as f:
        json.dump(errors, f, indent=1, sort_keys=True)
    out = os.path.join(HERE, f"image_tf{major}.npz")
    np.savez_compressed(out, **values)
    print(f"wrote {out}: {len(values)} arrays, TF {tensorflow.__version__}")


if __name__ == "__main__":
    main()
