"""Records TF 1.15's answers to paths with a scheme in every file consumer (uri_tf1.json) and
its readers' answers to TFRecord files that end inside a record (record_ends_tf1.json).

Run: $FLOWLOOM_TF1_PYTHON tests/data/record_uri.py
"""

import json
import os
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import record_end_cases  # noqa: E402
import uri_cases  # noqa: E402

work = os.path.realpath(tempfile.mkdtemp())
os.chdir(work)
result = uri_cases.observe(tf, work)
result.update(uri_cases.observe_glob(tf, work))
result.update(uri_cases.observe_gfile_local(tf, work))
result.update(uri_cases.observe_list_files(tf, work))
with open(os.path.join(HERE, "uri_tf1.json"), "w") as f:
    json.dump({"version": tf.__version__, "cases": result}, f, indent=1, sort_keys=True)
os.mkdir(os.path.join(work, "ends"))
ends = record_end_cases.observe(tf, os.path.join(work, "ends"))
ends.update(record_end_cases.observe_fixed_and_text(tf, os.path.join(work, "ends")))
with open(os.path.join(HERE, "record_ends_tf1.json"), "w") as f:
    json.dump({"version": tf.__version__, "cases": ends}, f, indent=1, sort_keys=True)
