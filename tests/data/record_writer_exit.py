"""Records what TF's never-closed FileWriter leaves on disk at exit: writer_exit_tf.json.

Run: $FLOWLOOM_TF_PYTHON tests/data/record_writer_exit.py
"""

import glob
import json
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
HERE = os.path.dirname(os.path.abspath(__file__))
logdir = tempfile.mkdtemp()
subprocess.run([sys.executable, os.path.join(HERE, "writer_exit_program.py"), logdir],
               check=True, env=os.environ)
import tensorflow.compat.v1 as tf  # noqa: E402

events = []
for path in glob.glob(os.path.join(logdir, "events.out.tfevents.*")):
    for e in tf.train.summary_iterator(path):
        what = e.WhichOneof("what")
        tags = [v.tag for v in e.summary.value] if what == "summary" else []
        events.append({"step": e.step, "what": what, "tags": tags})
with open(os.path.join(HERE, "writer_exit_tf.json"), "w") as f:
    json.dump(events, f, indent=1)
print(len(events), "events")
