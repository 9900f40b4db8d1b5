"""Records what TensorFlow 1.15 gives for nn_grad_programs.py.

Run: $FLOWLOOM_TF1_PYTHON tests/data/record_nn_grad.py   (writes tests/data/nn_grad_tf.json).
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402
from tensorflow.python.framework import test_util  # noqa: E402
from tensorflow.python.ops import gen_nn_ops, gradient_checker  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nn_grad_programs  # noqa: E402

OPS = {"xent": gen_nn_ops.softmax_cross_entropy_with_logits,
       "gradient_error": gradient_checker.compute_gradient_error,
       "bn_global": gen_nn_ops._batch_norm_with_global_normalization,
       "set_producer_version": test_util.set_producer_version}
result = nn_grad_programs.program(tf, OPS)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "nn_grad_tf.json"), "w") as f:
    json.dump(result, f, sort_keys=True)
print("recorded", len(result), "values")
