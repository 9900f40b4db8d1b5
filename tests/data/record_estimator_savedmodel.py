"""Writes SavedModels exported by TF 1.15's Estimator, and what they serve, as test data; and
the checkpoint of a TF 1.15 Estimator's model_dir with what TF evaluates from it and after
training on from it.

Run: $FLOWLOOM_TF1_PYTHON tests/data/record_estimator_savedmodel.py
(writes tests/data/estimator_savedmodels/{raw,parsing,model_dir}/ and outputs.json there;
tests/estimator/test_export_interop.py loads them in flowloom).
"""

import json
import os
import shutil
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import estimator_programs as programs  # noqa: E402

OUT = os.path.join(HERE, "estimator_savedmodels")


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    md = tempfile.mkdtemp()
    est = tf.estimator.Estimator(programs.export_model_fn(tf), model_dir=md)
    est.train(programs._input_fn(tf), steps=3)
    outputs = {}
    for name, fn in programs.serving_receivers(tf).items():
        path = est.export_saved_model(os.path.join(md, "export"), fn).decode()
        shutil.copytree(path, os.path.join(OUT, name))
        outputs[name] = programs.serve(tf, path, name)
    outputs["model_dir"] = programs.resume_from_model_dir(tf, md, copy_to=os.path.join(
        OUT, "model_dir"))
    with open(os.path.join(OUT, "outputs.json"), "w") as f:
        json.dump(outputs, f, indent=1, sort_keys=True)
    shutil.rmtree(md)
    print("recorded", sorted(outputs))


if __name__ == "__main__":
    main()
