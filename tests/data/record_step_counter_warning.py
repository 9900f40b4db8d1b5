"""Records what TensorFlow 1.15 gives for step_counter_warning_program.py.

Run: $FLOWLOOM_TF1_PYTHON tests/data/record_step_counter_warning.py
(writes tests/data/step_counter_warning_tf.json).
"""

import contextlib
import io
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402
from tensorflow.python.training import monitored_session  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import step_counter_warning_program  # noqa: E402

out = io.StringIO()
with contextlib.redirect_stdout(out):
    step_counter_warning_program.main(tf, monitored_session._HookedSession)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "step_counter_warning_tf.json"), "w") as f:
    f.write(out.getvalue().strip().splitlines()[-1] + "\n")
print(out.getvalue())
