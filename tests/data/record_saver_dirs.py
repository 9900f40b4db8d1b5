"""Records TF's Saver.save into missing folders: saver_dirs_tf.json.

Run: $FLOWLOOM_TF_PYTHON tests/data/record_saver_dirs.py   (TF 2.21; TF 1.15 gives the same)
"""

import json
import os
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf_root  # noqa: E402

tf = tf_root.compat.v1
tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import saver_dir_cases  # noqa: E402

work = tempfile.mkdtemp()
os.chdir(work)
result = saver_dir_cases.observe(tf, work)
with open(os.path.join(HERE, "saver_dirs_tf.json"), "w") as f:
    json.dump({"version": tf_root.__version__, "cases": result}, f, indent=1, sort_keys=True)
print(json.dumps(result, indent=1))
