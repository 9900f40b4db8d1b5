"""Records TF 1.15's Igamma, Igammac, IgammaGradA, Zeta, Polygamma, Betainc values and gradients.

Run: $FLOWLOOM_TF1_PYTHON tests/data/record_gamma_ops.py (a TF 1.x interpreter); writes
tests/data/gamma_ops_tf1.json from the cases of tests/data/gamma_cases.py.
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import gen_math_ops  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gamma_cases  # noqa: E402

record = {"tensorflow": tf.__version__, "values": gamma_cases.run(tf.compat.v1, gen_math_ops)}
with open(os.path.join(HERE, "gamma_ops_tf1.json"), "w") as f:
    json.dump(record, f, indent=0, sort_keys=True)
    f.write("\n")
