"""Records what TensorFlow 1.15 yields for tests/data/iterator_saveable_programs.py, and one
checkpoint whose iterator state TF wrote (tests/data/iterator_state_tf1/).

  $FLOWLOOM_TF1_PYTHON tests/data/record_iterator_saveable.py
      -> tests/data/iterator_saveable_tf1.json, tests/data/iterator_state_tf1/
"""

import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import tensorflow as tf  # noqa: E402

import iterator_saveable_programs as programs  # noqa: E402


def main():
    out = {"tf_version": tf.__version__, "programs": {}}
    for name in programs.PROGRAMS:
        with tempfile.TemporaryDirectory() as d:
            out["programs"][name] = programs.run(tf, name, d)
    with tempfile.TemporaryDirectory() as d:
        out["estimator_hook"] = programs.estimator_hook(tf, d)
    with open(os.path.join(HERE, "iterator_saveable_tf1.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    target = os.path.join(HERE, "iterator_state_tf1")
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target)
    tf.reset_default_graph()
    it = tf.data.Dataset.range(10).make_one_shot_iterator()
    nxt = it.get_next()
    saveable = tf.data.experimental.make_saveable_from_iterator(it)
    saver = tf.train.Saver([saveable])
    with tf.Session() as sess:
        sess.run(nxt)
        saver.save(sess, os.path.join(target, "model"), write_meta_graph=False)
    os.remove(os.path.join(target, "checkpoint"))
    print("recorded", len(out["programs"]), "programs with TF", tf.__version__)


if __name__ == "__main__":
    main()
