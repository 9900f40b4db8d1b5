"""Records what TensorFlow 1.15 gives for image_io_programs.py.

Run: $FLOWLOOM_TF1_PYTHON tests/data/record_image_io.py
(writes tests/data/image_io_tf1.json).
"""

import json
import os
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import image_io_programs  # noqa: E402
from image_io_ops import tf_ops  # noqa: E402

with tempfile.TemporaryDirectory() as work:
    result = image_io_programs.program(tf, tf_ops(), work)
    # The work directory's name differs between runs: outcomes name it as WORKDIR.
    text = json.dumps(result, sort_keys=True, indent=0).replace(work, "WORKDIR")
with open(os.path.join(HERE, "image_io_tf1.json"), "w") as f:
    f.write(text + "\n")
print("recorded", len(result), "cases")
