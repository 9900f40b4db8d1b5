"""Records TF 1.15's canned estimators with partitioners (tests/data/partitioned_estimator_cases.py):
each case trains 3 steps; its checkpoint goes to tests/data/partitioned_estimators/<case>/
and the checkpoint's variable names and shapes, and the probabilities predicted from it,
to tests/data/partitioned_estimators/tf.json.

    FLOWLOOM_TF1_PYTHON=/path/to/tf1.15/python
    TF_CPP_MIN_LOG_LEVEL=3 $FLOWLOOM_TF1_PYTHON tests/data/record_partitioned_estimators.py
"""

import glob
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import partitioned_estimator_cases as cases  # noqa: E402

OUT = os.path.join(HERE, "partitioned_estimators")
STEPS = 3


def main():
    import tensorflow.compat.v1 as tf

    tf.logging.set_verbosity(tf.logging.ERROR)
    result = {"tf_version": tf.VERSION}
    for case in cases.CASES:
        model_dir = tempfile.mkdtemp()
        estimator = cases.make(tf, case, model_dir)
        estimator.train(cases.input_fn(tf), steps=STEPS)
        prefix = os.path.join(model_dir, "model.ckpt-%d" % STEPS)
        target = os.path.join(OUT, case)
        shutil.rmtree(target, ignore_errors=True)
        os.makedirs(target)
        for path in glob.glob(prefix + ".*"):
            if not path.endswith(".meta"):
                shutil.copy(path, target)
        reader = tf.train.NewCheckpointReader(prefix)
        predictions = list(estimator.predict(cases.input_fn(tf, repeat=False)))
        result[case] = {
            "checkpoint": {k: list(v) for k, v in reader.get_variable_to_shape_map().items()},
            "probabilities": [p["probabilities"].tolist() for p in predictions],
        }
        shutil.rmtree(model_dir)
    with open(os.path.join(OUT, "tf.json"), "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
