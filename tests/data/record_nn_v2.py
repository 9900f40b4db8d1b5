"""Records what TensorFlow 1.15 gives for nn_v2_programs.py.

Run: $FLOWLOOM_TF1_PYTHON tests/data/record_nn_v2.py   (writes tests/data/nn_v2_tf.json).
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import gen_nn_ops, nn_impl, nn_ops  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nn_v2_programs  # noqa: E402

OPS = {"max_pool_v2": nn_ops.max_pool_v2, "avg_pool_v2": nn_ops.avg_pool_v2,
       "conv_transpose": nn_ops.conv_transpose, "softmax_v2": nn_ops.softmax_v2,
       "log_softmax_v2": nn_ops.log_softmax_v2, "moments_v2": nn_impl.moments_v2,
       "data_format_dim_map": nn_ops.data_format_dim_map,
       "data_format_vec_permute": nn_ops.data_format_vec_permute,
       "gen_max_pool_v2": gen_nn_ops.max_pool_v2,
       "max_pool_grad_grad": gen_nn_ops.max_pool_grad_grad,
       # TF 1.15's CPU kernels have no NCHW max pooling.
       "nchw": False}

result = nn_v2_programs.program(tf, OPS)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "nn_v2_tf.json"), "w") as f:
    json.dump(result, f, indent=None, sort_keys=True)
print("recorded", len(result), "values")
