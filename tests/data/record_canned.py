"""Records TF 1.15's canned estimators on tests/estimator/canned/canned_cases.py: each case
is trained 5 steps (tf_random_seed 1); its final checkpoint goes to
tests/data/canned_ckpt/<case>/ and its model variables, evaluation metrics and predictions to
tests/data/canned_tf.json.

    FLOWLOOM_TF1_PYTHON=/path/to/tf1.15/python
    TF_CPP_MIN_LOG_LEVEL=3 $FLOWLOOM_TF1_PYTHON tests/data/record_canned.py
"""

import glob
import json
import os
import shutil
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from tests.estimator.canned import canned_cases  # noqa: E402

STEPS = 5


def encode(value):
    value = np.asarray(value)
    if value.dtype == object or value.dtype.kind in "SU":
        return {"dtype": "string", "shape": list(value.shape),
                "values": [v.decode() if isinstance(v, bytes) else str(v)
                           for v in value.ravel()]}
    return {"dtype": value.dtype.name, "shape": list(value.shape),
            "values": value.ravel().tolist()}


def copy_checkpoint(model_dir, target):
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target)
    prefix = f"model.ckpt-{STEPS}"
    for path in glob.glob(os.path.join(model_dir, prefix + ".*")):
        if not path.endswith(".meta"):
            shutil.copy(path, target)
    with open(os.path.join(target, "checkpoint"), "w") as f:
        f.write(f'model_checkpoint_path: "{prefix}"\nall_model_checkpoint_paths: "{prefix}"\n')


def main():
    import tensorflow as tf
    tf.logging.set_verbosity(tf.logging.ERROR)
    out = {"tf_version": tf.__version__, "steps": STEPS, "cases": {}}
    for name, fn in canned_cases.CASES.items():
        model_dir = tempfile.mkdtemp()
        config = tf.estimator.RunConfig(tf_random_seed=1)
        est, label_key = fn(tf, model_dir, config)
        est.train(canned_cases.input_fn(tf, label_key), steps=STEPS)
        metrics = est.evaluate(canned_cases.input_fn(tf, label_key), steps=1)
        predictions = canned_cases.predictions_of(est, tf)
        copy_checkpoint(model_dir, os.path.join(HERE, "canned_ckpt", name))
        out["cases"][name] = {
            "variables": canned_cases.model_variables(est),
            "all_variables": sorted(est.get_variable_names()),
            "metrics": {k: float(v) for k, v in metrics.items()},
            "predictions": {k: encode(v) for k, v in predictions.items()}}
        shutil.rmtree(model_dir)
    with open(os.path.join(HERE, "canned_tf.json"), "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)


if __name__ == "__main__":
    main()
