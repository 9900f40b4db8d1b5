"""Runs a TF1 program under TF 2.x: `tensorflow` is TF's compat.v1 with v2 behaviour disabled.

Usage: python tf2_run.py script.py [args...]   (the harness's reference runner when only
$FLOWLOOM_TF_PYTHON is set; tf.contrib and tensorflow.examples do not exist there)
"""
import os
import runpy
import sys

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()
sys.modules["tensorflow"] = tf
script = sys.argv[1]
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
runpy.run_path(script, run_name="__main__")
