"""A FileWriter that is never closed still leaves all its events on disk when the program
ends, as TF's does (tests/data/writer_exit_tf.json, by record_writer_exit.py)."""

import glob
import json
import os
import subprocess
import sys

import flowloom as tf

DATA = os.path.join(os.path.dirname(__file__), "..", "data")


def test_unclosed_writer_events_reach_the_file(tmp_path):
    program = os.path.join(DATA, "writer_exit_program.py")
    subprocess.run([sys.executable, "-m", "flowloom", "run", program, str(tmp_path)],
                   check=True, timeout=300)
    events = []
    for path in glob.glob(os.path.join(str(tmp_path), "events.out.tfevents.*")):
        for e in tf.train.summary_iterator(path):
            what = e.WhichOneof("what")
            tags = [v.tag for v in e.summary.value] if what == "summary" else []
            events.append({"step": e.step, "what": what, "tags": tags})
    assert events == json.load(open(os.path.join(DATA, "writer_exit_tf.json")))
